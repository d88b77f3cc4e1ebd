"""Tournament configuration files (`configs/*.yaml`): loading and checking them.

`load_config(path)` reads a YAML file into a frozen `TournamentConfig` or raises `UsageError`
with one line naming the file and the key. Every check happens here, before anything is
written: YAML syntax (with its line), unknown or duplicate keys, types and ranges, boards
(a named set from ``boards.yaml`` or an explicit list of [M, N, K] with K <= max(M, N)),
players (a SPEC that resolves, a Python bot file/module that defines a CXPlayer subclass,
unique display names).

A config file::

    name: tournament          # results go to results/<name> (default: the file's stem)
    players:                  # at least two; SPECs as in `cxarena match`
      - L0
      - {spec: alphabeta, name: ab-deep, options: {max_depth: 8}}
      - {spec: "java:students/alice", name: alice, options: {jvm_options: [-Xmx512m]}}
    boards: competition       # a set in boards.yaml, or a list of [M, N, K]
    timeout_s: 0.1            # per-move (and initPlayer) time limit
    grace_s: 0.01             # margin before an answer counts as late
    rounds: 1                 # games per pairing, board and colour
    workers: auto             # worker processes (auto = one per usable core)
    seed: 1                   # tournament seed (every game's seed derives from it)
    memory_limit_mb: 2048     # per bot (null = no limit)
    max_tasks: 512            # processes and threads a bot may run at once, where cgroups
                              #   count them (null = no cap)
    cgroups: true             # one cgroup per bot where the machine offers them (cxarena doctor)
    startup_timeout_s: 30     # time a bot process may take to start
    fresh_process: false      # true: a new bot process for every game
    isolation: auto           # auto | namespaces | none: sandbox each bot (arena.referee.sandbox)
    format: round-robin       # or gauntlet: only the challengers play, against everyone
    challengers: [alphabeta]  # gauntlet only: display names of the challengers
    openings:                 # absent: every game from the empty board (the course's rules)
      plies: 2                # each round of a pairing on a board is a game pair from its own
      seed: 1                 #   opening, made from this seed (default: the tournament seed)
      # file: openings.txt    # or the openings in this file (checked on every board)
    scheduler: null           # a Dask scheduler (tcp://HOST:8786): play the games on its workers
    broken_bots: refuse       # or forfeit: a bot that fails to load is never started and loses
                              #   each of its games as a crash (also: --forfeit-broken)
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from arena import defaults
from arena.entrants.java import JVM_OPTIONS_KEY, jvm_options_problem
from arena.entrants.probe import check_loadable
from arena.entrants.specs import (
    BotSpec,
    Kind,
    SpecError,
    parse_spec,
    time_limit_problem,
)
from arena.errors import UsageError
from arena.games import GameError, make_game
from arena.limits import Limits, make_limits
from arena.referee import door
from arena.referee.sandbox import MODES, check_mode
from arena.tournament.cores import usable_cores
from arena.tournament.openings import read_suite

__all__ = ["Board", "OpeningsConfig", "PlayerEntry", "TournamentConfig", "load_boards",
           "load_config", "load_limits",
           "resolve_board_set"]

Board = tuple[int, int, int]

BOARDS_FILE = "boards.yaml"
#: the configs/ directory of a checkout of the project (absent when cxarena is installed as a
#: package)
CHECKOUT_CONFIGS = Path(__file__).resolve().parents[2] / "configs"
#: the board sets shipped as package data: the same file as configs/boards.yaml (a test keeps
#: them identical), read when there is no checkout
PACKAGE_DATA = Path(__file__).resolve().parents[1] / "data"


def configs_dir() -> Path:
    """Where the project's board sets are: the checkout's configs/, else the package's data."""
    return CHECKOUT_CONFIGS if (CHECKOUT_CONFIGS / BOARDS_FILE).is_file() else PACKAGE_DATA


#: the project's configs (fallback for board sets): a checkout's configs/, else the package data
REPO_CONFIGS = configs_dir()

