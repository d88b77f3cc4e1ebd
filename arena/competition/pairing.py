"""Who plays whom next: the pairing policies of the tournament and the league behind one seam.

A policy (a `Pairer`) reads a `Field`, a frozen picture of the competition at one moment: its
entries, how many game pairs each two of them have played or have in flight, which entries are
busy in a pair being played, their ratings where a policy wants them, and each league entry's
previous version. Its `next` names the next `Pairing`, or None when there is nothing left to
play. A policy holds no state and reads no database: the caller builds the Field (the
tournament from its config, the league from its tables, `arena.league.worker.plan_next`) and
turns the pairing into games; the same Field always gives the same answer.

The policies:

- `RoundRobin`: every two entries meet once per round.
- `Gauntlet`: only the pairings that include a challenger (challengers against everyone,
  challengers among themselves once), so one new bot against n others costs O(n) pairs.
- `Adaptive`: the league's rating games. Every entry first plays its minimum of pairs; after
  that the one whose Elo interval is widest plays, until it has its maximum. An entry that is
  busy waits behind one that is not, so that several workers spread over the table. The
  opponent is the one it has met least, then the least busy, then the closest in Elo. An entry
  with a previous version also plays its minimum of pairs against it (pairs that do not count
  towards its rating pairs).

Entry keys are plain text (a player's name, the league's ``sub:<id>``); nothing here reads
meaning into them: an order among entries comes from the Field (`Field.rank`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as default
from itertools import combinations
from types import MappingProxyType
from typing import Protocol

__all__ = ["Adaptive", "Field", "Gauntlet", "Pairer", "Pairing", "Rating", "RoundRobin"]


@dataclass(frozen=True)
class Rating:
    """An entry's Elo and the bounds of its 95% interval."""

    elo: float
    elo_low: float
    elo_high: float

    @property
    def width(self) -> float:
        """How uncertain the rating is: the width of its interval."""
        return self.elo_high - self.elo_low


@dataclass(frozen=True)
class Field:
    """The competition as a policy sees it at one moment.

    `entries` are every entry, in a fixed order (a policy that has to break a tie between two
    opponents takes the earlier). `pairs` counts the game pairs between two entries, played or
    in flight, keyed by the two entries as a frozenset (a missing pair counts 0). `busy` are
    the entries in a pair being played now. `ratings` holds the entries that have one (an entry
    without one counts as the least known). `previous` maps an entry to its previous version,
    an entry of its own that need not be in `entries`. `references` are entries that only ever
    answer (the league's reference bots): `Adaptive` never chooses one to play next. `rank` is
    the final tie-break between entries that seek a pair (the league: the submission id); an
    entry missing from it ranks by its place in `entries`."""

    entries: tuple[str, ...]
    pairs: Mapping[frozenset[str], int] = default(default_factory=dict)
    busy: frozenset[str] = frozenset()
    ratings: Mapping[str, Rating] = default(default_factory=dict)
    previous: Mapping[str, str] = default(default_factory=dict)
    references: frozenset[str] = frozenset()
    rank: Mapping[str, int] = default(default_factory=dict)

    def __post_init__(self) -> None:
        if len(set(self.entries)) != len(self.entries):
            raise ValueError(f"a field's entries must differ: {self.entries}")
        # frozen: the fields are set once, here, to read-only copies of what was passed
        for name in ("pairs", "ratings", "previous", "rank"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "entries", tuple(self.entries))
        object.__setattr__(self, "busy", frozenset(self.busy))
        object.__setattr__(self, "references", frozenset(self.references))

    def count(self, a: str, b: str) -> int:
        """The game pairs between `a` and `b`, played or in flight."""
        return self.pairs.get(frozenset((a, b)), 0)

    def order(self, entry: str) -> int:
        """`entry`'s place in the final tie-break (`rank`, else its place in `entries`)."""
        if entry in self.rank:
            return self.rank[entry]
        return self.entries.index(entry)

    def with_pair(self, a: str, b: str) -> Field:
        """This field with one more pair between `a` and `b` (for a caller that plays the
        policy's pairings out in its head)."""
        counts = dict(self.pairs)
        key = frozenset((a, b))
        counts[key] = counts.get(key, 0) + 1
        return replace(self, pairs=counts)


@dataclass(frozen=True)
class Pairing:
    """The next game pair: `entry` against `opponent`. `number` counts what came before it, as
    the policy counts (round robin and gauntlet: the two's pairs so far, i.e. the round from 0;
    the league: the entry's own pairs so far), so that seeds and ids derive from it."""

    entry: str
    opponent: str
    number: int


class Pairer(Protocol):
    """A pairing policy: the next pair to play in a field, or None when it has none."""

    def next(self, field: Field) -> Pairing | None: ...


def one_round(pairer: Pairer, entries: tuple[str, ...]) -> list[tuple[str, str]]:
    """The pairings of one round, in the order `pairer.next` names them from a field where no
    pair has met (until it names a pair a second time, or none): the schedule a tournament
    makes in advance (`arena.tournament.schedule`) through the seam the league plays by."""
    field = Field(entries)
    out: list[tuple[str, str]] = []
    while (pairing := pairer.next(field)) is not None and pairing.number == 0:
        out.append((pairing.entry, pairing.opponent))
        field = field.with_pair(pairing.entry, pairing.opponent)
    return out


