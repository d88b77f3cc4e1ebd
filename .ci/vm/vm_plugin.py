"""A pytest plugin for the tests in the VM (`-p vm_plugin`, loaded before the tests import
arena): the bots' start-up limit follows the emulated machine's measured speed. Under QEMU's
software emulation on a busy 2-core machine a Python bot takes 10-40 s to import and say
`ready` (0.1 s on the host); the start-up limit is not what these tests prove, and each test's
own move limits stay as they are. The plugin times one Python bot's start-up here (the host's
import of a bot and its harness) and gives every bot 15 times that, at least 120 s (a quiet
VM measured 2 s, and a load that comes later can make it 10-40 s) and at most 900 s."""

from __future__ import annotations

import subprocess
import sys
import time

import arena.defaults

#: the start-up limit in multiples of one measured bot start-up, and its bounds (s)
SPEED_FACTOR = 15
MIN_STARTUP_S = 120.0
MAX_STARTUP_S = 900.0


def _one_startup_s() -> float:
    """Seconds this machine takes to start Python and import a bot and its host."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "import arena.entrants.host, players.L1"],
                   check=True, timeout=MAX_STARTUP_S)
    return time.monotonic() - t0


MEASURED_S = _one_startup_s()
STARTUP_TIMEOUT_S = min(MAX_STARTUP_S, max(MIN_STARTUP_S, SPEED_FACTOR * MEASURED_S))
arena.defaults.STARTUP_TIMEOUT_S = STARTUP_TIMEOUT_S


DOCTOR = "cxarena doctor | "


def pytest_report_header() -> list[str]:
    """The start-up limit, and what `cxarena doctor` says in this very process (its user, its
    cgroup): .ci/vm/guest.py compares it with what the tests find (one Python start-up less
    than running the command, a minute under TCG)."""
    from arena.commands.doctor import report_lines

    return ([f"vm_plugin: one bot start-up took {MEASURED_S:.1f} s here: bots' start-up "
             f"limit {STARTUP_TIMEOUT_S:g} s ({SPEED_FACTOR}x, {MIN_STARTUP_S:g}-"
             f"{MAX_STARTUP_S:g} s)"]
            + [DOCTOR + line for line in report_lines()])