_KEYS = {"name", "players", "boards", "timeout_s", "grace_s", "rounds", "workers", "seed",
         "memory_limit_mb", "max_tasks", "cgroups", "startup_timeout_s", "fresh_process",
         "description",
         "isolation", "format", "challengers", "openings", "scheduler", "game", "params",
         "broken_bots"}
#: `broken_bots:` what a tournament does with a bot that fails to load: refuse to start (a
#: student's run), or let it forfeit every game without being started (a teacher's run of 30
#: bots, where one broken bot must not stop the others)
BROKEN_BOTS = ("refuse", "forfeit")
_FORMATS = ("round-robin", "gauntlet")
_OPENING_KEYS = {"plies", "seed", "file"}
_REQUIRED = ("players", "boards", "timeout_s")
_PLAYER_KEYS = {"spec", "name", "options"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class PlayerEntry:
    """One tournament player: a display name (unique), its SPEC and its options."""

    name: str
    spec: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "options": dict(self.options)}


@dataclass(frozen=True)
class OpeningsConfig:
    """`openings:` of a config: generated (plies, seed) or read from a file (its lines)."""

    plies: int = 2
    seed: int = 0
    file: str | None = None
    lines: tuple[str, ...] = ()  # the file's content, so a changed file changes the fingerprint

    def fingerprint(self) -> dict[str, Any]:
        if self.file is not None:
            return {"file": self.file, "lines": list(self.lines)}
        return {"plies": self.plies, "seed": self.seed}


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament configuration (see the module docstring for the keys)."""

    path: str
    name: str
    players: tuple[PlayerEntry, ...]
    boards: tuple[Board, ...]
    limits: Limits
    rounds: int = 1
    workers: int = 1
    seed: int = 0
    fresh_process: bool = False
    board_set: str | None = None  # the set name, when boards came from boards.yaml
    isolation: str = defaults.ISOLATION  # not in the fingerprint: games stay comparable
    cgroups: bool = defaults.CGROUPS  # nor this (arena.referee.cgroups)
    format: str = "round-robin"
    challengers: tuple[str, ...] = ()  # gauntlet: display names
    openings: OpeningsConfig | None = None  # None: every game from the empty board
    scheduler: str | None = None  # a Dask scheduler's address: games run on its workers
    broken_bots: str = "refuse"  # not in the fingerprint (BROKEN_BOTS)
    #: with broken_bots: forfeit, (player name, its load error) of each bot that fails to load:
    #: it loses each of its games without being started
    broken: tuple[tuple[str, str], ...] = ()
    #: the game (`arena.games`); another than connectx plays its parameter sets
    #: (`param_sets`, each a tuple of (key, value)) through protocol v2 in place of boards
    game: str = "connectx"
    param_sets: tuple[tuple[tuple[str, int], ...], ...] = ()

    @property
    def is_connectx(self) -> bool:
        return self.game == "connectx"

    @property
    def timeout_s(self) -> float:
        return self.limits.timeout_s

    def fingerprint(self) -> dict[str, Any]:
        """What makes two runs' games comparable (everything but workers, scheduler, name, and
        the player list: a game's id names its two players, so a player added to a config that
        ran plays only its own games, and a removed one's games leave the table; a player whose
        entry changed is the run's to find, `arena.tournament.run`)."""
        extra: dict[str, Any] = {}
        if self.format != "round-robin":  # absent keys keep old results directories valid
            extra["format"] = self.format
            extra["challengers"] = sorted(self.challengers)
        if self.openings is not None:
            extra["openings"] = self.openings.fingerprint()
        if not self.is_connectx:
            extra["game"] = self.game
            extra["params"] = [dict(p) for p in self.param_sets]
        return extra | {
            "boards": sorted([list(b) for b in self.boards]),
            **self.limits.to_dict(),
            "rounds": self.rounds,
            "seed": self.seed,
            "fresh_process": self.fresh_process,
        }