def _least_played(field: Field, pairs: Iterable[tuple[str, str]]) -> Pairing | None:
    """Of `pairs` (in their order), the first of those met least often, preferring a pair
    whose two entries are both free; None when there are no pairs."""
    best: tuple[tuple[int, bool, int], str, str] | None = None
    for i, (a, b) in enumerate(pairs):
        key = (field.count(a, b), a in field.busy or b in field.busy, i)
        if best is None or key < best[0]:
            best = (key, a, b)
    if best is None:
        return None
    (count, _, _), a, b = best
    return Pairing(a, b, count)


@dataclass(frozen=True)
class RoundRobin:
    """Every two entries meet once per round: the next pairing is the first (in the order of
    the entries, a pair of free entries before one with a busy entry) of those that have met
    least, so a round ends before the next begins."""

    def round(self, entries: tuple[str, ...]) -> list[tuple[str, str]]:
        """One round's pairings, in order: each unordered pair of entries once (what `next`
        names one by one from a field where they have not met; a schedule made in advance,
        `arena.tournament.schedule`, takes them all at once)."""
        return list(combinations(entries, 2))

    def next(self, field: Field) -> Pairing | None:
        return _least_played(field, self.round(field.entries))


@dataclass(frozen=True)
class Gauntlet:
    """Only the pairings that include a challenger: challengers against everyone, and among
    themselves once per round; the others never meet."""

    challengers: frozenset[str]

    def __init__(self, challengers: Iterable[str]) -> None:
        object.__setattr__(self, "challengers", frozenset(challengers))

    def round(self, entries: tuple[str, ...]) -> list[tuple[str, str]]:
        """One round's pairings, in the round robin's order."""
        return [(a, b) for a, b in combinations(entries, 2)
                if a in self.challengers or b in self.challengers]

    def next(self, field: Field) -> Pairing | None:
        return _least_played(field, self.round(field.entries))


def _previous(field: Field, entry: str) -> str | None:
    """`entry`'s previous version, if it has one (an entry is never its own)."""
    before = field.previous.get(entry)
    return None if before == entry else before


@dataclass(frozen=True)
class Adaptive:
    """The league's policy: rating pairs go where they tell most (see the module docstring).

    Every entry that is not a reference seeks pairs: `minimum_pairs` first (rating pairs, and as
    many against its previous version when it has one), then more rating pairs up to
    `maximum_pairs` while its interval is the widest. Ties among the entries are broken, in
    order, by: whether it has its minimum (those without go first), whether it is busy (a free
    one first), the width of its interval (widest first), its rating pairs (fewest first), and
    its rank. Among its opponents (the other entries, and its previous version while it lacks
    its minimum against it), by: the pairs between the two, whether the opponent is busy, and
    the distance in Elo (an entry without a rating counts as distance 0); the earlier in the
    field's order wins a tie."""

    minimum_pairs: int
    maximum_pairs: int

    def next(self, field: Field) -> Pairing | None:
        seekers = [e for e in field.entries if e not in field.references]
        todo = [e for e in seekers if self._opponents(field, e)]
        if not todo:
            return None
        me = min(todo, key=lambda e: self._urgency(field, e))
        my_elo = field.ratings[me].elo if me in field.ratings else 0.0

        def preference(o: str) -> tuple[int, bool, float]:
            rating = field.ratings.get(o)
            distance = abs(rating.elo - my_elo) if rating is not None else 0.0
            return field.count(me, o), o in field.busy, distance

        opponent = min(self._opponents(field, me), key=preference)
        return Pairing(me, opponent, self._rated(field, me) + self._versus(field, me))

    @staticmethod
    def _rated(field: Field, entry: str) -> int:
        """`entry`'s rating pairs: against the field's other entries."""
        return sum(field.count(entry, o) for o in field.entries if o != entry)

    @staticmethod
    def _versus(field: Field, entry: str) -> int:
        """`entry`'s pairs against its previous version (0 without one)."""
        before = _previous(field, entry)
        return 0 if before is None else field.count(entry, before)

    def _opponents(self, field: Field, entry: str) -> list[str]:
        """Whom `entry` may play now, in the field's order: the others while it lacks its
        maximum of rating pairs, then its previous version while it lacks its minimum."""
        out = ([o for o in field.entries if o != entry]
               if self._rated(field, entry) < self.maximum_pairs else [])
        before = _previous(field, entry)
        if before is not None and self._versus(field, entry) < self.minimum_pairs:
            out.append(before)
        return out

    def _urgency(self, field: Field, entry: str) -> tuple[bool, bool, float, int, int]:
        """`entry`'s key among those that may play (the smallest plays next)."""
        rated = self._rated(field, entry)
        versus = (self.minimum_pairs if _previous(field, entry) is None
                  else self._versus(field, entry))
        rating = field.ratings.get(entry)
        width = float("inf") if rating is None else rating.width
        return (min(rated, versus) >= self.minimum_pairs, entry in field.busy, -width, rated,
                field.order(entry))
