"""A league's settings (league.yaml): board set, time limit, reference bots, pairs per version,
openings of rating games, and the final round robin's boards and pairs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from arena.tournament.config import resolve_board_set

__all__ = ["LeagueConfig", "parse_config"]


@dataclass(frozen=True)
class LeagueConfig:
    board_set: str = "competition"
    timeout_s: float = 1.0
    reference_bots: tuple[str, ...] = ("players.L0", "players.L1")
    pairs_per_submission: int = 10
    max_pairs_per_submission: int = 40
    max_upload_bytes: int = 2_000_000
    isolation: bool = True
    opening_plies: int = 2
    seed: int = 0
    final_board_set: str = "competition"
    final_pairs: int = 1
    #: uploads one user may make in any 24 hours; past it the upload is refused (429)
    max_uploads_per_day: int = 10
    #: explicit [M, N, K] boards when league.yaml gives `board_set` as a list (tests, small
    #: leagues); empty when it names a set of configs/boards.yaml
    board_list: tuple[tuple[int, int, int], ...] = ()
    #: the same for `final_board_set`
    final_board_list: tuple[tuple[int, int, int], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def boards(self) -> tuple[tuple[int, int, int], ...]:
        """The boards the rating games rotate over."""
        return self.board_list or resolve_board_set(self.board_set, "board_set")


_KEYS = {"board_set", "timeout_s", "reference_bots", "pairs_per_submission",
         "max_pairs_per_submission",
         "max_upload_bytes", "isolation", "opening_plies", "seed", "final_board_set",
         "final_pairs", "max_uploads_per_day"}


def _boards(value: Any, key: str, where: str) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    """(set name, ()) for a name of configs/boards.yaml, ("listed", boards) for a list."""
    if not isinstance(value, list):
        return str(value), ()
    try:
        boards = tuple((int(m), int(n), int(k)) for m, n, k in value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {key}: give a set name of configs/boards.yaml or a list "
                         f"of [M, N, K]") from None
    if not boards or any(min(b) < 1 or b[2] > max(b[0], b[1]) for b in boards):
        raise ValueError(f"{where}: {key}: every [M, N, K] needs M, N, K >= 1 and "
                         f"K <= max(M, N)")
    return "listed", boards


def parse_config(text: str, where: str = "league.yaml") -> LeagueConfig:
    """Read league.yaml text; a bad key or value raises ValueError naming it and the file."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{where}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a mapping of settings")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown setting(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(_KEYS))}")
    board_set, board_list = _boards(data.get("board_set", "competition"), "board_set", where)
    final_set, final_list = _boards(data.get("final_board_set", "competition"),
                                    "final_board_set", where)
    try:
        cfg = LeagueConfig(
            board_set=board_set, board_list=board_list,
            timeout_s=float(data.get("timeout_s", 1.0)),
            reference_bots=tuple(str(b) for b in data.get(
                "reference_bots", ["players.L0", "players.L1"])),
            pairs_per_submission=int(data.get("pairs_per_submission", 10)),
            max_pairs_per_submission=int(data.get("max_pairs_per_submission", 40)),
            max_upload_bytes=int(data.get("max_upload_bytes", 2_000_000)),
            isolation=bool(data.get("isolation", True)),
            opening_plies=int(data.get("opening_plies", 2)),
            seed=int(data.get("seed", 0)),
            final_board_set=final_set, final_board_list=final_list,
            final_pairs=int(data.get("final_pairs", 1)),
            max_uploads_per_day=int(data.get("max_uploads_per_day", 10)),
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from exc
    if (cfg.timeout_s <= 0 or cfg.pairs_per_submission < 1 or cfg.max_upload_bytes < 1
            or cfg.final_pairs < 1 or cfg.max_uploads_per_day < 1):
        raise ValueError(f"{where}: timeout_s, pairs_per_submission, max_upload_bytes, "
                         "final_pairs and max_uploads_per_day must be positive")
    if cfg.max_pairs_per_submission < cfg.pairs_per_submission:
        raise ValueError(f"{where}: max_pairs_per_submission must be at least "
                         f"pairs_per_submission ({cfg.pairs_per_submission})")
    if cfg.opening_plies < 0:
        raise ValueError(f"{where}: opening_plies must be 0 or more")
    return cfg