class _Loader(yaml.SafeLoader):
    """A safe YAML loader that refuses duplicate keys (PyYAML silently keeps the last)."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, str) and key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark)
        if isinstance(key, str):
            seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot read: {e}") from None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        what = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise UsageError(f"{where}: YAML syntax error: {what}") from None
    except yaml.YAMLError as e:
        raise UsageError(f"{path}: YAML syntax error: {e}") from None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return (isinstance(x, (int, float)) and not isinstance(x, bool)
            and math.isfinite(float(x)))


def load_boards(path: Path) -> dict[str, Any]:
    """The board sets of a boards.yaml file (name -> raw list)."""
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of board-set names to lists of [M, N, K]")
    return data


def _check_board(item: Any, where: str) -> Board:
    if not (isinstance(item, (list, tuple)) and len(item) == 3 and all(map(_is_int, item))):
        raise UsageError(f"{where}: expected [M, N, K] (three integers), got {item!r}")
    M, N, K = (int(x) for x in item)
    if M < 1 or N < 1 or K < 1:
        raise UsageError(f"{where}: M, N and K must be positive, got [{M}, {N}, {K}]")
    if K > max(M, N):
        raise UsageError(f"{where}: K={K} > max(M, N)={max(M, N)} in [{M}, {N}, {K}]: "
                         f"nobody can ever connect {K}")
    return (M, N, K)


def _resolve_boards(value: Any, cfg_path: Path) -> tuple[tuple[Board, ...], str | None]:
    where = f"{cfg_path}: boards"
    if isinstance(value, str):
        candidates = [cfg_path.parent / BOARDS_FILE, configs_dir() / BOARDS_FILE]
        known: list[str] = []
        for bpath in dict.fromkeys(c.resolve() for c in candidates):
            if not bpath.is_file():
                continue
            sets = load_boards(bpath)
            if value in sets:
                raw = sets[value]
                if not isinstance(raw, list) or not raw:
                    raise UsageError(f"{bpath}: {value}: expected a non-empty list of [M, N, K]")
                boards = tuple(_check_board(b, f"{bpath}: {value}[{i}]")
                               for i, b in enumerate(raw))
                return _no_duplicates(boards, f"{bpath}: {value}"), value
            known += [str(k) for k in sets]
        hint = f"known sets: {', '.join(dict.fromkeys(known))}" if known else \
            f"no {BOARDS_FILE} found next to the config or in {configs_dir()}"
        raise UsageError(f"{where}: unknown board set {value!r} ({hint})")
    if isinstance(value, list) and value:
        boards = tuple(_check_board(b, f"{where}[{i}]") for i, b in enumerate(value))
        return _no_duplicates(boards, where), None
    raise UsageError(f"{where}: expected a board-set name or a non-empty list of [M, N, K]")


def resolve_board_set(name: str, where: str = "--board-set") -> tuple[Board, ...]:
    """The boards of set `name` (boards.yaml in the current directory, else the repository's
    configs/). Raises UsageError naming `where`."""
    try:
        boards, _ = _resolve_boards(name, Path.cwd() / "command-line")
    except UsageError as e:
        raise UsageError(f"{where}: {str(e).partition(': boards: ')[2] or e}") from None
    return boards


def _no_duplicates(boards: tuple[Board, ...], where: str) -> tuple[Board, ...]:
    seen: set[Board] = set()
    for b in boards:
        if b in seen:
            raise UsageError(f"{where}: board {list(b)} is listed twice")
        seen.add(b)
    return boards


def _check_player(item: Any, where: str, cfg_path: Path) -> PlayerEntry:
    if isinstance(item, str):
        item = {"spec": item}
    if not isinstance(item, dict):
        raise UsageError(f"{where}: expected a SPEC or a mapping with spec, name, options")
    unknown = sorted(str(k) for k in item if k not in _PLAYER_KEYS)
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} "
                         f"(allowed: {', '.join(sorted(_PLAYER_KEYS))})")
    spec_text = item.get("spec")
    if not isinstance(spec_text, str) or not spec_text.strip():
        raise UsageError(f"{where}.spec: expected a bot SPEC (a string)")
    spec_text = spec_text.strip()
    name = item.get("name", spec_text)
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{where}.name: expected a non-empty string")
    options = item.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise UsageError(f"{where}.options: expected a mapping of option names to values")
    try:
        json.dumps(options, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}.options: values must be plain data: {e}") from None
    spec = _check_spec(spec_text, f"{where}.spec", cfg_path)  # loading: for all at once
    if JVM_OPTIONS_KEY in options:
        if spec.kind is not Kind.JAVA:
            raise UsageError(f"{where}.options.{JVM_OPTIONS_KEY}: only Java bots (java:PATH) "
                             f"have JVM options")
        problem = jvm_options_problem(options[JVM_OPTIONS_KEY])
        if problem:
            raise UsageError(f"{where}.options.{JVM_OPTIONS_KEY}: {problem}")
    return PlayerEntry(name=name.strip(), spec=spec_text, options=options)


def _check_spec(text: str, where: str, cfg_path: Path) -> BotSpec:
    """Resolve a SPEC (relative paths of files and java:/kaggle: bots against the directory
    you run from; the error hints at the config's directory when the path is there)."""
    try:
        spec = parse_spec(text)
    except SpecError as first:
        head, sep, rest = text.partition(":")
        if sep and head in ("java", "kaggle"):
            path_part = rest if Path(rest).exists() else rest.rpartition(":")[0] or rest
        else:
            path_part = head if head.endswith(".py") else ""
        if path_part and not Path(path_part).is_absolute() and not Path(path_part).exists():
            alt = cfg_path.parent / path_part
            if alt.exists():
                raise UsageError(f"{where}: {first} (paths are relative to the directory you "
                                 f"run from; did you mean {alt}?)") from None
        raise UsageError(f"{where}: {first}") from None
    return spec


#: the scalar keys of a config: key -> (check, what the value must be, default). A check
#: returns True for a good value; `load_config` reads every key through this one table.
_SCALARS: dict[str, tuple[Callable[[Any], bool], str, Any]] = {
    "timeout_s": (lambda v: _is_number(v) and v > 0,
                  "the time limit must be a positive number of seconds", None),
    "grace_s": (lambda v: _is_number(v) and v >= 0, "expected a number of seconds >= 0",
                defaults.GRACE_S),
    "startup_timeout_s": (lambda v: _is_number(v) and v > 0,
                          "expected a positive number of seconds", defaults.STARTUP_TIMEOUT_S),
    "rounds": (lambda v: _is_int(v) and v >= 1, "expected a positive integer", 1),
    "workers": (lambda v: v in (None, "auto") or (_is_int(v) and v >= 1),
                "the worker count must be a positive integer or 'auto'", "auto"),
    "seed": (lambda v: _is_int(v) and v >= 0, "expected an integer >= 0", 0),
    "memory_limit_mb": (lambda v: v is None or (_is_int(v) and v >= defaults.MIN_MEMORY_MB),
                        f"expected an integer of at least {defaults.MIN_MEMORY_MB} (MiB; a "
                        f"Python bot needs about 100 to start) or null",
                        defaults.MEMORY_LIMIT_MB),
    "max_tasks": (lambda v: v is None or (_is_int(v) and v >= defaults.MIN_TASKS),
                  f"expected an integer of at least {defaults.MIN_TASKS} (processes and "
                  f"threads) or null", defaults.MAX_TASKS),
    "cgroups": (lambda v: isinstance(v, bool), "expected true or false", defaults.CGROUPS),
    "fresh_process": (lambda v: isinstance(v, bool), "expected true or false", False),
    "isolation": (lambda v: v in MODES, f"expected one of {', '.join(MODES)}",
                  defaults.ISOLATION),
    "scheduler": (lambda v: v is None or (isinstance(v, str) and bool(v.strip())),
                  "expected the address of a Dask scheduler (e.g. tcp://lab-01:8786) or null",
                  None),
    "description": (lambda v: isinstance(v, str), "expected a string", ""),
    "format": (lambda v: v in _FORMATS, f"expected one of {', '.join(_FORMATS)}",
               "round-robin"),
    "broken_bots": (lambda v: v in BROKEN_BOTS,
                    f"expected {' or '.join(BROKEN_BOTS)} (what to do with a bot that fails to "
                    f"load)", "refuse"),
}


def _scalars(data: dict[str, Any], cfg_path: Path) -> dict[str, Any]:
    """Every scalar key of `data` checked against `_SCALARS` (defaults filled in)."""
    out = {}
    for key, (good, what, default) in _SCALARS.items():
        value = data.get(key, default)
        if key == "memory_limit_mb" and _is_int(value) and value == 0:
            raise UsageError(f"{cfg_path}: memory_limit_mb: 0 is not a limit here; write "
                             f"memory_limit_mb: null for no memory limit (the 0 of "
                             f"--memory-mb), or at least {defaults.MIN_MEMORY_MB} (MiB)")
        if not good(value):
            raise UsageError(f"{cfg_path}: {key}: {what}, got {value!r}")
        out[key] = value
    return out


def _check_keys(data: Any, cfg_path: Path, required: tuple[str, ...] = _REQUIRED
                ) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise UsageError(f"{cfg_path}: expected a mapping of keys (players, boards, timeout_s "
                         f"...), got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise UsageError(f"{cfg_path}: unknown key {unknown[0]!r} "
                         f"(allowed: {', '.join(sorted(_KEYS))})")
    for key in required:
        if key not in data:
            raise UsageError(f"{cfg_path}: missing key {key!r}")
    name = data.get("name", cfg_path.stem)
    if not isinstance(name, str) or not _NAME.match(name):
        raise UsageError(f"{cfg_path}: name: expected a results name of letters, digits, '.', "
                         f"'_' or '-', got {name!r}")
    return data


def load_limits(path: str | os.PathLike[str]) -> Limits:
    """The limits of a tournament config, checked by the same table as `load_config`, without
    loading its players (a broken bot in it must not stop another bot's check)."""
    cfg_path = Path(path)
    data = _check_keys(_read_yaml(cfg_path), cfg_path, required=("timeout_s",))
    v = _scalars(data, cfg_path)
    return make_limits(v["timeout_s"], v["grace_s"], v["startup_timeout_s"],
                       v["memory_limit_mb"], where=str(cfg_path), max_tasks=v["max_tasks"])


def load_config(path: str | os.PathLike[str], *, broken_bots: str | None = None,
                isolation: str | None = None) -> TournamentConfig:
    """Read and check a tournament config. Raises UsageError (one line) on any problem.

    `broken_bots` overrides the config's `broken_bots:` (`--forfeit-broken`), `isolation` its
    `isolation:` (`--isolation`). Loading the players' code to check it (and compiling Java
    bots) goes through the door (`arena.referee.door`) with that isolation."""
    cfg_path = Path(path)
    raw = _read_yaml(cfg_path)
    game, param_sets = _check_game(raw, cfg_path)
    data = _check_keys(raw, cfg_path, required=_REQUIRED if game == "connectx" else
                       ("players", "timeout_s"))
    v = _scalars(data, cfg_path)
    limits = make_limits(v["timeout_s"], v["grace_s"], v["startup_timeout_s"],
                         v["memory_limit_mb"], where=str(cfg_path), max_tasks=v["max_tasks"])
    workers = usable_cores() if v["workers"] in (None, "auto") else int(v["workers"])
    if game == "connectx":
        boards, board_set = _resolve_boards(data["boards"], cfg_path)
    else:
        boards, board_set = (), None
    if game == "connectx":
        openings = _check_openings(data.get("openings"), f"{cfg_path}: openings", cfg_path,
                                   boards, int(v["seed"]))
    else:
        openings = _check_game_openings(data.get("openings"), f"{cfg_path}: openings",
                                        int(v["seed"]))
    broken_mode = broken_bots or v["broken_bots"]
    isolation = isolation or v["isolation"]
    door.install(check_mode(isolation, f"{cfg_path}: isolation"), v["cgroups"])
    players, broken = _check_players(data["players"], f"{cfg_path}: players", cfg_path,
                                     limits.timeout_s, probe=game == "connectx",
                                     forfeit=broken_mode == "forfeit")
    challengers = _check_challengers(data.get("challengers"), v["format"],
                                     f"{cfg_path}: challengers", [p.name for p in players])
    scheduler = v["scheduler"]
    return TournamentConfig(
        path=str(cfg_path), name=data.get("name", cfg_path.stem), players=players,
        boards=boards, limits=limits, rounds=int(v["rounds"]), workers=workers,
        seed=int(v["seed"]), fresh_process=v["fresh_process"], board_set=board_set,
        isolation=isolation, cgroups=v["cgroups"], format=v["format"], challengers=challengers,
        openings=openings, scheduler=scheduler.strip() if scheduler else None, game=game,
        param_sets=param_sets, broken_bots=broken_mode, broken=broken)


def _check_game(data: Any, cfg_path: Path
                ) -> tuple[str, tuple[tuple[tuple[str, int], ...], ...]]:
    """`game:` and `params:` (a list of parameter sets, each a mapping; default: the game's
    defaults), checked by the game itself. Connect-X keeps `boards:`."""
    if not isinstance(data, dict) or "game" not in data:
        if isinstance(data, dict) and "params" in data:
            raise UsageError(f"{cfg_path}: params: needs game: (the game they belong to)")
        return "connectx", ()
    name = data["game"]
    if name == "connectx":
        if "params" in data:
            raise UsageError(f"{cfg_path}: params: Connect-X takes boards: (a list of "
                             f"[M, N, K] or a set in boards.yaml)")
        return "connectx", ()
    if "boards" in data:
        raise UsageError(f"{cfg_path}: boards: is for Connect-X; game {name!r} takes params: "
                         f"(a list of parameter sets, e.g. [{{size: 8}}])")
    raw = data.get("params", [{}])
    if not isinstance(raw, list) or not raw or not all(isinstance(p, dict) for p in raw):
        raise UsageError(f"{cfg_path}: params: expected a list of parameter sets (mappings), "
                         f"e.g. [{{size: 8}}, {{size: 6}}], got {raw!r}")
    sets = []
    for i, params in enumerate(raw):
        try:
            game = make_game(str(name), params)
        except GameError as e:
            where = f"params[{i}]" if "params" in data else "game"
            raise UsageError(f"{cfg_path}: {where}: {e}") from None
        key = tuple(game.params.items())
        if key in sets:
            raise UsageError(f"{cfg_path}: params[{i}]: the same parameter set twice")
        sets.append(key)
    return str(name), tuple(sets)


def _check_players(raw_players: Any, where: str, cfg_path: Path,
                   timeout_s: float, probe: bool = True, forfeit: bool = False
                   ) -> tuple[tuple[PlayerEntry, ...], tuple[tuple[str, str], ...]]:
    """The players, each checked, with unique names; every bot loads (each in a subprocess of
    its own, so a bot that hangs or exits at import cannot take the run with it) before
    anything is written. With `forfeit`, a bot that fails to load is kept, and returned with
    its error (name, error), instead of refused."""
    if not isinstance(raw_players, list):
        raise UsageError(f"{where}: expected a list of players")
    if len(raw_players) < 2:
        raise UsageError(f"{where}: a tournament needs at least two players, got "
                         f"{len(raw_players)}")
    players: list[PlayerEntry] = []
    names: dict[str, int] = {}
    for i, item in enumerate(raw_players):
        entry = _check_player(item, f"{where}[{i}]", cfg_path)
        if entry.name in names:
            raise UsageError(f"{where}[{i}]: two players are named {entry.name!r} "
                             f"(players[{names[entry.name]}] and players[{i}]); give one a "
                             f"different name: {{spec: {entry.spec}, name: ...}}")
        names[entry.name] = i
        players.append(entry)
    specs = [parse_spec(p.spec) for p in players]
    for i, spec in enumerate(specs):
        problem = time_limit_problem(spec, timeout_s)  # Java bots: whole seconds
        if problem:
            raise UsageError(f"{cfg_path}: timeout_s: {problem} (players[{i}])")
    # the probes load CXPlayer classes; a bot for another game shows at its start instead
    failed = check_loadable(specs) if probe else {}
    broken: list[tuple[str, str]] = []
    for i, p in enumerate(players):
        if p.spec in failed and forfeit:
            broken.append((p.name, failed[p.spec]))
        elif p.spec in failed:
            raise UsageError(f"{where}[{i}].spec: {failed[p.spec]} (to play the tournament "
                             f"without it, the bot losing each of its games: "
                             f"`broken_bots: forfeit` in the config, or --forfeit-broken)")
    return tuple(players), tuple(broken)


def _check_challengers(value: Any, fmt: str, where: str, names: list[str]) -> tuple[str, ...]:
    if fmt != "gauntlet":
        if value is not None:
            raise UsageError(f"{where}: only for `format: gauntlet` (this config is {fmt})")
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(x, str) for x in value):
        raise UsageError(f"{where}: a gauntlet needs a list of challengers (player names), "
                         f"e.g. challengers: [{names[0]}]")
    for x in value:
        if x not in names:
            raise UsageError(f"{where}: {x!r} is not a player's name (players: "
                             f"{', '.join(names)})")
    if len(set(value)) != len(value):
        raise UsageError(f"{where}: a challenger is listed twice")
    if len(value) == len(names):
        raise UsageError(f"{where}: every player is a challenger; that is a round robin "
                         f"(format: round-robin)")
    return tuple(value)


