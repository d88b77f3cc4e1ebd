"""The one settings schema (`arena.competition.settings`): a league.yaml and a tournament
config say the shared settings of play with the same keys, meaning and checks; every refusal
is one line naming the file and the key; the league's old spellings still load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competition.openings import board_game
from arena.competition.settings import (
    Change,
    Isolation,
    PlaySettings,
    change_rule,
    parse_settings,
    resolve_boards,
    takes_boards,
    variant_games,
)
from arena.errors import UsageError
from arena.games import GAMES, make_game
from arena.league.config import LeagueFile, config_changes, parse_config
from arena.records import board_key
from arena.referee.sandbox import MODES
from arena.tournament.config import (
    TournamentFile,
    check_players,
    load_config,
    load_limits,
    read_config,
)

TOURNAMENT = "name: t\nplayers: [L0, L1]\nboards: [[4, 4, 4]]\ntimeout_s: 1\n"


@pytest.mark.parametrize(("text", "line"), [
    ("boards: [[6.9, \"7\", 4], [6, 7, 4]]\n",
     "league.yaml: boards[0]: expected [M, N, K] (three integers), got [6.9, '7', 4]"),
    ("boards: [[6, 7, 4], [6, 7, 4]]\n", "league.yaml: boards: board [6, 7, 4] is listed twice"),
    ("seed: -5\n", "league.yaml: seed: expected an integer >= 0, got -5"),
    ("isolation: true\ntimeout_s: 1\ntimeout_s: 2\n",
     "league.yaml:3: YAML syntax error: duplicate key 'timeout_s' (first on line 2)"),
])
def test_the_wrong_league_inputs_are_refused_in_one_line(text: str, line: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_config(text)
    assert str(info.value) == line


def test_a_duplicated_key_is_refused_with_its_line_in_a_tournament_file(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TOURNAMENT + "seed: 1\nseed: 2\n")
    for read in (load_limits, read_config):
        with pytest.raises(UsageError) as info:
            read(path)
        assert str(info.value) == f"{path}:6: YAML syntax error: duplicate key 'seed' (first " \
                                  f"on line 5)"


def test_the_shared_checks_refuse_alike_in_both_files(tmp_path: Path) -> None:
    """A shared key with a wrong value: the same words after the file's name."""
    for bad in ("seed: -5", "boards: [[6.9, 7, 4]]", "memory_limit_mb: 0", "max_tasks: 2",
                "grace_s: -1", "timeout_s: true", "openings: {plies: -1}", "cgroups: 1"):
        key = bad.split(":")[0]
        with pytest.raises(ValueError) as league:
            parse_config(bad + "\n")
        path = tmp_path / "t.yaml"
        path.write_text("\n".join(x for x in TOURNAMENT.splitlines()
                                  if not x.startswith(key + ":")) + "\n" + bad + "\n")
        with pytest.raises(UsageError) as tournament:
            load_limits(path)
        assert str(league.value).removeprefix("league.yaml: ") == \
            str(tournament.value).removeprefix(f"{path}: "), bad


@pytest.mark.parametrize(("text", "expected"), [
    ("board_set: [[4, 4, 3]]\n", {"board_list": ((4, 4, 3),), "board_set": "listed"}),
    ("board_set: competition\n", {"board_set": "competition", "board_list": ()}),
    ("opening_plies: 0\n", {"opening_plies": 0}),
    ("openings: {plies: 3, seed: 9}\n", {"opening_plies": 3, "seed": 9}),
    ("isolation: true\n", {"sandboxed": True}),
    ("isolation: false\n", {"sandboxed": False}),
    ("isolation: none\n", {"sandboxed": False}),
    ("timeout_s: 2\n", {"board_set": "competition", "board_list": (), "opening_plies": 2,
                        "sandboxed": True}),
])
def test_each_old_league_format_still_loads(text: str, expected: dict[str, Any]) -> None:
    cfg = parse_config(text)
    assert {k: getattr(cfg, k) for k in expected} == expected
    assert bool(cfg.notes) == text.startswith("board_set:")


