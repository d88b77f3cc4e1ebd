"""The pairing policies (`arena.competition.pairing`) on hand-built fields, without a database:
round robin and gauntlet rounds, and each rule of the league's adaptive policy."""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition.pairing import (
    Adaptive,
    Field,
    Gauntlet,
    Pairer,
    Pairing,
    Rating,
    RoundRobin,
    one_round,
)


def pairs(*counts: tuple[str, str, int]) -> dict[frozenset[str], int]:
    return {frozenset((a, b)): n for a, b, n in counts}


def play_out(policy: Pairer, field: Field, n: int) -> list[Pairing]:
    """The first `n` pairings `policy` names, each counted as played before the next."""
    out = []
    for _ in range(n):
        pairing = policy.next(field)
        assert pairing is not None
        out.append(pairing)
        field = field.with_pair(pairing.entry, pairing.opponent)
    return out


# ------------------------------------------------------------------------------ the field
def test_a_field_is_a_frozen_copy_of_what_it_was_made_from() -> None:
    counts = pairs(("a", "b", 1))
    field = Field(("a", "b"), counts)
    counts[frozenset(("a", "b"))] = 5
    assert field.count("a", "b") == field.count("b", "a") == 1
    assert field.count("a", "c") == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        field.busy = frozenset({"a"})  # type: ignore[misc]
    with pytest.raises(TypeError):
        field.pairs[frozenset(("a", "b"))] = 2  # type: ignore[index]
    with pytest.raises(ValueError, match="must differ"):
        Field(("a", "a"))


# ---------------------------------------------------------------------- round robin, gauntlet
def test_round_robin_covers_every_pair_once_per_round() -> None:
    names = ("e", "a", "d", "b", "c")
    field = Field(names)
    every = [frozenset(p) for p in combinations(names, 2)]
    named = play_out(RoundRobin(), field, 3 * len(every))
    for r in range(3):
        one_round = named[r * len(every):(r + 1) * len(every)]
        assert sorted(map(sorted, (frozenset((p.entry, p.opponent)) for p in one_round))) \
            == sorted(map(sorted, every))
        assert {p.number for p in one_round} == {r}
    # in the order a schedule made in advance takes them
    assert [(p.entry, p.opponent) for p in named[:len(every)]] == RoundRobin().round(names)


def test_round_robin_prefers_a_pair_of_free_entries() -> None:
    field = Field(("a", "b", "c", "d"), busy=frozenset({"a"}))
    assert RoundRobin().next(field) == Pairing("b", "c", 0)
    # but a pair met less often comes first, busy or not
    field = Field(("a", "b", "c"), pairs(("b", "c", 1)), busy=frozenset({"a"}))
    assert RoundRobin().next(field) == Pairing("a", "b", 0)


def test_gauntlet_pairs_only_the_challengers_against_everyone() -> None:
    names = ("a", "b", "c", "d", "e")
    gauntlet = Gauntlet(["b", "e"])
    round_ = gauntlet.round(names)
    assert round_ == [("a", "b"), ("a", "e"), ("b", "c"), ("b", "d"), ("b", "e"), ("c", "e"),
                      ("d", "e")]
    named = play_out(gauntlet, Field(names), 2 * len(round_))
    met = Counter(frozenset((p.entry, p.opponent)) for p in named)
    assert met == Counter({frozenset(p): 2 for p in round_})
    assert all({p.entry, p.opponent} & {"b", "e"} for p in named)
    assert [p.number for p in named] == [0] * len(round_) + [1] * len(round_)
    assert Gauntlet([]).next(Field(names)) is None
    assert RoundRobin().next(Field(("alone",))) is None


# ------------------------------------------------------------------------------- adaptive
LEAGUE = Adaptive(minimum_pairs=2, maximum_pairs=6)


