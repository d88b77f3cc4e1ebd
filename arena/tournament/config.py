"""Tournament configuration files (`configs/*.yaml`): loading and checking them.

`load_config(path)` reads a YAML file into a frozen `TournamentConfig` or raises `UsageError`
with one line naming the file and the key, before anything is written. It is two steps:
`read_config` checks the file, no bot started: its schema (`TournamentFile`, the settings of
play shared with the league, `arena.competition.settings`, and the tournament's own keys:
YAML syntax with its line, unknown or duplicate keys, types and ranges, boards, unique display
names), board sets and opening files, and every player's SPEC resolving; then
`check_players`, the door, loads each Python bot to see that it defines a CXPlayer subclass.
The validated file (`TournamentFile`) is the value the code reads (`TournamentConfig.file`);
beside it `TournamentConfig` holds only what is derived from it.

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

import dataclasses
import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from annotated_types import Ge
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    StrictInt,
    StrictStr,
    StringConstraints,
    model_validator,
)

from arena.competition.cores import usable_cores
from arena.competition.openings import read_suite
from arena.competition.settings import (
    BOARDS_FILE,
    FLAG,
    POSITIVE_INT,
    REPO_CONFIGS,
    TEXT,
    TIME_LIMIT,
    Board,
    ParamKey,
    PlaySettings,
    checked_board_set,
    configs_dir,
    explained,
    find_board_set,
    load_boards,
    read_yaml,
    resolve_boards,
    shaped,
    validate,
)
from arena.entrants.java import JVM_OPTIONS_KEY, jvm_options_problem
from arena.entrants.probe import check_loadable
from arena.entrants.specs import BotSpec, Kind, SpecError, parse_spec, time_limit_problem
from arena.errors import UsageError
from arena.games import GAMES
from arena.limits import Limits
from arena.referee import door
from arena.results.standings import TieBreak

__all__ = ["BOARDS_FILE", "REPO_CONFIGS", "Board", "OpeningsConfig", "PlayerEntry",
           "TournamentConfig", "TournamentFile", "built_config", "check_players", "configs_dir",
           "load_boards", "load_config", "load_limits", "read_config", "resolve_board_set"]

#: `broken_bots:` what a tournament does with a bot that fails to load: refuse to start (a
#: student's run), or let it forfeit every game without being started (a teacher's run of 30
#: bots, where one broken bot must not stop the others)
BROKEN_BOTS = ("refuse", "forfeit")
#: the most plies of a random opening of another game than Connect-X
MAX_GAME_OPENING_PLIES = 40


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
    """A checked tournament configuration: the validated file (`file`, where every key's value
    and default is read; the module docstring lists the keys) and only what is derived from
    it. Built by `read_config` from a file, or by `built_config` in Python (the league's
    final, benchmarks); a flag that overrides a key makes a new file value (`with_file`)."""

    path: str
    #: the config file as written, validated, with what flags override (`with_file`): the one
    #: home of every key's value; its settings of play are `play`
    file: TournamentFile
    #: the boards played (resolved: a set's boards, looked up next to the config file)
    boards: tuple[Board, ...]
    openings: OpeningsConfig | None = None  # None: every game from the empty board
    #: with broken_bots: forfeit, (player name, its load error) of each bot that fails to load:
    #: it loses each of its games without being started
    broken: tuple[tuple[str, str], ...] = ()
    #: what orders players level on points (not in the fingerprint: the games are the same);
    #: a league's final ranks by head to head (`arena.results.standings.TieBreak`)
    tie_break: TieBreak = TieBreak.ELO

    @classmethod
    def of(cls, file: TournamentFile, path: str | os.PathLike[str], *,
           resolve_specs: bool = False, **derived: Any) -> TournamentConfig:
        """The config of a validated `file` at `path`: its boards (a set looked up next to
        the file) and openings (a file's read and checked on every board); with
        `resolve_specs`, every player's SPEC resolved too (no bot started). UsageError."""
        cfg_path = Path(path)
        boards = resolve_boards(file.boards, cfg_path.parent, f"{cfg_path}: boards")[1]
        if resolve_specs:
            for i, p in enumerate(file.players):
                _player(p, f"{cfg_path}: players[{i}]", cfg_path, file.timeout_s)
        return cls(path=str(cfg_path), file=file, boards=boards,
                   openings=_openings(file, cfg_path, boards), **derived)

    @functools.cached_property
    def play(self) -> PlaySettings:
        """How its games are played: the file's settings of play; its limits, isolation and
        cgroups are read from it (isolation and cgroups are not in the fingerprint: games
        stay comparable). Its boards and openings are this config's (resolved)."""
        return self.file.shared()

    @functools.cached_property
    def players(self) -> tuple[PlayerEntry, ...]:
        """The players, each under its display name."""
        return tuple(PlayerEntry(name=p.shown, spec=p.spec, options=p.options or {})
                     for p in self.file.players)

    @property
    def workers(self) -> int:
        """The worker processes: the file's `workers`, auto (one per usable core) resolved."""
        return usable_cores() if self.file.workers in (None, "auto") else int(self.file.workers)

    @property
    def board_set(self) -> str | None:
        """The set's name, when the boards came from boards.yaml."""
        return self.file.boards if isinstance(self.file.boards, str) else None

    @property
    def limits(self) -> Limits:
        """The time and memory limits of its games (`play`'s)."""
        return self.play.limits(self.path)

    @property
    def timeout_s(self) -> float:
        return self.play.timeout_s

    @property
    def game(self) -> str:
        """The game (`arena.games`, `play`'s); another than Connect-X plays `param_sets`."""
        return self.play.game

    @functools.cached_property
    def param_sets(self) -> tuple[ParamKey, ...]:
        """Another game's parameter sets (`PlaySettings.param_sets`), in place of boards."""
        return self.play.param_sets()

    def with_file(self, **changes: Any) -> TournamentConfig:
        """This config with keys of its file changed (a flag's: --isolation, --max-tasks,
        --workers, --scheduler, --forfeit-broken), checked as the file's are (UsageError
        naming the config and the key); boards and openings derived again."""
        file = validate(TournamentFile, self.file.model_dump(exclude_unset=True) | changes,
                        self.path)
        return TournamentConfig.of(file, self.path, broken=self.broken,
                                   tie_break=self.tie_break)

    def with_play(self, **changes: Any) -> TournamentConfig:
        """This config with settings of play changed (a flag's; `with_file`)."""
        return self.with_file(**changes)

    def fingerprint(self) -> dict[str, Any]:
        """What makes two runs' games comparable (everything but workers, scheduler, name, and
        the player list: a game's id names its two players, so a player added to a config that
        ran plays only its own games, and a removed one's games leave the table; a player whose
        entry changed is the run's to find, `arena.tournament.run`)."""
        extra: dict[str, Any] = {}
        if self.file.format != "round-robin":  # absent keys keep old results folders valid
            extra["format"] = self.file.format
            extra["challengers"] = sorted(self.file.challengers or ())
        if self.openings is not None:
            extra["openings"] = self.openings.fingerprint()
        if self.param_sets:  # a game of parameter sets
            extra["game"] = self.game
            extra["params"] = [dict(p) for p in self.param_sets]
        return extra | {
            "boards": sorted([list(b) for b in self.boards]),
            **self.limits.to_dict(),
            "rounds": self.file.rounds,
            "seed": self.file.seed,
            "fresh_process": self.file.fresh_process,
        }


# ----------------------------------------------------------------------- the file's schema
def _plain_data(options: dict[str, Any] | None) -> dict[str, Any]:
    """A player's options as given, when they are plain data (sent to the bot as JSON)."""
    try:
        json.dumps(options, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"values must be plain data: {exc}") from None
    return options or {}


class PlayerFile(BaseModel):
    """One entry of `players:` as written: a SPEC, or {spec, name, options}."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: Annotated[StrictStr, TEXT, explained("expected a bot SPEC (a string)")]
    name: Annotated[Annotated[StrictStr, TEXT] | None, explained(
        "expected a non-empty string")] = None
    options: Annotated[dict[StrictStr, Any] | None, explained(
        "expected a mapping of option names to values"), AfterValidator(_plain_data)] = None

    @model_validator(mode="before")
    @classmethod
    def _spec_alone(cls, data: Any) -> Any:
        return {"spec": data} if isinstance(data, str) else data

    @property
    def shown(self) -> str:
        """The player's display name: its name, else its SPEC."""
        return self.name or self.spec


def _two_or_more(players: list[PlayerFile]) -> list[PlayerFile]:
    if len(players) < 2:
        raise ValueError(f"a tournament needs at least two players, got {len(players)}")
    return players


class TournamentFile(PlaySettings):
    """A tournament config file as written (the module docstring lists its keys): the shared
    settings of play, flat, and the tournament's own keys."""

    #: results go to results/<name>; `read_config` gives the file's stem when absent
    name: Annotated[StrictStr, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"),
                    explained("expected a results name of letters, digits, '.', '_' or '-'")]
    players: Annotated[list[Annotated[PlayerFile, shaped(
        "expected a SPEC or a mapping with spec, name, options")]],
        shaped("expected a list of players"), AfterValidator(_two_or_more)]
    timeout_s: TIME_LIMIT
    rounds: POSITIVE_INT = 1
    workers: Annotated[Literal["auto"] | Annotated[StrictInt, Ge(1)] | None, explained(
        "the worker count must be a positive integer or 'auto'")] = "auto"
    fresh_process: FLAG = False
    description: Annotated[StrictStr, explained("expected a string")] = ""
    format: Annotated[Literal["round-robin", "gauntlet"], explained(
        "expected one of round-robin, gauntlet")] = "round-robin"
    challengers: Annotated[list[StrictStr] | None, explained(
        "a gauntlet needs a list of challengers (player names)")] = None
    scheduler: Annotated[Annotated[StrictStr, TEXT] | None, explained(
        "expected the address of a Dask scheduler (e.g. tcp://lab-01:8786) or null")] = None
    broken_bots: Annotated[Literal["refuse", "forfeit"], explained(
        f"expected {' or '.join(BROKEN_BOTS)} (what to do with a bot that fails to load)")
    ] = "refuse"

    @model_validator(mode="after")
    def _whole(self) -> TournamentFile:
        """What no one key says alone: boards for a game played on them, unique player
        names, the gauntlet's challengers, the openings of a game of parameter sets."""
        if self.takes_boards and self.boards is None:
            raise ValueError("missing key 'boards'")
        names: dict[str, int] = {}
        for i, p in enumerate(self.players):
            if p.shown in names:
                raise ValueError(f"players[{i}]: two players are named {p.shown!r} "
                                 f"(players[{names[p.shown]}] and players[{i}]); give one a "
                                 f"different name: {{spec: {p.spec}, name: ...}}")
            names[p.shown] = i
        self._check_challengers(list(names))
        if not self.takes_boards and self.openings is not None:
            if self.openings.file is not None:
                raise ValueError("openings: another game takes {plies: P, seed: S} (random "
                                 "legal plies from the start; no opening files)")
            if self.openings.plies > MAX_GAME_OPENING_PLIES:
                raise ValueError(f"openings.plies: expected an integer in "
                                 f"0..{MAX_GAME_OPENING_PLIES}, got {self.openings.plies}")
        return self

    def _check_challengers(self, names: list[str]) -> None:
        chosen = self.challengers
        if self.format != "gauntlet":
            if chosen is not None:
                raise ValueError(f"challengers: only for `format: gauntlet` (this config is "
                                 f"{self.format})")
            return
        if not chosen:
            raise ValueError(f"challengers: a gauntlet needs a list of challengers (player "
                             f"names), e.g. challengers: [{names[0]}]")
        for x in chosen:
            if x not in names:
                raise ValueError(f"challengers: {x!r} is not a player's name (players: "
                                 f"{', '.join(names)})")
        if len(set(chosen)) != len(chosen):
            raise ValueError("challengers: a challenger is listed twice")
        if len(chosen) == len(names):
            raise ValueError("challengers: every player is a challenger; that is a round robin "
                             "(format: round-robin)")


# ------------------------------------------------------------------------------- reading
def _read_file(cfg_path: Path) -> TournamentFile:
    """The file checked against its schema (no bot SPEC resolved, no bot started)."""
    data = read_yaml(cfg_path)
    if isinstance(data, dict) and "name" not in data:
        data = {"name": cfg_path.stem, **data}
    return validate(TournamentFile, data, str(cfg_path))


def resolve_board_set(name: str, where: str = "--board-set") -> tuple[Board, ...]:
    """The boards of a command line's board set (`where`: its option): a set NAME of the
    project's boards.yaml (`find_board_set` with no config file: never the current folder's);
    or a boards file given as a path (with a slash or ending .yaml), read as given:
    ``FILE:NAME`` for its set NAME, ``FILE`` for its only set. UsageError naming `where`."""
    path_text, colon, set_name = name.rpartition(":")
    if not colon or not _is_path(path_text):
        path_text, set_name = name, ""
    if not _is_path(path_text):
        return find_board_set(name, None, where)
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"{where}: {path}: no such boards file")
    sets = load_boards(path)
    if not set_name:
        if len(sets) != 1:
            raise UsageError(f"{where}: {path} has {len(sets)} board sets: name one as "
                             f"{path}:NAME ({', '.join(str(k) for k in sets)})")
        set_name = str(next(iter(sets)))
    if set_name not in sets:
        raise UsageError(f"{where}: {path}: unknown board set {set_name!r} (known sets: "
                         f"{', '.join(str(k) for k in sets)})")
    return checked_board_set(path, sets, set_name)