def test_a_league_refuses_what_it_never_took() -> None:
    for text, words in (("isolation: auto\n", "isolation: expected true"),
                        ("opening_plies: 2\nopenings: {plies: 2}\n", "not both"),
                        ("openings: {file: o.txt}\n", "no opening files")):
        with pytest.raises(ValueError, match=words):
            parse_config(text)


SHARED = """\
boards: [[4, 4, 3], [5, 4, 4]]
timeout_s: 2
grace_s: 0.02
startup_timeout_s: 10
memory_limit_mb: 512
max_tasks: 64
cgroups: false
isolation: namespaces
openings: {plies: 3, seed: 7}
seed: 7
"""


def test_the_same_shared_keys_give_equal_play_settings() -> None:
    league = parse_settings(LeagueFile, SHARED, "league.yaml").shared()
    tournament = parse_settings(TournamentFile, SHARED + "name: t\nplayers: [L0, L1]\n",
                                "t.yaml").shared()
    assert type(league) is type(tournament) is PlaySettings
    assert league == tournament
    assert league.isolation is Isolation.NAMESPACES and league.boards == ((4, 4, 3), (5, 4, 4))


def test_the_league_takes_the_tournaments_limits() -> None:
    cfg = parse_config(SHARED)
    limits = cfg.limits()
    assert (limits.timeout_s, limits.grace_s, limits.startup_timeout_s, limits.memory_limit_mb,
            limits.max_tasks, cgroups := cfg.play.cgroups) == (2.0, 0.02, 10.0, 512, 64, False)
    assert not cgroups
    assert parse_config("").limits() == PlaySettings().limits("league.yaml")
    # once the league exists none of them may change: its games were played under them
    for key in ("grace_s", "startup_timeout_s", "memory_limit_mb", "max_tasks", "cgroups"):
        rule = change_rule(LeagueFile, key)
        assert rule is not None and rule[0] is Change.FIXED and "stored games" in rule[1]
    changes, refused = config_changes(parse_config(""), parse_config("grace_s: 0.5\n"))
    assert changes == [] and refused[0].startswith("grace_s: may not change")


def test_isolation_is_the_sandbox_modes() -> None:
    assert tuple(m.value for m in Isolation) == MODES


def test_parsing_starts_no_bot_and_the_door_is_its_own_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("raise ImportError('needs torch')\n")
    path = tmp_path / "t.yaml"
    path.write_text(TOURNAMENT.replace("[L0, L1]", "[L0, broken.py]") + "isolation: none\n")
    parsed = read_config(path)  # no bot started: the broken one is not found out
    assert [p.spec for p in parsed.players] == ["L0", "broken.py"] and parsed.broken == ()
    assert load_limits(path).timeout_s == 1.0
    with pytest.raises(UsageError, match=r"players\[1\]\.spec: .*needs torch"):
        check_players(parsed)
    with pytest.raises(UsageError, match="needs torch"):
        load_config(path)
    forfeit = load_config(path, broken_bots="forfeit")
    assert [name for name, _ in forfeit.broken] == ["broken.py"]


# ------------------------------------------------------------------ any mapping at all
KEYS = sorted(set(LeagueFile.model_fields) | set(TournamentFile.model_fields)
              | {"deadline", "bogus"})
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3000) | st.floats(allow_nan=True)
    | st.sampled_from(["competition", "auto", "none", "namespaces", "othello", "L0", "",
                       "2026-12-18 23:59", "gauntlet"]) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["plies", "seed", "file", "size", "spec", "name"]), inner, max_size=3),
    max_leaves=8)


def _one_line_or_loads(read: Any, data: dict[str, Any], where: str) -> None:
    try:
        read(data)
    except (UsageError, ValueError) as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(where), message


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6))
def test_any_mapping_loads_or_is_refused_in_one_line(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data)
    _one_line_or_loads(lambda d: parse_config(text), data, "league.yaml")
    _one_line_or_loads(lambda d: parse_settings(TournamentFile, text, "t.yaml"), data, "t.yaml")
    _one_line_or_loads(lambda d: parse_settings(PlaySettings, text, "p.yaml"), data, "p.yaml")


def test_a_tournament_file_reads_every_shipped_config() -> None:
    root = Path(__file__).resolve().parents[2] / "configs"
    for path in sorted(root.glob("*.yaml")):
        if path.name in ("boards.yaml", "league.yaml"):
            continue
        assert load_limits(path).timeout_s > 0, path
    assert parse_config((root / "league.yaml").read_text()).board_set == "competition"


