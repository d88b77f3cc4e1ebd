"""Isolation (issue 16): the cheater zoo (tests/referee/zoo/cheaters/) plays sandboxed against L1
or alphabeta and touches nothing outside itself; the opponent is never charged; stored results
and the project's files stay as they were. Also: what still works through the sandbox (limits,
pinning, freezing, a data file beside the bot) and what the `isolation` setting resolves to.

Every cheater logs one ``CHEAT ...`` line per attempt, so a test also fails if an attempt was
never made. Skipped, with the reason, where this machine cannot isolate.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.entrants.exposure import bot_paths
from arena.entrants.specs import parse_spec
from arena.errors import UsageError
from arena.limits import Limits
from arena.records import GameRecord, Reason
from arena.referee import sandbox
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import _stat, cmdline, columns, frozen, tagged_pids, wait_until, zoo

CHEATERS = Path(__file__).resolve().parent / "zoo" / "cheaters"
_WHY_NOT = sandbox.probe()
needs_isolation = pytest.mark.skipif(_WHY_NOT is not None,
                                     reason=f"this machine cannot isolate bots: {_WHY_NOT}")
GAME = course_game(5, 6, 4)


def play(cheater: str, tmp_path: Path, options: dict[str, Any] | None = None,
         opponent: str = "L1", isolation: str = "namespaces",
         **settings: Any) -> tuple[GameRecord, str]:
    """One game, the cheater moving first; returns the record and the cheater's log."""
    logs = tmp_path / "logs"
    ms = MatchSettings(limits=Limits(timeout_s=settings.pop("timeout_s", 1.0)), log_dir=str(logs), isolation=isolation, **settings)
    with Referee(ms) as referee:
        rec = referee.play(parse_spec(str(CHEATERS / cheater)), parse_spec(opponent), GAME,
                           seed=5, options1=options)
    # every log but the opponent's (the cheater's log name may be cut short)
    log = "".join(p.read_text(errors="replace") for p in sorted(logs.glob("*.log"))
                  if not p.name.startswith(f"{opponent}-"))
    return rec, log


def cheat_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("CHEAT ")]


def assert_fair_game(rec: GameRecord) -> None:
    """The game was decided on the board, and the cheater (player 1) did not win it."""
    assert rec.offender is None, rec.detail  # nobody was charged, the opponent least of all
    assert rec.reason in (Reason.CONNECT, Reason.DRAW), rec.detail
    assert rec.extra["isolated"] is True


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ----------------------------------------------------------------------- the cheaters
@needs_isolation
def test_killer_of_the_issue_loses_on_the_board(tmp_path: Path) -> None:
    rec, log = play("killer.py", tmp_path, opponent="alphabeta")
    assert_fair_game(rec)
    assert rec.winner == 2  # alphabeta beats a bot that always plays the first free column
    assert "CHEAT kill by tag: sent to" in log


def test_killer_wins_by_a_crash_without_isolation(tmp_path: Path) -> None:
    """What isolation prevents (and proof that the test above can fail): the same bot, not
    isolated, kills its opponent (only the processes carrying this referee's tag)."""
    rec, log = play("killer.py", tmp_path, opponent="alphabeta", isolation="none")
    assert rec.extra["isolated"] is False
    assert rec.reason is Reason.CRASH and rec.offender == 2 and rec.winner == 1, rec.detail
    assert "SIGKILL" in rec.detail


@needs_isolation
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_signals_to_every_visible_process_reach_nothing_outside(tmp_path: Path,
                                                                sig: str) -> None:
    # a bystander of the same user, in a session of its own
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        rec, log = play("signaller.py", tmp_path, {"sig": sig})
        assert_fair_game(rec)
        line = next(ln for ln in cheat_lines(log)
                    if ln.startswith(f"CHEAT {sig} every visible process"))
        # what it could see and hit: its own sandbox (pid 1 is bwrap's init, which ignores it)
        visible = eval(line.split("(visible: ")[1].rstrip(")"))
        assert max(visible) < 10, visible
        assert bystander.poll() is None and _stat(bystander.pid)[0] != "T"
    finally:
        bystander.kill()
        bystander.wait()