def _is_path(text: str) -> bool:
    """Whether a `--board-set` names a file rather than a set: a slash, or a .yaml end."""
    return "/" in text or text.endswith((".yaml", ".yml"))


def _openings(file: TournamentFile, cfg_path: Path, boards: tuple[Board, ...]
              ) -> OpeningsConfig | None:
    """The openings, a file's read and checked on every board (every opening must be legal and
    leave the game open on each)."""
    given = file.openings
    if given is None:
        return None
    if given.file is not None:
        path = Path(given.file)
        if not path.is_absolute():
            path = cfg_path.parent / path
        for b in boards:
            read_suite(path, *b)
        lines = tuple(path.read_text(encoding="utf-8").splitlines())
        return OpeningsConfig(file=str(path), lines=lines)
    if boards and given.plies >= min(b[0] * b[1] for b in boards):
        raise UsageError(f"{cfg_path}: openings.plies: {given.plies} plies do not fit on the "
                         f"smallest board ({min(b[0] * b[1] for b in boards)} cells)")
    return OpeningsConfig(plies=given.plies, seed=file.seed if given.seed is None else given.seed)


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


def _player(given: PlayerFile, where: str, cfg_path: Path, timeout_s: float) -> PlayerEntry:
    """A player whose SPEC resolves, with its JVM options checked (no bot started)."""
    spec = _check_spec(given.spec, f"{where}.spec", cfg_path)
    options = given.options or {}
    if JVM_OPTIONS_KEY in options:
        if spec.kind is not Kind.JAVA:
            raise UsageError(f"{where}.options.{JVM_OPTIONS_KEY}: only Java bots (java:PATH) "
                             f"have JVM options")
        problem = jvm_options_problem(options[JVM_OPTIONS_KEY])
        if problem:
            raise UsageError(f"{where}.options.{JVM_OPTIONS_KEY}: {problem}")
    problem = time_limit_problem(spec, timeout_s)  # Java bots: whole seconds
    if problem:
        raise UsageError(f"{cfg_path}: timeout_s: {problem} ({where.rpartition(': ')[2]})")
    return PlayerEntry(name=given.shown, spec=given.spec, options=options)


