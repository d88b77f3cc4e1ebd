"""Which bots `cxarena serve` offers: the discovered bots of `players/` and the players of the
tournament configs, each under a unique name, fixed once when the server starts.

A config player that is just a discovered bot (same SPEC, no options) is not listed twice; a
config player whose name is taken by a different bot is listed as ``NAME@CONFIG``. Bots that do
not load, and configs that do not check, are left out with a one-line warning each.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.onboarding.discovery import discover
from arena.play.session import Entrant
from arena.tournament.config import load_config

__all__ = ["collect_bots"]


def collect_bots(configs_dir: Path | None) -> tuple[list[Entrant], dict[str, str], list[str]]:
    """(entrants, {name: one-line description}, warnings)."""
    entrants: dict[str, Entrant] = {}
    docs: dict[str, str] = {}
    warnings: list[str] = []
    for info in discover():
        if not info.ok:
            warnings.append(f"bot {info.name} left out: {info.error or info.name_error}")
            continue
        entrants[info.name] = Entrant(info.name, parse_spec(info.name), {}, "players/")
        docs[info.name] = info.doc
    configs = sorted(configs_dir.glob("*.yaml")) if configs_dir and configs_dir.is_dir() else []
    for path in configs:
        if path.name == "boards.yaml" or not _names_players(path):  # the board sets, a
            continue  # league's settings: not tournaments, no bots to offer
        try:
            config = load_config(path)
        except (UsageError, SpecError) as e:
            warnings.append(f"config {path} left out: {e}")
            continue
        for p in config.players:
            known = entrants.get(p.name)
            if known is not None and known.spec.text == p.spec and \
                    dict(known.options) == dict(p.options):
                continue
            name = p.name if known is None else f"{p.name}@{config.file.name}"
            if name in entrants:
                continue
            try:
                spec = parse_spec(p.spec)
            except SpecError as e:
                warnings.append(f"{path}: player {p.name} left out: {e}")
                continue
            entrants[name] = Entrant(name, spec, dict(p.options), str(path), config.game)
            docs[name] = f"{p.spec} {dict(p.options) or ''}".strip()
    return list(entrants.values()), docs, warnings


def _names_players(path: Path) -> bool:
    """Whether a YAML file is a tournament config (a mapping with `players`); a file that
    cannot be read is, so that its error is shown."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True
    return not isinstance(data, dict) or "players" in data