@needs_isolation
def test_vandal_writes_nothing_and_reads_no_other_bot(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results" / "cup"
    results.mkdir(parents=True)
    db = results / "games.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE games (id TEXT PRIMARY KEY, record TEXT)")
        con.execute("INSERT INTO games VALUES ('g1', '{}')")
    con.close()
    players = ROOT / "players"
    before = {p.name: digest(p) for p in players.glob("*.py")}
    db_before = digest(db)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    mark = "cheater_was_here.py"
    try:
        rec, log = play("vandal.py", tmp_path, {
            "db": str(db), "players": str(players), "steal": str(players / "alphabeta.py")})
        assert_fair_game(rec)
        lines = cheat_lines(log)
        assert len(lines) == 5, log
        assert all(": blocked (" in line for line in lines), lines
        assert digest(db) == db_before
        assert {p.name: digest(p) for p in players.glob("*.py")} == before
        assert not (players / mark).exists()
        assert list(cwd.iterdir()) == []
    finally:
        (players / mark).unlink(missing_ok=True)


@needs_isolation
def test_network_is_cut(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        rec, log = play("network.py", tmp_path, {"port": port, "outside": "1.1.1.1:53"})
        assert_fair_game(rec)
        lines = cheat_lines(log)
        assert len(lines) == 2 and all(": blocked (" in line for line in lines), lines
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected


@needs_isolation
def test_snoop_sees_only_its_own_sandbox(tmp_path: Path) -> None:
    rec, log = play("snoop.py", tmp_path, {"pids": [os.getpid(), os.getppid()]})
    assert_fair_game(rec)
    lines = cheat_lines(log)
    assert lines[0].startswith("CHEAT visible processes: ")
    visible = eval(lines[0].split(": ", 1)[1])
    # bwrap's init and the bot itself, both running snoop.py: not the referee, not L1
    assert visible and all("snoop.py" in cmd for _, cmd in visible), visible
    for pid in (os.getpid(), os.getppid()):
        for what in ("read environ of", "read mem of", "ptrace"):
            line = next(ln for ln in lines if ln.startswith(f"CHEAT {what} {pid}:"))
            assert ": blocked (" in line, line
    for line in lines[1:]:  # whatever it reached is its own sandbox
        if "SUCCEEDED" in line:
            assert "snoop.py" in line and "pytest" not in line, line


@needs_isolation
@pytest.mark.parametrize("fresh", [True, False])
def test_no_process_outlives_the_game(tmp_path: Path, fresh: bool) -> None:
    mark = f"cxarena-lingerer-{uuid.uuid4().hex}"

    def lingering() -> list[int]:
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and mark in cmdline(int(p))]

    logs = tmp_path / "logs"
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(logs), fresh_process=fresh, isolation="namespaces")) as referee:
        rec = referee.play(parse_spec(str(CHEATERS / "lingerer.py")), parse_spec("L1"),
                           GAME, seed=5, options1={"mark": mark})
        assert_fair_game(rec)
        log = "".join(p.read_text() for p in logs.glob("*.log"))
        assert "CHEAT fork a process that outlives the game: started" in log
        if fresh:  # the game's process is gone, and with it everything it started
            assert wait_until(lambda: not lingering()), lingering()
        else:  # kept for the next game, and with it its detached grandchild (frozen or not)
            assert lingering()
    assert wait_until(lambda: not lingering()), lingering()
    assert wait_until(lambda: not tagged_pids(referee.tag))


@needs_isolation
@pytest.mark.skipif(sandbox._seccomp_filter() is None,
                    reason="libseccomp is not installed: a bot's child can leave its group")
