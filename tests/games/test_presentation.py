"""`Game` holds the rules and what the openings and the wire ask of a game; how a
game looks and reads to a person is its `Presentation`, in its folder beside the rules (issue
47, item 4). Counted from the classes themselves, so a presentation member that comes back on
`Game` (or on a game's rules class) fails here, and so does a new member nobody classified."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from arena.games import GAMES, Game, GameError, Presentation, game_folder, presentation_of

#: `Game`'s public members by kind (the class body's names and its annotated class variables)
KINDS: dict[str, frozenset[str]] = {
    "rules": frozenset({
        "name", "PARAMS", "label", "initial_state", "to_move", "legal_moves", "apply",
        "outcome", "is_terminal", "move_to_text", "parse_move", "play_texts", "new_position",
        "cost"}),
    "openings": frozenset({"BOARD_PARAMS", "fair_opening", "opening_moves", "opening_key"}),
    # the protocol's dialect and the bots that speak it
    "wire": frozenset({"DIALECT", "DIALECT_FIELDS", "DIALECT_ADAPTER", "CALLS",
                       "dialect_fields", "dialect_params", "BOT_BASE", "COURSE_BOTS",
                       "REFERENCE_BOTS"}),
    # the one way from the rules to their presentation (a name, not an import)
    "presentation": frozenset({"PRESENTATION"}),
}
#: how many of each (before the move: 49 in the class body, 19 of them presentation)
COUNTS = {"rules": 14, "openings": 4, "wire": 9, "presentation": 1}


def _public(cls: type) -> set[str]:
    """The public names a class declares itself: its body's and its annotations'."""
    names = set(vars(cls)) | set(vars(cls).get("__annotations__", {}))
    return {n for n in names if not n.startswith("_")}


#: how a game looks and reads to a person: every public member of `Presentation` but its game
PRESENTATION_MEMBERS = _public(Presentation) - {"game"}


def test_game_members_by_kind() -> None:
    members = _public(Game)
    counts = {kind: len(members & names) for kind, names in KINDS.items()}
    unclassified = members - frozenset().union(*KINDS.values())
    assert unclassified == set(), f"classify these Game members in KINDS: {unclassified}"
    assert counts == COUNTS
    assert len(members) == sum(COUNTS.values()) == 28


#: the record hooks that left `Game` for `arena.records` (issue 47, item 4): a record is read
#: through `game_of_record` and written by `record_fields`, for every game alike
RECORD_HOOKS = frozenset({"label_for_record", "record_fields", "params_of_record",
                          "texts_of_record", "board_key"})


def test_no_record_member_on_the_rules() -> None:
    for cls in (Game, *(GAMES[name] for name in sorted(GAMES))):
        left = sorted(n for n in dir(cls) if n in RECORD_HOOKS or "record" in n.lower())
        assert left == [], f"{cls.__name__} has record members: {left}"


def test_no_presentation_member_on_the_rules() -> None:
    assert len(PRESENTATION_MEMBERS) == 19  # the drawings, the words, the title and the names
    assert {"render", "drawing", "draw_text", "end_words", "winning_cells", "title", "SIDES",
            "DRAWER_REPLAYS"} <= PRESENTATION_MEMBERS
    back = sorted(n for n in PRESENTATION_MEMBERS if hasattr(Game, n))
    assert back == [], f"presentation members on Game (they belong on Presentation): {back}"
    for name, cls in GAMES.items():
        back = sorted(n for n in PRESENTATION_MEMBERS if hasattr(cls, n))
        assert back == [], f"{name}'s rules class has presentation members: {back}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_has_its_presentation_beside_its_rules(name: str) -> None:
    rules = GAMES[name]()
    view = presentation_of(rules)
    assert isinstance(view, Presentation) and type(view) is not Presentation
    assert view.game is rules
    module = sys.modules[type(view).__module__]
    assert Path(inspect.getfile(module)).resolve().parent == game_folder(name)
    assert view.title() and len(view.SIDES) == 2
    assert view.render(rules.initial_state()).strip()
    assert view.drawing(rules.initial_state())["kind"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_rules_never_import_their_presentation(name: str) -> None:
    """The presentation asks the rules; the rules module stays pure (it names its presentation
    in `Game.PRESENTATION` only)."""
    rules_file = Path(inspect.getfile(GAMES[name]))
    presentation_module = GAMES[name].PRESENTATION.partition(":")[0]
    imported = []
    for node in ast.walk(ast.parse(rules_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            imported += [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            imported += [a.name for a in node.names]
    assert presentation_module not in imported
    assert not any(m.rpartition(".")[2] == "presentation" for m in imported), imported


def test_a_game_that_names_no_presentation_says_so() -> None:
    class Bare(Game):  # no PRESENTATION
        name = "bare"
        PARAMS: ClassVar[dict[str, int]] = {}
        initial_state = to_move = legal_moves = apply = outcome = None  # type: ignore[assignment]
        move_to_text = parse_move = None  # type: ignore[assignment]

    with pytest.raises(GameError, match="bare names no presentation"):
        presentation_of(Bare())


def test_the_settings_name_a_game_by_its_presentations_title() -> None:
    from pydantic import ValidationError

    from arena.competition.settings import PlaySettings

    with pytest.raises(ValidationError, match="params: Connect-X takes boards"):
        PlaySettings(game="connectx", params=({"rows": 6},))
