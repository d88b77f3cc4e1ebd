"""The play page names no game: the server sends each game's title, parameters and their labels
from the game itself (its presentation, `arena.games.base.Presentation`), and play.js and
index.html only use them."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games import GAMES, presentation_of
from arena.play.server import STATIC, games_json


def test_the_page_names_no_game() -> None:
    for file in ("play.js", "index.html"):
        text = (STATIC / file).read_text(encoding="utf-8")
        for name, cls in GAMES.items():
            assert not re.search(rf"\b{re.escape(name)}\b", text, re.I), (file, name)
            title = presentation_of(cls()).title()
            assert title not in text, (file, title)


def test_each_game_comes_from_its_own_metadata() -> None:
    games = games_json(["othello", "connectx", "morris"])
    assert [g["name"] for g in games] == ["connectx", "morris", "othello"]  # the course's first
    by_name = {g["name"]: g for g in games}
    assert by_name["connectx"]["title"] == "Connect-X"
    assert by_name["connectx"]["params"] == [
        {"name": "rows", "label": "Rows M", "default": 6},
        {"name": "cols", "label": "Columns N", "default": 7},
        {"name": "k", "label": "In a row K", "default": 4}]
    assert by_name["othello"]["title"] == "Othello"
    assert by_name["othello"]["params"] == [{"name": "size", "label": "size", "default": 8}]
    assert Path(STATIC / "play.js").is_file()