class _LimitsFile(PlaySettings):
    """The settings of play of a tournament file, whose time limit it must give."""

    timeout_s: TIME_LIMIT


def load_limits(path: str | os.PathLike[str]) -> Limits:
    """The limits of a tournament config, checked by the same schema as `load_config`, without
    its players (a broken bot in it must not stop another bot's check): a file of only limits
    will do."""
    cfg_path = Path(path)
    data = read_yaml(cfg_path)
    if isinstance(data, dict):  # the tournament's own keys are not read here
        data = {k: v for k, v in data.items()
                if k in PlaySettings.model_fields or k not in TournamentFile.model_fields}
    return validate(_LimitsFile, data, str(cfg_path)).limits(str(cfg_path))


def read_config(path: str | os.PathLike[str], *, broken_bots: str | None = None,
                isolation: str | None = None) -> TournamentConfig:
    """Read and check a tournament config, every bot SPEC resolved but no bot started (that is
    `check_players`). Raises UsageError (one line) on any problem. `broken_bots` overrides the
    config's `broken_bots:` (`--forfeit-broken`), `isolation` its `isolation:` (`--isolation`)."""
    cfg_path = Path(path)
    file = _read_file(cfg_path)
    file.limits(str(cfg_path))  # UsageError for limits that do not go together
    config = TournamentConfig.of(file, cfg_path, resolve_specs=True)
    flags = {"broken_bots": broken_bots, "isolation": isolation}
    changes = {key: value for key, value in flags.items() if value is not None}
    return config.with_file(**changes) if changes else config


