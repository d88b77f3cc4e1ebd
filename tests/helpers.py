"""Helpers shared by the tests (one home; no test module imports from another): the zoo of
misbehaving bots, process inspection, polling, the opening judge the commands use, a copy of the
project and the `cxarena` command run in it, tournament pieces, in-process bots and games, the
naive search references, Pons' positions, and the headless browser."""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.board import CXBoard, CXGameState
from arena.commands import opening_judge
from arena.competition.jobs import GameJob
from arena.competition.settings import PlaySettings
from arena.games import GAMES
from arena.player import CXPlayer
from arena.records import GameRecord, Reason, record_params
from arena.referee.containment import environ_value
from arena.tournament.config import PlayerEntry, TournamentConfig, built_config
from players._shared.engine import win_score
from tests.conftest import ROOT

#: the judge of generated openings, as the `cxarena` commands pass it
JUDGE = opening_judge()

ZOO = Path(__file__).resolve().parent / "referee" / "zoo"


def zoo(name: str) -> str:
    """The SPEC of a zoo bot: a .py file, or `exec:sh FILE` for a shell bot."""
    path = ZOO / name
    return f"exec:sh {path}" if name.endswith(".sh") else str(path)


# ----------------------------------------------------------------- process inspection
def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def live(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return _stat(pid)[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def frozen(pid: int) -> bool:
    """The process is stopped by SIGSTOP (state T), or frozen by its cgroup's freezer (state
    D, its v1 freezer group FROZEN or its v2 group's cgroup.events `frozen 1`)."""
    try:
        state = _stat(pid)[0]
        if state == "T":
            return True
        if state != "D":
            return False
        with open(f"/proc/{pid}/cgroup") as f:
            lines = f.read().splitlines()
    except (OSError, IndexError):
        return False
    for line in lines:
        _, ctrls, path = line.split(":", 2)
        try:
            if "freezer" in ctrls.split(","):
                with open(f"/sys/fs/cgroup/freezer{path}/freezer.state") as f:
                    return f.read().strip() == "FROZEN"
            if ctrls == "" and path != "/":
                for mount in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                    events = f"{mount}{path}/cgroup.events"
                    if os.path.exists(events):
                        with open(events) as f:
                            return "frozen 1" in f.read()
        except OSError:
            continue
    return False


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment carries CXARENA_TAG=tag: the bots a Referee started
    and everything they forked."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit()
            and environ_value(int(e), "CXARENA_TAG") == tag and live(int(e))]


def wait_until(cond: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    """Poll cond until true (killed processes take a moment to disappear)."""
    end = time.monotonic() + timeout_s
    while True:
        if cond():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.02)




def marked_processes(mark: str) -> list[int]:
    """Pids of live processes whose environment carries CXARENA_TEST_MARK=mark."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit()
            and environ_value(int(e), "CXARENA_TEST_MARK") == mark and live(int(e))]


def wait_gone(mark: str, timeout_s: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while (left := marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


# ------------------------------------------------------- the project copy and `cxarena` in it
def _shipped_players() -> set[str] | None:
    """The files of the repository's players/ that git tracks (paths relative to players/), or
    None when ROOT is not a git checkout. A bot a user made with `cxarena new-bot` in their
    checkout is not tracked, and no test may see it (it may be half written)."""
    try:
        r = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", "players"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0 or not r.stdout:
        return None
    return {str(Path(f).relative_to("players")) for f in r.stdout.split("\0") if f}


def _not_shipped(shipped: set[str] | None) -> Callable[[str, list[str]], set[str]]:
    """A copytree `ignore` that leaves out caches and the user's own (untracked) files."""
    caches = shutil.ignore_patterns("__pycache__", "*.pyc")

    def ignore(folder: str, names: list[str]) -> set[str]:
        out = set(caches(folder, names))
        if shipped is None:
            return out
        base = Path(folder).resolve().relative_to((ROOT / "players").resolve())
        for n in names:
            rel = str(base / n) if str(base) != "." else n
            if not any(s == rel or s.startswith(rel + "/") for s in shipped):
                out.add(n)
        return out
    return ignore


def project_copy(tmp_path: Path) -> Path:
    """arena/, players/ and configs/ copied into tmp_path (the copy's players/ is used); of
    players/ only the project's own files (not a bot the user added to their checkout)."""
    for d in ("arena", "configs"):
        shutil.copytree(ROOT / d, tmp_path / d,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(ROOT / "players", tmp_path / "players",
                    ignore=_not_shipped(_shipped_players()))
    return tmp_path


def cxarena(cwd: Path, *args: str, timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout_s)


def reference_bots() -> list[str]:
    """The Connect-X bots of the repository's own players/ (modules not starting with "_";
    the packages of other games' bots, players/othello/ and players/morris/, are not listed)."""
    shipped = _shipped_players()
    return [p.stem for p in (ROOT / "players").iterdir()
            if not p.name.startswith("_") and p.name not in GAMES
            and (p.suffix == ".py" or (p / "__init__.py").exists())
            and (shipped is None or p.name in shipped or f"{p.name}/__init__.py" in shipped)]


# ----------------------------------------------------------------------- tournament pieces
#: the boards of the small tournaments built in process: one far larger, so the order shows
SCHEDULE_BOARDS = ((4, 4, 4), (7, 6, 4), (5, 5, 4), (20, 20, 10))


def tournament_config(names: list[str], rounds: int = 1, seed: int = 7,
                      boards: tuple[tuple[int, int, int], ...] = SCHEDULE_BOARDS
                      ) -> TournamentConfig:
    return built_config("t.yaml", (PlayerEntry(n, "L0") for n in names),
                        PlaySettings(timeout_s=0.5), name="t", rounds=rounds, seed=seed,
                        boards=boards)


def cx_record(M: int, N: int, K: int, moves: tuple[int, ...] = (),
              opening: tuple[int, ...] = (), **fields: Any) -> GameRecord:
    """A record of a Connect-X game on board M, N, K whose moves are these columns (the
    `opening`'s first), as the referee writes it (`arena.records.record_fields`: the board in
    the game's parameters, the columns as move texts), with the other `fields`."""
    return GameRecord(game="connectx", game_params={"rows": M, "cols": N, "k": K},
                      move_texts=tuple(str(c) for c in moves),
                      opening_texts=tuple(str(c) for c in opening), **fields)


def columns(rec: GameRecord) -> tuple[int, ...]:
    """Every move of a Connect-X record as a column, the opening's first."""
    return tuple(int(t) for t in rec.texts)


def opening_columns(rec: GameRecord) -> tuple[int, ...]:
    """The opening of a Connect-X record as columns."""
    return tuple(int(t) for t in rec.opening_moves)


def board(rec: GameRecord) -> tuple[int, int, int]:
    """(M, N, K) of a Connect-X record (its parameters rows, cols, k)."""
    p = rec.params
    return p["rows"], p["cols"], p["k"]


def fake_record(g: GameJob, **extra: object) -> GameRecord:
    return GameRecord(p1=g.spec1, p2=g.spec2, names=(g.p1, g.p2), game=g.game,
                      game_params=record_params(g.game, g.M, g.N, g.K, dict(g.params)),
                      move_texts=("0",), times_ms=(1.0,), winner=1 + g.seed % 2,
                      reason=Reason.CONNECT, detail="", seed=g.seed, extra=dict(extra))


#: a bot file: a seeded random player that takes a while over every move
SLEEPY = textwrap.dedent("""\
    import random
    import time

    from arena.player import CXPlayer


    class Sleepy(CXPlayer):
        \"\"\"A seeded random player that takes a while over every move.\"\"\"

        delay_s = 0.05

        def initPlayer(self, M, N, K, first, timeout_in_secs):
            self.rng = random.Random(self.seed)

        def selectColumn(self, B):
            time.sleep(self.delay_s)
            return self.rng.choice(B.getAvailableColumns())

        def playerName(self):
            return "sleepy"
    """)


def db_count(results: Path) -> int:
    """The games stored in results/games.sqlite so far (0 while it does not exist)."""
    db = results / "games.sqlite"
    if not db.is_file():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


# ------------------------------------------------------------------ bots and games in process
P = TypeVar("P", bound=CXPlayer)


def make(cls: type[P], B: CXBoard, seed: int = 1, timeout_s: float = 10.0,
         first: bool | None = None, **options: object) -> P:
    """A bot set up as the harness does (seed and options before initPlayer) for a game on B's
    board; `first` defaults to "it is to move in B"."""
    p = cls()
    p.seed = seed
    for name, value in options.items():
        setattr(p, name, value)
    if first is None:
        first = B.currentPlayer() == 0
    p.initPlayer(B.M, B.N, B.K, first, timeout_s)
    return p


def play_game(first: CXPlayer, second: CXPlayer, B: CXBoard) -> CXGameState:
    """Play out B in process; every answer must be legal. Returns the final state."""
    players = (first, second)
    while B.gameState() is CXGameState.OPEN:
        c = players[B.currentPlayer()].selectColumn(B.copy())
        assert c in B.getAvailableColumns()
        B.markColumn(c)
    return B.gameState()


# ------------------------------------------------------------------------ naive references
# They work on `CXBoard` only, so they share no code with the bots they check.
WINS = (CXGameState.WINP1, CXGameState.WINP2)


def naive_heuristic(b: CXBoard) -> int:
    """Squared-open-run score for the side to move, by scanning every window of the grid."""
    grid = b.getBoard().tolist()
    M, N, K = b.M, b.N, b.K
    me = b.currentPlayer() + 1
    total = 0
    for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for i in range(M):
            for j in range(N):
                cells = [(i + t * di, j + t * dj) for t in range(K)]
                if not all(0 <= r < M and 0 <= c < N for r, c in cells):
                    continue
                vals = [grid[r][c] for r, c in cells]
                mine, theirs = vals.count(me), vals.count(3 - me)
                if mine and not theirs:
                    total += mine * mine
                elif theirs and not mine:
                    total -= theirs * theirs
    return total


def naive_value(b: CXBoard, depth: int, scale: int, memo: dict | None = None) -> int:
    """Negamax value of an open position for the side to move: every move of every node to
    `depth`, exact win scores (Pons) times `scale`, the naive heuristic at the horizon."""
    size, moves = b.M * b.N, b.numOfMarkedCells()
    if depth <= 0:
        return naive_heuristic(b)
    key = (b.bitboards, depth) if memo is not None else None
    if memo is not None and key in memo:
        return memo[key]
    best = -math.inf
    for c in b.getAvailableColumns():
        state = b.markColumn(c)
        if state in WINS:
            v = win_score(size, moves + 1) * scale
        elif state is CXGameState.DRAW:
            v = 0
        else:
            v = -naive_value(b, depth - 1, scale, memo)
        b.unmarkColumn()
        best = max(best, v)
    if memo is not None:
        memo[key] = best
    return best  # type: ignore[return-value]


def naive_solve(b: CXBoard, memo: dict) -> int:
    """Exact Pons score of an open position, by brute force (memoised)."""
    return naive_value(b, b.numOfFreeCells(), 1, memo)


# ------------------------------------------------------------------------ Pons' positions
PONS = Path(__file__).resolve().parent / "data" / "pons"


def load_pons(name: str) -> list[tuple[list[int], int]]:
    """(0-based columns played, exact score) for every line of a Pons test file."""
    out = []
    for line in (PONS / name).read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            out.append(([int(c) - 1 for c in moves], int(score)))
    return out


L3 = load_pons("Test_L3_R1")  # End-Easy: more than 28 moves played, fewer than 14 left
L2 = load_pons("Test_L2_R1")  # Middle-Easy: 15 to 28 moves played, fewer than 14 left


# ---------------------------------------------------------------------- the headless browser
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync"]


def chromium_path() -> str | None:
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright's Python package; a
    test module that uses it imports it. Skipped, with the reason, when either is missing."""
    exe = chromium_path()
    if exe is None:
        pytest.skip("headless Chromium not found (/usr/bin/chromium or chromium on PATH); "
                    "install Debian's chromium package to run the browser tests")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright's Python package is not installed "
                                      "(pip install -e '.[dev]')")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


class Page:
    """A loaded report page, with every console message, page error and request it made."""

    def __init__(self, browser: Any, path: Path, fragment: str = "") -> None:
        self.console: list[tuple[str, str]] = []
        self.requests: list[str] = []
        self.url = path.resolve().as_uri()
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.console.append(("pageerror", str(e))))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(self.url + fragment)
        self.page.wait_for_selector("html[data-cx-ready='1']", timeout=30_000)

    def errors(self) -> list[tuple[str, str]]:
        return [(t, m) for t, m in self.console if t in ("error", "pageerror", "warning")]


def log_in(page: Any, url: str, name: str, secret: str) -> None:
    """Log in to the league's web app at url (a Playwright page)."""
    page.goto(url + "/login")
    page.fill("#name", name)
    page.fill("#secret", secret)
    page.click("#login")


def wait_finished(d: Path, timeout_s: float = 120.0) -> str:
    """The state the league in `d`'s final round robin ends in (finished or stopped)."""
    from arena.league import League
    from arena.league.final import final_status

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        lg = League.open(d)
        try:
            status = final_status(lg)
        finally:
            lg.conn.close()
        if status.state in ("finished", "stopped"):
            return status.state
        time.sleep(0.3)
    raise AssertionError("the final did not finish")


# ----------------------------------------------------------------------- leagues
def make_league(tmp_path: Path, users: dict[str, bytes], extra: str = "",
                pairs: int = 1, most: int = 2) -> Any:
    """A league of `users` (name -> a .py bot's code) whose versions passed their check,
    rating pairs on 4x4x3 and 4x5x3 against L0, unsandboxed."""
    from arena.league import League

    cfg = tmp_path / "league.yaml"
    cfg.write_text(f"board_set: [[4, 4, 3], [4, 5, 3]]\ntimeout_s: 0.5\n"
                   f"pairs_per_submission: {pairs}\nmax_pairs_per_submission: {most}\n"
                   f"reference_bots: [L0]\nisolation: false\nopening_plies: 1\n{extra}")
    lg = League.init(tmp_path / "lg", cfg)
    for user, code in users.items():
        lg.add_user(user)
        lg.submit(user, [("bot.py", code)])
    with lg.conn:  # the check is tested elsewhere; here every version passed it
        lg.conn.execute("UPDATE submissions SET status='rating'")
    return lg


@contextlib.contextmanager
def play_server(configs: Path, results: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`cxarena serve` on a free loopback port with these configs and results folders: its URL
    (once it prints that it listens) and its process, ended on the way out."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--host", "127.0.0.1",
         "--configs", str(configs), "--results", str(results)],
        cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None
    url = None
    for line in proc.stdout:  # the server prints its address once it is listening
        m = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        pytest.fail(f"cxarena serve did not print its address: {proc.communicate()[1]}")
    try:
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
