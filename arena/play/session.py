"""`HumanGame`: one game of a person against a bot, in any game, under the real referee.

The bot runs exactly as in a tournament: `arena.referee.Referee` starts it in its own process
(rlimits, freezing between moves, its time limit enforced, every fault turned into the result).
The person's side is the seat of `arena.play.seat` (`HumanSeat`, one for every game: it speaks
whichever bot API the game's protocol version loads), run by the same referee in a process of
its own and untimed (`GameRequest.untimed`); its moves come from
the user interface through the game's private Unix socket (`play`, `resign`). The person's
input is a move in the game's notation (a Connect-X column is its number), checked against the
rules before it is sent. The referee reports each legal move as it happens
(`GameRequest.on_move`), which becomes a `Moved` event with the game's state after it;
the end of the game is a `Finished` event. The finished game is stored as an ordinary
`GameRecord` (the person's side has the SPEC and name ``human``) in ``<results>/games.sqlite``,
so `cxarena report` and the HTML report show it like a tournament game.

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
from arena.competition.settings import referee_settings
from arena.entrants.specs import BotSpec, time_limit_problem
from arena.games import Game, GameError, presentation_of
from arena.limits import make_limits
from arena.play.seat import HUMAN
from arena.records import DEFAULT_GAME, GameRecord, Reason, record_label
from arena.referee.referee import GameRequest, Referee
from arena.results.store import DB_FILE, ResultStore

__all__ = ["DEFAULT_RESULTS", "Entrant", "Event", "Finished", "GameSetup", "HumanGame",
           "IllegalMove", "Moved", "check_playable", "check_time_limit"]

#: where played games are stored unless told otherwise
DEFAULT_RESULTS = Path("results") / "play"
#: the person's seat, in every game: run by the host like any Python bot
SEAT_SPEC = BotSpec(text=HUMAN, module="arena.play.seat", cls="HumanSeat")
#: the dearest game a person may ask for (`Game.cost`: a Connect-X board of 50 x 50 cells, the
#: largest of the competition's boards, configs/boards.yaml) and the longest time limit (keeps
#: a request from tying up a bot)
MAX_COST = 2500.0
MAX_TIMEOUT_S = 600.0

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")  # kept out of game ids (a SPEC may be a path)
_STORE_LOCK = threading.Lock()  # games of several tabs finish at once; one writer at a time


#: how the reason of a person who left the game (not one who resigned) begins: `close`'s
#: reasons say "left the game (...)"; such a game is stored as abandoned, not as a fault
LEFT = "left the game"


class IllegalMove(ValueError):
    """The person's input is not a legal move now (the message says why)."""


def check_playable(game: Game) -> Game:
    """`game`, unless it is too big to offer a person (ValueError)."""
    if game.cost() > MAX_COST:
        raise ValueError(f"{game.label()}: too big to play here (at most a 50 x 50 board)")
    return game


def check_time_limit(entrant: Entrant, timeout_s: float) -> None:
    """Refuse (ValueError) a time limit `entrant` cannot be given, before its game starts: a
    Java bot's ``initPlayer`` gets whole seconds, so at 0.5 s it would start and then be
    stored as crashed, the fault being the request's and not the bot's."""
    problem = time_limit_problem(entrant.spec, timeout_s)
    if problem is not None:
        raise ValueError(f"{entrant.name}: {problem}")


@dataclass(frozen=True)
class Entrant:
    """A bot a person may play: its display name, SPEC and options."""

    name: str  # as stored in the results (a config's player name, else the SPEC)
    spec: BotSpec
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""  # where it was found ("players/", "configs/quick.yaml")
    game: str = DEFAULT_GAME  # the name of the game it plays (`arena.games`)


@dataclass(frozen=True)
class GameSetup:
    """The bot's time limit (seconds) and who moves first (the game itself is given apart)."""

    timeout_s: float = defaults.TIMEOUT_S
    human_first: bool = True
    grace_s: float = defaults.GRACE_S
    memory_limit_mb: int | None = defaults.MEMORY_LIMIT_MB
    startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S

    def __post_init__(self) -> None:
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
    move: str  # its text in the game's notation (a Connect-X column is its number)
    elapsed_ms: float  # thinking time (the referee's measure)
    by_human: bool
    ends_game: bool = False  # the move ended the game (`Finished` follows)
    state: Any = None  # the game's state after the move


