"""Values that describe a finished game and cross process boundaries: `Reason`, `GameRecord`.

One answer to "is it over, and why": every game ends with `winner` (1 = the player who moved
first, 2 = the second, None = draw) and exactly one `Reason`. A fault (timeout, illegal, crash)
loses for the offender (`offender`, 1 or 2) and wins for the opponent.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any

from arena.games import GAMES, Game, GameError, ParamError
from arena.games.params import board_of, board_params

__all__ = ["DEFAULT_GAME", "FAULTS", "NO_CGROUP", "RECORD_SCHEMA", "RLIMITS_ONLY", "GameRecord",
           "Reason", "RecordedGame", "StoredGame", "board_key", "board_of", "game_of_record",
           "record_fields", "record_label", "record_params", "recorded_game", "texts_of"]

#: version of the JSON form of a record (`GameRecord.to_dict`): 3 = the neutral shape alone
#: (game, game_params, move_texts, opening_texts; no M, N, K or integer moves and opening).
#: `GameRecord.from_dict` reads 1, 2 and 3.
RECORD_SCHEMA = 3
#: a record's extra["cgroup"] when its bots had no cgroup (else the backend, "v1" or "v2")
NO_CGROUP = "none"
#: what that means, in the words every command and the report use
RLIMITS_ONLY = "rlimits only; shared memory and child processes are not counted"

#: the labels a record of schema 1 kept in `extra` and that are fields since schema 2
_LABELS_OF_SCHEMA_1 = {"game_id": "game_id", "tournament": "tournament", "round": "round",
                       "player1": "player1", "player2": "player2", "code1": "code1",
                       "code2": "code2"}


#: the game of a record, a config or a session that names none: the course's, Connect-X
#: (records of schema 1 and 2 predate other games). Its one home.
DEFAULT_GAME = "connectx"


class Reason(str, Enum):
    """Why a game ended."""

    CONNECT = "connect"  # K in a row
    DRAW = "draw"  # full board (another game: a draw by its rules; the detail says which)
    WIN = "win"  # another game than Connect-X won by its rules (the detail says how)
    TIMEOUT = "timeout"  # no answer by the deadline (initPlayer or selectColumn)
    ILLEGAL = "illegal"  # full column, out of range, or not an integer
    CRASH = "crash"  # raised, exited, killed, closed its pipes, failed to start, out of memory
    #: a person left a game of `cxarena play` before its end (Ctrl-C, a closed page, end of
    #: input): the bot wins, and it is nobody's fault
    ABANDONED = "abandoned"


FAULTS = frozenset({Reason.TIMEOUT, Reason.ILLEGAL, Reason.CRASH})


@dataclass(frozen=True)
class GameRecord:
    """Everything stored about one game (the fields of `cxarena match --json`, and more)."""

    p1: str  # SPEC of the player who moved first
    p2: str  # SPEC of the player who moved second
    names: tuple[str, str]  # playerName() of p1 and p2 ("" if never obtained)
    times_ms: tuple[float, ...]  # measured wall time of each move, same length as move_texts
    #                              (0.0 for the opening's moves: nobody chose them)
    winner: int | None  # 1, 2, or None for a draw
    reason: Reason
    detail: str  # human-readable detail ("" for a normal end)
    seed: int
    offender: int | None = None  # 1 or 2 for a fault, else None
    stderr_tail: str = ""  # last lines of the offender's stderr, trimmed
    init_ms: tuple[float, float] = (0.0, 0.0)  # measured initPlayer time of p1, p2
    started_at: str = ""  # ISO 8601 UTC
    finished_at: str = ""  # ISO 8601 UTC
    version: str = ""  # harness version
    #: what really is extra: the referee's start-up times and isolation, overload incidents,
    #: a person's seat in `cxarena play`
    extra: dict[str, Any] = field(default_factory=dict)
    #: the game pair this game belongs to (the same opening, colours swapped); "" = unpaired
    pair_id: str = ""
    #: the limits the game was played under (None only in records stored before schema 2
    #: whose store had no config to say)
    timeout_s: float | None = None
    grace_s: float | None = None
    #: every limit the game was played under, as the referee applied them
    #: (`arena.limits.Limits.played_under`): timeout_s, grace_s, startup_timeout_s,
    #: memory_limit_mb (None: no limit), max_tasks (None: no cap), isolation (the sandbox the
    #: bots had: "namespaces" or "none") and cgroups (one per bot asked for); {} in records
    #: stored before they were kept
    limits: dict[str, Any] = field(default_factory=dict)
    # labels of a game in a run ("" / 0 / None outside one)
    game_id: str = ""
    tournament: str = ""  # the tournament's name
    round: int = 0
    player1: str = ""  # display name of p1 in the run
    player2: str = ""
    code1: str | None = None  # code fingerprint of p1 (arena.entrants.fingerprint)
    code2: str | None = None
    #: the game (`arena.games`) with all its parameters, and every move's text in the game's
    #: notation from the start (the opening's first; passes included; Connect-X's: decimal
    #: columns). Records stored before issue 47 read into these (`from_dict`).
    game: str = DEFAULT_GAME
    game_params: dict[str, int] = field(default_factory=dict)
    move_texts: tuple[str, ...] = ()
    #: the opening the game started from (the first moves of `move_texts`, played for both
    #: sides); () = the game's start
    opening_texts: tuple[str, ...] = ()

    def recorded(self) -> RecordedGame:
        """The game, its parameters and its move texts (a stored record of an older shape is
        read into these by `from_dict`). Raises GameError for a game, or parameters, this
        cxarena does not know."""
        return RecordedGame(self.rules(), self.move_texts, self.opening_texts)

    def rules(self) -> Game:
        """The game this record was played in, with its parameters (GameError as
        `recorded`)."""
        return recorded_game(self.game, 0, 0, 0, tuple(self.game_params.items()))

    @property
    def params(self) -> dict[str, int]:
        """All the game's parameters (`record_params`: ParamError for a game this cxarena
        does not know)."""
        return record_params(self.game, 0, 0, 0, self.game_params)

    @property
    def texts(self) -> tuple[str, ...]:
        """Every move's text in the game's notation, the opening's first."""
        return self.move_texts

    @property
    def opening_moves(self) -> tuple[str, ...]:
        """The opening's moves as texts."""
        return self.opening_texts

    @property
    def n_moves(self) -> int:
        """How many moves were played (opening included)."""
        return len(self.texts)

    @property
    def game_label(self) -> str:
        """How the game names the board (`record_label`: ``6x7x4``, ``othello
        size=8``); for a game this cxarena does not know, its name and parameters."""
        try:
            return record_label(self.rules())
        except GameError:
            params = " ".join(f"{k}={v}" for k, v in self.game_params.items())
            return f"{self.game} {params}".strip()

    @property
    def is_fault(self) -> bool:
        return self.reason in FAULTS

    @property
    def played_times_ms(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The move times of p1 and of p2, opening moves left out."""
        skip = len(self.opening_moves)
        p1 = tuple(t for i, t in enumerate(self.times_ms) if i >= skip and i % 2 == 0)
        p2 = tuple(t for i, t in enumerate(self.times_ms) if i >= skip and i % 2 == 1)
        return p1, p2

    def labelled(self, **labels: Any) -> GameRecord:
        """A copy with these label fields set (game_id, tournament, round, player1, ...)."""
        return replace(self, **labels)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["reason"] = self.reason.value
        d["names"] = list(self.names)
        d["times_ms"] = [round(t, 3) for t in self.times_ms]
        d["init_ms"] = [round(t, 3) for t in self.init_ms]
        d["move_texts"] = list(self.move_texts)
        d["opening_texts"] = list(self.opening_texts)
        d["game_params"] = dict(self.game_params)
        d["limits"] = dict(self.limits)
        d["schema"] = RECORD_SCHEMA
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        """A record from its JSON form, of any schema: the old Connect-X shape (M, N, K and
        integer `moves` and `opening`, written before issue 47, with or without the neutral
        fields beside them) reads into the neutral fields (`game_of_record`)."""
        shape = {k: d[k] for k in _OLD_SHAPE if k in d}
        d = {k: v for k, v in d.items() if k not in _OLD_SHAPE and k != "schema"}
        d.update(_neutral_fields(shape, d))
        d["reason"] = Reason(d["reason"])
        d["names"] = tuple(d["names"])
        d["times_ms"] = tuple(d["times_ms"])
        d["init_ms"] = tuple(d.get("init_ms", (0.0, 0.0)))
        d["pair_id"] = str(d.get("pair_id", ""))
        d["limits"] = dict(d.get("limits") or {})
        if "extra" in d and any(k in d["extra"] for k in _LABELS_OF_SCHEMA_1):
            extra = dict(d["extra"])
            for old, new in _LABELS_OF_SCHEMA_1.items():
                if old in extra:
                    d.setdefault(new, extra.pop(old))
            d["extra"] = extra
        return cls(**d)


#: the keys of the old Connect-X shape of a record's JSON form (`GameRecord.from_dict`)
_OLD_SHAPE = ("M", "N", "K", "moves", "opening")


def _neutral_fields(old: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, Any]:
    """game, game_params, move_texts and opening_texts of a record's JSON form: its neutral
    fields `d`, or what the old Connect-X shape `old` (M, N, K, integer moves and opening)
    says (`game_of_record`). A game this cxarena does not know keeps what it has."""
    game = str(d.get("game", DEFAULT_GAME))
    params = {str(k): int(v) for k, v in dict(d.get("game_params") or {}).items()}
    if not params and game in GAMES:
        M, N, K = (int(old.get(k, 0)) for k in ("M", "N", "K"))
        params = record_params(game, M, N, K, {})
    return {"game": game, "game_params": params,
            "move_texts": texts_of(old.get("moves", ()), d.get("move_texts", ())),
            "opening_texts": texts_of(old.get("opening", ()) or (), d.get("opening_texts", ()))}


@dataclass(frozen=True)
class RecordedGame:
    """A record's game as every reader sees it, whichever shape the record was stored in."""

    rules: Game  # the game with its parameters
    texts: tuple[str, ...]  # every move's text in the game's notation, the opening's first
    opening_texts: tuple[str, ...]  # the opening's moves (the first of `texts`)

    @property
    def params(self) -> dict[str, int]:
        return dict(self.rules.params)


def game_of_record(game: str, game_params: Mapping[str, int], M: int, N: int, K: int,
                   moves: Sequence[int], move_texts: Sequence[str], opening: Sequence[int],
                   opening_texts: Sequence[str]) -> RecordedGame:
    """The one reading of a stored record's game (the migration). Two shapes exist:

    - the neutral shape (every record written since issue 47): `game`, `game_params` (all the
      game's parameters), `move_texts` and `opening_texts` in the game's notation;
    - the old Connect-X shape (records of schemas 1 and 2 before then): the board in M, N, K,
      no `game_params`, the moves and the opening as integer columns in `moves` and `opening`,
      no texts. Its parameters are M, N, K as the game's board (`board_params`: Connect-X's
      rows, cols, k) and a column's text its decimal (as `ConnectX.move_to_text` writes it).

    A record that has both (Connect-X records written between the two, which kept the old
    shape beside the neutral one) reads from the neutral one. `GameRecord.from_dict` reads
    every stored record this way (`_neutral_fields`), so a `GameRecord` holds the neutral
    shape only. Raises GameError for a game, or parameters, this cxarena does not know."""
    return RecordedGame(recorded_game(game, M, N, K, tuple(game_params.items())),
                        texts_of(moves, move_texts), texts_of(opening, opening_texts))


def texts_of(columns: Sequence[int], texts: Sequence[str]) -> tuple[str, ...]:
    """A record's moves as texts: its `texts` (the neutral shape) or, in the old Connect-X
    shape, its integer columns written as decimals."""
    return tuple(texts) if texts or not columns else tuple(str(int(c)) for c in columns)


def record_params(name: str, M: int, N: int, K: int,
                  params: Mapping[str, int]) -> dict[str, int]:
    """The parameters of game `name` as a record, a scheduled game or a client's message holds
    them: `params` (the neutral shape) or, when there are none, M, N, K as the game's board
    (`arena.games.params.board_params`; the old Connect-X shape, `game_of_record`). Raises
    GameError for an unknown game (the values are checked when the game is made)."""
    cls = GAMES.get(name)
    if cls is None:
        raise ParamError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return dict(params) or board_params(cls, (M, N, K))


@functools.lru_cache(maxsize=256)
def recorded_game(name: str, M: int, N: int, K: int,
                  params: tuple[tuple[str, int], ...]) -> Game:
    """The game `name` with the parameters a record, or a scheduled game, holds
    (`record_params`); one object for the many records of one board. Raises GameError."""
    given = record_params(name, M, N, K, dict(params))  # first: it refuses an unknown game
    return GAMES[name](**given)


def record_fields(game: Game, texts: Sequence[str], opening: Sequence[str]) -> dict[str, Any]:
    """The `GameRecord` fields that hold `game` and its moves (`texts`, all of them, the
    `opening` first): every record names its game, all its parameters and its move texts, in
    every game the same (Connect-X's board is its parameters rows, cols, k, its moves decimal
    columns: `arena.games.connectx.record` reads them back as M, N, K and columns). A cxarena
    from before issue 47 does not read these records."""
    return {"game": game.name, "game_params": dict(game.params), "move_texts": tuple(texts),
            "opening_texts": tuple(opening)}


def record_label(game: Game) -> str:
    """How records, logs and the schedule name a game's board: ``6x7x4`` for a game played on
    boards (`board_of`), else the game's `label()` (``othello size=8``)."""
    board = board_of(game)
    return game.label() if board is None else "x".join(map(str, board))


def board_key(game: Game) -> tuple[int, int, int] | str:
    """How the standings, the report and the league tell a game's boards apart: (M, N, K) for a
    game played on boards, else its `record_label`."""
    return board_of(game) or record_label(game)


@dataclass(frozen=True)
class StoredGame:
    """A stored game: its id, round, the players' display names and the full record."""

    game_id: str
    round: int
    player1: str  # display name of the first player
    player2: str
    record: GameRecord