def test_no_process_escapes_the_freeze(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(logs), isolation="namespaces")) as referee:
        rec = referee.play(parse_spec(str(CHEATERS / "escaper.py")), parse_spec("L1"),
                           GAME, seed=5)
        assert_fair_game(rec)
        log = "".join(p.read_text() for p in logs.glob("*.log"))
        assert "CHEAT setsid: blocked" in log and "CHEAT setpgid: blocked" in log, log
        # idle between games: everything in the escaper's sandbox, its spinning child too,
        # is in the process group the referee froze
        mine = [p for p in tagged_pids(referee.tag) if "escaper.py" in cmdline(p)]
        assert len(mine) == 4, [cmdline(p) for p in mine]  # bwrap, its init, bot, child
        assert len({os.getpgid(p) for p in mine}) == 1
        for pid in mine:
            assert wait_until(lambda: frozen(pid)), _stat(pid)  # noqa: B023


# ------------------------------------------------------- what works through the sandbox
@needs_isolation
def test_limits_pinning_and_freezing_reach_the_sandboxed_bot() -> None:
    cpu = max(os.sched_getaffinity(0))
    limit = 1536 * 2**20
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0, memory_limit_mb=None if (limit) is None else (limit) // 2**20), cpu=cpu, isolation="namespaces")) as referee:
        rec = referee.play(parse_spec("L0"), parse_spec(zoo("shellbot.sh")),
                           course_game(4, 4, 3), seed=1)
        assert rec.extra["isolated"] is True and rec.offender is None, rec.detail
        pids = tagged_pids(referee.tag)
        groups = {os.getpgid(p) for p in pids}
        assert len(groups) == 2  # one process group per bot: bwrap, its init, the bot
        bots = [p for p in pids if "bwrap" not in cmdline(p)]
        assert len(bots) == 2 and any("shellbot.sh" in cmdline(p) for p in bots)
        wrappers = [p for p in pids if os.getpgid(p) == p]  # bwrap leads the group
        assert sorted(sandbox.bot_pid(w) or 0 for w in wrappers) == sorted(bots)
        own_ns = os.readlink("/proc/self/ns/pid")
        for pid in pids:
            assert os.getpgid(pid) in groups
            assert os.sched_getaffinity(pid) == {cpu}
            assert resource.prlimit(pid, resource.RLIMIT_DATA) == (limit, limit)
            assert wait_until(lambda: frozen(pid))  # noqa: B023 (frozen when idle)
        for pid in bots:
            assert os.readlink(f"/proc/{pid}/ns/pid") != own_ns
            assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
    assert wait_until(lambda: not tagged_pids(referee.tag))


BOOK_BOT = '''
import sys
from pathlib import Path
from arena.player import CXPlayer

HERE = Path(__file__).resolve().parent


class BookBot(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.book = int((HERE / "book.txt").read_text())
        for path in (HERE.parent / "rival" / "rival.py", Path("/tmp/x"), Path.home() / "h",
                     HERE / "x"):
            try:
                path.write_text("x") if path.name in ("x", "h") else path.read_text()
                print(f"PEEK {path}: ok", file=sys.stderr)
            except OSError as e:
                print(f"PEEK {path}: {type(e).__name__}", file=sys.stderr)

    def selectColumn(self, B):
        cols = B.getAvailableColumns()
        return self.book if self.book in cols else cols[0]

    def playerName(self):
        return "book"
'''


@needs_isolation
def test_a_bot_reads_a_file_beside_it_but_not_another_bots_folder(tmp_path: Path) -> None:
    (tmp_path / "bookbot").mkdir()
    (tmp_path / "bookbot" / "bot.py").write_text(BOOK_BOT)
    (tmp_path / "bookbot" / "book.txt").write_text("2\n")
    (tmp_path / "rival").mkdir()
    (tmp_path / "rival" / "rival.py").write_text("SECRET = 1\n")
    logs = tmp_path / "logs"
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), isolation="namespaces", log_dir=str(logs))) as referee:
        rec = referee.play(parse_spec(str(tmp_path / "bookbot" / "bot.py")), parse_spec("L0"),
                           course_game(4, 5, 4), seed=1)
    assert rec.offender is None, rec.detail
    assert columns(rec)[0] == 2  # the book was read
    log = "".join(p.read_text() for p in logs.glob("*.log"))
    peek = dict(ln[5:].rsplit(": ", 1) for ln in log.splitlines() if ln.startswith("PEEK "))
    assert peek[str(tmp_path / "rival" / "rival.py")] == "FileNotFoundError"
    assert peek["/tmp/x"] == "ok"  # its private scratch
    assert peek["/tmp/h"] == "ok"  # HOME is the scratch too
    assert peek[str(tmp_path / "bookbot" / "x")] == "OSError"  # its own folder is read-only
    assert not (tmp_path / "bookbot" / "x").exists()


