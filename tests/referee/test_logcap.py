"""Capped bot logs (arena/referee/logcap.py, issue #30 part 5): of each game a bot's log keeps
the exact first and last bytes of its stderr with a marker between them; a folder's logs share
a budget past which only tails are kept; a bot that floods stderr never blocks and cannot write
once it is gone."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import defaults
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee.logcap import (
    BUDGET_FILE,
    CappedLog,
    HeadTail,
    LogBudget,
    marker,
    over_budget_note,
)
from arena.referee.process import BotProcess
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import ZOO, zoo

KiB = 1024
HEAD, TAIL = defaults.BOT_LOG_HEAD_KB * KiB, defaults.BOT_LOG_TAIL_KB * KiB


def kept(data: bytes, head: int, tail: int) -> bytes:
    """What a section of `data` must keep: all of it, or head + marker + tail."""
    if len(data) <= head + tail:
        return data
    return data[:head] + marker(len(data) - head - tail) + (data[-tail:] if tail else b"")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# ------------------------------------------------------------------------------ units
def test_head_tail_keeps_exact_head_and_tail_and_counts_the_cut() -> None:
    ht = HeadTail(4, 3)
    assert ht.feed(b"ab") == b"ab" and ht.rest() == b""
    assert ht.feed(b"cdef") == b"cd" and ht.rest() == b"ef"  # fits: no marker
    assert ht.feed(b"ghij") == b"" and ht.cut == 3
    assert ht.rest() == marker(3) + b"hij"
    assert marker(209_715_200) == b"\n[... 209,715,200 bytes cut by cxarena ...]\n"
    big = bytes(range(256)) * 100
    one = HeadTail(10, 20)
    assert one.feed(big) + one.rest() == kept(big, 10, 20)


def test_capped_log_sections_sync_and_close(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    log = CappedLog(str(path), head=8, tail=6)
    w = os.dup(log.child_fd)
    log.started()
    try:
        write_all(w, b"startup!")  # the pre-game section: fits exactly
        log.section("===== game 1 =====")
        write_all(w, b"0123456789" * 5)
        log.sync()
        assert path.read_bytes() == (b"startup!===== game 1 =====\n"
                                     + kept(b"0123456789" * 5, 8, 6))
        write_all(w, b"END")
        log.sync()  # the tail is rewritten in place, the marker counts again
        assert path.read_bytes().endswith(marker(50 + 3 - 14) + b"789END")
        log.close()
        with pytest.raises(BrokenPipeError):  # gone: nothing reaches the log any more
            os.write(w, b"more")
        assert path.read_bytes().endswith(b"789END")
    finally:
        os.close(w)
        log.close()


@settings(max_examples=40, deadline=None)
@given(head=st.integers(0, 40), tail=st.integers(0, 40),
       ops=st.lists(st.one_of(st.binary(max_size=120), st.sampled_from(["sync", "section"])),
                    max_size=25))
def test_property_kept_text_is_exact_head_marker_exact_tail(
        tmp_path_factory: pytest.TempPathFactory, head: int, tail: int,
        ops: list[bytes | str]) -> None:
    """For any sequence of writes (and syncs and new sections, with the reader thread draining
    at any moment), the log is, per section, its header and then the exact text if it fits or
    else its exact head, the marker with the number of bytes cut, and its exact tail."""
    path = tmp_path_factory.mktemp("prop") / "bot.log"
    log = CappedLog(str(path), head=head, tail=tail)
    w = os.dup(log.child_fd)
    log.started()
    expected, section, n = b"", b"", 0
    try:
        for op in ops:
            if op == "sync":
                log.sync()
            elif op == "section":
                n += 1
                log.section(f"== {n} ==")
                expected += kept(section, head, tail) + f"== {n} ==\n".encode()
                section = b""
            else:
                assert isinstance(op, bytes)
                write_all(w, op)
                section += op
    finally:
        os.close(w)
        log.close()
    assert path.read_bytes() == expected + kept(section, head, tail)


def test_budget_is_shared_and_refunded(tmp_path: Path) -> None:
    file = str(tmp_path / BUDGET_FILE)
    a, b = LogBudget(file, 1000), LogBudget(file, 1000)
    assert a.reserve(600) and not b.reserve(600) and b.reserve(400)
    assert a.used() == 1000
    a.charge(-100)
    assert b.used() == 900
    a.release_all()
    assert b.used() == 400
    a.close()
    b.close()


def test_over_budget_a_section_keeps_only_its_tail(tmp_path: Path) -> None:
    budget = LogBudget(str(tmp_path / BUDGET_FILE), 400)
    log = CappedLog(str(tmp_path / "bot.log"), budget, head=100, tail=100, over_budget_tail=10)
    w = os.dup(log.child_fd)
    log.started()
    try:
        # each section reserves its worst case (100 + 100 + a marker) until it ends
        log.section("game 1")  # (the empty pre-game section gave its reservation back)
        data = bytes(range(65, 91)) * 20
        write_all(w, data)
        log.section("game 2")  # game 1 took ~250 bytes: no room left for 2's worst case
        write_all(w, data)
        log.close()
        text = (tmp_path / "bot.log").read_bytes()
        note = over_budget_note(400, 10)
        assert text == (b"game 1\n" + kept(data, 100, 100) + b"game 2\n"
                        + marker(len(data) - 10, note) + data[-10:])
        assert b"reached their budget of" in marker(1, note)
        assert budget.used() == len(text)  # every byte on disk is counted, nothing more
    finally:
        os.close(w)
        log.close()
        budget.close()


def test_a_flooding_process_never_blocks_and_its_stderr_tail_works(tmp_path: Path) -> None:
    """64 MiB written by `head` in a child: the reader drains it while the referee thread does
    nothing; the file stays capped; the process's stderr tail is its real last line."""
    proc = BotProcess(["sh", "-c", "{ head -c 67108864 /dev/zero | tr '\\0' x; echo; echo LAST; "
                       "} >&2; read x"], log_path=str(tmp_path / "bot.log"), env=dict(os.environ))
    try:
        t0 = time.monotonic()
        while "LAST" not in proc.stderr_tail() and time.monotonic() - t0 < 20:
            time.sleep(0.05)
        assert proc.stderr_tail().endswith("LAST")
        size = os.path.getsize(tmp_path / "bot.log")
        assert size <= HEAD + TAIL + 100
        assert proc.log_size() == size
    finally:
        proc.close()


