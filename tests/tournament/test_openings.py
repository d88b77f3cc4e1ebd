"""Opening suites (generation, judging, the file format), game pairs from openings in
`cxarena match` and `--sprt`, and gauntlet tournaments that resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.competition.openings import (
    Opening,
    format_suite,
    make_suite,
    parse_line,
    parse_suite,
    read_suite,
)
from arena.errors import UsageError
from arena.games.base import Game
from arena.records import GameRecord
from arena.results.store import ResultStore
from arena.tournament.config import load_config
from arena.tournament.schedule import make_schedule
from tests.helpers import JUDGE, columns, opening_columns

STEADY = str(Path(__file__).parent / "bots" / "steady.py")


class _Verdict:
    def __init__(self, lost_side: int | None, value: int | None) -> None:
        self.lost_side, self.value = lost_side, value


def _accept_all(game: Game, texts: tuple[str, ...]) -> _Verdict:
    return _Verdict(None, None)


# ------------------------------------------------------------------------------ suites
def test_suite_is_reproducible_distinct_and_judged() -> None:
    a = make_suite(6, 7, 4, 12, plies=3, seed=5, judge=_accept_all)
    b = make_suite(6, 7, 4, 12, plies=3, seed=5, judge=_accept_all)
    c = make_suite(6, 7, 4, 12, plies=3, seed=6, judge=_accept_all)
    assert a.openings == b.openings and a.openings != c.openings
    assert a.distinct == 12 and all(len(o.moves) == 3 for o in a.openings)


def test_judge_rejects_lost_openings_and_the_real_judge_stores_values() -> None:
    calls = []

    def reject_col0(game: Game, texts: tuple[str, ...]) -> _Verdict:
        calls.append(texts)
        return _Verdict(2 if "0" in texts else None, 1)

    s = make_suite(5, 5, 4, 6, plies=2, seed=1, judge=reject_col0)
    assert all(0 not in o.moves for o in s.openings) and s.rejected > 0
    assert all(o.value == 1 for o in s.openings)
    # the project's search: 4x4 K=4 is small enough for the exact solver to settle
    real = make_suite(4, 4, 4, 3, JUDGE, plies=2, seed=1)
    assert all(o.value is not None for o in real.openings)


def test_real_judge_rejects_a_lost_position() -> None:
    from players._shared.judge import judge_opening

    # first player has three in the bottom row with both ends open on 6x7: lost for player 2
    verdict = judge_opening(6, 7, 4, (2, 2, 3, 3, 4, 5))
    assert verdict.lost_side == 2
    assert judge_opening(6, 7, 4, (3,)).lost_side is None


def test_tiny_board_cycles_and_says_so() -> None:
    s = make_suite(4, 4, 4, 12, plies=1, seed=0, judge=_accept_all)
    assert s.distinct == 2  # columns 0..3 up to mirror images: {0, 3} and {1, 2}
    assert len(s.openings) == 12


def test_file_round_trip_and_errors(tmp_path: Path) -> None:
    s = make_suite(5, 6, 4, 5, plies=2, seed=2, judge=lambda *a: _Verdict(None, 0))
    path = tmp_path / "o.txt"
    path.write_text(format_suite(s))
    back = read_suite(path, 5, 6, 4)
    assert back.openings == s.openings
    for text, msg in (("3 9\n", "outside 0..5"), ("0 0 0 0 0 0\n", "full"),
                      ("x\n", "not a column"), ("3 # value=maybe\n", "unknown value"),
                      ("# nothing\n", "no openings")):
        with pytest.raises(UsageError, match=msg):
            parse_suite(text, 5, 6, 4, "f.txt")
    with pytest.raises(UsageError, match="game is over"):
        parse_suite("0 1 0 1 0 1 0\n", 5, 6, 4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=8), st.sampled_from([None, -1, 0, 1]),
       st.sampled_from([" ", ",", ", ", "\t"]))
def test_parse_line_round_trips(cols: list[int], value: int | None, sep: str) -> None:
    from arena.competition.openings import format_line

    line = format_line(Opening(tuple(cols), value))
    assert parse_line(line) == (tuple(cols), value)
    if cols:
        assert parse_line(sep.join(map(str, cols)) + "  # a comment") == (tuple(cols), None)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_parse_line_never_crashes(text: str) -> None:
    try:
        out = parse_line(text)
    except ValueError:
        return
    assert out is None or all(isinstance(c, int) and c >= 0 for c in out[0])


# ------------------------------------------------------------------------------- match
def _records(out: str) -> list[GameRecord]:
    import json

    return [GameRecord.from_dict(json.loads(x)) for x in out.splitlines() if x.startswith("{")]


def test_deterministic_copies_play_distinct_openings_and_about_zero_elo(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", STEADY, STEADY, "--board", "6", "7", "4", "--time", "1", "--games", "40",
            "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    recs = _records(out)
    assert len(recs) == 40
    assert len({opening_columns(r) for r in recs}) == 20  # 20 distinct openings, one per pair
    assert all(opening_columns(a) == opening_columns(b) and a.pair_id == b.pair_id != ""
               for a, b in zip(recs[0::2], recs[1::2], strict=True))
    assert all(columns(r)[:len(opening_columns(r))] == opening_columns(r) for r in recs)
    assert "distinct games: 20 of 40; distinct pairs: 20 of 20" in err
    assert "warning" not in err
    assert "Elo difference: +0.0 +/- " in err and "[pentanomial, 20 pairs]" in err
    # honest interval: not zero width although every pair split evenly
    half = float(err.split("+/- ")[1].split()[0])
    assert 30 < half < 80


def test_no_openings_warns_about_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", STEADY, "L0", "--board", "4", "5", "4", "--time", "1", "--games", "6",
            "--no-openings"]
    assert main(["match", STEADY, STEADY, "--board", "4", "5", "4", "--time", "1",
                 "--games", "6", "--no-openings"]) == 0
    out = capsys.readouterr().out
    assert "every game from the empty board" in out
    assert "distinct games: 1 of 6; distinct pairs: 1 of 3" in out and "warning: 2 pairs" in out
    assert main(argv) == 0


def test_real_sprt_stops_early(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "L1", "L0", "--board", "5", "6", "4", "--time", "1", "--sprt", "0", "100",
            "--games", "400"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "LLR" in out and "bounds -2.94 .. +2.94" in out
    assert "SPRT: H1 accepted after" in out
    games = int(out.split("SPRT: H1 accepted after ")[1].split()[0])
    assert games < 400


@pytest.mark.parametrize("argv", [
    ["match", "L0", "L1", "--board-set", "nope", "--time", "1"],
    ["match", "L0", "L1", "--board", "6", "7", "4", "--time", "1", "--sprt", "5", "0"],
    ["match", "L0", "L1", "--board-set", "competition", "--time", "1", "--openings", "x.txt"],
    ["match", "L0", "L1", "--board", "6", "7", "4", "--time", "1", "--openings", "nofile"],
])
def test_match_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cxarena match: error: ") and err.count("\n") == 1


def test_openings_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "o.txt"
    assert main(["openings", "--board", "4", "5", "4", "--count", "4", "--seed", "1",
                 "-o", str(path)]) == 0
    assert len(read_suite(path, 4, 5, 4).openings) == 4
    assert main(["openings", "--board", "4", "5", "4", "--read", str(path)]) == 0
    path.write_text("7 7\n")
    assert main(["openings", "--board", "4", "5", "4", "--read", str(path)]) == 2
    assert f"{path}:1: move 1: column 7" in capsys.readouterr().err


# ---------------------------------------------------------------------------- gauntlet
def _gauntlet(tmp_path: Path, extra: str = "") -> Path:
    cfg = tmp_path / "g.yaml"
    cfg.write_text(f"""name: g
