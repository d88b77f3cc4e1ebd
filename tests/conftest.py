"""Shared test helpers: the board sets from configs/boards.yaml, and the built-in bots' cycle
collection inside the test process (see `_bots_collect_their_own_garbage`)."""

from __future__ import annotations

import gc
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# No property test's point is its speed: Hypothesis's default deadline (200 ms an example) is
# a wall-clock assertion, and on a loaded machine an example that takes 0.1 ms alone took 289 ms
# (`test_newgame_round_trip`, `make test` beside nothing but its own four processes)
settings.register_profile("cxarena", deadline=None)
settings.load_profile("cxarena")


def board_set(name: str) -> list[tuple[int, int, int]]:
    with open(ROOT / "configs" / "boards.yaml") as f:
        return [tuple(b) for b in yaml.safe_load(f)[name]]  # type: ignore[misc]


COMPETITION = board_set("competition")
ALL_BOARDS = sorted(set(COMPETITION) | set(board_set("competition-large")))


class _YoungCollector:
    """The `gc` module as the built-in bots' helpers (`players._shared.common`) see it inside
    the test process: everything is the real module but `collect`, which collects the young
    generation only.

    A bot calls `release_frozen` (unfreeze, then a full collection) in every `initPlayer`, so
    that a bot process reused for many games frees each old game's search. In a bot's own
    process that heap is the bot's: about 40,000 objects, 12 ms. A test that makes a bot in
    the test process makes the full collection scan pytest's heap with every test module of the
    suite imported (290,000 objects, 130 ms and growing): `tests/players/test_bot_tactics.py`
    took 68 s in the suite's process and 6 s alone, all of the difference in those collections.
    What the collection is for is tested with the real one (`@pytest.mark.real_gc`,
    `tests/players/test_bot_memory.py`); what a bot plays does not depend on it.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(gc, name)

    @staticmethod
    def collect(generation: int = 2) -> int:
        return gc.collect(0)


@pytest.fixture(autouse=True)
def _bots_collect_their_own_garbage(request: pytest.FixtureRequest,
                                    monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if request.node.get_closest_marker("real_gc") is None:
        import players._shared.common as common
        monkeypatch.setattr(common, "gc", _YoungCollector())
    yield


def sigint_state(pid: int | str = "self") -> tuple[bool, bool]:
    """(ignored, blocked) of SIGINT in process `pid` (its main thread), as the kernel shows
    them in /proc: what a process started from it inherits (an ignored SIGINT through exec
    too). OSError when the process is gone."""
    status = Path(f"/proc/{pid}/status").read_text()
    bit = 1 << (signal.SIGINT - 1)
    ignored, blocked = (bool(int(status.split(f"{k}:", 1)[1].split()[0], 16) & bit)
                        for k in ("SigIgn", "SigBlk"))
    return ignored, blocked


@pytest.fixture(autouse=True)
def _sigint_left_as_found() -> Iterator[None]:
    """A test that leaves SIGINT ignored or blocked in the test process fails, and SIGINT is
    given back: a later test's subprocess would inherit it and never see its Ctrl-C (the
    Ctrl-C test's run then finished, exit 0)."""
    before, handler = sigint_state(), signal.getsignal(signal.SIGINT)
    yield
    after = sigint_state()
    if after != before:
        signal.signal(signal.SIGINT, handler if handler is not None else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        pytest.fail(f"this test left SIGINT {'ignored' if after[0] else 'blocked'} in the test "
                    f"process (was: ignored {bool(before[0])}, blocked {bool(before[1])})")
