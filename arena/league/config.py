"""A league's settings (league.yaml): the game and its boards or parameter sets, time limit,
reference bots (and the one that anchors the Elo scale), pairs per version, openings of rating
games, and the final round robin's boards and pairs.

`parse_config` checks every key and value, so that `cxarena league init` refuses a bad one
(naming it) before anything is created: board sets must exist (configs/boards.yaml, or a
boards.yaml in the folder the league runs from), reference bots must be bot SPECs that resolve
here, numbers must be numbers. The rating games' boards are `boards:`, the name tournament
configs use; `board_set:` is its old name, still accepted (not both).

**Other games.** `game:` names the game (`arena.games`; default ``connectx``) and, for another
game than Connect-X, `params:` its parameter sets, with the keys and shapes of a tournament
config (configs/othello.yaml): a list of mappings, each checked by the game itself (default:
the game's defaults). Such a league has no `boards:` (nor `board_set:` or `final_board_set:`):
its rating games rotate over the parameter sets, and its final plays them; it has no reference
bots unless `reference_bots:` names some (the default ones are Connect-X bots)."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.games import GAMES, Game, make_game
from arena.tournament.config import _check_game, resolve_board_set
from arena.tournament.openings import board_game

__all__ = ["ANALYSIS_BUDGET_S", "ANCHOR_ELO", "CHECK_WORKERS", "DISK_QUOTA_MB", "LeagueConfig",
           "java_time_problem", "parse_config"]

#: the game of a league.yaml without `game:`
CONNECTX = "connectx"
#: the reference bots of a Connect-X league.yaml without `reference_bots:`
DEFAULT_REFERENCE_BOTS = ("players.L0", "players.L1")
#: the rating of the anchor, the reference bot that fixes the leaderboard's Elo scale
ANCHOR_ELO = 1000.0
#: the default of `analysis_budget_s`: CPU seconds per analysed game
ANALYSIS_BUDGET_S = 5.0
#: the default of `check_workers`: conformance checks run at once (at most one per student)
CHECK_WORKERS = 2
#: without `check_limit_s`, a check may take CHECK_LIMIT_BASE_S (the bot's start-up and the
#: harness) plus CHECK_LIMIT_MOVES moves at the league's `timeout_s`: an honest bot's check (six
#: games, its start-up at most 30 s) stays well inside it (1 s a move: 210 s)
CHECK_LIMIT_BASE_S = 60.0
CHECK_LIMIT_MOVES = 150
#: the default of `disk_quota_mb`: the league's disk one student's versions may take (MiB)
DISK_QUOTA_MB = 100


@dataclass(frozen=True)
class LeagueConfig:
    #: the set of configs/boards.yaml the rating games rotate over (league.yaml's `boards`, or
    #: `board_set`, its old name); "listed" when `board_list` gives them
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
    #: CPU seconds the workers may spend analysing one game a student lost (the evaluation
    #: strip and blunders of its replay, arena.league.analysis); 0: no analyses
    analysis_budget_s: float = ANALYSIS_BUDGET_S
    #: explicit [M, N, K] boards when league.yaml gives `boards` (or its old name `board_set`)
    #: as a list (tests, small leagues); empty when it names a set of configs/boards.yaml
    board_list: tuple[tuple[int, int, int], ...] = ()
    #: the same for `final_board_set`
    final_board_list: tuple[tuple[int, int, int], ...] = ()
    #: the reference bot (a SPEC of reference_bots) whose rating is fixed at `anchor_elo`
    #: (Ordo's -A); "" means the last reference bot: see `anchor_bot`
    anchor: str = ""
    anchor_elo: float = ANCHOR_ELO
    #: when uploads close and the league freezes by itself (seconds since the epoch; None: the
    #: teacher freezes by hand). league.yaml's `deadline`: a date and time, e.g.
    #: 2026-12-18 23:59 (the server's local time) or 2026-12-18T23:59:00+01:00
    deadline_ts: float | None = None
    #: start the final round robin at the deadline (`serve` does it)
    final_at_deadline: bool = False
    #: what `league init` says of the file beyond errors (an old key name still accepted)
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    #: the game (`arena.games`); another than Connect-X plays `param_sets` in place of boards
    game: str = CONNECTX
    #: another game's parameter sets (league.yaml's `params:`), each a tuple of (key, value),
    #: as `TournamentConfig.param_sets`; () for Connect-X
    param_sets: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: conformance checks run at once by the server (never two of one student at a time)
    check_workers: int = CHECK_WORKERS
    #: the wall-clock limit of one check in seconds, start-up and every game included; a check
    #: still running then is ended and its version fails ("took longer than ..."); None: the
    #: default, `check_limit()`
    check_limit_s: float | None = None
    #: the league's disk one student's versions may take, in MiB: their uploads (all kept)
    #: and the unpacked trees of the versions still in use; an upload past it is refused
    disk_quota_mb: float = DISK_QUOTA_MB
    #: Java bots (.java, a .zip of them, a .jar) are taken: a Connect-X league's default;
    #: their time limit must then be whole seconds (`java_time_problem`)
    java: bool = True

    def check_limit(self) -> float:
        """The wall-clock limit of one check: `check_limit_s`, else CHECK_LIMIT_BASE_S plus
        CHECK_LIMIT_MOVES moves at `timeout_s`."""
        if self.check_limit_s is not None:
            return self.check_limit_s
        return CHECK_LIMIT_BASE_S + CHECK_LIMIT_MOVES * self.timeout_s

    @property
    def disk_quota_bytes(self) -> int:
        return int(self.disk_quota_mb * 1024 * 1024)

    @property
    def is_connectx(self) -> bool:
        return self.game == CONNECTX

    def anchor_bot(self) -> str:
        """The SPEC the leaderboard's scale is anchored to ("" without reference bots)."""
        return self.anchor or (self.reference_bots[-1] if self.reference_bots else "")

    def boards(self) -> tuple[tuple[int, int, int], ...]:
        """The Connect-X boards the rating games rotate over (a Connect-X league)."""
        return self.board_list or _board_set(self.board_set, "boards", os.getcwd())

    def games(self) -> tuple[Game, ...]:
        """The games the rating games rotate over: one per Connect-X board, or one per
        parameter set of another game."""
        if self.is_connectx:
            return tuple(board_game(*b) for b in self.boards())
        return tuple(make_game(self.game, dict(p)) for p in self.param_sets)

    def final_games(self) -> tuple[Game, ...]:
        """The games of the final round robin: one per board of `final_board_set` (Connect-X),
        else the league's own games."""
        if not self.is_connectx:
            return self.games()
        boards = self.final_board_list or _board_set(self.final_board_set, "final_board_set",
                                                     os.getcwd())
        return tuple(board_game(*b) for b in boards)

    def check_games(self) -> list[Game] | None:
        """The games the check of a version plays: None for Connect-X (the check's own boards,
        as `cxarena check-bot`: the competition's smallest and largest, and 6x7x4), else the
        league's own games."""
        return None if self.is_connectx else list(self.games())


