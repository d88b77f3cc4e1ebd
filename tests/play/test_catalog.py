"""`cxarena serve`'s bot catalog reads the tournament configs of configs/: the shipped league
settings and board sets are not tournaments and are passed over without a warning; a broken
tournament config is still named."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.play.catalog import collect_bots

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_configs_give_no_warning_but_bots() -> None:
    _, _, warnings = collect_bots(ROOT / "configs")
    assert not [w for w in warnings if w.startswith("config ")], warnings


def test_a_league_config_is_passed_over_and_a_broken_tournament_named(tmp_path: Path) -> None:
    shutil.copy(ROOT / "configs" / "league.yaml", tmp_path / "league.yaml")
    (tmp_path / "broken.yaml").write_text("name: x\nplayers: [nosuchbot_zz]\nboards: [[4, 4, 3]]\n"
                                          "timeout_s: 1\n")
    _, _, warnings = collect_bots(tmp_path)
    said = [w for w in warnings if w.startswith("config ")]
    assert len(said) == 1 and "broken.yaml" in said[0], warnings
