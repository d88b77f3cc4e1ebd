"""Opening suites: short move sequences from the empty board, each played as a game pair.

An **opening** is a tuple of 0-based columns played from the empty board, p1 first,
alternating, that leaves the game open. A **suite** is a list of openings for one board.

Making a suite (`make_suite`): reproducible from (seed, board, plies). Candidate openings are
random sequences of `plies` moves (each ply uniform over the legal columns; on boards wider than
9 columns over the legal columns within 3 of the centre, so openings stay where the game is);
openings that reach the same position (move orders that transpose, and mirror images, which
make the same games for any bot that does not prefer a side) count as one, and only the first
is kept. Each candidate is shown to a `judge`
(a function parameter), which rejects it when a side is already lost within what the
project's search sees in a small budget and reports its exact value when its solver settles it
in budget. A suite can hold fewer distinct openings than asked for (tiny boards have few); it
then cycles through them and `Suite.distinct` says so.

The judge is the only link to the project's search, and it is passed in: the command layer
(`arena.commands.opening_judge`) hands over `players._shared.judge.judge_opening` (the search
engine shared by the built-in bots); nothing in `arena/` below the commands imports `players`.
Callers may pass any other function, e.g. a cheaper one in tests.

File format (`read_suite` / `write_suite`), UTF-8 text::

    # cxarena openings: board 6x7 K=4, 2 plies, seed 1
    3 3
    2 4    # value=draw
    3 1    # value=1-0

One opening per line: its columns (0-based, as in the protocol) separated by spaces or commas.
Everything after ``#`` is a comment; blank lines are ignored. A comment holding ``value=1-0``,
``value=draw`` or ``value=0-1`` records the exact value of the position for the first player
(written by `cxarena openings`; read back when present). An empty opening is the line ``-``
(the empty board). Reading checks every opening on the board: a column out of range, a full
column or a finished game is an error naming the file and line.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.board import CXBoard, CXGameState
from arena.errors import UsageError

__all__ = ["DEFAULT_PLIES", "Judge", "Opening", "OpeningStream", "Suite", "Verdict",
           "format_line", "format_suite", "make_suite", "parse_line", "parse_suite",
           "read_suite", "repeats", "write_suite"]

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
    """A move sequence from the empty board and its exact value for the first player (1 win,
    0 draw, -1 loss; None when unknown)."""

    moves: tuple[int, ...]
    value: int | None = None

    @property
    def key(self) -> str:
        """A short id: the columns joined by '.', '-' for the empty board (e.g. ``3.4``)."""
        return ".".join(map(str, self.moves)) or "-"


class Verdict(Protocol):
    """What a judge returns (`players._shared.judge.Judgement` is one): `lost_side` 1 or 2
    when that side is already lost (the opening is rejected), else None; `value` the exact
    value for the first player (1, 0, -1) or None."""

    @property
    def lost_side(self) -> int | None: ...

    @property
    def value(self) -> int | None: ...


#: judge(M, N, K, moves) -> Verdict
Judge = Callable[[int, int, int, tuple[int, ...]], Verdict]


@dataclass(frozen=True)
class Suite:
    """Openings for one board, in the order they are played."""

    board: Board
    openings: tuple[Opening, ...]
    plies: int | None = None  # generation parameters (None: read from a file)
    seed: int | None = None
    source: str = ""  # file name, or "" when generated
    rejected: int = 0  # candidates the judge rejected while generating

    @property
    def distinct(self) -> int:
        return len({o.moves for o in self.openings})

    def take(self, count: int) -> tuple[Opening, ...]:
        """`count` openings, cycling through the suite when it holds fewer."""
        if not self.openings:
            raise ValueError("empty opening suite")
        return tuple(self.openings[i % len(self.openings)] for i in range(count))


def _rng(seed: int, board: Board, plies: int) -> random.Random:
    digest = hashlib.sha256(f"cxarena-openings|{seed}|{board}|{plies}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _columns(board: CXBoard) -> list[int]:
    legal = board.getAvailableColumns()
    if board.N <= 9:
        return legal
    centre = (board.N - 1) / 2
    near = [c for c in legal if abs(c - centre) <= 3]
    return near or legal


def _position_key(board: CXBoard) -> bytes:
    """The position, the same for its mirror image and for move orders that transpose."""
    grid = board.getBoard()
    return min(grid.tobytes(), grid[:, ::-1].copy().tobytes())


class OpeningStream:
    """The distinct accepted openings of (seed, board, plies), made on demand in a fixed order
    (so the first n are the same whoever asks for how many). `get(i)` cycles once the
    candidates run out (after `_TRIES_PER_OPENING` draws per opening without a new one)."""

    def __init__(self, M: int, N: int, K: int, judge: Judge, plies: int = DEFAULT_PLIES,
                 seed: int = 0) -> None:
        if plies < 0:
            raise ValueError(f"plies must be >= 0, got {plies}")
        if plies >= M * N:
            raise ValueError(f"{plies} plies do not fit on a {M}x{N} board")
        self.board = (M, N, K)
        self.plies, self.seed = plies, seed
        self._judge = judge
        self._rng = _rng(seed, (M, N, K), plies)
        self._seen: set[bytes] = set()
        self.found: list[Opening] = []
        self.rejected = 0
        self.exhausted = False

    def _more(self) -> bool:
        """Find one more opening; False when none is left."""
        M, N, K = self.board
        for _ in range(_TRIES_PER_OPENING):
            b = CXBoard(M, N, K)
            moves: list[int] = []
            for _ply in range(self.plies):
                col = self._rng.choice(_columns(b))
                moves.append(col)
                if b.markColumn(col) is not CXGameState.OPEN:
                    break
            cand = tuple(moves)
            canon = _position_key(b)
            if canon in self._seen:
                continue
            self._seen.add(canon)
            if b.gameState() is not CXGameState.OPEN:
                self.rejected += 1
                continue
            verdict = self._judge(M, N, K, cand)
            if verdict.lost_side is not None:
                self.rejected += 1
                continue
            self.found.append(Opening(cand, verdict.value))
            return True
        self.exhausted = True
        return False

    def get(self, i: int) -> Opening:
        while len(self.found) <= i and not self.exhausted:
            self._more()
        if not self.found:
            M, N, K = self.board
            raise UsageError(f"no playable {self.plies}-ply opening found on {M}x{N} K={K} "
                             f"(every candidate is already lost for a side); try fewer plies")
        return self.found[i % len(self.found)]


def make_suite(M: int, N: int, K: int, count: int, judge: Judge, plies: int = DEFAULT_PLIES,
               seed: int = 0) -> Suite:
    """Up to `count` distinct openings of `plies` moves for board (M, N, K), judged by `judge`;
    cycles to `count` when fewer distinct ones exist."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    stream = OpeningStream(M, N, K, judge, plies, seed)
    ops = tuple(stream.get(i) for i in range(count))
    return Suite((M, N, K), ops, plies=plies, seed=seed, rejected=stream.rejected)


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
    """The suite in `text` (file format above) for board (M, N, K). Raises UsageError naming
    `where` and the line."""
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
        ops.append(Opening(cols, value))
    if not ops:
        raise UsageError(f"{where}: no openings in the file (one per line: columns separated "
                         f"by spaces, e.g. `3 3`)")
    return Suite((M, N, K), tuple(ops), source=where)


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
    line = " ".join(map(str, opening.moves)) or "-"
    if opening.value is not None:
        line += f"  # value={_VALUE_TEXT[opening.value]}"
    return line


def format_suite(suite: Suite, distinct_only: bool = True) -> str:
    M, N, K = suite.board
    head = f"# cxarena openings: board {M}x{N} K={K}"
    if suite.plies is not None:
        head += f", {suite.plies} plies, seed {suite.seed}"
    ops: Iterable[Opening] = suite.openings
    if distinct_only:
        ops = list({o.moves: o for o in suite.openings}.values())
    return "\n".join([head, *(format_line(o) for o in ops)]) + "\n"


def write_suite(suite: Suite, path: str | Path) -> None:
    Path(path).write_text(format_suite(suite), encoding="utf-8")


def repeats(openings: Sequence[Opening]) -> int:
    """How many entries repeat an earlier one."""
    return len(openings) - len({o.moves for o in openings})