_KEYS = {"boards", "board_set", "timeout_s", "reference_bots", "pairs_per_submission",
         "max_pairs_per_submission",
         "max_upload_bytes", "isolation", "opening_plies", "seed", "final_board_set",
         "final_pairs", "max_uploads_per_day", "anchor", "anchor_elo", "deadline",
         "final_at_deadline", "analysis_budget_s", "game", "params", "check_workers",
         "check_limit_s", "disk_quota_mb", "java"}
#: the keys that name Connect-X boards, which another game does not take
_BOARD_KEYS = ("boards", "board_set", "final_board_set")


@functools.lru_cache(maxsize=64)
def _board_set(name: str, key: str, cwd: str) -> tuple[tuple[int, int, int], ...]:
    """The boards of a set of boards.yaml (in `cwd`, else the project's configs/), once per
    process and folder; UsageError naming `key` when there is no such set."""
    return resolve_board_set(name, key)


def _boards(value: Any, key: str, where: str) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    """(set name, ()) for a name of configs/boards.yaml, ("listed", boards) for a list."""
    if isinstance(value, str) and value.strip():
        try:
            _board_set(value, key, os.getcwd())
        except UsageError as exc:
            raise ValueError(f"{where}: {exc}") from None
        return value, ()
    if not isinstance(value, list):
        raise ValueError(f"{where}: {key}: give a set name of configs/boards.yaml or a list "
                         f"of [M, N, K], not {value!r}")
    try:
        boards = tuple((int(m), int(n), int(k)) for m, n, k in value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {key}: give a set name of configs/boards.yaml or a list "
                         f"of [M, N, K]") from None
    if not boards or any(min(b) < 1 or b[2] > max(b[0], b[1]) for b in boards):
        raise ValueError(f"{where}: {key}: every [M, N, K] needs M, N, K >= 1 and "
                         f"K <= max(M, N)")
    return "listed", boards