@needs_isolation
def test_the_referee_killed_leaves_no_sandbox_behind(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from arena.limits import Limits\n"
        "from arena.referee.referee import MatchSettings, Referee, course_game\n"
        "from arena.entrants.specs import parse_spec\n"
        "r = Referee(MatchSettings(limits=Limits(timeout_s=5.0), isolation='namespaces'))\n"
        "r.play(parse_spec('L0'), parse_spec(sys.argv[1]), course_game(4, 4, 3), 1)\n"
        "print(r.tag, flush=True)\n"
        "time.sleep(120)\n")
    p = subprocess.Popen([sys.executable, "-c", code, zoo("shellbot.sh")], cwd=tmp_path,
                         stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert p.stdout is not None
        tag = p.stdout.readline().strip()
        assert tag and len(tagged_pids(tag)) >= 6  # two sandboxes of three processes
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=5.0), tagged_pids(tag)


# --------------------------------------------------------------------- the setting
def test_isolation_setting_resolves(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sandbox.resolve("none").isolated is False
    assert sandbox.resolve("none").notice() == ""
    with pytest.raises(UsageError, match="isolation: expected one of auto, namespaces, none"):
        sandbox.resolve("chroot")
    with pytest.raises(ValueError, match="isolation"):
        MatchSettings(limits=Limits(timeout_s=1.0), isolation="chroot")
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.probe.cache_clear()
    try:
        auto = sandbox.resolve("auto")
        assert auto.isolated is False and "bwrap" in auto.reason
        assert auto.notice().startswith("warning: entrants were not isolated")
        with pytest.raises(UsageError, match="cannot isolate bots"):
            sandbox.resolve("namespaces")
        with Referee(MatchSettings(limits=Limits(timeout_s=1.0), isolation="auto")) as referee:
            rec = referee.play(parse_spec("L0"), parse_spec("L0"), course_game(4, 4, 3), seed=1)
        assert rec.extra["isolated"] is False
    finally:
        sandbox.probe.cache_clear()


# ------------------------------------------------------------ what a bot may read
def test_bot_paths_show_a_bot_its_own_files_only(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    players = ROOT / "players"
    arena_dir = str(ROOT / "arena")
    ab = bot_paths(parse_spec("alphabeta"))
    assert arena_dir in ab and str(players / "_shared") in ab
    assert str(players / "__init__.py") in ab and str(players / "alphabeta.py") in ab
    assert str(players) not in ab and str(players / "L1.py") not in ab

    # a bot in a folder of its own sees the folder (its data files too)
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "bot.py").write_text("")
    assert str(tmp_path / "alice") in bot_paths(parse_spec(str(tmp_path / "alice" /
                                                                      "bot.py")))
    # a bot in the shared working directory sees only the entries named after it
    monkeypatch.chdir(tmp_path)
    for name in ("bob.py", "bob_book.txt", "bob.data", "carol.py", "bobby.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "bob").mkdir()
    bob = bot_paths(parse_spec("bob.py"))
    assert {str(tmp_path / n) for n in ("bob.py", "bob_book.txt", "bob.data", "bob")} <= set(bob)
    assert not {str(tmp_path / n) for n in ("carol.py", "bobby.py")} & set(bob)
    assert str(tmp_path) not in bob
    # a program sees its own folder and what its arguments name
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "run.sh").write_text("")
    dave = bot_paths(parse_spec(f"exec:sh {tmp_path / 'dave' / 'run.sh'}"))
    assert str(tmp_path / "dave") in dave and str(tmp_path) not in dave