def _check_game_openings(value: Any, where: str, seed: int) -> OpeningsConfig | None:
    """`openings: {plies: P, seed: S}` of another game (random legal plies,
    `arena.tournament.openings`); no opening files."""
    if value is None:
        return None
    if not isinstance(value, dict) or "file" in value:
        raise UsageError(f"{where}: another game takes {{plies: P, seed: S}} (random legal "
                         f"plies from the start; no opening files)")
    unknown = sorted(str(k) for k in value if k not in ("plies", "seed"))
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} (allowed: plies, seed)")
    plies, oseed = value.get("plies", 2), value.get("seed", seed)
    if not _is_int(plies) or not 0 <= plies <= 40:
        raise UsageError(f"{where}.plies: expected an integer in 0..40, got {plies!r}")
    if not _is_int(oseed) or oseed < 0:
        raise UsageError(f"{where}.seed: expected an integer >= 0, got {oseed!r}")
    return OpeningsConfig(plies=int(plies), seed=int(oseed))


def _check_openings(value: Any, where: str, cfg_path: Path, boards: tuple[Board, ...],
                    seed: int) -> OpeningsConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise UsageError(f"{where}: expected a mapping, e.g. {{plies: 2}} or {{file: "
                         f"openings.txt}}")
    unknown = sorted(str(k) for k in value if k not in _OPENING_KEYS)
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} (allowed: "
                         f"{', '.join(sorted(_OPENING_KEYS))})")
    if "file" in value:
        if set(value) != {"file"}:
            raise UsageError(f"{where}: `file` excludes plies and seed")
        path = Path(str(value["file"]))
        if not path.is_absolute():
            path = cfg_path.parent / path
        for b in boards:  # every opening must be legal and open on every board
            read_suite(path, *b)
        lines = tuple(path.read_text(encoding="utf-8").splitlines())
        return OpeningsConfig(file=str(path), lines=lines)
    plies = value.get("plies", 2)
    if not _is_int(plies) or plies < 0:
        raise UsageError(f"{where}.plies: expected an integer >= 0, got {plies!r}")
    small = min(b[0] * b[1] for b in boards)
    if plies >= small:
        raise UsageError(f"{where}.plies: {plies} plies do not fit on the smallest board "
                         f"({small} cells)")
    oseed = value.get("seed", seed)
    if not _is_int(oseed) or oseed < 0:
        raise UsageError(f"{where}.seed: expected an integer >= 0, got {oseed!r}")
    return OpeningsConfig(plies=int(plies), seed=int(oseed))