def built_config(where: str, players: Iterable[PlayerEntry], play: PlaySettings,
                 tie_break: TieBreak = TieBreak.ELO, **keys: Any) -> TournamentConfig:
    """A tournament built in Python (the league's final, benchmarks) rather than read from a
    file: `play`'s settings, the `players` and the tournament's own `keys`, validated as a
    file's are (UsageError naming `where`); boards and openings derived as `read_config`'s.
    No SPEC is resolved and no bot started."""
    data = play.model_dump() | {"players": [p.to_dict() for p in players]} | keys
    return TournamentConfig.of(validate(TournamentFile, data, where), where, tie_break=tie_break)


def check_players(config: TournamentConfig) -> TournamentConfig:
    """The door of a tournament: every Connect-X bot loads (each in a subprocess of its own,
    through `arena.referee.door` with the config's isolation, so a bot that hangs or exits at
    import cannot take the run with it) before anything is written. With `broken_bots:
    forfeit`, a bot that fails to load is kept, and listed in `broken`, instead of refused."""
    door.install(config.play.isolation.value, config.play.cgroups)
    if not GAMES[config.game].COURSE_BOTS:  # the probes load CXPlayer classes; another
        return config  # game's bot shows at its start instead
    failed = check_loadable([parse_spec(p.spec) for p in config.players])
    broken: list[tuple[str, str]] = []
    for i, p in enumerate(config.players):
        if p.spec in failed and config.file.broken_bots == "forfeit":
            broken.append((p.name, failed[p.spec]))
        elif p.spec in failed:
            raise UsageError(f"{config.path}: players[{i}].spec: {failed[p.spec]} (to play the "
                             f"tournament without it, the bot losing each of its games: "
                             f"`broken_bots: forfeit` in the config, or --forfeit-broken)")
    return dataclasses.replace(config, broken=tuple(broken))


def load_config(path: str | os.PathLike[str], *, broken_bots: str | None = None,
                isolation: str | None = None) -> TournamentConfig:
    """`read_config`, then `check_players`: a config whose every bot loads (or forfeits)."""
    return check_players(read_config(path, broken_bots=broken_bots, isolation=isolation))
