"""End-to-end tournaments with real bot processes (L0, L1 and small test bots written here):
every game stored once, points and fault columns right, standings files agree with the stored
games; SIGKILL part-way and resume; Ctrl-C; a changed config refused."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from arena.cli import main
from arena.records import GameRecord, Reason, StoredGame
from arena.results.standings import compute_standings
from arena.results.store import ResultStore
from arena.tournament.config import load_config
from arena.tournament.schedule import make_schedule
from tests.conftest import sigint_state
from tests.helpers import JUDGE, SLEEPY, board, columns, db_count, wait_gone

pytestmark = pytest.mark.slow

CRASH3 = textwrap.dedent("""\
    import random

    from arena.player import CXPlayer


    class Crash3(CXPlayer):
        \"\"\"Plays randomly and raises on its third move.\"\"\"

        def initPlayer(self, M, N, K, first, timeout_in_secs):
            self.rng = random.Random(self.seed)
            self.moves = 0

        def selectColumn(self, B):
            self.moves += 1
            if self.moves == 3:
                raise RuntimeError("boom on my third move")
            return self.rng.choice(B.getAvailableColumns())

        def playerName(self):
            return "crash3"
    """)

#: the sleepy bot of these tests takes the delay of its moves from a file beside it (read at
#: each move): a test that interrupts a run slows the games still to play once it is about to
#: interrupt, so that a busy machine cannot finish the run before the interruption arrives
SLOW_S, DELAY_FILE = 0.3, "sleepy.delay"
SLEEPY_HELD = SLEEPY.replace("import time\n", "import pathlib\nimport time\n", 1).replace(
    "time.sleep(self.delay_s)",
    "time.sleep(_delay_s(self.delay_s))", 1) + textwrap.dedent(f"""\


    def _delay_s(default):
        try:
            return float(pathlib.Path(__file__).with_name({DELAY_FILE!r}).read_text())
        except (OSError, ValueError):
            return default
    """)
assert SLEEPY_HELD.count("_delay_s(") == 2


def write_config(tmp_path: Path, players: str, boards: str, name: str = "e2e",
                 extra: str = "") -> Path:
    (tmp_path / "crash3.py").write_text(CRASH3)
    (tmp_path / "sleepy.py").write_text(SLEEPY_HELD)
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"name: {name}\nplayers: {players}\nboards: {boards}\ntimeout_s: 0.5\n"
                   f"grace_s: 0.05\nworkers: 2\nseed: 11\nmemory_limit_mb: 1024\n{extra}")
    return cfg


def stored(results: Path) -> list[tuple[str, GameRecord, str, str]]:
    with ResultStore(results / "games.sqlite", create=False) as s:
        return [(g.game_id, g.record, g.player1, g.player2) for g in s.games()]


def _as_a_terminal_starts_it() -> None:
    """In the child before it runs cxarena: Ctrl-C as a shell gives a job it starts, whatever
    this test process inherited (an ignored SIGINT is inherited through exec, and Python then
    leaves it ignored: the run never saw its Ctrl-C and finished, exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def start(cfg: Path, results: Path, mark: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, CXARENA_TEST_MARK=mark)
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", str(cfg), "--results", str(results),
         "--quiet"], cwd=cfg.parent, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_as_a_terminal_starts_it)


def wait_for_games(proc: subprocess.Popen[bytes], cfg: Path, results: Path, n: int) -> None:
    """Until `n` games are stored; from the (n-1)-th on, the sleepy bot's later moves take
    SLOW_S (below the limit), so the run is still going when the caller interrupts it."""
    deadline = time.monotonic() + 60
    delay = cfg.parent / DELAY_FILE
    while (count := db_count(results)) < n:
        if count >= n - 1 and not delay.exists():
            delay.write_text(str(SLOW_S))
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "no games stored within 60 s"
        time.sleep(0.02)
    if not delay.exists():
        delay.write_text(str(SLOW_S))


def resume_fast(cfg: Path) -> None:
    """The games left to play take the sleepy bot's usual time again."""
    (cfg.parent / DELAY_FILE).unlink(missing_ok=True)


def comparable(results: Path) -> tuple[object, ...]:
    """The standings without the measured move times (those differ between runs)."""
    with ResultStore(results / "games.sqlite", create=False) as s:
        games = list(s.games())
        names = [p["name"] for p in json.loads(s.get_meta("config") or "{}")["players"]]
    st = compute_standings(names, games)
    rows = tuple((r.rank, r.player, r.points, r.games, r.wins, r.draws, r.losses, r.timeouts,
                  r.illegal, r.crashes, round(r.elo, 6)) for r in st.ranking)
    plays = sorted((g.game_id, columns(g.record), g.record.winner, g.record.reason)
                   for g in games)
    return rows, plays, st.cross