def test_a_new_entry_plays_its_minimum_first() -> None:
    field = Field(("old", "new", "ref"), pairs(("old", "ref", 2)),
                  ratings={"old": Rating(1000, 0, 2000)}, references=frozenset({"ref"}))
    assert LEAGUE.next(field) == Pairing("new", "ref", 0)
    # an entry busy in a pair still goes first while it lacks its minimum
    field = dataclasses.replace(field, busy=frozenset({"new"}))
    assert LEAGUE.next(field) == Pairing("new", "ref", 0)


def test_the_widest_interval_plays_next() -> None:
    field = Field(("a", "b", "ref"), pairs(("a", "ref", 2), ("b", "ref", 2)),
                  ratings={"a": Rating(1000, 950, 1050), "b": Rating(900, 700, 1100)},
                  references=frozenset({"ref"}))
    assert LEAGUE.next(field) == Pairing("b", "a", 2)
    # an entry without a rating counts as the least known
    field = dataclasses.replace(field, ratings={"a": Rating(1000, 950, 1050)})
    pairing = LEAGUE.next(field)
    assert pairing is not None and pairing.entry == "b"


def test_a_busy_entry_waits_behind_a_free_one() -> None:
    field = Field(("a", "b", "ref"), pairs(("a", "ref", 3), ("b", "ref", 2)),
                  busy=frozenset({"a", "ref"}), references=frozenset({"ref"}),
                  ratings={"a": Rating(0, -500, 500), "b": Rating(0, -10, 10)})
    assert LEAGUE.next(field) == Pairing("b", "a", 2)


def test_equal_entries_go_by_fewest_pairs_then_rank() -> None:
    ratings = {e: Rating(1000, 900, 1100) for e in ("x", "y", "z")}
    field = Field(("x", "y", "z"), pairs(("x", "y", 2), ("x", "z", 2), ("y", "z", 1)),
                  ratings=ratings, rank={"x": 3, "y": 2, "z": 1})
    # y and z have 3 pairs each, x has 4: of y and z the lower rank, z
    assert LEAGUE.next(field) == Pairing("z", "y", 3)
    # without a rank, the order of the entries
    assert LEAGUE.next(dataclasses.replace(field, rank={})) == Pairing("y", "z", 3)


def test_the_opponent_is_the_least_met_then_the_closest_in_elo() -> None:
    ratings = {"me": Rating(1000, 0, 2000), "near": Rating(1010, 900, 1100),
               "far": Rating(1400, 1300, 1500), "met": Rating(1000, 900, 1100)}
    field = Field(("far", "met", "near", "me"),
                  pairs(("me", "met", 1), ("near", "far", 2), ("met", "far", 2),
                        ("near", "met", 2)),
                  ratings=ratings)
    assert LEAGUE.next(field) == Pairing("me", "near", 1)
    # the least met comes before the closest
    field = dataclasses.replace(field, pairs=pairs(("me", "near", 2), ("me", "met", 2),
                                                    ("near", "far", 2), ("met", "far", 2)))
    assert LEAGUE.next(field) == Pairing("me", "far", 4)
    # a busy opponent only after a free one met as often
    field = dataclasses.replace(field, busy=frozenset({"near"}),
                                pairs=pairs(("me", "far", 1), ("near", "far", 2),
                                            ("met", "far", 2), ("near", "met", 2)))
    assert LEAGUE.next(field) == Pairing("me", "met", 1)


def test_the_previous_version_gets_its_pairs() -> None:
    policy = Adaptive(minimum_pairs=1, maximum_pairs=2)
    # v2 has its rating pairs (it is at its maximum): it still plays its previous version
    field = Field(("v2", "ref"), pairs(("v2", "ref", 2)), previous={"v2": "v1"},
                  references=frozenset({"ref"}))
    assert policy.next(field) == Pairing("v2", "v1", 2)
    # it lacks its minimum while it lacks that pair, so it goes before a wider interval; v1 is
    # its least met opponent
    policy = Adaptive(minimum_pairs=1, maximum_pairs=3)
    field = Field(("other", "v2", "ref"),
                  pairs(("v2", "ref", 1), ("other", "ref", 1), ("other", "v2", 1)),
                  previous={"v2": "v1"}, references=frozenset({"ref"}),
                  ratings={"other": Rating(0, -900, 900), "v2": Rating(0, -1, 1)})
    assert policy.next(field) == Pairing("v2", "v1", 2)
    assert policy.next(field.with_pair("v2", "other")) == Pairing("v2", "v1", 3)
    # with the pair against v1 played, v2 has its minimum: the widest interval plays
    assert policy.next(field.with_pair("v2", "v1")) == Pairing("other", "v2", 2)


