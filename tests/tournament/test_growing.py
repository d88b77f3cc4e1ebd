"""A growing round robin (issue 38, point 5): a player added to a config that already ran plays
only its own games; a removed one's games leave the table; a changed entry is refused like
changed code; a results folder of an older cxarena (whose fingerprint named the players) keeps
its games."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.errors import UsageError
from arena.results.folder import read_standings
from arena.results.store import ResultStore
from arena.tournament.config import load_config
from arena.tournament.run import run_tournament


def config(tmp_path: Path, players: str) -> Path:
    cfg = tmp_path / "grow.yaml"
    cfg.write_text(f"name: grow\nplayers: {players}\nboards: [[4, 4, 3], [4, 5, 3]]\n"
                   f"timeout_s: 0.5\nworkers: 1\nseed: 3\n")
    return cfg


def run(cfg: Path, results: Path) -> tuple[int, int]:
    """(games played now, games found stored) of one run."""
    with open(os.devnull, "w") as sink:
        out = run_tournament(load_config(cfg), results, quiet=True, out=sink)
    return out.played, out.already_stored


def test_adding_a_player_plays_only_its_games_and_removing_one_hides_its_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "out"
    assert run(config(tmp_path, "[L0, L1]"), results) == (4, 0)  # 1 pair x 2 boards x 2 colours
    grown = config(tmp_path, "[L0, L1, {spec: L0, name: L0b}]")
    assert run(grown, results) == (8, 4)  # the two new pairs only
    assert run(grown, results) == (0, 12)
    with ResultStore(results / "games.sqlite", create=False) as s:
        standings, _ = read_standings(s)
    assert sorted(r.player for r in standings.ranking) == ["L0", "L0b", "L1"]
    assert sum(r.games for r in standings.ranking) == 2 * 12
    shrunk = config(tmp_path, "[L1, {spec: L0, name: L0b}]")
    assert run(shrunk, results) == (0, 4)
    with ResultStore(results / "games.sqlite", create=False) as s:
        standings, _ = read_standings(s)
        assert s.count() == 12  # kept, should L0 come back
    assert sorted(r.player for r in standings.ranking) == ["L0b", "L1"]
    assert all(r.games == 4 for r in standings.ranking)


def test_a_changed_entry_is_refused_like_changed_code(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "out"
    run(config(tmp_path, "[L0, {spec: L0, name: other}]"), results)
    with pytest.raises(UsageError, match=r"other \(SPEC L0 -> L1\).*--replay-changed"):
        run(config(tmp_path, "[L0, {spec: L1, name: other}]"), results)


def test_a_folder_whose_fingerprint_named_the_players_still_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "out"
    cfg = config(tmp_path, "[L0, L1]")
    run(cfg, results)
    with ResultStore(results / "games.sqlite", create=False) as s:  # as an older cxarena wrote
        old = s.fingerprint()
        assert old is not None and "players" not in old
        old["players"] = [{"name": "L0", "options": {}, "spec": "L0"},
                          {"name": "L1", "options": {}, "spec": "L1"}]
        s.set_meta("fingerprint", json.dumps(old, sort_keys=True))
    assert run(config(tmp_path, "[L0, L1, {spec: L0, name: L0b}]"), results) == (8, 4)
    with ResultStore(results / "games.sqlite", create=False) as s:
        assert "players" not in (s.fingerprint() or {})
