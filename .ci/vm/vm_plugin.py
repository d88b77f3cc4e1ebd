"""A pytest plugin for the tests in the VM (`-p vm_plugin`, loaded before the tests import
arena): the bots' start-up limit is raised from 30 s to 300 s. Under QEMU's software emulation
on a busy 2-core machine a Python bot takes 10-40 s to import and say `ready`; the start-up
limit is not what these tests prove, and each test's own move limits stay as they are."""

from __future__ import annotations

import arena.defaults

STARTUP_TIMEOUT_S = 300.0
arena.defaults.STARTUP_TIMEOUT_S = STARTUP_TIMEOUT_S


DOCTOR = "cxarena doctor | "


def pytest_report_header() -> list[str]:
    """The start-up limit, and what `cxarena doctor` says in this very process (its user, its
    cgroup): .ci/vm/guest.py compares it with what the tests find (one Python start-up less
    than running the command, a minute under TCG)."""
    from arena.commands.doctor import report_lines

    return ([f"vm_plugin: bots' start-up limit {STARTUP_TIMEOUT_S:g} s (QEMU TCG)"]
            + [DOCTOR + line for line in report_lines()])