def test_none_when_every_entry_has_its_maximum() -> None:
    policy = Adaptive(minimum_pairs=1, maximum_pairs=2)
    field = Field(("a", "b", "ref"), pairs(("a", "b", 1), ("a", "ref", 1), ("b", "ref", 1),
                                           ("b", "b0", 1)),
                  previous={"b": "b0"}, references=frozenset({"ref"}))
    assert policy.next(field) is None
    # a reference bot never seeks pairs, however few it has
    assert policy.next(Field(("ref",), references=frozenset({"ref"}))) is None
    assert policy.next(Field(())) is None


NAMES = ("a", "b", "c", "d", "e", "f")


@st.composite
def fields(draw: st.DrawFn) -> tuple[Adaptive, Field]:
    """An adaptive policy and a field of 1 to 6 entries, some of them references, with random
    pair counts, busy entries, ratings and previous versions (outside the entries)."""
    entries = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    minimum = draw(st.integers(0, 3))
    maximum = draw(st.integers(minimum, 8))
    previous = {e: f"{e}0" for e in entries if draw(st.booleans())}
    everyone = entries + list(previous.values())
    counts = {frozenset(p): draw(st.integers(0, 4)) for p in combinations(everyone, 2)}
    ratings = {}
    for e in entries:
        if draw(st.booleans()):
            low = draw(st.floats(-1000, 1000))
            ratings[e] = Rating(low + 50, low, low + draw(st.floats(0, 500)))
    field = Field(tuple(entries), counts, frozenset(draw(st.sets(st.sampled_from(entries)))),
                  ratings, previous, frozenset(draw(st.sets(st.sampled_from(entries)))),
                  {e: draw(st.integers(0, 100)) for e in entries})
    return Adaptive(minimum, maximum), field


@settings(max_examples=300, deadline=None)
@given(fields())
def test_adaptive_never_pairs_an_entry_with_itself_nor_beyond_its_maximum(
        case: tuple[Adaptive, Field]) -> None:
    policy, field = case

    def rated(e: str) -> int:
        return sum(field.count(e, o) for o in field.entries if o != e)

    def owed(e: str) -> bool:  # still owed a pair: rating, or against its previous version
        before = field.previous.get(e)
        return e not in field.references and (
            (rated(e) < policy.maximum_pairs and len(field.entries) > 1) or (
                before is not None and field.count(e, before) < policy.minimum_pairs))

    pairing = policy.next(field)
    if pairing is None:
        assert not any(owed(e) for e in field.entries)
        return
    me, other = pairing.entry, pairing.opponent
    assert me != other
    assert me not in field.references
    if other == field.previous.get(me):
        assert field.count(me, other) < policy.minimum_pairs
    else:
        assert other in field.entries and rated(me) < policy.maximum_pairs
    assert pairing.number == rated(me) + (field.count(me, field.previous[me])
                                          if me in field.previous else 0)


@given(st.integers(min_value=0, max_value=9), st.sets(st.integers(min_value=0, max_value=9)))
def test_one_round_through_next_is_the_round(n: int, challengers: set[int]) -> None:
    """The tournament's schedule takes its pairs through `Pairer.next` (`one_round`), the seam
    the league plays by: each pair of the round once, in the round's order."""
    entries = tuple(f"p{i}" for i in range(n))
    names = [f"p{i}" for i in challengers]
    assert one_round(RoundRobin(), entries) == list(combinations(entries, 2))
    assert one_round(Gauntlet(names), entries) == [
        (a, b) for a, b in combinations(entries, 2) if a in names or b in names]