def _game(data: dict[str, Any], where: str) -> tuple[str, tuple[tuple[tuple[str, int], ...],
                                                                  ...]]:
    """`game:` and `params:` as a tournament config has them (`arena.tournament.config`); a
    ValueError names the key."""
    if "game" in data and str(data["game"]) not in GAMES:
        raise ValueError(f"{where}: game: unknown game {data['game']!r}; known games: "
                         f"{', '.join(sorted(GAMES))}")
    try:
        name, param_sets = _check_game(data, Path(where))
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    for key in _BOARD_KEYS:
        if name != CONNECTX and key in data:
            raise ValueError(f"{where}: {key}: is for Connect-X; game {name!r} takes params: "
                             f"(a list of parameter sets, e.g. [{{size: 8}}])")
    return name, param_sets


def _number(data: dict[str, Any], key: str, default: float, where: str,
            integer: bool = True) -> Any:
    """The value of `key`: an int (or, unless `integer`, any finite number); ValueError naming
    the key and the file otherwise."""
    value = data.get(key, default)
    ok = isinstance(value, int) or (not integer and isinstance(value, float)
                                    and math.isfinite(value))
    if isinstance(value, bool) or not ok:
        kind = "a whole number" if integer else "a number"
        raise ValueError(f"{where}: {key}: expected {kind}, got {value!r}")
    return value


def _isolation(value: Any, where: str) -> bool:
    """league.yaml's `isolation`: true or false, or a tournament config's word for the same
    (`namespaces`: the sandbox, required; `none`). `auto` (the sandbox where the machine has
    one) is no setting for uploaded code: refused, naming what to write."""
    words = {"namespaces": True, "none": False}
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in words:
        return words[value]
    raise ValueError(f"{where}: isolation: expected true (or namespaces: uploaded code runs only "
                     f"in the sandbox) or false (or none), got {value!r}")