def test_strict_time_is_a_league_setting_the_check_takes() -> None:
    """league.yaml's `strict_time` (check-bot's --strict-time) reaches the league's checks and
    may change while the league runs."""
    assert parse_config("").file.strict_time is False
    assert parse_config("strict_time: true\n").file.strict_time is True
    changes, refused = config_changes(parse_config(""), parse_config("strict_time: true\n"))
    assert changes == ["strict_time: False -> True"] and refused == []


def test_both_files_find_a_board_set_beside_themselves_never_in_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One lookup (`resolve_boards`): a set named in league.yaml or a tournament file comes from
    the boards.yaml next to it, else the project's, never the current folder's; an edited
    boards.yaml is read again."""
    here, there = tmp_path / "cwd", tmp_path / "cfg"
    here.mkdir()
    there.mkdir()
    (here / "boards.yaml").write_text("tiny: [[5, 5, 4]]\nonly_here: [[5, 5, 4]]\n")
    (there / "boards.yaml").write_text("tiny: [[4, 4, 3]]\n")
    monkeypatch.chdir(here)
    tournament = there / "t.yaml"
    tournament.write_text(TOURNAMENT.replace("[[4, 4, 4]]", "tiny"))

    def both() -> tuple[tuple[tuple[int, int, int], ...], ...]:
        league = parse_config("boards: tiny\nfinal_board_set: tiny\n", near=there)
        return (read_config(tournament).boards, league.boards(),
                tuple(board_key(g) for g in league.final_games()))

    assert both() == (((4, 4, 3),),) * 3
    assert resolve_boards("tiny", there, "x") == ("tiny", ((4, 4, 3),))
    (there / "boards.yaml").write_text("tiny: [[4, 4, 3], [4, 5, 3]]\n")
    assert both() == (((4, 4, 3), (4, 5, 3)),) * 3
    assert resolve_boards(((4, 4, 3),), there, "x") == (None, ((4, 4, 3),))
    assert resolve_boards(None, there, "x") == (None, ())
    for read in (lambda: parse_config("boards: only_here\n", near=there),
                 lambda: parse_config("boards: only_here\n"),
                 lambda: read_config(there / "u.yaml")):
        (there / "u.yaml").write_text(TOURNAMENT.replace("[[4, 4, 4]]", "only_here"))
        with pytest.raises((ValueError, UsageError), match="unknown board set 'only_here'"):
            read()


# ------------------------------------------------------------ one place for boards or params
def test_a_configs_boards_and_parameter_sets_become_games_in_one_place() -> None:
    """`variant_games`: a game played on boards makes one game per board (its BOARD_PARAMS
    given [M, N, K]), the same games the course's board form names; a game of parameter
    sets one per set, without asking for boards at all."""
    boards = [(6, 7, 4), (5, 4, 3)]
    assert variant_games("connectx", lambda: boards, ()) == tuple(
        board_game(*b) for b in boards)

    def no_boards() -> list[tuple[int, int, int]]:
        raise AssertionError("a game of parameter sets has no boards to ask for")

    sets = PlaySettings(game="othello", params=({"size": 6}, {})).param_sets()
    assert variant_games("othello", no_boards, sets) == (
        make_game("othello", {"size": 6}), make_game("othello"))
    assert takes_boards("connectx") and not takes_boards("othello")
    assert not takes_boards("no such game")


def test_what_a_league_defaults_to_is_the_games_own() -> None:
    """A league.yaml without reference_bots or java gets its game's (`Game.REFERENCE_BOTS`,
    `Game.COURSE_BOTS`): the course's bots and Java for Connect-X, none for Othello."""
    cx = parse_config("timeout_s: 1\n")
    assert cx.reference_bots == GAMES["connectx"].REFERENCE_BOTS == ("players.L0", "players.L1")
    assert cx.java is True
    oth = parse_config("timeout_s: 1\ngame: othello\n")
    assert (oth.reference_bots, oth.java) == ((), False)
    assert parse_config("").reference_bots == ("players.L0", "players.L1")
