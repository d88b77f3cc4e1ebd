"""Openings for every game: short move sequences from the start, each played as a game pair.

One machinery makes, judges and stores the openings of any game through the `Game` interface
(`arena.games.base`); Connect-X is one game in it, and its board forms (``M, N, K``) are thin
wrappers (`OpeningStream`, `make_suite`, `parse_suite`, `read_suite`).

An **opening** is a tuple of move texts (the game's notation; Connect-X: 0-based columns)
played from the start, first player first, alternating, that leaves the game open. A **suite**
is a list of openings for one game.

Making openings (`GameOpenings`, `make_suite`, `random_opening`): reproducible from (seed, the
game's parameters, plies). Candidate openings are random sequences of `plies` moves (each ply
uniform over `Game.opening_moves`: the legal moves, or, on Connect-X boards wider than 9
columns, the legal columns within 3 of the centre, so openings stay where the game is);
candidates with the same `Game.opening_key` count as one, and only the first is kept
(Connect-X: the same position, so move orders that transpose and mirror images, which make the
same games for any bot that does not prefer a side, count once). A candidate is kept when the
rules call it fair (`Game.fair_opening`: the game goes on, and what the game asks besides, e.g.
Morris: no piece taken) and the `judge` (a function parameter) does not find a side already
lost within what the project's search sees in a small budget; the judge also reports the exact
value when its solver settles it in budget. A suite can hold fewer distinct openings than
asked for (tiny boards have few); it then cycles through them and `Suite.distinct` says so.

The judge is the only link to the project's search, and it is passed in: one entry point group,
``cxarena.opening_judges``, holds one judge per game name (``connectx``, ``othello``, ...; the
old name ``search`` is Connect-X's), and `arena.commands.opening_judge` loads it; nothing in
`arena/` below the commands imports `players`. A judge is ``judge(game, texts) -> Verdict``;
callers may pass any other function, e.g. a cheaper one in tests, or None for the rules only.

File format (`read_suite` / `write_suite`), UTF-8 text::

    # cxarena openings: board 6x7 K=4, 2 plies, seed 1
    3 3
    2 4    # value=draw
    3 1    # value=1-0

One opening per line: its moves separated by spaces (Connect-X: its columns, 0-based as in the
protocol, separated by spaces or commas). Everything after ``#`` is a comment; blank lines are
ignored. A comment holding ``value=1-0``, ``value=draw`` or ``value=0-1`` records the exact
value of the position for the first player (written by `cxarena openings`; read back when
present). An empty opening is the line ``-`` (the empty board). Reading checks every opening on
the board: a column out of range, a full column or a finished game is an error naming the file
and line.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.board import CXBoard, CXGameState
from arena.errors import UsageError
from arena.games import make_game
from arena.games.base import Game
from arena.records import DEFAULT_GAME, board_of

__all__ = ["DEFAULT_PLIES", "GameOpenings", "Judge", "Opening", "OpeningStream", "Suite",
           "Verdict", "board_game", "fair_opening", "format_line", "format_suite", "make_suite",
           "parse_line", "parse_suite", "random_opening", "read_suite", "repeats",
           "write_suite"]

#: plies of a generated opening unless told otherwise
DEFAULT_PLIES = 2
#: candidates drawn per opening asked for, before giving up on finding more distinct ones
_TRIES_PER_OPENING = 30
_VALUES = {"1-0": 1, "draw": 0, "0-1": -1}
_VALUE_TEXT = {v: k for k, v in _VALUES.items()}
_VALUE_RE = re.compile(r"\bvalue=(\S+)")

Board = tuple[int, int, int]


@dataclass(frozen=True)
class Opening:
    """A move sequence from the start (move texts) and its exact value for the first player
    (1 win, 0 draw, -1 loss; None when unknown)."""

    texts: tuple[str, ...]
    value: int | None = None

    @property
    def moves(self) -> tuple[int, ...]:
        """Connect-X's columns (a column's text is its number), as its records keep them."""
        return tuple(int(t) for t in self.texts)

    @property
    def key(self) -> str:
        """A short id: the moves joined by '.', '-' for the start (e.g. ``3.4``)."""
        return ".".join(map(str, self.texts)) or "-"


class Verdict(Protocol):
    """What a judge returns (`players._shared.judge.Judgement` is one): `lost_side` 1 or 2
    when that side is already lost (the opening is rejected), else None; `value` the exact
    value for the first player (1, 0, -1) or None."""

    @property
    def lost_side(self) -> int | None: ...

    @property
    def value(self) -> int | None: ...


#: judge(game, opening's move texts) -> Verdict: one signature for every game
Judge = Callable[[Game, tuple[str, ...]], Verdict]


def board_game(M: int, N: int, K: int) -> Game:
    """The game of a Connect-X board (M rows, N columns, K in a row): the board forms of this
    module and the config's `boards:` name games this way."""
    return make_game(DEFAULT_GAME, {"rows": M, "cols": N, "k": K})


