"""The settings of play that a tournament file and a league.yaml share, in one schema.

`PlaySettings` holds what both kinds of file say about how games are played: the game and its
parameter sets or Connect-X boards, the time and memory limits, isolation, openings and the
seed. `arena.tournament.config.TournamentFile` and `arena.league.config.LeagueFile` extend it
with their own keys, flat, so every existing file keeps loading. One loader reads them all:
YAML with duplicate keys refused (with their line), then the model, whose first problem comes
back as ONE line ``<file>: key.path: why`` in a `UsageError`.

The models are pydantic models: frozen, unknown keys refused, and strict scalars (6.9 is not
the integer 6, "7" is not the number 7, true is not a number), so a typo fails loudly instead
of playing other games than the file says. Defaults come from `arena.defaults`.

Board sets (``boards: competition``) are read from a ``boards.yaml`` next to the file, else
from the project's (`configs_dir`); each board is checked by the same rules as a listed one.
"""

from __future__ import annotations

import enum
import functools
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from annotated_types import Ge, Gt, MinLen
from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from arena import defaults
from arena.errors import UsageError
from arena.games import GAMES, Game, GameError, make_game, presentation_of
from arena.limits import Limits, make_limits
from arena.records import DEFAULT_GAME
from arena.referee.referee import MatchSettings

__all__ = ["BOARDS_FILE", "FLAG", "NUMBER", "POSITIVE_INT", "REPO_CONFIGS", "SECONDS", "SEED",
           "TEXT", "TIME_LIMIT", "Board", "Boards", "Change", "Isolation", "OpeningsSettings",
           "PlaySettings", "change_rule", "checked_board_set", "configs_dir", "explained",
           "find_board_set", "load_boards", "load_settings", "parse_settings", "read_yaml",
           "referee_settings", "resolve_boards", "setting", "shaped", "validate"]

Board = tuple[int, int, int]
Model = TypeVar("Model", bound=BaseModel)

BOARDS_FILE = "boards.yaml"
#: the configs/ directory of a checkout of the project (absent when cxarena is installed as a
#: package)
CHECKOUT_CONFIGS = Path(__file__).resolve().parents[2] / "configs"
#: the board sets shipped as package data: the same file as configs/boards.yaml (a test keeps
#: them identical), read when there is no checkout
PACKAGE_DATA = Path(__file__).resolve().parents[1] / "data"
CONNECTX = DEFAULT_GAME  #: the course's game: the one that plays `boards:`


def configs_dir() -> Path:
    """Where the project's board sets are: the checkout's configs/, else the package's data."""
    return CHECKOUT_CONFIGS if (CHECKOUT_CONFIGS / BOARDS_FILE).is_file() else PACKAGE_DATA


#: the project's configs (fallback for board sets): a checkout's configs/, else the package data
REPO_CONFIGS = configs_dir()


# ---------------------------------------------------------------- messages of a bad value
def _refusal(what: str, value: Any) -> PydanticCustomError:
    return PydanticCustomError("setting", "{what}, got {got}", {"what": what, "got": repr(value)})


