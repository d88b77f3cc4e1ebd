"""A tournament config carries its file's validated settings of play (`PlaySettings`), as a
league's does, in place of copies of their fields; its fingerprint is what it was."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from arena.competition.settings import Isolation, PlaySettings
from arena.errors import UsageError
from arena.tournament.config import TournamentConfig, TournamentFile, read_config
from arena.tournament.run import match_settings

FULL = """\
name: full
players: [L0, L1]
boards: [[4, 4, 3], [5, 4, 4]]
timeout_s: 0.25
grace_s: 0.03
startup_timeout_s: 7
memory_limit_mb: 300
max_tasks: 64
cgroups: false
isolation: none
rounds: 2
seed: 5
fresh_process: true
format: gauntlet
challengers: [L0]
openings: {plies: 3, seed: 9}
"""
#: the fingerprint of FULL as cxarena wrote it before the config carried `play` (2c814be):
#: the key of a results folder, which must not change for the same file
FULL_FINGERPRINT = (
    '{"boards": [[4, 4, 3], [5, 4, 4]], "challengers": ["L0"], "format": "gauntlet", '
    '"fresh_process": true, "grace_s": 0.03, "max_tasks": 64, "memory_limit_mb": 300, '
    '"openings": {"plies": 3, "seed": 9}, "rounds": 2, "seed": 5, "startup_timeout_s": 7.0, '
    '"timeout_s": 0.25}')


def _full(tmp_path: Path, **kw: str) -> TournamentConfig:
    path = tmp_path / "full.yaml"
    path.write_text(FULL)
    return read_config(path, **kw)


def test_the_fingerprint_of_the_same_file_is_byte_identical(tmp_path: Path) -> None:
    cfg = _full(tmp_path)
    assert json.dumps(cfg.fingerprint(), sort_keys=True) == FULL_FINGERPRINT
    # isolation and cgroups are not in it: a rerun sandboxed otherwise resumes the same games
    other = cfg.with_play(isolation=Isolation.AUTO, cgroups=True)
    assert other.fingerprint() == cfg.fingerprint() and other.play.isolation is Isolation.AUTO
    # a limit is: a changed one plays other games
    assert cfg.with_play(max_tasks=None).fingerprint() != cfg.fingerprint()


def test_the_file_s_settings_of_play_are_the_config_s_value(tmp_path: Path) -> None:
    cfg = _full(tmp_path)
    assert type(cfg.play) is PlaySettings
    limits = cfg.limits
    assert (limits.timeout_s, limits.grace_s, limits.startup_timeout_s, limits.memory_limit_mb,
            limits.max_tasks, cfg.play.cgroups, cfg.play.isolation) == (
        0.25, 0.03, 7.0, 300, 64, False, Isolation.NONE)
    # the referee of each game gets every one of them
    settings = match_settings(cfg, None)
    assert settings.limits == limits and settings.cgroups is False
    assert settings.isolation == "none" and settings.fresh_process is True
    # --isolation overrides the file's, and a flag's value is checked as the file's is
    assert _full(tmp_path, isolation="auto").play.isolation is Isolation.AUTO
    with pytest.raises(UsageError, match=r"full.yaml: isolation: expected one of auto, "
                                         r"namespaces, none, got 'docker'"):
        _full(tmp_path, isolation="docker")
    with pytest.raises(UsageError, match=r"full.yaml: max_tasks: expected an integer of at "
                                         r"least 16"):
        cfg.with_play(max_tasks=3)
    # no field of the config re-declares a setting of play
    copies = {f.name for f in dataclasses.fields(TournamentConfig)} & {
        "limits", "timeout_s", "grace_s", "startup_timeout_s", "memory_limit_mb", "max_tasks",
        "cgroups", "isolation"}
    assert copies == set()


def test_the_validated_file_is_the_value_and_a_flag_makes_a_new_one(tmp_path: Path) -> None:
    cfg = _full(tmp_path)
    # no field of the config re-declares a key of the file: its own keys are read from `file`;
    # boards and openings are the file's resolved (a set's boards, an opening file's lines)
    copies = {f.name for f in dataclasses.fields(TournamentConfig)} & set(
        TournamentFile.model_fields)
    assert copies == {"boards", "openings"}
    assert type(cfg.file) is TournamentFile and (cfg.file.rounds, cfg.file.seed) == (2, 5)
    assert cfg.file.challengers == ["L0"] and cfg.file.fresh_process is True
    # --workers, --scheduler, --forfeit-broken: a new file, checked as the file's is
    flagged = cfg.with_file(workers=3, scheduler="tcp://lab:8786", broken_bots="forfeit")
    assert type(flagged.file) is TournamentFile and flagged.workers == 3
    assert (flagged.file.scheduler, flagged.file.broken_bots) == ("tcp://lab:8786", "forfeit")
    assert (cfg.file.workers, cfg.file.scheduler, cfg.file.broken_bots) == (
        "auto", None, "refuse")  # the config it came from is unchanged
    assert flagged.fingerprint() == cfg.fingerprint() and flagged.boards == cfg.boards
    assert flagged.openings == cfg.openings
    with pytest.raises(UsageError, match=r"full.yaml: workers: the worker count must be a "
                                         r"positive integer or 'auto', got 0"):
        cfg.with_file(workers=0)
    assert _full(tmp_path, broken_bots="forfeit").file.broken_bots == "forfeit"
    # a changed key derives boards and openings again
    fewer = cfg.with_file(boards=[[4, 4, 3]], openings={"plies": 1})
    assert fewer.boards == ((4, 4, 3),) and fewer.openings is not None
    assert (fewer.openings.plies, fewer.openings.seed) == (1, 5)
