"""The league's bot-log budget (issue 30): a student's bot that floods stderr in every game
cannot fill the disk. The league's workers count their bots' logs against one budget, in the
league's folder (`arena.league.worker.LOG_BUDGET_FILE`); past it, each game's log keeps only its
last few KiB, after a marker that says how much was cut and why (`arena.referee.logcap`).

The worker's own functions (claim, league_settings, play_pair, store_pair, as `run_worker` runs
them), with a small budget and the logs kept in a folder of the test's, to be measured."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from arena import defaults
from arena.league.worker import (
    LOG_BUDGET_FILE,
    Openings,
    claim,
    holder_name,
    league_settings,
    play_pair,
    store_pair,
)
from arena.records import Reason
from arena.referee.logcap import MARKER_MAX, LogBudget, over_budget_note
from arena.referee.referee import Referee
from tests.helpers import ZOO, make_league

KiB = 1024
HEAD_TAIL = (defaults.BOT_LOG_HEAD_KB + defaults.BOT_LOG_TAIL_KB) * KiB
OVER_BUDGET_TAIL = defaults.LOG_TAIL_OVER_BUDGET_KB * KiB
#: the bomb writes this many MiB to stderr in initPlayer, then raises (a crash), every game
BOMB_MIB = 8
BOMB = (ZOO / "stderr_bomb.py").read_bytes().replace(b"mib = 200", b"mib = %d" % BOMB_MIB)
#: room for about two games' heads and tails (each open section reserves its worst case)
BUDGET_MB = 0.5
PAIRS = 3  # 6 games, each with two fresh processes (a league plays every game afresh)
#: a game's header line in each log (its own words, then the game's id and board)
HEADER_MAX = 400
_MARKER = re.compile(rb"\[\.\.\. ([\d,]+) bytes cut by cxarena(.*?) \.\.\.\]")


def test_a_student_bot_flooding_stderr_keeps_the_league_logs_within_the_budget(
        tmp_path: Path) -> None:
    assert BOMB != (ZOO / "stderr_bomb.py").read_bytes()  # the zoo bot, writing less
    lg = make_league(tmp_path, {"ann": BOMB}, pairs=PAIRS, most=PAIRS)
    budget_file = lg.dir / LOG_BUDGET_FILE
    logs = tmp_path / "logs"
    openings, holder = Openings(None), holder_name("local")
    records = []
    job = claim(lg, holder, openings)
    assert job is not None
    # the worker's settings, with a small budget; the logs in a folder that outlives the
    # Referee (the worker's are in a temp folder, removed with it)
    settings = dataclasses.replace(league_settings(lg.config.play, True, str(budget_file),
                                                   log_budget_mb=BUDGET_MB),
                                   log_dir=str(logs))
    with Referee(settings) as referee:
        while job is not None:
            pair = play_pair(job, referee)
            assert store_pair(lg, job, pair) is not None
            records += pair
            job = claim(lg, holder, openings)
    assert len(records) == 2 * PAIRS
    for rec in records:  # each game: the bomb went off in initPlayer
        assert rec.reason is Reason.CRASH and "the stderr bomb went off" in rec.stderr_tail, \
            rec.detail

    files = sorted(logs.glob("*.log"))
    bombs = [f for f in files if not f.name.startswith("L0-")]
    assert len(bombs) == 2 * PAIRS and len(files) == 4 * PAIRS, [f.name for f in files]
    on_disk = sum(f.stat().st_size for f in files)
    written = 2 * PAIRS * BOMB_MIB * 2**20
    # the budget, plus what each section past it keeps (its tail and marker) and each game's
    # header, for the two sections (before the game, the game) of each process
    per_game = 2 * (2 * (OVER_BUDGET_TAIL + MARKER_MAX) + HEADER_MAX)
    assert on_disk <= BUDGET_MB * 2**20 + len(records) * per_game, (on_disk, written)
    # every byte on disk is counted in the league's counter, nothing more
    assert LogBudget(str(budget_file), None).used() == on_disk

    full = tail_only = 0
    for f in bombs:
        text = f.read_bytes()
        assert len(text) <= HEAD_TAIL + 2 * MARKER_MAX + HEADER_MAX  # a game's bound
        marks = _MARKER.findall(text)
        assert len(marks) == 1, marks  # one game per process: its bytes cut, said once
        cut, note = int(marks[0][0].replace(b",", b"")), marks[0][1]
        assert BOMB_MIB * 2**20 - HEAD_TAIL <= cut <= BOMB_MIB * 2**20, cut
        if note:  # past the budget: only the last few KiB, and why
            tail_only += 1
            assert note.decode() == over_budget_note(int(BUDGET_MB * 2**20), OVER_BUDGET_TAIL)
        else:
            full += 1
        assert text.rstrip().endswith(b"RuntimeError: zoo: the stderr bomb went off")
    # the budget holds three games' heads and tails (about 128 KiB each, while the next game's
    # two processes reserve their worst case); the games after keep their tails only
    assert (full, tail_only) == (3, 2 * PAIRS - 3)