def _flag(data: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{where}: {key}: expected true or false, got {value!r}")
    return value


def _reference_bots(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(b, str) and b.strip() for b in value):
        raise ValueError(f"{where}: reference_bots: expected a list of bot SPECs (e.g. "
                         f"[players.L0, players.L1]), got {value!r}")
    for bot in value:
        try:
            parse_spec(bot)
        except SpecError as exc:
            raise ValueError(f"{where}: reference_bots: {exc}") from None
    return tuple(b.strip() for b in value)


def _deadline(value: Any, where: str) -> float | None:
    """The deadline as seconds since the epoch: YAML's own timestamp, or an ISO 8601 text; a
    time without a zone is the server's local time."""
    if value is None:
        return None
    when: datetime.datetime | None = None
    if isinstance(value, datetime.datetime):
        when = value
    elif isinstance(value, datetime.date):
        when = datetime.datetime.combine(value, datetime.time(23, 59, 59))
    elif isinstance(value, str):
        try:
            when = datetime.datetime.fromisoformat(value.strip())
        except ValueError:
            when = None
    if when is None:
        raise ValueError(f"{where}: deadline: expected a date and time such as "
                         f"2026-12-18 23:59 (local time) or 2026-12-18T23:59:00+01:00, "
                         f"got {value!r}")
    return when.timestamp()  # a naive time is taken as local time


def _check_checks_and_disk(cfg: LeagueConfig, where: str) -> None:
    """ValueError for a bad check_workers, check_limit_s or disk_quota_mb."""
    if cfg.check_workers < 1:
        raise ValueError(f"{where}: check_workers must be 1 or more")
    if cfg.check_limit_s is not None and cfg.check_limit_s <= 0:
        raise ValueError(f"{where}: check_limit_s must be positive (seconds; leave it out for "
                         f"the default, {CHECK_LIMIT_BASE_S:g} s + {CHECK_LIMIT_MOVES} moves "
                         f"at timeout_s)")
    if cfg.disk_quota_mb <= 0:
        raise ValueError(f"{where}: disk_quota_mb must be positive (MiB per student)")


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
    game, param_sets = _game(data, where)
    if "boards" in data and "board_set" in data:
        raise ValueError(f"{where}: give either boards (the name tournament configs use) or "
                         f"board_set (its old name), not both")
    boards_key = "boards" if "boards" in data else "board_set"
    board_set, board_list = _boards(data.get(boards_key, "competition"), boards_key, where)
    final_set, final_list = _boards(data.get("final_board_set", "competition"),
                                    "final_board_set", where)
    isolation = _isolation(data.get("isolation", True), where)
    cfg = LeagueConfig(
        board_set=board_set, board_list=board_list,
        timeout_s=float(_number(data, "timeout_s", 1.0, where, integer=False)),
        reference_bots=_reference_bots(data.get(
            "reference_bots", list(DEFAULT_REFERENCE_BOTS) if game == CONNECTX else []), where),
        pairs_per_submission=_number(data, "pairs_per_submission", 10, where),
        max_pairs_per_submission=_number(data, "max_pairs_per_submission", 40, where),
        max_upload_bytes=_number(data, "max_upload_bytes", 2_000_000, where),
        isolation=isolation,
        opening_plies=_number(data, "opening_plies", 2, where),
        seed=_number(data, "seed", 0, where),
        final_board_set=final_set, final_board_list=final_list,
        final_pairs=_number(data, "final_pairs", 1, where),
        max_uploads_per_day=_number(data, "max_uploads_per_day", 10, where),
        anchor_elo=float(_number(data, "anchor_elo", ANCHOR_ELO, where, integer=False)),
        deadline_ts=_deadline(data.get("deadline"), where),
        final_at_deadline=_flag(data, "final_at_deadline", False, where),
        analysis_budget_s=float(_number(data, "analysis_budget_s", ANALYSIS_BUDGET_S, where,
                                        integer=False)),
        game=game, param_sets=param_sets,
        check_workers=_number(data, "check_workers", CHECK_WORKERS, where),
        check_limit_s=(None if data.get("check_limit_s") is None else float(
            _number(data, "check_limit_s", 0, where, integer=False))),
        disk_quota_mb=float(_number(data, "disk_quota_mb", DISK_QUOTA_MB, where,
                                    integer=False)),
        java=_flag(data, "java", game == CONNECTX, where),
    )
    if "board_set" in data:
        cfg = dataclasses.replace(cfg, notes=(
            f"{where}: board_set: is the old name of boards: (the name tournament configs "
            f"use); it still works, and boards: is what to write",))
    if cfg.final_at_deadline and cfg.deadline_ts is None:
        raise ValueError(f"{where}: final_at_deadline needs a deadline")
    if "anchor" in data:
        anchor = data["anchor"]
        if not isinstance(anchor, str) or anchor.strip() not in cfg.reference_bots:
            raise ValueError(f"{where}: anchor: expected one of reference_bots "
                             f"({', '.join(cfg.reference_bots) or 'none given'}), "
                             f"got {anchor!r}")
        cfg = dataclasses.replace(cfg, anchor=anchor.strip())
    if (cfg.timeout_s <= 0 or cfg.pairs_per_submission < 1 or cfg.max_upload_bytes < 1
            or cfg.final_pairs < 1 or cfg.max_uploads_per_day < 1):
        raise ValueError(f"{where}: timeout_s, pairs_per_submission, max_upload_bytes, "
                         "final_pairs and max_uploads_per_day must be positive")
    if cfg.max_pairs_per_submission < cfg.pairs_per_submission:
        raise ValueError(f"{where}: max_pairs_per_submission must be at least "
                         f"pairs_per_submission ({cfg.pairs_per_submission})")
    if cfg.opening_plies < 0:
        raise ValueError(f"{where}: opening_plies must be 0 or more")
    _check_checks_and_disk(cfg, where)
    if cfg.analysis_budget_s < 0:
        raise ValueError(f"{where}: analysis_budget_s must be 0 (no analyses) or more")
    return cfg


#: the league folder's copy of the settings, their source of truth (`League.apply_config_file`)
CONFIG_FILE = "league.yaml"

#: settings that may change while the league runs (each LeagueConfig field, by league.yaml key)
CHANGEABLE = {
    "deadline_ts": "deadline", "final_at_deadline": "final_at_deadline",
    "max_uploads_per_day": "max_uploads_per_day", "max_upload_bytes": "max_upload_bytes",
    "disk_quota_mb": "disk_quota_mb", "board_set": "boards", "board_list": "boards",
    "final_board_set": "final_board_set", "final_board_list": "final_board_set",
    "final_pairs": "final_pairs", "pairs_per_submission": "pairs_per_submission",
    "max_pairs_per_submission": "max_pairs_per_submission", "check_workers": "check_workers",
    "check_limit_s": "check_limit_s", "analysis_budget_s": "analysis_budget_s",
    "java": "java",
}
#: settings that may not change once the league exists, and why
FIXED = {
    "timeout_s": ("timeout_s", "the stored games were played at this time limit; their "
                  "ratings would mix two limits (start a new league for another)"),
    "game": ("game", "the stored games are of this game"),
    "param_sets": ("params", "the stored games were played on these parameter sets"),
    "reference_bots": ("reference_bots", "the ratings are fitted with these bots' games and "
                       "anchored to one of them"),
    "anchor": ("anchor", "the Elo scale of every stored rating is anchored to it"),
    "anchor_elo": ("anchor_elo", "every shown rating is relative to it"),
    "isolation": ("isolation", "uploaded code must keep running in the sandbox it was "
                  "promised (serve --unsafe-no-isolation is the one way round it)"),
    "opening_plies": ("opening_plies", "the stored pairs were played from these openings"),
    "seed": ("seed", "the stored pairs' openings come from it"),
}
#: what may change only before the final has started
BEFORE_FINAL = {"deadline_ts", "final_board_set", "final_board_list", "final_pairs",
                "final_at_deadline"}


def _shown(field_name: str, value: Any) -> str:
    if field_name == "deadline_ts":
        if value is None:
            return "none"
        return datetime.datetime.fromtimestamp(value).astimezone().isoformat(timespec="minutes")
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown("", v) for v in value) + "]"
    return str(value)