@dataclass(frozen=True)
class Finished:
    """The end of a game, told from the person's side."""

    record: GameRecord | None  # None only if the harness itself failed
    outcome: str  # "win", "loss", "draw" (for the person) or "error"
    message: str  # one or two sentences for the person: who won and why
    winning_cells: tuple[tuple[int, int], ...] = ()  # (row, column) of a winning line
    game_id: str | None = None  # its id in the results database (None if not stored)
    store_error: str = ""  # why it could not be stored ("" if it was)


Event = Moved | Finished


class HumanGame:
    """One game of a person against `entrant` (see the module docstring).

    Events go to `on_event` (called from the game's threads), else to the `events` queue.
    Use: `start()`, then `play(move)` whenever `human_to_move()`, until `Finished`; `close()`
    at the end, or at any time to give up (the game is then stored as the person's loss).
    """

    def __init__(self, entrant: Entrant, game: Game, setup: GameSetup,
                 results_dir: Path | str | None = DEFAULT_RESULTS,
                 on_event: Callable[[Event], None] | None = None, seed: int | None = None,
                 log_dir: str | None = None) -> None:
        self.entrant = entrant
        self.game = game
        self.setup = setup
        self.results_dir = Path(results_dir) if results_dir is not None else None
        self.events: queue.Queue[Event] = queue.Queue()
        self._emit = on_event if on_event is not None else self.events.put
        self.seed = secrets.randbelow(2**31) if seed is None else seed
        self.state: Any = game.initial_state()  # the game as the referee reported it
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
                    and self.game.outcome(self.state) is None
                    and self.game.to_move(self.state) + 1 == self.setup.human)

    def check_move(self, text: object) -> str:
        """The move's text if it is legal now (a Connect-X column may be given as an int);
        else IllegalMove with the reason."""
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise IllegalMove(f"{str(text)[:20]!r} is not a move")
        text = str(text).strip()
        with self._lock:
            if self.finished is not None or self.game.outcome(self.state) is not None:
                raise IllegalMove("the game is over")
            if self._pending or self.game.to_move(self.state) + 1 != self.setup.human:
                raise IllegalMove(f"it is not your turn: {self.entrant.name} is thinking")
            try:
                move = self.game.parse_move(self.state, text)
            except GameError as e:
                raise IllegalMove(str(e)) from None
            return self.game.move_to_text(self.state, move)

    def legal_texts(self) -> list[str]:
        """The person's legal moves now, as texts."""
        with self._lock:
            return [self.game.move_to_text(self.state, m)
                    for m in self.game.legal_moves(self.state)]

    def play(self, text: object) -> str:
        """Play the person's move (raises IllegalMove, and then nothing was played); returns
        its text."""
        move = self.check_move(text)
        with self._lock:
            self._pending = True
        self._outbox.put(f"move {move}\n")
        return move

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
        with self._lock:
            self.state = self.game.apply(self.state, self.game.parse_move(self.state, text))
            by_human = player == self.setup.human
            if by_human:
                self._pending = False
            ends = self.game.outcome(self.state) is not None
            after = self.state
        self._emit(Moved(player, text, round(elapsed_ms, 3), by_human, ends, after))

    def _run(self) -> None:
        s = self.setup
        settings = referee_settings(
            make_limits(s.timeout_s, s.grace_s, s.startup_timeout_s, s.memory_limit_mb or None,
                        where="play"), "play",
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
                record = referee.run(GameRequest(p1, p2, self.game, self.seed, (o1, o2),
                                                 untimed=(s.human,), on_move=self._on_move))
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
                if why.startswith(LEFT):  # an abandoned game: the bot wins, nobody's fault
                    return replace(record, reason=Reason.ABANDONED, offender=None,
                                   detail=f"{what}: {HUMAN} {why}", stderr_tail="",
                                   extra=extra)
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
        board = _UNSAFE.sub("_", record_label(self.game)).strip("_")
        gid = f"{board}-play-{safe1}-{safe2}-{stamp}-{secrets.token_hex(3)}"
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
        with self._lock:
            end = self.game.outcome(self.state)  # the rules' own words for an end on the board
        if record.winner is None:
            outcome = "draw"
            words = end.detail or end.reason if end is not None else record.detail
            message = f"Draw: {words}." if words else "Draw."
        else:
            outcome = "win" if record.winner == me else "loss"
            who = "You win" if outcome == "win" else f"{bot} wins"
            if record.reason is Reason.ABANDONED:
                message = f"{who}: you left the game."
            elif end is not None and record.offender is None:
                with self._lock:
                    cells = presentation_of(self.game).winning_cells(self.state)
                message = f"{who}: {end.detail or end.reason}."
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