# ------------------------------------------------------------------ the attacking bot
def _bomb_chunk(k: int) -> bytes:
    spec = importlib.util.spec_from_file_location("stderr_bomb", ZOO / "stderr_bomb.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return bytes(mod.chunk(k))


def test_a_bot_writing_200_mib_per_game_leaves_capped_logs(tmp_path: Path) -> None:
    """4 games of a bot that writes 200 MiB to stderr in initPlayer, then raises: every game's
    log keeps the bot's real first 64 KiB, a marker with the bytes cut, its real last 64 KiB
    (the traceback); with a budget of 0.3 MiB for the folder, the games past it keep only their
    last 4 KiB. The logs take well under 1 MiB on disk (the 800 MiB of before)."""
    logs = tmp_path / "logs"
    # room for two games' heads and tails: each open section reserves its worst case (~128
    # KiB), the opponent's (reused) too, the bomb's finished ones take ~128 KiB each
    budget_mb = 0.45
    settings = MatchSettings(limits=Limits(timeout_s=20.0), log_dir=str(logs),
                             isolation="none", log_budget_mb=budget_mb)
    bomb, other = parse_spec(zoo("stderr_bomb.py")), parse_spec("L0")
    t0 = time.monotonic()
    with Referee(settings) as referee:
        records = [referee.play(other, bomb, course_game(4, 4, 3), seed=i) for i in range(4)]
    elapsed = time.monotonic() - t0
    for rec in records:
        assert rec.reason is Reason.CRASH and rec.offender == 2, rec.detail
        assert "the stderr bomb went off" in rec.stderr_tail
    files = sorted(logs.glob("*stderr_bomb*.log"))
    assert len(files) == 4  # one process per game (each crashed); the opponent's is reused
    on_disk = sum(f.stat().st_size for f in logs.rglob("*") if f.is_file())
    assert on_disk < budget_mb * 2**20 + 4 * (8 * KiB)
    first, last = _bomb_chunk(0), _bomb_chunk(199)
    full = tail_only = 0
    for f in files:
        text = f.read_bytes()
        header, body = text.split(b"this bot moves second =====\n")
        assert header.startswith(b"===== cxarena game ")
        assert body.count(b"bytes cut by cxarena") == 1
        written, after = body.split(b"Traceback", 1)
        traceback = b"Traceback" + after
        assert traceback.rstrip().endswith(b"RuntimeError: zoo: the stderr bomb went off")
        if body.startswith(first[:HEAD]):  # head and tail
            full += 1
            cut = 200 * 2**20 + len(traceback) - HEAD - TAIL
            assert body[:HEAD + len(marker(cut))] == first[:HEAD] + marker(cut)
            assert last.endswith(written[HEAD + len(marker(cut)):])
            assert len(body) == HEAD + len(marker(cut)) + TAIL
        else:  # past the budget: the marker says why, then the last 4 KiB
            tail_only += 1
            tail = defaults.LOG_TAIL_OVER_BUDGET_KB * KiB
            cut = 200 * 2**20 + len(traceback) - tail
            mark = marker(cut, over_budget_note(int(budget_mb * 2**20), tail))
            assert body.startswith(mark)
            assert last.endswith(written[len(mark):])
            assert len(body) == len(mark) + tail
    assert (full, tail_only) == (2, 2)
    assert elapsed < 40, elapsed


def test_a_tournament_results_folder_shares_one_budget(tmp_path: Path) -> None:
    """The workers of a tournament log into logs/worker-N/ and count against one budget in
    logs/ (MatchSettings.for_worker)."""
    settings = MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path / "logs"))
    one, two = settings.for_worker(0, None), settings.for_worker(1, None)
    assert one.log_dir != two.log_dir
    assert one.log_budget_file == two.log_budget_file == str(tmp_path / "logs" / BUDGET_FILE)


def test_a_bot_in_a_deep_folder_keeps_its_name_in_its_log(tmp_path: Path) -> None:
    """A log is named after the end of the bot's SPEC: a bot under a long path (a fresh clone
    in a deep temp folder) got a log named after the path's start, without its own name."""
    deep = tmp_path.joinpath(*(["a-long-folder-name"] * 5))
    deep.mkdir(parents=True)
    bot = deep / "my_own_bot.py"
    bot.write_bytes((Path(ZOO).parents[2] / "players" / "L0.py").read_bytes())
    assert len(str(bot)) > 100
    logs = tmp_path / "logs"
    with Referee(MatchSettings(limits=Limits(timeout_s=5.0), log_dir=str(logs),
                               isolation="none")) as referee:
        rec = referee.play(parse_spec(str(bot)), parse_spec("L0"), course_game(4, 4, 3), seed=1)
    assert rec.reason not in (Reason.CRASH, Reason.TIMEOUT), rec.detail
    assert len(list(logs.glob("*my_own_bot*.log"))) == 1, sorted(p.name for p in logs.iterdir())
