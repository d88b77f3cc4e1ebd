"""`HumanGame`: one game of a person against a bot, under the real referee.

The bot runs exactly as in a tournament: `arena.referee.Referee` starts it in its own process
(rlimits, freezing between moves, its time limit enforced, every fault turned into the result).
The person's side is `arena.play.seat.HumanSeat`, run by the same referee in a process of its
own and untimed (`Referee.play(untimed=...)`); its moves come from the user interface through
the game's private Unix socket (`play`, `resign`). The referee reports each legal move as it
happens (`Referee.play(on_move=...)`), which becomes a `Moved` event; the end of the game is a
`Finished` event. The finished game is stored as an ordinary `GameRecord` (the person's side
has the SPEC and name ``human``) in ``<results>/games.sqlite``, so `cxarena report` and the HTML
report show it like a tournament game.

Every `HumanGame` has its own `Referee`, so its own bot process; `close()` resigns for the
person and the referee then ends the bot's process. What must not live here: drawing the board
(`terminal`, `server`) and choosing which bots may be played (`server`, the commands).
"""

from __future__ import annotations

import os
import queue
import re
import secrets
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena import defaults
from arena.board import CXBoard, CXCellState, CXGameState
from arena.entrants.specs import BotSpec
from arena.limits import make_limits
from arena.play.seat import HUMAN
from arena.records import GameRecord, Reason
from arena.referee.referee import MatchSettings, Referee
from arena.results.store import DB_FILE, ResultStore

__all__ = ["DEFAULT_RESULTS", "Entrant", "Event", "Finished", "GameSetup", "HumanGame",
           "IllegalColumn", "Moved", "winning_cells"]

#: where played games are stored unless told otherwise
DEFAULT_RESULTS = Path("results") / "play"
#: the person's seat: run by the host like any Python bot
SEAT_SPEC = BotSpec(text=HUMAN, module="arena.play.seat", cls="HumanSeat")
#: longest board side and time limit a game may ask for (keeps a request from tying up a bot)
MAX_SIDE = 30
MAX_TIMEOUT_S = 600.0

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")  # kept out of game ids (a SPEC may be a path)
_STORE_LOCK = threading.Lock()  # games of several tabs finish at once; one writer at a time


class IllegalColumn(ValueError):
    """The person's input is not a legal move now (the message says why)."""


@dataclass(frozen=True)
class Entrant:
    """A bot a person may play: its display name, SPEC and options."""

    name: str  # as stored in the results (a config's player name, else the SPEC)
    spec: BotSpec
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""  # where it was found ("players/", "configs/quick.yaml")
    game: str = "connectx"  # the game it plays (`arena.games`; others through protocol v2)