def _board(game: Game) -> Board | None:
    """(M, N, K) for a game its records keep on a board (Connect-X), else None."""
    return board_of(game)


def _where(game: Game) -> str:
    """The game as messages and file headers name it: ``6x7 K=4`` for a board."""
    board = _board(game)
    return game.label() if board is None else f"{board[0]}x{board[1]} K={board[2]}"


@dataclass(frozen=True)
class Suite:
    """Openings for one game, in the order they are played."""

    game: Game
    openings: tuple[Opening, ...]
    plies: int | None = None  # generation parameters (None: read from a file)
    seed: int | None = None
    source: str = ""  # file name, or "" when generated
    rejected: int = 0  # candidates the rules or the judge rejected while generating

    @property
    def board(self) -> Board | None:
        """Connect-X's (M, N, K); None for another game."""
        return _board(self.game)

    @property
    def distinct(self) -> int:
        return len({o.texts for o in self.openings})

    def take(self, count: int) -> tuple[Opening, ...]:
        """`count` openings, cycling through the suite when it holds fewer."""
        if not self.openings:
            raise ValueError("empty opening suite")
        return tuple(self.openings[i % len(self.openings)] for i in range(count))


def _rng(seed: int, game: Game, plies: int) -> random.Random:
    # the parameters' values as a tuple: Connect-X's (M, N, K), as suites were always seeded
    name = tuple(game.params.values())
    digest = hashlib.sha256(f"cxarena-openings|{seed}|{name}|{plies}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def fair_opening(game: Game, texts: Sequence[str], end: Any) -> bool:
    """The rules' view of an opening (`Game.fair_opening`: the game goes on, and what else the
    game asks, e.g. Morris: no piece was taken)."""
    return game.fair_opening(texts, end)


class GameOpenings:
    """The distinct accepted openings of (game, seed, plies), made on demand in a fixed order
    (so the first n are the same whoever asks for how many). `get(i)` cycles once the
    candidates run out (after `_TRIES_PER_OPENING` draws per opening without a new one).
    `judge` None: the rules' check only."""

    def __init__(self, game: Game, judge: Judge | None, plies: int = DEFAULT_PLIES,
                 seed: int = 0) -> None:
        if plies < 0:
            raise ValueError(f"plies must be >= 0, got {plies}")
        self.game = game
        self.plies, self.seed = plies, seed
        self._judge = judge
        self._rng = _rng(seed, game, plies)
        self._seen: set[Hashable] = set()
        self.found: list[Opening] = []
        self.rejected = 0
        self.exhausted = False

    def _candidate(self) -> tuple[tuple[str, ...], Any]:
        """`plies` random moves from the start (fewer when the game ends), and the state."""
        game = self.game
        state = game.initial_state()
        texts: list[str] = []
        for _ply in range(self.plies):
            move = self._rng.choice(game.opening_moves(state))
            texts.append(game.move_to_text(state, move))
            state = game.apply(state, move)
            if game.outcome(state) is not None:
                break
        return tuple(texts), state

    def _more(self) -> bool:
        """Find one more opening; False when none is left."""
        game = self.game
        for _ in range(_TRIES_PER_OPENING):
            texts, state = self._candidate()
            key = game.opening_key(state, texts)
            if key in self._seen:
                continue
            self._seen.add(key)
            if not fair_opening(game, texts, state):
                self.rejected += 1
                continue
            value = None
            if self._judge is not None:
                verdict = self._judge(game, texts)
                if verdict.lost_side is not None:
                    self.rejected += 1
                    continue
                value = verdict.value
            self.found.append(Opening(texts, value))
            return True
        self.exhausted = True
        return False

    def get(self, i: int) -> Opening:
        while len(self.found) <= i and not self.exhausted:
            self._more()
        if not self.found:
            raise UsageError(f"no playable {self.plies}-ply opening found on "
                             f"{_where(self.game)} (every candidate is over, unfair or "
                             f"already lost for a side); try fewer plies")
        return self.found[i % len(self.found)]

    def suite(self, count: int) -> Suite:
        """Up to `count` distinct openings; cycles to `count` when fewer distinct ones exist."""
        if count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        ops = tuple(self.get(i) for i in range(count))
        return Suite(self.game, ops, plies=self.plies, seed=self.seed, rejected=self.rejected)


class OpeningStream(GameOpenings):
    """`GameOpenings` of a Connect-X board (M, N, K)."""

    def __init__(self, M: int, N: int, K: int, judge: Judge | None,
                 plies: int = DEFAULT_PLIES, seed: int = 0) -> None:
        if plies >= M * N:
            raise ValueError(f"{plies} plies do not fit on a {M}x{N} board")
        super().__init__(board_game(M, N, K), judge, plies, seed)
        self.board = (M, N, K)


def make_suite(M: int, N: int, K: int, count: int, judge: Judge | None,
               plies: int = DEFAULT_PLIES, seed: int = 0) -> Suite:
    """Up to `count` distinct openings of `plies` moves for Connect-X board (M, N, K), judged
    by `judge`; cycles to `count` when fewer distinct ones exist."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    return OpeningStream(M, N, K, judge, plies, seed).suite(count)


def random_opening(game: Game, plies: int, seed: int,
                   judge: Judge | None = None) -> tuple[str, ...]:
    """One opening of `plies` moves (texts) for `game` from `seed`: the first of its
    `GameOpenings`. UsageError when no candidate is playable."""
    return GameOpenings(game, judge, plies, seed).get(0).texts


# ------------------------------------------------------------------------------------ files
def parse_line(text: str) -> tuple[tuple[int, ...], int | None] | None:
    """The opening (columns, value) of one file line, or None for a blank/comment line.
    Raises ValueError with a short reason for anything else."""
    body, _, comment = text.partition("#")
    body = body.strip()
    value: int | None = None
    m = _VALUE_RE.search(comment)
    if m:
        if m.group(1) not in _VALUES:
            raise ValueError(f"unknown value {m.group(1)!r} (expected 1-0, draw or 0-1)")
        value = _VALUES[m.group(1)]
    if not body:
        if value is not None:
            raise ValueError("a value without an opening")
        return None
    if body == "-":
        return (), value
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    cols = []
    for p in parts:
        if not re.fullmatch(r"[0-9]+", p):
            raise ValueError(f"{p!r} is not a column number (0-based integers separated by "
                             f"spaces or commas)")
        cols.append(int(p))
    return tuple(cols), value


def _check_on_board(cols: tuple[int, ...], M: int, N: int, K: int) -> None:
    b = CXBoard(M, N, K)
    for i, c in enumerate(cols):
        if not 0 <= c < N:
            raise ValueError(f"move {i + 1}: column {c} is outside 0..{N - 1}")
        if b.fullColumn(c):
            raise ValueError(f"move {i + 1}: column {c} is full")
        if b.markColumn(c) is not CXGameState.OPEN:
            raise ValueError(f"the game is over after move {i + 1}: an opening must leave it "
                             f"open")


def parse_suite(text: str, M: int, N: int, K: int, where: str = "<text>") -> Suite:
    """The suite in `text` (file format above) for Connect-X board (M, N, K). Raises
    UsageError naming `where` and the line."""
    ops: list[Opening] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        try:
            parsed = parse_line(line)
            if parsed is None:
                continue
            cols, value = parsed
            _check_on_board(cols, M, N, K)
        except ValueError as e:
            raise UsageError(f"{where}:{lineno}: {e} (board {M}x{N} K={K})") from None
        ops.append(Opening(tuple(map(str, cols)), value))
    if not ops:
        raise UsageError(f"{where}: no openings in the file (one per line: columns separated "
                         f"by spaces, e.g. `3 3`)")
    return Suite(board_game(M, N, K), tuple(ops), source=where)


def read_suite(path: str | Path, M: int, N: int, K: int) -> Suite:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{p}: no such openings file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{p}: cannot read the openings file: {e}") from None
    return parse_suite(text, M, N, K, str(p))


def format_line(opening: Opening) -> str:
    line = " ".join(map(str, opening.texts)) or "-"
    if opening.value is not None:
        line += f"  # value={_VALUE_TEXT[opening.value]}"
    return line


def format_suite(suite: Suite, distinct_only: bool = True) -> str:
    name = _where(suite.game)
    head = f"# cxarena openings: {name if suite.board is None else 'board ' + name}"
    if suite.plies is not None:
        head += f", {suite.plies} plies, seed {suite.seed}"
    ops: Iterable[Opening] = suite.openings
    if distinct_only:
        ops = list({o.texts: o for o in suite.openings}.values())
    return "\n".join([head, *(format_line(o) for o in ops)]) + "\n"


def write_suite(suite: Suite, path: str | Path) -> None:
    Path(path).write_text(format_suite(suite), encoding="utf-8")


def repeats(openings: Sequence[Opening]) -> int:
    """How many entries repeat an earlier one."""
    return len(openings) - len({o.texts for o in openings})
