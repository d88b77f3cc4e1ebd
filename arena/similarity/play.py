"""Play similarity: how often two bots choose the same move, against how often unrelated bots
do (the computer-chess world's clone screening: Don Dailey's similarity tester).

1. **The positions** (`load_positions`): a fixed, published set per board the exact solver
   covers in arena/data/similarity_positions_MxNxK.txt, made by ``python -m
   bench.similarity_positions`` with the exact solver: quiet positions (no win to take, no
   threat to block) where at least two moves have the best exact value and at least one (two
   from six columns) is worse; on the other boards, quiet positions of the league's own games
   (`arena.similarity.positions`). Where several moves are good, which one a bot picks is a
   matter of its evaluation and move order: its style. A position may carry its board (a set
   of several boards); the board given to `ask` is the default.
2. **The answers** (`ask`): each bot is asked for its move in every position at a fixed time
   per move, through the referee (`arena.referee.referee.Referee`), in the sandbox games use:
   one game per position that starts from the position as its opening and stops after one
   move (`max_moves`), the bot in both seats (so no other bot is started). Every bot is asked
   twice, with other game seeds: a randomised bot's agreement with itself is reported beside
   it (a deterministic bot's is 1, unless time changes its mind on a busy machine).
3. **The pair's share** (`agreement`): of the positions both answered, the share of identical
   answers, averaged over the four pairings of the two asks.
4. **The flag** (`judge`): against the distribution of the shares over unrelated pairs (the
   built-ins, `REFERENCE_BOTS`, that play by a style, but the pairs related by design,
   `RELATED`), a
   pair whose share is `Z_FLAG` spreads or more above the centre is flagged (robust: median
   and median absolute deviation, the spread floored at `SD_FLOOR` so that a tight band of a
   few pairs does not flag noise), and so is a pair
   agreeing at least as often as the less consistent of the two agrees with itself, when that
   is at least `SELF_FLOOR` (a pair that cannot be told apart from one bot asked twice).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["REFERENCE_BOTS", "RELATED", "SD_FLOOR", "Z_FLAG", "Answers", "PlayMatch", "Position",
           "Reference", "agreement", "answers_of", "ask", "ask_position", "judge",
           "load_positions", "move_time", "positions_path"]

DATA = Path(__file__).resolve().parent.parent / "data"
#: a pair this many standard deviations above the unrelated pairs' mean is flagged
Z_FLAG = 5.0
#: the smallest spread the flag uses (a share of positions): a pair is flagged from 0.25 above
#: the median at least
SD_FLOOR = 0.05
#: a pair agreeing as often as one of its bots agrees with itself is flagged only if that
#: self-agreement is at least this (two random movers agree with themselves as little as with
#: anyone)
SELF_FLOOR = 0.5
#: the fewest pairs of steady bots the band is made of (else every pair makes it)
MIN_BAND = 4
#: the built-in bots whose pairs make the band of unrelated pairs (SPECs of `players`, named,
#: never imported)
REFERENCE_BOTS = ("L0", "L1", "alphabeta", "minimax", "montecarlo", "mcts")
#: pairs of built-ins related by design, left out of the band: minimax is alphabeta without
#: pruning and table (the same heuristic and move order: players/minimax.py says so), so they
#: agree as often as their depths allow (0.58-0.73 at 0.1 s a move: near the flag)
RELATED: frozenset[frozenset[str]] = frozenset({frozenset({"alphabeta", "minimax"})})
#: the default time per move, in seconds (Java bots: at least 1, whole seconds)
MOVE_TIME_S = 0.1


@dataclass(frozen=True)
class Position:
    """A position (columns from the empty board), the columns of the best exact value (empty:
    not known, a position from a league's games) and its board (None: the set's one board)."""

    moves: tuple[int, ...]
    best: tuple[int, ...]
    board: tuple[int, int, int] | None = None

    def board_or(self, board: tuple[int, int, int]) -> tuple[int, int, int]:
        """Its board, else `board`."""
        return self.board if self.board is not None else board


def positions_path(M: int, N: int, K: int) -> Path:
    return DATA / f"similarity_positions_{M}x{N}x{K}.txt"


def load_positions(M: int, N: int, K: int, limit: int | None = None,
                   path: str | Path | None = None) -> list[Position]:
    """The published positions of an M x N x K board (the first `limit` of them). Raises
    FileNotFoundError for a board without a set."""
    p = Path(path) if path is not None else positions_path(M, N, K)
    out: list[Position] = []
    for line in p.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        moves_text, _, best_text = line.partition(" ")
        moves = (moves_text.split(",") if "," in moves_text else list(moves_text))
        out.append(Position(tuple(int(c) for c in moves),
                            tuple(int(c) for c in best_text.split(",") if c)))
        if limit is not None and len(out) >= limit:
            break
    return out


@dataclass(frozen=True)
class Answers:
    """A bot's moves in each position, asked twice (None: no legal answer in time)."""

    label: str
    first: tuple[int | None, ...]
    again: tuple[int | None, ...]
    seconds: float = 0.0  # wall time both asks took
    faults: int = 0  # positions without a legal answer in time, over both asks

    @property
    def self_agreement(self) -> float | None:
        """The share of positions where the two asks gave the same move."""
        return _share(self.first, self.again)


