"""What may change in a running league is said by each league.yaml key's own field
(`arena.competition.settings.setting`), and `config_changes` reads it there: one home."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic import BaseModel

from arena.competition.settings import Change, PlaySettings, change_rule, setting
from arena.league.config import LeagueConfig, LeagueFile, config_changes, parse_config


def unruled(model: type[BaseModel]) -> list[str]:
    """The keys of `model` whose field says nothing of when it may change."""
    return [f.alias or name for name, f in model.model_fields.items()
            if change_rule(model, f.alias or name) is None]


def test_every_key_of_a_league_yaml_says_when_it_may_change() -> None:
    assert unruled(LeagueFile) == []
    assert unruled(PlaySettings) == []
    # a key added without a rule is found: the check can fail

    class Grown(LeagueFile):
        new_key: int = 0
    assert unruled(Grown) == ["new_key"]
    assert change_rule(LeagueFile, "no_such_key") is None


def test_every_fixed_key_says_why_and_every_config_field_has_a_key() -> None:
    keys = {f.alias or name for name, f in LeagueFile.model_fields.items()}
    for key in keys:
        rule = change_rule(LeagueFile, key)
        assert rule is not None
        assert (rule[1] != "") == (rule[0] is Change.FIXED), key
    # each LeagueConfig field is read from league.yaml keys that exist (or none: not the file's)
    for f in dataclasses.fields(LeagueConfig):
        assert set(f.metadata.get("keys", (f.name,))) <= keys, f.name
    assert change_rule(LeagueFile, "deadline") == (Change.BEFORE_FINAL, "")  # by its alias
    assert change_rule(LeagueFile, "isolation") == change_rule(PlaySettings, "isolation")


@pytest.mark.parametrize(("text", "started", "changed", "refused"), [
    ("max_uploads_per_day: 20\n", False, ["max_uploads_per_day: 10 -> 20"], []),
    ("boards: [[4, 4, 3]]\n", False, ["boards: competition -> [[4, 4, 3]]"], []),
    ("final_pairs: 2\n", False, ["final_pairs: 1 -> 2"], []),
    ("final_pairs: 2\n", True, [], ["final_pairs: may not change once the final round robin "
                                    "has started (its entries and games are fixed)"]),
    ("final_board_set: [[4, 4, 3]]\n", True, [], [
        "final_board_set: may not change once the final round robin has started (its entries "
        "and games are fixed)"]),  # its name and its list are one key: refused once
    ("memory_limit_mb: 300\n", False, [], [
        "memory_limit_mb: may not change while the league runs (the stored games were played "
        "under this memory limit; a bot that crashed under it might not under another)"]),
    ("openings: {plies: 2}\n", False, [], []),  # the same openings, in the new words
    ("opening_plies: 3\n", False, [], [
        "opening_plies: may not change while the league runs (the stored pairs were played "
        "from these openings)"]),
])
def test_a_change_is_judged_by_its_keys_rule(text: str, started: bool, changed: list[str],
                                             refused: list[str]) -> None:
    assert config_changes(parse_config(""), parse_config(text), started) == (changed, refused)


def test_a_key_made_fixed_on_its_field_is_refused() -> None:
    """The rule read is the field's: the same change, judged by a field that says fixed."""
    field = LeagueFile.model_fields["max_uploads_per_day"]
    saved = field.json_schema_extra
    field.json_schema_extra = setting(10, Change.FIXED, "a test says so").json_schema_extra
    try:
        changes, refused = config_changes(parse_config(""), parse_config(
            "max_uploads_per_day: 20\n"))
    finally:
        field.json_schema_extra = saved
    assert changes == [] and refused == [
        "max_uploads_per_day: may not change while the league runs (a test says so)"]


def test_the_guide_lists_each_key_under_its_rule() -> None:
    """docs/league.md names what may change and what may not as the fields say."""
    text = " ".join((Path(__file__).resolve().parents[2] / "docs" / "league.md").read_text()
                    .split())
    start = text.index("What may change takes effect without a restart")
    split = text.index("What may not change is refused with the reason", start)
    may, may_not = text[start:split], text[split:text.index("Each key's field says", split)]
    for name, f in LeagueFile.model_fields.items():
        key = f.alias or name
        rule = change_rule(LeagueFile, key)
        assert rule is not None
        if key != "board_set":  # the old name of boards
            assert f"`{key}`" in (may_not if rule[0] is Change.FIXED else may), key
