"""Play similarity (arena.similarity.play) with real bots through the referee: a copy with one
evaluation constant changed is flagged against the built-ins, the built-ins among themselves
are not, a random mover's agreement with itself is reported beside it."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from arena.board import CXBoard, CXGameState
from arena.similarity.play import (
    REFERENCE_BOTS,
    RELATED,
    Answers,
    Reference,
    agreement,
    answers_of,
    judge,
    load_positions,
    positions_path,
)

#: the answers are asked at 0.1 s a position: how much a time-limited bot searches, and so the
#: band of unrelated pairs, moves with the machine's load; run alone (Makefile)
pytestmark = pytest.mark.serial

BOTS = Path(__file__).resolve().parent / "bots"
ORIGINAL = str(BOTS / "negamax2.py")
TWEAK = str(BOTS / "negamax2_tweak.py")
BUILTINS = list(REFERENCE_BOTS)


def test_the_published_positions_are_open_with_two_best_moves() -> None:
    positions = load_positions(6, 7, 4)
    assert len(positions) >= 100
    assert positions_path(6, 7, 4).read_text().startswith("# play-similarity positions")
    assert len({p.moves for p in positions}) == len(positions)
    for p in positions:
        b = CXBoard.from_moves(6, 7, 4, list(p.moves))
        assert b.gameState() is CXGameState.OPEN
        assert len(p.best) >= 2 and len(b.getAvailableColumns()) - len(p.best) >= 2
        assert set(p.best) <= set(b.getAvailableColumns())


def _answers(label: str, first: tuple[int | None, ...],
             again: tuple[int | None, ...] | None = None) -> Answers:
    return Answers(label, first, first if again is None else again)


def test_agreement_averages_both_asks_and_skips_unanswered() -> None:
    a = _answers("a", (1, 2, 3, None))
    b = _answers("b", (1, 2, 4, 5), (1, 0, 4, 5))
    assert agreement(a, b) == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert a.self_agreement == 1.0 and b.self_agreement == 0.75


def test_the_band_leaves_random_movers_out_and_flags_far_above_it() -> None:
    steady = [_answers(f"s{i}", tuple((i + k) % 7 if k % 2 else 3 for k in range(20)))
              for i in range(4)]
    noisy = _answers("rnd", tuple(k % 7 for k in range(20)), tuple((k * 3) % 7 for k in range(20)))
    ref = Reference.of(steady + [noisy])
    assert ref.random_bots == ("rnd",)
    assert len(ref.shares) == 6  # the steady bots' pairs
    assert len(Reference.of(steady[:3] + [noisy]).shares) == 6  # too few: every pair
    clone = _answers("clone", steady[0].first)
    m = judge(steady[0], clone, ref)
    assert m.flagged and m.share == 1.0
    assert not judge(steady[0], steady[1], ref).flagged


@pytest.fixture(scope="module")
def run() -> dict[str, Answers]:
    positions = load_positions(6, 7, 4, limit=24)
    return answers_of([ORIGINAL, TWEAK, *BUILTINS], 6, 7, 4, positions, time_s=0.1)


def test_a_copy_with_one_constant_changed_is_flagged(run: dict[str, Answers]) -> None:
    reference = Reference.of([run[b] for b in BUILTINS])
    original, tweak = run[ORIGINAL], run[TWEAK]
    assert original.first != tweak.first or original.self_agreement == 1.0
    assert original.self_agreement == tweak.self_agreement == 1.0  # deterministic
    m = judge(original, tweak, reference)
    # the pair agrees above every unrelated pair (the built-ins' own band); the z-score flag
    # itself depends on the band's spread, which time-limited built-ins widen on a loaded
    # machine (docs/league.md), so it is asserted where the band is as tight as when quiet
    assert m.share is not None and m.share >= 0.75
    assert m.share > max(reference.shares), (m, reference)
    # quiet (2026-11-26): sd 0.062 around a mean of 0.50, the pair at 0.917, z 6.7; a share of
    # 0.917 reaches z 5 while sd <= 0.083, so the flag is asserted up to 0.075
    if reference.sd <= 0.075:
        assert m.flagged, (m, reference)
    # and the original is not flagged with the built-ins of another kind (alphabeta and
    # minimax search with the same squared-open-run heuristic, centre first: under load
    # minimax's depth falls towards negamax2's two plies, and they agree more)
    others = ["L0", "L1", "montecarlo", "mcts"]
    assert [(b, judge(original, run[b], reference)) for b in others
            if judge(original, run[b], reference).flagged] == []


def test_the_builtins_among_themselves_are_not_flagged(run: dict[str, Answers]) -> None:
    reference = Reference.of([run[b] for b in BUILTINS])
    assert "L0" in reference.random_bots  # asked twice, it disagrees with itself
    assert run["alphabeta"].self_agreement is not None
    assert run["L0"].self_agreement is not None and run["L0"].self_agreement < 0.5
    flagged = [(a, b, m.share, m.why) for a, b in itertools.combinations(BUILTINS, 2)
               if frozenset({a, b}) not in RELATED
               and (m := judge(run[a], run[b], reference)).flagged]
    assert flagged == []