def _share(a: Sequence[int | None], b: Sequence[int | None]) -> float | None:
    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if not both:
        return None
    return sum(x == y for x, y in both) / len(both)


def agreement(a: Answers, b: Answers) -> float | None:
    """The share of identical answers of two bots, averaged over the four pairings of their
    two asks (None: no position answered by both)."""
    shares = [s for s in (_share(x, y) for x in (a.first, a.again) for y in (b.first, b.again))
              if s is not None]
    return sum(shares) / len(shares) if shares else None


def agreed_positions(a: Answers, b: Answers) -> list[int]:
    """The positions (indexes) where both bots' first answers were the same move."""
    return [i for i, (x, y) in enumerate(zip(a.first, b.first, strict=True))
            if x is not None and x == y]


def ask_position(referee: Any, bot: Any, pos: Position, index: int, round_: int, M: int,
                 N: int, K: int, seed: int = 41,
                 options: dict[str, Any] | None = None) -> int | None:
    """`bot`'s move in position `pos` (number `index` of its set) in ask `round_` (0: the
    first, 1: again), as `ask` asks it: one game from the position, stopped after the bot's
    move, its seed made of `seed`, the round and the index, on the position's board (else
    M x N x K). None: no legal answer in time."""
    from arena.referee.referee import course_game  # only when bots are asked

    M, N, K = pos.board_or((M, N, K))
    rec = referee.play(bot, bot, course_game(M, N, K), seed=seed + 1_000_003 * round_ + index,
                       options1=options, options2=options,
                       max_moves=len(pos.moves) + 1, opening=pos.moves,
                       game_id=f"similarity {round_ + 1}.{index + 1}")
    texts = rec.texts  # Connect-X's moves: decimal columns
    move = texts[len(pos.moves)] if len(texts) > len(pos.moves) else None
    if rec.is_fault or move is None:
        return None
    return int(move)


def ask(referee: Any, bot: Any, positions: Sequence[Position], M: int, N: int, K: int,
        seed: int = 41, options: dict[str, Any] | None = None,
        on_answer: Callable[[int], None] | None = None) -> Answers:
    """`bot` (a Launchable: a parsed SPEC) asked for its move in every position, twice, by
    `referee` (an `arena.referee.referee.Referee`, whose limits set the time per move): one
    game per position and ask, from the position, stopped after the bot's move. A position
    with a board of its own is asked on it, numbered (for its seed) within its board."""
    import time  # the asks' wall time

    start = time.perf_counter()
    asks: list[list[int | None]] = [[], []]
    faults = 0
    index: list[int] = []  # each position's number within its board
    count: dict[tuple[int, int, int], int] = {}
    for pos in positions:
        board = pos.board_or((M, N, K))
        index.append(count.get(board, 0))
        count[board] = index[-1] + 1
    for round_ in range(2):
        for i, pos in enumerate(positions):
            move = ask_position(referee, bot, pos, index[i], round_, M, N, K, seed, options)
            faults += move is None
            asks[round_].append(move)
            if on_answer is not None:
                on_answer(i)
    return Answers(getattr(bot, "text", str(bot)), tuple(asks[0]), tuple(asks[1]),
                   round(time.perf_counter() - start, 3), faults)


@dataclass(frozen=True)
class Reference:
    """The distribution of the shares over unrelated pairs: its centre (the median) and
    spread (1.4826 x the median absolute deviation: the standard deviation of a normal band,
    not pulled up by one related pair among the references), floored at `SD_FLOOR`."""

    shares: tuple[float, ...]
    #: the bots left out for answering at random (self-agreement below SELF_FLOOR)
    random_bots: tuple[str, ...] = ()

    @property
    def mean(self) -> float:
        return statistics.median(self.shares) if self.shares else 0.0

    @property
    def sd(self) -> float:
        if len(self.shares) < 2:
            return SD_FLOOR
        mid = statistics.median(self.shares)
        mad = statistics.median(abs(x - mid) for x in self.shares)
        return max(1.4826 * mad, SD_FLOOR)

    @property
    def threshold(self) -> float:
        """The share from which a pair is flagged by its z."""
        return self.mean + Z_FLAG * self.sd

    def z(self, share: float) -> float:
        return (share - self.mean) / self.sd

    @classmethod
    def of(cls, answers: Sequence[Answers],
           related: Collection[frozenset[str]] = RELATED) -> Reference:
        """The distribution over the pairs of `answers` (bots taken as unrelated) but the
        `related` ones (pairs of labels), of the bots that play by a style: a random mover
        (self-agreement below `SELF_FLOOR`, named in `random_bots`) agrees with anyone about
        as little as with itself, and pairs of them would pull the band's median down to
        chance and let two steady, unrelated bots stand out. With fewer than `MIN_BAND`
        such pairs (few positions, few steady bots), every pair but the related ones."""
        steady = [a for a in answers if (a.self_agreement or 0.0) >= SELF_FLOOR]

        def shares_of(bots: Sequence[Answers]) -> list[float]:
            return [s for a, b in itertools.combinations(bots, 2)
                    if frozenset({a.label, b.label}) not in related
                    and (s := agreement(a, b)) is not None]

        shares = shares_of(steady)
        if len(shares) < MIN_BAND:
            shares = shares_of(answers)
        return cls(tuple(shares), tuple(a.label for a in answers if a not in steady))


