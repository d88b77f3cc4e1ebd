"""Shared test helpers: the board sets from configs/boards.yaml."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def board_set(name: str) -> list[tuple[int, int, int]]:
    with open(ROOT / "configs" / "boards.yaml") as f:
        return [tuple(b) for b in yaml.safe_load(f)[name]]  # type: ignore[misc]


COMPETITION = board_set("competition")
ALL_BOARDS = sorted(set(COMPETITION) | set(board_set("competition-large")))