@dataclass(frozen=True)
class GameSetup:
    """The board, the bot's time limit (seconds) and who moves first."""

    M: int
    N: int
    K: int
    timeout_s: float = defaults.TIMEOUT_S
    human_first: bool = True
    grace_s: float = defaults.GRACE_S
    memory_limit_mb: int | None = defaults.MEMORY_LIMIT_MB
    startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S

    def __post_init__(self) -> None:
        for name in ("M", "N", "K"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be an integer, got {value!r}")
        if max(self.M, self.N) > MAX_SIDE:
            raise ValueError(f"board {self.M}x{self.N}: at most {MAX_SIDE} rows and columns")
        CXBoard(self.M, self.N, self.K)  # ValueError with the rule broken
        t = self.timeout_s
        if not (isinstance(t, (int, float)) and 0 < t <= MAX_TIMEOUT_S):
            raise ValueError(f"time limit must be a number of seconds in (0, {MAX_TIMEOUT_S:g}], "
                             f"got {t!r}")

    @property
    def human(self) -> int:
        """The person's player number (1 moves first)."""
        return 1 if self.human_first else 2

    @property
    def bot(self) -> int:
        return 3 - self.human


@dataclass(frozen=True)
class Moved:
    """A legal move, as the referee accepted it."""

    player: int  # 1 or 2
    column: int
    row: int  # where the piece landed (0 = top row)
    elapsed_ms: float  # thinking time (the referee's measure)
    by_human: bool
    ends_game: bool = False  # the move won or filled the board (`Finished` follows)


@dataclass(frozen=True)
class Finished:
    """The end of a game, told from the person's side."""

    record: GameRecord | None  # None only if the harness itself failed
    outcome: str  # "win", "loss", "draw" (for the person) or "error"
    message: str  # one or two sentences for the person: who won and why
    winning_cells: tuple[tuple[int, int], ...] = ()  # (row, column) of the winning line
    game_id: str | None = None  # its id in the results database (None if not stored)
    store_error: str = ""  # why it could not be stored ("" if it was)


Event = Moved | Finished


class HumanGame:
    """One game of a person against `entrant` (see the module docstring).

    Events go to `on_event` (called from the game's threads), else to the `events` queue.
    Use: `start()`, then `play(column)` whenever `human_to_move()`, until `Finished`; `close()`
    at the end, or at any time to give up (the game is then stored as the person's loss).
    """

    def __init__(self, entrant: Entrant, setup: GameSetup,
                 results_dir: Path | str | None = DEFAULT_RESULTS,
                 on_event: Callable[[Event], None] | None = None, seed: int | None = None,
                 log_dir: str | None = None) -> None:
        self.entrant = entrant
        self.setup = setup
        self.results_dir = Path(results_dir) if results_dir is not None else None
        self.events: queue.Queue[Event] = queue.Queue()
        self._emit = on_event if on_event is not None else self.events.put
        self.seed = secrets.randbelow(2**31) if seed is None else seed
        self.board = CXBoard(setup.M, setup.N, setup.K)  # the game as the referee reported it
        self.finished: Finished | None = None
        self._log_dir = log_dir
        self._lock = threading.Lock()
        self._pending = False  # a move of the person's is on its way to the referee
        self._done = threading.Event()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._token = secrets.token_hex(16)
        self._dir = tempfile.mkdtemp(prefix="cxarena-play-")  # mode 0700: ours alone
        self._path = os.path.join(self._dir, "seat.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self._path)
        self._listener.listen(4)
        self._listener.settimeout(0.2)
        self._threads: list[threading.Thread] = []
        self._started = False

    # ------------------------------------------------------------------ control
    def start(self) -> None:
        if self._started:
            raise RuntimeError("a HumanGame is played once")
        self._started = True
        for target, name in ((self._link, "play-link"), (self._run, "play-game")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def human_to_move(self) -> bool:
        with self._lock:
            return (self.finished is None and not self._pending
                    and self.board.gameState() is CXGameState.OPEN
                    and self.board.currentPlayer() + 1 == self.setup.human)

    def check_column(self, text: object) -> int:
        """The column the person asked for, if it is a legal move now; else IllegalColumn
        with the reason."""
        N = self.setup.N
        if isinstance(text, str):
            text = text.strip()
            try:
                col = int(text)
            except ValueError:
                raise IllegalColumn(f"{text[:20]!r} is not a column number; give one from 0 "
                                    f"to {N - 1}") from None
        elif isinstance(text, int) and not isinstance(text, bool):
            col = text
        else:
            raise IllegalColumn(f"{text!r} is not a column number")
        with self._lock:
            if self.finished is not None or self.board.gameState() is not CXGameState.OPEN:
                raise IllegalColumn("the game is over")
            if self._pending or self.board.currentPlayer() + 1 != self.setup.human:
                raise IllegalColumn(f"it is not your turn: {self.entrant.name} is thinking")
            if not 0 <= col < N:
                raise IllegalColumn(f"column {col} is out of range 0..{N - 1}")
            if self.board.fullColumn(col):
                raise IllegalColumn(f"column {col} is full")
        return col

    def play(self, text: object) -> int:
        """Play the person's move (raises IllegalColumn, and then nothing was played)."""
        col = self.check_column(text)
        with self._lock:
            self._pending = True
        self._outbox.put(f"move {col}\n")
        return col

    def resign(self, why: str = "resigned") -> None:
        """Give up (the bot wins); a no-op once the game is over."""
        if not self._done.is_set():
            self._outbox.put("resign " + " ".join(why.split())[:200] + "\n")

    def wait(self, timeout_s: float | None = None) -> Finished | None:
        """The end of the game, once it is there (None after `timeout_s`)."""
        self._done.wait(timeout_s)
        return self.finished

    def close(self, why: str = "left the game", wait_s: float | None = None) -> None:
        """Resign if the game is still on; with `wait_s`, wait that long for its end (the bot's
        process is gone then). Safe to call more than once."""
        self.resign(why)
        if not self._started:
            self._cleanup()
            return
        if wait_s is not None:
            self._done.wait(wait_s)

    # ------------------------------------------------------------------ threads
    def _link(self) -> None:
        """Accept the seat's connection (checking its token), then pass the person's moves."""
        conn: socket.socket | None = None
        try:
            while conn is None and not self._done.is_set():
                try:
                    c, _ = self._listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                c.settimeout(5.0)
                try:
                    hello = c.recv(256)
                except OSError:
                    hello = b""
                if hello.strip() == f"seat {self._token}".encode():
                    c.settimeout(None)
                    conn = c
                else:
                    c.close()
            while conn is not None:
                msg = self._outbox.get()
                if msg is None:
                    break
                try:
                    conn.sendall(msg.encode())
                except OSError:
                    break
        finally:
            if conn is not None:
                conn.close()

    def _on_move(self, player: int, text: str, elapsed_ms: float) -> None:
        column = int(text)
        with self._lock:
            self.board.markColumn(column)
            last = self.board.getLastMove()
            by_human = player == self.setup.human
            if by_human:
                self._pending = False
            ends = self.board.gameState() is not CXGameState.OPEN
        assert last is not None
        self._emit(Moved(player, column, last.i, round(elapsed_ms, 3), by_human, ends))

    def _run(self) -> None:
        s = self.setup
        settings = MatchSettings(
            limits=make_limits(s.timeout_s, s.grace_s, s.startup_timeout_s,
                               s.memory_limit_mb or None, where="play"),
            fresh_process=True, log_dir=self._log_dir,
            # a person's game is never played again, and their seat runs outside the sandbox
            overload_replays=0, unsandboxed=(SEAT_SPEC,))
        seat_options = {"socket": self._path, "token": self._token}
        bot, bot_options = self.entrant.spec, dict(self.entrant.options)
        if s.human_first:
            p1, p2, o1, o2 = SEAT_SPEC, bot, seat_options, bot_options
        else:
            p1, p2, o1, o2 = bot, SEAT_SPEC, bot_options, seat_options
        finished: Finished
        try:
            with Referee(settings) as referee:
                record = referee.play(p1, p2, s.M, s.N, s.K, self.seed, o1, o2,
                                      untimed=(s.human,), on_move=self._on_move)
            record = self._tidy(record)
            record, store_error = self._store(record)
            finished = self._finish(record, record.game_id or None, store_error)
        except Exception as e:  # a harness failure: say so instead of hanging the interface
            finished = Finished(None, "error", f"The game stopped: {type(e).__name__}: {e}")
        with self._lock:
            self.finished = finished
        self._outbox.put(None)
        self._done.set()
        self._cleanup()
        self._emit(finished)

    def _cleanup(self) -> None:
        try:
            self._listener.close()
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)

    # ----------------------------------------------------------------- results
    def _tidy(self, record: GameRecord) -> GameRecord:
        """The person's seat is no bot: a resignation reads as one, without a traceback."""
        extra = dict(record.extra, human=self.setup.human, bot=self.entrant.name)
        if record.offender == self.setup.human:
            what, _, rest = record.detail.partition(" failed: ")
            if rest.startswith("raised Resigned: "):
                why = rest[len("raised Resigned: "):]
                return replace(record, detail=f"{what}: {HUMAN} {why}", stderr_tail="",
                               extra=extra)
        return replace(record, extra=extra)

    def _names(self) -> tuple[str, str]:
        return ((HUMAN, self.entrant.name) if self.setup.human_first
                else (self.entrant.name, HUMAN))

    def _store(self, record: GameRecord) -> tuple[GameRecord, str]:
        """The record with its labels (game id, names), stored; or unstored and why not."""
        if self.results_dir is None:
            return record, ""
        n1, n2 = self._names()
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        safe1, safe2 = (_UNSAFE.sub("_", n).strip("_") for n in (n1, n2))
        gid = (f"{record.M}x{record.N}x{record.K}-play-{safe1}-{safe2}-{stamp}-"
               f"{secrets.token_hex(3)}")
        try:
            with _STORE_LOCK:
                self.results_dir.mkdir(parents=True, exist_ok=True)
                with ResultStore(self.results_dir / DB_FILE) as store:
                    if store.get_meta("name") is None:
                        store.set_meta("name", self.results_dir.name)
                    labelled = record.labelled(game_id=gid, round=1, player1=n1, player2=n2)
                    store.add(labelled)
        except Exception as e:  # the game was played; say why it is not kept
            return record, f"could not store the game in {self.results_dir}: {e}"
        return labelled, ""

    def _finish(self, record: GameRecord, game_id: str | None, store_error: str) -> Finished:
        bot, me = self.entrant.name, self.setup.human
        cells: tuple[tuple[int, int], ...] = ()
        if record.winner is None:
            outcome = "draw"
            message = ("Draw: the board is full." if not record.detail
                       else f"Draw: {record.detail}.")
        else:
            outcome = "win" if record.winner == me else "loss"
            who = "You win" if outcome == "win" else f"{bot} wins"
            if record.reason is Reason.CONNECT:
                with self._lock:
                    cells = winning_cells(self.board)
                message = f"{who}: {record.K} in a row."
            elif record.offender == me:
                resigned = record.detail.partition(f": {HUMAN} ")[2]
                message = (f"{who}: you {resigned}." if resigned
                           else f"{who}: your side of the game failed: {record.detail}")
            else:
                what = {Reason.TIMEOUT: "ran out of time", Reason.ILLEGAL: "made an illegal move",
                        Reason.CRASH: "crashed"}.get(record.reason, record.reason.value)
                message = f"{who}: {bot} {what}. {record.detail}"
                if record.stderr_tail:
                    message += f"\nIts last error output: {record.stderr_tail.splitlines()[-1]}"
        return Finished(record, outcome, message, cells, game_id, store_error)


def winning_cells(board: CXBoard) -> tuple[tuple[int, int], ...]:
    """The (row, column) cells of the line of K or more through the last move, if it won."""
    last = board.getLastMove()
    if last is None or last.state is CXCellState.FREE:
        return ()
    found: list[tuple[int, int]] = []
    for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [(last.i, last.j)]
        for sign in (1, -1):
            i, j = last.i + sign * di, last.j + sign * dj
            while (0 <= i < board.M and 0 <= j < board.N
                   and board.cellState(i, j) is last.state):
                line.append((i, j))
                i, j = i + sign * di, j + sign * dj
        if len(line) >= board.K:
            found.extend(c for c in line if c not in found)
    return tuple(sorted(found))