def test_tournament_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, "[L0, L1, {spec: crash3.py, name: crasher}]",
                       "[[4, 4, 3], [5, 4, 4], [4, 5, 4]]")
    results = tmp_path / "out"
    assert main(["tournament", str(cfg), "--results", str(results)]) == 0
    printed = capsys.readouterr().out
    assert "## Ranking" in printed and "18 of 18 games stored" in printed

    schedule = make_schedule(load_config(cfg), judge=JUDGE)
    games = stored(results)
    assert len(games) == 18 == len(schedule)
    assert sorted(g[0] for g in games) == sorted(g.game_id for g in schedule)
    by_id = {g.game_id: g for g in schedule}
    crashes_by = {"L0": 0, "L1": 0, "crasher": 0}
    decisive = draws = 0
    for gid, rec, p1, p2 in games:
        spec = by_id[gid]
        assert (p1, p2, rec.seed, board(rec)) == (spec.p1, spec.p2, spec.seed,
                                                              spec.board)
        assert rec.game_id == gid and rec.version
        assert rec.n_moves == len(rec.times_ms)
        if rec.winner is None:
            draws += 1
        else:
            decisive += 1
        if rec.reason is Reason.CRASH:
            offender = p1 if rec.offender == 1 else p2
            crashes_by[offender] += 1
            assert offender == "crasher" and "boom on my third move" in rec.detail
        else:
            assert rec.reason in (Reason.CONNECT, Reason.DRAW), rec
    assert crashes_by["crasher"] > 0

    rows = list(csv.DictReader((results / "standings.csv").open()))
    assert list(rows[0])[:10] == ["rank", "player", "points", "games", "wins", "draws",
                                  "losses", "timeouts", "illegal", "crashes"]
    points = {r["player"]: int(r["points"]) for r in rows}
    assert sum(points.values()) == 3 * decisive + 2 * draws
    assert {r["player"]: int(r["crashes"]) for r in rows} == crashes_by
    assert all(int(r["timeouts"]) == 0 and int(r["illegal"]) == 0 for r in rows)
    assert all(int(r["games"]) == 12 for r in rows)
    # standings.csv is exactly what the stored games give
    st = compute_standings(["L0", "L1", "crasher"],
                           [StoredGame(g[0], 1, g[2], g[3], g[1]) for g in games])
    assert (results / "standings.csv").read_text() == st.to_csv()
    assert "## Crosstable" in (results / "standings.md").read_text()
    log = (results / "arena.log").read_text()
    assert "event=fault reason=crash offender=crasher" in log
    assert "worker-0" in log and "worker-1" in log and "event=run-end" in log

    # report: the same standings again, and every record as JSON lines
    assert main(["report", str(results), "--csv"]) == 0
    assert capsys.readouterr().out == st.to_csv()
    assert main(["report", str(results)]) == 0
    assert "## Ranking" in capsys.readouterr().out
    assert main(["report", str(results), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 18
    recs = [GameRecord.from_dict(json.loads(line)) for line in lines]
    assert {r.game_id for r in recs} == set(by_id)

    # rerun: nothing to play; a changed config is refused; --fresh starts over
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet"]) == 0
    assert len(stored(results)) == 18
    cfg.write_text(cfg.read_text().replace("seed: 11", "seed: 12"))
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet"]) == 2
    assert "changed: seed" in capsys.readouterr().err
    assert len(stored(results)) == 18
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet", "--fresh"]) == 0
    fresh = stored(results)
    assert len(fresh) == 18
    assert {g[1].seed for g in fresh}.isdisjoint({g[1].seed for g in games})  # new seed
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, "[L0, L1, {spec: sleepy.py, name: sleepy}]",
                       "[[4, 4, 3], [5, 4, 4], [4, 5, 4], [5, 5, 4]]")
    total = len(make_schedule(load_config(cfg), judge=JUDGE))
    results, mark = tmp_path / "killed", uuid.uuid4().hex
    proc = start(cfg, results, mark)
    wait_for_games(proc, cfg, results, 4)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {g[0] for g in stored(results)}
    assert 4 <= len(before) < total
    # idle bots are frozen between games and cannot notice their worker died; the rerun
    # kills such orphans of its results directory before it starts
    orphans = wait_gone(mark, timeout_s=2.0)

    # resume: exactly the missing games are played, none twice
    resume_fast(cfg)
    proc = start(cfg, results, mark)
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode() if proc.stderr else ""
    after = stored(results)
    assert len(after) == total == len({g[0] for g in after})
    assert before <= {g[0] for g in after}
    log = (results / "arena.log").read_text()
    assert f"stored={len(before)} to-play={total - len(before)}" in log
    assert "event=duplicate" not in log
    assert ("event=orphans-killed" in log) == bool(orphans)
    assert wait_gone(mark) == [], "bot processes left behind"

    reference = tmp_path / "straight"
    assert main(["tournament", str(cfg), "--results", str(reference), "--quiet"]) == 0
    assert comparable(results) == comparable(reference)


def test_kill_9_of_the_run_alone_leaves_no_traceback(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`kill -9` of the tournament's own process (its workers left running): the workers end
    quietly, no BrokenPipeError traceback each, no warning of leaked semaphores; the stored
    games stay."""
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, "[L0, L1, {spec: sleepy.py, name: sleepy}]",
                       "[[4, 4, 3], [5, 4, 4], [4, 5, 4], [5, 5, 4]]")
    results, mark = tmp_path / "killed", uuid.uuid4().hex
    proc = start(cfg, results, mark)
    wait_for_games(proc, cfg, results, 4)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()  # to its end: every process that held it is gone
    proc.wait()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert "leaked semaphore" not in err, err
    assert len(stored(results)) >= 4
    # the bots idle and frozen between games are the rerun's to kill (the test above): here
    # the rerun would be the next test's, so they are killed now
    resume_fast(cfg)
    proc = start(cfg, results, mark)
    assert proc.wait(timeout=120) == 0
    assert wait_gone(mark) == [], "bot processes left behind"


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, "[L0, {spec: sleepy.py, name: sleepy}, "
                                 "{spec: sleepy.py, name: sleepy2}]",
                       "[[5, 5, 4], [4, 5, 4]]")
    total = len(make_schedule(load_config(cfg), judge=JUDGE))
    results, mark = tmp_path / "out", uuid.uuid4().hex
    proc = start(cfg, results, mark)
    wait_for_games(proc, cfg, results, 2)
    assert sigint_state(proc.pid) == (False, False)  # (ignored, blocked)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    assert proc.wait(timeout=60) == 130
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert "run the same command again to resume" in err
    assert wait_gone(mark, timeout_s=3.0) == []
    kept = len(stored(results))
    assert 2 <= kept < total
    assert (results / "standings.csv").is_file()
    resume_fast(cfg)
    proc = start(cfg, results, mark)
    assert proc.wait(timeout=120) == 0
    assert len(stored(results)) == total


def test_a_changed_bot_is_never_silently_mixed_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Editing a bot's file after its games were stored: the rerun refuses and names the bot;
    --replay-changed replays exactly that bot's games and keeps the others; the standings name
    the code they were computed from."""
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, "[L0, L1, crash3.py]", "[[4, 4, 3]]")
    results = tmp_path / "out"
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet"]) == 0
    before = {gid: rec for gid, rec, _, _ in stored(results)}
    assert len(before) == 6
    codes = {rec.code1 for rec in before.values()}
    assert len(codes) == 3 and None not in codes
    capsys.readouterr()

    # unchanged: nothing to play, nothing refused
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet"]) == 0
    assert capsys.readouterr().out.count("6 of 6 games stored") == 1

    bot = tmp_path / "crash3.py"
    bot.write_text(bot.read_text().replace("boom on my third move", "boom, edited"))
    assert main(["tournament", str(cfg), "--results", str(results), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "crash3" in err and "--replay-changed" in err and "--fresh" in err
    assert "L0 (" not in err and "L1 (" not in err
    assert {gid for gid, *_ in stored(results)} == set(before)  # nothing touched

    assert main(["tournament", str(cfg), "--results", str(results), "--quiet",
                 "--replay-changed"]) == 0
    after = {gid: rec for gid, rec, _, _ in stored(results)}
    assert set(after) == set(before)
    for gid, rec in after.items():
        if "crash3" in gid:
            assert rec.started_at != before[gid].started_at  # played again
            assert "boom, edited" in rec.stderr_tail
        else:
            assert rec.to_json() == before[gid].to_json()  # kept as it was
    md = (results / "standings.md").read_text()
    new_code = next(r.code1 for r in after.values() if r.player1 == "crash3.py")
    assert "## Code" in md and new_code in md
    assert new_code not in {r.code1 for r in before.values()}
