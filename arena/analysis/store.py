"""Analyses stored next to the games: ``analysis.json`` in the results folder, one entry per
game id (the `engine.GameAnalysis` as plain JSON). Written whole and atomically (a temporary
file renamed), so a killed run never leaves half a file; the games' database is not touched."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.analysis.engine import GameAnalysis, MoveVerdict, PositionValue

__all__ = ["ANALYSIS_FILE", "AnalysisStore", "from_json", "to_json"]

ANALYSIS_FILE = "analysis.json"
_VERSION = 1


def to_json(a: GameAnalysis) -> dict[str, Any]:
    return asdict(a)


def from_json(d: dict[str, Any]) -> GameAnalysis:
    return GameAnalysis(
        M=d["M"], N=d["N"], K=d["K"], moves=tuple(d["moves"]),
        positions=tuple(PositionValue(**p) for p in d["positions"]),
        verdicts=tuple(MoveVerdict(**{**v, "better": tuple(v["better"])})
                       for v in d["verdicts"]),
        budget_s=d["budget_s"], elapsed_s=d["elapsed_s"], solver=d["solver"],
        opening=d.get("opening", 0))


class AnalysisStore:
    """The analyses of one results folder (the folder holding the games' database)."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / ANALYSIS_FILE
        self._data: dict[str, dict[str, Any]] = {}
        if self.path.is_file():
            try:
                raw = json.loads(self.path.read_text())
                self._data = dict(raw.get("games", {}))
            except (OSError, ValueError) as e:
                raise ValueError(f"{self.path}: not a readable analysis file ({e}); move it "
                                 f"away and analyse again") from None

    def get(self, game_id: str) -> GameAnalysis | None:
        d = self._data.get(game_id)
        return None if d is None else from_json(d)

    def ids(self) -> set[str]:
        return set(self._data)

    def all(self) -> dict[str, GameAnalysis]:
        return {k: from_json(v) for k, v in self._data.items()}

    def put(self, game_id: str, analysis: GameAnalysis) -> None:
        self._data[game_id] = to_json(analysis)

    def save(self) -> None:
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"version": _VERSION, "games": self._data}, indent=None,
                                  separators=(",", ":")))
        os.replace(tmp, self.path)