players: [L0, L1, {STEADY}]
format: gauntlet
challengers: [L1]
boards: [[4, 5, 4]]
timeout_s: 1
rounds: 2
workers: 1
openings: {{plies: 2}}
{extra}""")
    return cfg


def test_gauntlet_schedule_and_config_errors(tmp_path: Path) -> None:
    config = load_config(_gauntlet(tmp_path))
    games = make_schedule(config, judge=JUDGE)
    # L1 against the two others, 2 rounds, both colours: 8 games; L0 never meets steady
    assert len(games) == 8
    assert all("L1" in (g.p1, g.p2) for g in games)
    assert len({g.pair_id for g in games}) == 4
    assert {g.opening for g in games if g.round == 1} != {g.opening for g in games
                                                         if g.round == 2}
    bad = tmp_path / "b.yaml"
    for extra, msg in (("challengers: [nobody]", "not a player"),
                       ("format: knockout", "expected one of"),
                       ("openings: {plies: 40}", "do not fit")):
        text = _gauntlet(tmp_path).read_text()
        key = extra.split(":")[0]
        text = "\n".join(x for x in text.splitlines() if not x.startswith(key + ":"))
        bad.write_text(text + "\n" + extra + "\n")
        with pytest.raises(UsageError, match=msg):
            load_config(bad)


def test_gauntlet_runs_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _gauntlet(tmp_path)
    res = tmp_path / "res"
    assert main(["tournament", str(cfg), "--results", str(res), "--quiet"]) == 0
    with ResultStore(res / "games.sqlite", create=False) as store:
        stored = list(store.games())
        assert len(stored) == 8
        first_ids = [g.game_id for g in stored][:3]
    # lose some games, then resume: only those are played again
    import sqlite3

    db = sqlite3.connect(res / "games.sqlite")
    db.execute(f"DELETE FROM games WHERE game_id IN ({','.join('?' * 3)})", first_ids)
    db.commit()
    db.close()
    capsys.readouterr()
    assert main(["tournament", str(cfg), "--results", str(res), "--quiet"]) == 0
    assert "8 of 8 games stored" in capsys.readouterr().out
    with ResultStore(res / "games.sqlite", create=False) as store:
        recs = [g.record for g in store.games()]
    assert all(r.pair_id and len(opening_columns(r)) == 2 for r in recs)
    md = (res / "standings.md").read_text()
    assert "pairs" in md and "± inf" not in md and "W-D-L per board" in md
    assert "L0       | tests" not in md  # gauntlet: non-challengers never meet