@dataclass(frozen=True)
class PlayMatch:
    """Two bots' play compared: the share of identical answers, its z against the reference,
    each bot's agreement with itself, and whether the pair is flagged (and why)."""

    a: str
    b: str
    share: float | None
    z: float
    self_a: float | None
    self_b: float | None
    positions: int
    agreed: tuple[int, ...] = ()
    flagged: bool = False
    why: str = ""
    note: str = ""

    @property
    def scored(self) -> bool:
        return self.share is not None


def judge(a: Answers, b: Answers, reference: Reference) -> PlayMatch:
    """Compare two bots' answers against the reference distribution (module docstring)."""
    share = agreement(a, b)
    sa, sb = a.self_agreement, b.self_agreement
    if share is None:
        return PlayMatch(a.label, b.label, None, 0.0, sa, sb, len(a.first),
                         note="no position answered by both")
    z = reference.z(share)
    why = []
    if z >= Z_FLAG:
        why.append(f"z {z:.1f} >= {Z_FLAG:g}")
    selves = [s for s in (sa, sb) if s is not None]
    if selves and min(selves) >= SELF_FLOOR and share >= min(selves) - 1e-9:
        why.append(f"agrees as often as a bot with itself ({min(selves):.2f})")
    return PlayMatch(a.label, b.label, round(share, 4), round(z, 2) if math.isfinite(z) else 0.0,
                     sa, sb, len(a.first), tuple(agreed_positions(a, b)), bool(why),
                     "; ".join(why))


def move_time(spec: Any, time_s: float) -> float:
    """The time per move a bot is asked at: `time_s`, but whole seconds (at least 1) for a
    Java bot (the course API gives Java bots an int)."""
    from arena.entrants.specs import Kind  # with the parsed SPEC

    return max(1.0, float(math.ceil(time_s))) if spec.kind is Kind.JAVA else time_s


def answers_of(specs: Sequence[str], M: int, N: int, K: int, positions: Sequence[Position],
               time_s: float = MOVE_TIME_S, isolation: str | None = None,
               cgroups: bool | None = None, seed: int = 41,
               progress: Callable[[str], None] | None = None,
               optional: Collection[str] = (),
               skipped: dict[str, str] | None = None) -> dict[str, Answers]:
    """Every SPEC's answers (`ask`), each bot in a Referee of its own (in the sandbox games
    use: `isolation`, `cgroups` as for a match; None: the defaults) at `move_time`. Raises
    SpecError for a SPEC that names no bot that loads, unless it is `optional` (then it is
    left out, and why goes into `skipped`)."""
    # the referee and the entrants: only when bots are asked (each import says so)
    from arena import defaults  # only when bots are asked
    from arena.competition.settings import referee_settings  # only when bots are asked
    from arena.entrants.probe import check_loadable  # only when bots are asked
    from arena.entrants.specs import SpecError, parse_spec  # only when bots are asked
    from arena.limits import make_limits  # only when bots are asked
    from arena.referee.door import install  # only when bots are asked
    from arena.referee.referee import Referee  # the same
    from arena.tournament.preflight import refuse_unseen_programs  # only when bots are asked

    iso_mode = defaults.ISOLATION if isolation is None else isolation
    use_cgroups = defaults.CGROUPS if cgroups is None else cgroups
    iso = install(iso_mode, use_cgroups)
    parsed = []
    for text in specs:
        try:
            parsed.append(parse_spec(text))
        except SpecError as e:
            if text not in optional:
                raise
            if skipped is not None:
                skipped[text] = str(e)
    refuse_unseen_programs(parsed, iso.isolated)
    failed = check_loadable(parsed)
    for spec in list(parsed):
        if spec.text in failed:
            if spec.text not in optional:
                raise SpecError(failed[spec.text])
            if skipped is not None:
                skipped[spec.text] = failed[spec.text]
            parsed.remove(spec)
    out: dict[str, Answers] = {}
    for spec in parsed:
        if spec.text in out:
            continue
        limits = make_limits(move_time(spec, time_s), where="similarity")
        settings = referee_settings(limits, "similarity", isolation=iso_mode,
                                    cgroups=use_cgroups)
        with Referee(settings) as referee:
            out[spec.text] = ask(referee, spec, positions, M, N, K, seed)
        if progress is not None:
            progress(spec.text)
    return out