def _boards_shown(cfg: LeagueConfig, attr: str) -> str:
    listed = getattr(cfg, attr + "_list")
    return _shown("", listed) if listed else str(getattr(cfg, attr + "_set"))


def config_changes(old: LeagueConfig, new: LeagueConfig, final_started: bool = False
                   ) -> tuple[list[str], list[str]]:
    """(changes, refusals) from `old` to `new`: "max_uploads_per_day: 10 -> 20" per changed
    setting that may change, and "timeout_s: may not change (reason)" per one that may not."""
    changes: list[str] = []
    refused: list[str] = []
    seen: set[str] = set()
    for f in dataclasses.fields(LeagueConfig):
        if f.name in ("notes", "extra"):
            continue
        before, after = getattr(old, f.name), getattr(new, f.name)
        if before == after:
            continue
        if f.name in FIXED:
            key, why = FIXED[f.name]
            refused.append(f"{key}: may not change while the league runs ({why})")
        elif f.name in BEFORE_FINAL and final_started:
            refused.append(f"{CHANGEABLE[f.name]}: may not change once the final round robin "
                           f"has started (its entries and games are fixed)")
        elif f.name in CHANGEABLE:
            key = CHANGEABLE[f.name]
            if key in seen:
                continue
            seen.add(key)
            if key in ("boards", "final_board_set"):
                attr = "board" if key == "boards" else "final_board"
                changes.append(f"{key}: {_boards_shown(old, attr)} -> "
                               f"{_boards_shown(new, attr)}")
            else:
                changes.append(f"{key}: {_shown(f.name, before)} -> {_shown(f.name, after)}")
        else:
            refused.append(f"{f.name}: may not change while the league runs")
    return changes, refused


def java_time_problem(cfg: LeagueConfig) -> str:
    """"" when the league's time limit suits its entrants; else why not: a Connect-X league
    that takes Java bots needs whole seconds (CXPlayer.initPlayer's timeout_in_secs is an int,
    so 0.5 s cannot be given to a Java bot at all)."""
    if not (cfg.is_connectx and cfg.java) or cfg.timeout_s == int(cfg.timeout_s):
        return ""
    return (f"timeout_s: {cfg.timeout_s:g} is not a whole number of seconds, and this league "
            f"takes Java bots (java: true, the default), whose CXPlayer.initPlayer gets the "
            f"limit as whole seconds (timeout_in_secs, an int): give a whole number of seconds "
            f"(the course's CXGame uses 10; a bot that sizes its search from timeout_in_secs - "
            f"1 needs at least 2), or java: false for a league of Python bots only")