def explained(what: str) -> WrapValidator:
    """For a single value: any problem with it is reported as `what` it must be (the key's own
    words, e.g. "expected an integer >= 0") and the value given, in place of pydantic's."""
    def wrap(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise _refusal(what, value) from None
    return WrapValidator(wrap)


def shaped(what: str) -> WrapValidator:
    """For a container (a list, a mapping): a value of the wrong shape is reported as `what`,
    but a problem inside it, or one its own checks word, keeps its place and words
    (``boards[1]: K=6 > ...``)."""
    def wrap(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            if first["loc"] or first["type"] in ("value_error", "setting"):
                raise
            raise _refusal(what, value) from None
    return WrapValidator(wrap)


#: the shapes of value the keys share: a finite number (an int or a float, never a bool) ...
NUMBER = Annotated[StrictFloat, AllowInfNan(False)]
SECONDS = Annotated[NUMBER, Gt(0), explained("expected a positive number of seconds")]
SEED = Annotated[StrictInt, Ge(0), explained("expected an integer >= 0")]
POSITIVE_INT = Annotated[StrictInt, Ge(1), explained("expected a positive integer")]
FLAG = Annotated[StrictBool, explained("expected true or false")]
#: a text with something in it, stripped of spaces around it
TEXT = StringConstraints(strip_whitespace=True, min_length=1)
TIME_LIMIT = Annotated[NUMBER, Gt(0), explained(
    "the time limit must be a positive number of seconds")]


# -------------------------------------------------------------------------------- boards
def _connectable(board: Board) -> Board:
    M, N, K = board
    if min(board) < 1:
        raise ValueError(f"M, N and K must be positive, got [{M}, {N}, {K}]")
    if K > max(M, N):
        raise ValueError(f"K={K} > max(M, N)={max(M, N)} in [{M}, {N}, {K}]: nobody can ever "
                         f"connect {K}")
    return board


def _once_each(boards: tuple[Board, ...]) -> tuple[Board, ...]:
    twice = next((b for i, b in enumerate(boards) if b in boards[:i]), None)
    if twice is not None:
        raise ValueError(f"board {list(twice)} is listed twice")
    return boards


BoardItem = Annotated[tuple[StrictInt, StrictInt, StrictInt],
                      explained("expected [M, N, K] (three integers)"),
                      AfterValidator(_connectable)]
BoardList = Annotated[tuple[BoardItem, ...], MinLen(1),
                      shaped("expected a board-set name or a non-empty list of [M, N, K]"),
                      AfterValidator(_once_each)]
#: the union's branches, named so that a refusal's key path can leave them out
_SET_NAME, _LISTED = "<board-set name>", "<board list>"
Boards = Annotated[
    Annotated[StrictStr, Tag(_SET_NAME)] | Annotated[BoardList, Tag(_LISTED)],
    Discriminator(lambda v: _SET_NAME if isinstance(v, str) else _LISTED)]
_BOARD_LIST = TypeAdapter(BoardList)


def load_boards(path: Path) -> dict[str, Any]:
    """The board sets of a boards.yaml file (name -> its raw list, checked when used)."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of board-set names to lists of [M, N, K]")
    return data


def checked_board_set(path: Path, sets: dict[str, Any], name: str) -> tuple[Board, ...]:
    """Set `name` of `sets` (read from the boards.yaml at `path`), each board checked as a
    listed one is: UsageError "<path>: name[i]: why"."""
    raw = sets[name]
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{path}: {name}: expected a non-empty list of [M, N, K]")
    try:
        return _BOARD_LIST.validate_python(raw)
    except ValidationError as exc:
        raise UsageError(_one_line(exc, str(path), None, (name,))) from None


@functools.lru_cache(maxsize=16)
def _sets_of(path: Path, _version: tuple[int, ...]) -> dict[str, Any]:
    """`load_boards`, once per version of the file (its inode, change time, mtime and size: a
    copy that keeps the mtime still changes the change time): a league asks for its boards at
    every game; an edited boards.yaml is read again."""
    return load_boards(path)


def find_board_set(name: str, near: Path | None, where: str) -> tuple[Board, ...]:
    """The checked boards of set `name`: from the boards.yaml in folder `near` (when given and
    it has the set), else from the project's (`configs_dir`). UsageError naming `where`."""
    candidates = ([near / BOARDS_FILE] if near is not None else []) + [configs_dir() / BOARDS_FILE]
    known: list[str] = []
    for path in dict.fromkeys(c.resolve() for c in candidates):
        if path.is_file():
            stat = path.stat()
            sets = _sets_of(path, (stat.st_ino, stat.st_ctime_ns, stat.st_mtime_ns,
                                   stat.st_size))
            if name in sets:
                return checked_board_set(path, sets, name)
            known += [str(k) for k in sets]
    hint = (f"known sets: {', '.join(dict.fromkeys(known))}" if known else
            f"no {BOARDS_FILE} found next to the config or in {configs_dir()}")
    raise UsageError(f"{where}: unknown board set {name!r} ({hint})")


def resolve_boards(given: str | tuple[Board, ...] | None, near: Path | None, where: str
                   ) -> tuple[str | None, tuple[Board, ...]]:
    """The boards a config's `boards:` (or a key like it) says, and the set's name: (name, its
    checked boards) for a set of boards.yaml, looked up next to the config file (folder
    `near`), else in the project's (`find_board_set`), never in the current folder; (None, the
    boards) for a list; (None, ()) for none. The one lookup of tournament files and
    league.yaml. UsageError naming `where`."""
    if isinstance(given, str):
        return given, find_board_set(given, near, where)
    return None, given or ()


# ------------------------------------------------------------------ what may change mid-term
class Change(enum.Enum):
    """When a league.yaml key may change while the league runs (`league config`,
    `arena.league.config.config_changes`): at any time, until the final has started, or never
    (with why not). Every key of a league.yaml says it on its field (`setting`)."""

    ANY = "any"
    BEFORE_FINAL = "before_final"
    FIXED = "fixed"


def setting(default: Any, change: Change, why: str = "", **field: Any) -> Any:
    """A key's field: its default, and when it may change while a league runs (`Change`; `why`
    a fixed one may not), kept on the field as ``json_schema_extra``."""
    return Field(default, json_schema_extra={"change": change.value, "why": why}, **field)


def change_rule(model: type[BaseModel], key: str) -> tuple[Change, str] | None:
    """(when `key` of `model` may change, why not), from its field (`setting`); None for a key
    that says nothing, or that `model` does not have."""
    field = next((f for n, f in model.model_fields.items() if (f.alias or n) == key), None)
    extra = field.json_schema_extra if field is not None else None
    if not isinstance(extra, dict) or "change" not in extra:
        return None
    return Change(extra["change"]), str(extra.get("why", ""))


_GAMES_HERE = "the stored games were played"
ISOLATION_WHY = ("uploaded code must keep running in the sandbox it was promised (serve "
                 "--unsafe-no-isolation is the one way round it)")
OPENINGS_WHY = "the stored pairs were played from these openings"


# ------------------------------------------------------------------------ the shared model
class Isolation(str, enum.Enum):
    """How bot processes are isolated (`arena.referee.sandbox.MODES`): a sandbox where the
    machine has one, always a sandbox, or none."""

    AUTO = "auto"
    NAMESPACES = "namespaces"
    NONE = "none"


ISOLATION = Annotated[Isolation, explained(
    f"expected one of {', '.join(m.value for m in Isolation)}")]
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class OpeningsSettings(BaseModel):
    """`openings:` as written: generated ({plies, seed}) or a file's; the file is read, and
    checked on the boards, by the tournament."""

    model_config = _FROZEN

    plies: SEED = 2
    #: None: the run's seed
    seed: Annotated[SEED | None, explained("expected an integer >= 0")] = None
    file: Annotated[StrictStr | None, explained("expected a file name")] = None

    @model_validator(mode="after")
    def _file_alone(self) -> OpeningsSettings:
        if self.file is not None and self.model_fields_set & {"plies", "seed"}:
            raise ValueError("`file` excludes plies and seed")
        return self


def _no_zero_memory(value: Any) -> Any:
    if type(value) is int and value == 0:
        raise PydanticCustomError(
            "setting", "0 is not a limit here; write memory_limit_mb: null for no memory limit "
            "(the 0 of --memory-mb), or at least {least} (MiB)", {"least": defaults.MIN_MEMORY_MB})
    return value


def _plain_game(name: str) -> str:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return name


ParamSet = dict[StrictStr, StrictInt]
#: a parameter set as configs keep it: (key, value) pairs, the game's defaults filled in
ParamKey = tuple[tuple[str, int], ...]


def takes_boards(game: str) -> bool:
    """Whether `game` is played on boards [M, N, K] (its `Game.BOARD_PARAMS`: `boards:`,
    board sets, opening files) in place of parameter sets (`params:`); False for no game."""
    cls = GAMES.get(game)
    return cls is not None and bool(cls.BOARD_PARAMS)


def variant_games(game: str, boards: Callable[[], Iterable[Board]],
                  param_sets: Iterable[ParamKey]) -> tuple[Game, ...]:
    """The games a config's variants are, for either kind of game: one per board of
    `boards()` (asked only then) for a game played on boards, each [M, N, K] its
    `Game.BOARD_PARAMS`, else one per parameter set. The one place that knows a game's boards
    are its parameter sets in another syntax. Raises GameError."""
    cls = GAMES[game]
    if cls.BOARD_PARAMS:
        return tuple(cls(**dict(zip(cls.BOARD_PARAMS, b, strict=True))) for b in boards())
    return tuple(cls(**dict(p)) for p in param_sets)


class PlaySettings(BaseModel):
    """How games are played, as a tournament file and a league.yaml both say it."""

    model_config = _FROZEN

    #: the game (`arena.games`); another than Connect-X plays `params` in place of boards
    game: Annotated[StrictStr, explained("expected a game's name"), AfterValidator(
        _plain_game)] = setting(CONNECTX, Change.FIXED, "the stored games are of this game")
    #: another game's parameter sets (None: the game's defaults), each checked by the game
    params: Annotated[Annotated[tuple[ParamSet, ...], MinLen(1)] | None, explained(
        "expected a list of parameter sets (mappings of names to integers), e.g. "
        "[{size: 8}, {size: 6}]")] = setting(
        None, Change.FIXED, f"{_GAMES_HERE} on these parameter sets")
    #: Connect-X's boards: a set of boards.yaml, or a list of [M, N, K]; None: not given
    boards: Boards | None = setting(None, Change.ANY)
    timeout_s: TIME_LIMIT = setting(
        defaults.TIMEOUT_S, Change.FIXED, f"{_GAMES_HERE} at this time limit; their ratings "
        f"would mix two limits (start a new league for another)")
    grace_s: Annotated[NUMBER, Ge(0), explained("expected a number of seconds >= 0")] = setting(
        defaults.GRACE_S, Change.FIXED, f"{_GAMES_HERE} with this margin; a move late under one "
        f"would be on time under another")
    startup_timeout_s: SECONDS = setting(
        defaults.STARTUP_TIMEOUT_S, Change.FIXED, "the stored games gave bots this long to "
        "start; a bot that failed to start under it might start under another")
    memory_limit_mb: Annotated[
        Annotated[StrictInt, Ge(defaults.MIN_MEMORY_MB)] | None,
        explained(f"expected an integer of at least {defaults.MIN_MEMORY_MB} (MiB; a Python bot "
                  f"needs about 100 to start) or null"),
        BeforeValidator(_no_zero_memory)
    ] = setting(defaults.MEMORY_LIMIT_MB, Change.FIXED, f"{_GAMES_HERE} under this memory "
                f"limit; a bot that crashed under it might not under another")
    max_tasks: Annotated[
        Annotated[StrictInt, Ge(defaults.MIN_TASKS)] | None,
        explained(f"expected an integer of at least {defaults.MIN_TASKS} (processes and "
                  f"threads) or null")] = setting(
        defaults.MAX_TASKS, Change.FIXED, "the stored games capped each bot's processes and "
        "threads at this; a bot that crashed under it might not under another")
    cgroups: FLAG = setting(
        defaults.CGROUPS, Change.FIXED, "the stored games confined each bot this way (memory "
        "and tasks counted per cgroup or not); their faults would mix two rules")
    isolation: ISOLATION = setting(Isolation(defaults.ISOLATION), Change.FIXED, ISOLATION_WHY)
    #: None: every game from the empty board (the course's rules)
    openings: Annotated[OpeningsSettings | None, shaped(
        "expected a mapping, e.g. {plies: 2} or {file: openings.txt}")] = setting(
        None, Change.FIXED, OPENINGS_WHY)
    seed: SEED = setting(0, Change.FIXED, "the stored pairs' openings come from it")

    @property
    def takes_boards(self) -> bool:
        """The game is played on boards (`takes_boards`), in place of `params`."""
        return takes_boards(self.game)

    @model_validator(mode="after")
    def _boards_or_params(self) -> PlaySettings:
        """A game played on boards takes boards, another params (checked by the game)."""
        if self.params is not None and "game" not in self.model_fields_set:
            raise ValueError("params: needs game: (the game they belong to)")
        if self.takes_boards and self.params is not None:
            title = presentation_of(make_game(self.game)).title()
            raise ValueError(f"params: {title} takes boards: (a list of "
                             f"[M, N, K] or a set in boards.yaml)")
        if not self.takes_boards and self.boards is not None:
            raise ValueError(f"boards: is for Connect-X; game {self.game!r} takes params: (a "
                             f"list of parameter sets, e.g. [{{size: 8}}])")
        self.param_sets()
        return self

    def param_sets(self) -> tuple[ParamKey, ...]:
        """The parameter sets of a game not played on boards, with the game's defaults filled
        in, each a tuple of (key, value); () for a game played on boards (its boards are its
        parameter sets, `variant_games`). ValueError naming ``params[i]`` for a bad one."""
        if self.takes_boards:
            return ()
        sets: list[tuple[tuple[str, int], ...]] = []
        for i, params in enumerate(self.params if self.params is not None else ({},)):
            where = f"params[{i}]" if self.params is not None else "game"
            try:
                key = tuple(make_game(self.game, params).params.items())
            except GameError as exc:
                raise ValueError(f"{where}: {exc}") from None
            if key in sets:
                raise ValueError(f"{where}: the same parameter set twice")
            sets.append(key)
        return tuple(sets)

    def limits(self, where: str) -> Limits:
        """The time and memory limits of a game under these settings (`arena.limits`)."""
        return make_limits(self.timeout_s, self.grace_s, self.startup_timeout_s,
                           self.memory_limit_mb, where=where, max_tasks=self.max_tasks)

    def shared(self) -> PlaySettings:
        """Only the settings of play (of a `TournamentFile` or a `LeagueFile`)."""
        return PlaySettings.model_construct(
            _fields_set=self.model_fields_set & set(PlaySettings.model_fields),
            **{name: getattr(self, name) for name in PlaySettings.model_fields})


def referee_settings(play: PlaySettings | Limits, where: str, *,
                     isolation: Isolation | str | None = None, cgroups: bool | None = None,
                     **process: Any) -> MatchSettings:
    """The referee's settings of a game played under `play`: its limits, its isolation and
    cgroups. The one place they are built: the tournament, `match`, `play`, `check-bot`,
    similarity and the league's checks, rating games, calibration games and final all come
    here. `play`: validated settings of a file, or the `Limits` a front end built from flags
    (with `isolation` and `cgroups` beside them; defaults: `arena.defaults`). `isolation`: what
    a front end resolved the setting to on this machine (None: `play`'s own); `process`: how
    bot processes are run (fresh_process, cpu, log_dir, the bot-log budget, overload replays,
    unsandboxed seats). UsageError naming `where` for a bad limit."""
    if isinstance(play, PlaySettings):
        limits, mode, grouped = play.limits(where), isolation or play.isolation, play.cgroups
    else:
        limits, mode, grouped = play, isolation or defaults.ISOLATION, defaults.CGROUPS
    return MatchSettings(limits=limits, isolation=Isolation(mode).value,
                         cgroups=grouped if cgroups is None else cgroups, **process)


# ------------------------------------------------------------------------------- loading
class _Loader(yaml.SafeLoader):
    """A safe YAML loader that refuses duplicate keys (PyYAML silently keeps the last)."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> Any:
    first_line: dict[str, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, str) and key in first_line:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {first_line[key] + 1})",
                key_node.start_mark)
        if isinstance(key, str):
            first_line[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_yaml(text: str, where: str) -> Any:
    """The data of YAML `text`; UsageError "<where>:<line>: YAML syntax error: ..." when it is
    not YAML, or gives a key twice."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f"{where}:{mark.line + 1}" if mark is not None else where
        what = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        raise UsageError(f"{at}: YAML syntax error: {what}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{where}: YAML syntax error: {' '.join(str(exc).split())}") from None


def read_yaml(path: Path) -> Any:
    """The data of the YAML file at `path` (see `parse_yaml`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    return parse_yaml(text, str(path))


def _key_path(loc: tuple[int | str, ...]) -> str:
    """('boards', 0) -> "boards[0]", ('openings', 'plies') -> "openings.plies"."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _model_at(model: type[BaseModel] | None, loc: tuple[int | str, ...]
              ) -> type[BaseModel] | None:
    """The model that the key path `loc` reaches from `model` (None past a plain value)."""
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        model = _model_in(field.annotation) if field is not None else None
    return model


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class in a field's type (``list[PlayerFile] | None`` -> PlayerFile)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _one_line(exc: ValidationError, where: str, model: type[BaseModel] | None,
              within: tuple[str, ...] = ()) -> str:
    """The first problem of `exc` as one line "<where>: key.path: why" (the key path under
    `within`, the keys of the value checked)."""
    first = exc.errors(include_url=False)[0]
    loc = within + tuple(p for p in first["loc"] if p not in (_SET_NAME, _LISTED))
    kind = first["type"]
    if kind == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        allowed = sorted(f.alias or n for n, f in owner.model_fields.items()) if owner else []
        loc, why = loc[:-1], (f"unknown key {loc[-1]!r}"
                              + (f" (allowed: {', '.join(allowed)})" if allowed else ""))
    elif kind == "missing":
        loc, why = loc[:-1], f"missing key {loc[-1]!r}"
    elif kind == "value_error":
        why = str(first["ctx"]["error"])
    elif kind in ("model_type", "model_attributes_type", "dict_type") and not loc:
        why = f"expected a mapping of keys, got {type(first['input']).__name__}"
    else:
        why = first["msg"]
    path = _key_path(loc)
    line = f"{where}: {path}: {why}" if path else f"{where}: {why}"
    return " ".join(line.splitlines())


def validate(model: type[Model], data: Any, where: str) -> Model:
    """`data` checked as `model`; UsageError with its first problem in one line."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(_one_line(exc, where, model)) from None


def parse_settings(model: type[Model], text: str, where: str) -> Model:
    """YAML `text` checked as `model` (an empty text is an empty mapping)."""
    data = parse_yaml(text, where)
    return validate(model, {} if data is None else data, where)


def load_settings(model: type[Model], path: Path) -> Model:
    """The YAML file at `path` checked as `model`."""
    return validate(model, read_yaml(path), str(path))
