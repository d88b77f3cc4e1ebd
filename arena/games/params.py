"""The text form of game parameters, shared by protocol v2, configs and records.

``size=8`` / ``rows=6,cols=7,k=4``: comma-separated ``key=value`` pairs of non-negative
integers, keys in ``[a-z][a-z0-9_]*``; ``-`` stands for no parameters. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .base import Game, ParamError

__all__ = ["board_of", "board_params", "format_params", "parse_params"]

_KEY = re.compile(r"[a-z][a-z0-9_]*\Z")
_VALUE = re.compile(r"[0-9]{1,18}\Z")


def format_params(params: Mapping[str, int]) -> str:
    """``{"size": 8}`` -> ``size=8``; an empty mapping -> ``-``."""
    parts = []
    for key, value in params.items():
        if not _KEY.match(key):
            raise ParamError(f"bad parameter name {key!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ParamError(f"parameter {key} must be a non-negative integer, got {value!r}")
        parts.append(f"{key}={value}")
    return ",".join(parts) or "-"


def parse_params(text: str) -> dict[str, int]:
    """The inverse of `format_params`. Raises ParamError for anything else."""
    if text == "-":
        return {}
    out: dict[str, int] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq or not _KEY.match(key) or not _VALUE.match(value):
            raise ParamError(f"bad parameter {part!r} in {text!r} (expected key=integer)")
        if key in out:
            raise ParamError(f"parameter {key} given twice in {text!r}")
        out[key] = int(value)
    return out


def board_of(game: Game) -> tuple[int, int, int] | None:
    """(M, N, K) of a game played on boards [M, N, K] (its `Game.BOARD_PARAMS`: Connect-X's
    rows, cols, k), else None."""
    if not game.BOARD_PARAMS:
        return None
    M, N, K = (int(game.params[p]) for p in game.BOARD_PARAMS)
    return M, N, K


def board_params(cls: type[Game], board: tuple[int, int, int]) -> dict[str, int]:
    """The parameters of game `cls` on `board` (M, N, K); {} for a game not played on boards."""
    return dict(zip(cls.BOARD_PARAMS, board, strict=True)) if cls.BOARD_PARAMS else {}
