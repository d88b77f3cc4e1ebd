"""A league's settings (league.yaml): the game and its boards or parameter sets, time limit,
reference bots (and the one that anchors the Elo scale), pairs per version, openings of rating
games, and the final round robin's boards and pairs.

`parse_config` checks every key and value, so that `cxarena league init` refuses a bad one
(naming it) before anything is created: board sets must exist (in the boards.yaml beside
league.yaml, the league's folder for its stored copy, else configs/boards.yaml; never the
current folder), reference bots must be bot SPECs that resolve here, numbers must be numbers.
The rating games' boards are `boards:`, the name tournament configs use; `board_set:` is its
old name, still accepted (not both). The validated file (`LeagueFile`) is the value the code
reads (`LeagueConfig.file`); beside it `LeagueConfig` holds only what is derived from it.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from annotated_types import Ge, Gt, Le, Lt
from pydantic import AfterValidator, BeforeValidator, StrictStr, model_validator

from arena.competition.final_goal import Goal
from arena.competition.settings import (
    FLAG,
    ISOLATION_WHY,
    NUMBER,
    OPENINGS_WHY,
    POSITIVE_INT,
    SEED,
    TEXT,
    Board,
    Boards,
    Change,
    Isolation,
    PlaySettings,
    change_rule,
    explained,
    parse_settings,
    resolve_boards,
    setting,
    shaped,
    variant_games,
)
from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.games import GAMES, Game
from arena.limits import Limits

__all__ = ["ANALYSIS_BUDGET_S", "ANCHOR_ELO", "CHECK_WORKERS", "DISK_QUOTA_MB", "LeagueConfig",
           "LeagueFile", "SIMILARITY_BUDGET_S", "java_time_problem", "parse_config"]

#: the rating of the anchor, the reference bot that fixes the leaderboard's Elo scale
ANCHOR_ELO = 1000.0
#: the default of `analysis_budget_s`: CPU seconds per analysed game
ANALYSIS_BUDGET_S = 5.0
#: the default of `similarity_budget_s`: wall seconds of asking one version for its moves in
#: the background (`arena.similarity.background`): 0, off unless the league.yaml turns it on
#: (configs/league.yaml does, with 150 s: its 60 positions, asked twice at 0.5 s a move, took
#: the built-in alphabeta 33 s and montecarlo, its whole time every move, 57 s; a Java bot
#: thinking its whole 1 s a move would need about 125 s, estimated)
SIMILARITY_BUDGET_S = 0.0
#: the default of `check_workers`: conformance checks run at once (at most one per student)
CHECK_WORKERS = 2
#: without `check_limit_s`, a check may take CHECK_LIMIT_BASE_S (the bot's start-up and the
#: harness) plus CHECK_LIMIT_MOVES moves at the league's `timeout_s`: an honest bot's check (six
#: games, its start-up at most 30 s) stays well inside it (1 s a move: 210 s)
CHECK_LIMIT_BASE_S = 60.0
CHECK_LIMIT_MOVES = 150
#: the default of `disk_quota_mb`: the league's disk one student's versions may take (MiB)
DISK_QUOTA_MB = 100
#: the adaptive final's default goal (its settings' one home: `Goal`)
_GOAL = Goal()

#: the board set of the rating games and of the final without `boards:` / `final_board_set:`
DEFAULT_BOARD_SET = "competition"


def _keys(*keys: str) -> dict[str, tuple[str, ...]]:
    """A `LeagueConfig` field's metadata: the league.yaml keys it is read from, the one that
    names it first (without: its own name; none: the file does not say it). The one home of
    the fields' keys: `config_changes` shows and judges a field's change by them."""
    return {"keys": keys}


@dataclass(frozen=True)
class LeagueConfig:
    """A league's settings as `parse_config` reads them from league.yaml: the validated file
    (`file`, where every key's value and default is read) and what is derived from it, each
    derived field under the league.yaml keys it is read from (`_keys`)."""

    #: league.yaml as written, validated: the one home of every key's value (its defaults
    #: are `LeagueFile`'s); the fields below are only what is derived from it
    file: LeagueFile = field(metadata=_keys())
    #: the set of boards.yaml the rating games rotate over (league.yaml's `boards`, or
    #: `board_set`, its old name); "listed" when `board_list` gives them
    board_set: str = field(metadata=_keys("boards", "board_set"))
    #: explicit [M, N, K] boards when league.yaml gives `boards` (or its old name `board_set`)
    #: as a list (tests, small leagues); empty when it names a set of boards.yaml
    board_list: tuple[Board, ...] = field(metadata=_keys("boards"))
    #: the same two for `final_board_set`
    final_board_set: str
    final_board_list: tuple[Board, ...] = field(metadata=_keys("final_board_set"))
    #: the SPECs of the built-in bots entrants are rated against (default: the game's own,
    #: `Game.REFERENCE_BOTS`)
    reference_bots: tuple[str, ...]
    #: the rating games' openings: `openings: {plies, seed}`, or `opening_plies` (its old
    #: name) and the league's `seed`
    opening_plies: int = field(metadata=_keys("opening_plies", "openings"))
    seed: int
    #: per-student deadlines after the league's (league.yaml's `extensions: {alice:
    #: "2026-12-20 23:59"}`), as (user, seconds since the epoch), sorted by user: such a
    #: student uploads until their own deadline, which is their cut (`deadline_for`)
    extensions: tuple[tuple[str, float], ...]
    #: Java bots (.java, a .zip of them, a .jar) are taken: league.yaml's `java`, else the
    #: game's bots are the course's (`Game.COURSE_BOTS`); their time limit must then be whole
    #: seconds (`java_time_problem`)
    java: bool
    #: another game's parameter sets (`PlaySettings.param_sets`); () for Connect-X
    param_sets: tuple[tuple[tuple[str, int], ...], ...] = field(metadata=_keys("params"))
    #: what `league init` says of the file beyond errors (an old key name still accepted)
    notes: tuple[str, ...] = field(metadata=_keys())
    #: the folder whose boards.yaml named board sets are looked up in before the project's:
    #: the league.yaml's own folder (the league's folder, for its stored copy); never the
    #: current folder of the process that reads it
    boards_dir: str = field(metadata=_keys())

    @functools.cached_property
    def play(self) -> PlaySettings:
        """How every game of the league is played: the file's settings of play (shared with
        tournament files): the time limit and every other limit, the sandbox and cgroups. The
        referee's settings of each kind of game come from it
        (`arena.competition.settings.referee_settings`)."""
        return self.file.shared()

    def deadline_for(self, user: str | None) -> float | None:
        """`user`'s own deadline: their extension, else the league's `deadline_ts` (None:
        no deadline). None as the user: the league's."""
        return dict(self.extensions).get(user or "", self.file.deadline_ts)

    @property
    def timeout_s(self) -> float:
        """The time limit of a move (the file's)."""
        return self.file.timeout_s

    @property
    def sandboxed(self) -> bool:
        """Uploaded code runs in the sandbox (league.yaml's `isolation`: namespaces)."""
        return self.file.isolation is not Isolation.NONE

    def limits(self) -> Limits:
        """The time and memory limits of the league's games (`arena.limits`)."""
        return self.file.limits("league.yaml")

    def check_limit(self) -> float:
        """The wall-clock limit of one check: `check_limit_s`, else CHECK_LIMIT_BASE_S plus
        CHECK_LIMIT_MOVES moves at `timeout_s`."""
        if self.file.check_limit_s is not None:
            return self.file.check_limit_s
        return CHECK_LIMIT_BASE_S + CHECK_LIMIT_MOVES * self.timeout_s

    @property
    def disk_quota_bytes(self) -> int:
        return int(self.file.disk_quota_mb * 1024 * 1024)

    def anchor_bot(self) -> str:
        """The SPEC the leaderboard's scale is anchored to ("" without reference bots)."""
        return self.file.anchor or (self.reference_bots[-1] if self.reference_bots else "")

    def boards(self) -> tuple[Board, ...]:
        """The boards the rating games rotate over (a league of a game played on boards)."""
        return self._boards(self.board_list or self.board_set, "boards")

    def _boards(self, given: str | tuple[Board, ...], key: str) -> tuple[Board, ...]:
        return resolve_boards(given, Path(self.boards_dir) if self.boards_dir else None,
                                key)[1]

    def games(self) -> tuple[Game, ...]:
        """The games the rating games rotate over: one per board, or one per parameter set
        of a game not played on boards (`variant_games`)."""
        return variant_games(self.file.game, self.boards, self.param_sets)

    def final_games(self) -> tuple[Game, ...]:
        """The games of the final round robin: one per board of `final_board_set`, else (a
        game of parameter sets) the league's own games."""
        return variant_games(self.file.game, lambda: self._boards(
            self.final_board_list or self.final_board_set, "final_board_set"), self.param_sets)

    def check_games(self) -> list[Game] | None:
        """The games the check of a version plays: None on boards (the check's own, as
        `cxarena check-bot`: the competition's smallest and largest, and 6x7x4), else the
        league's own games (its parameter sets)."""
        return list(self.games()) if self.param_sets else None


# ----------------------------------------------------------------------- the file's schema
def _league_isolation(value: Any) -> Any:
    """league.yaml's own words for isolation, true and false, as the shared ones."""
    return {True: "namespaces", False: "none"}.get(value, value) if isinstance(value, bool) \
        else value


def _not_auto(value: Isolation) -> Isolation:
    """`auto` (the sandbox where the machine has one) is no setting for uploaded code."""
    if value is Isolation.AUTO:
        raise ValueError("auto")
    return value


def _resolvable(bots: list[str] | None) -> list[str] | None:
    for bot in bots or ():
        try:
            parse_spec(bot)
        except SpecError as exc:
            raise ValueError(str(exc)) from None
    return bots


def _deadline(value: Any) -> float | None:
    """The deadline as seconds since the epoch: YAML's own timestamp, or an ISO 8601 text; a
    time without a zone is the server's local time."""
    when: datetime.datetime | None = None
    if value is None:
        return None
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
        raise ValueError(f"expected a date and time such as 2026-12-18 23:59 (local time) or "
                         f"2026-12-18T23:59:00+01:00, got {value!r}")
    return when.timestamp()  # a naive time is taken as local time


def _extension_name(name: Any) -> Any:
    """A user named by `extensions`: an account name's characters (the accounts themselves
    are checked when the file is applied, `League.apply_config_file`)."""
    if not isinstance(name, str):
        raise ValueError(f"{str(name)[:60]!r}: write the user name as text (in quotes)")
    if name.replace("_", "").replace("-", "").replace(".", "").isalnum():
        return name
    raise ValueError(f"{str(name)[:60]!r} is not a user name (letters, digits, '_', '-' or '.')")


#: `extensions:` as written: user -> their own deadline, read as `deadline` is
EXTENSIONS = Annotated[
    dict[Annotated[str, BeforeValidator(_extension_name)],
         Annotated[float, BeforeValidator(_deadline)]] | None,
    shaped("expected a mapping of user names to dates and times, such as {alice: "
           "2026-12-20 23:59}")]


class LeagueFile(PlaySettings):
    """A league.yaml as written: the settings of play shared with tournament configs, flat,
    and the league's own keys. Old spellings still load: `board_set:` (boards), `opening_plies:`
    (openings.plies), `isolation: true/false` (namespaces/none)."""

    isolation: Annotated[Isolation, AfterValidator(_not_auto), explained(
        "expected true (or namespaces: uploaded code runs only in the sandbox) or false (or "
        "none)"), BeforeValidator(_league_isolation)] = setting(
        Isolation.NAMESPACES, Change.FIXED, ISOLATION_WHY)
    #: the old name of `boards`
    board_set: Boards | None = setting(None, Change.ANY)
    #: the old name of `openings: {plies: P}`
    opening_plies: SEED | None = setting(None, Change.FIXED, OPENINGS_WHY)
    reference_bots: Annotated[list[Annotated[StrictStr, TEXT]] | None, explained(
        "expected a list of bot SPECs (e.g. [players.L0, players.L1])"),
        AfterValidator(_resolvable)] = setting(None, Change.FIXED, "the ratings are fitted with "
                                               "these bots' games and anchored to one of them")
    #: the reference bot whose rating is fixed at `anchor_elo` (Ordo's -A); None: the last
    #: reference bot (`LeagueConfig.anchor_bot`)
    anchor: Annotated[Annotated[StrictStr, TEXT] | None, explained(
        "expected one of reference_bots")] = setting(
        None, Change.FIXED, "the Elo scale of every stored rating is anchored to it")
    anchor_elo: Annotated[NUMBER, explained("expected a number")] = setting(
        ANCHOR_ELO, Change.FIXED, "every shown rating is relative to it")
    pairs_per_submission: POSITIVE_INT = setting(10, Change.ANY)
    max_pairs_per_submission: POSITIVE_INT = setting(40, Change.ANY)
    max_upload_bytes: POSITIVE_INT = setting(2_000_000, Change.ANY)
    #: uploads one user may make in any 24 hours; past it the upload is refused (429)
    max_uploads_per_day: POSITIVE_INT = setting(10, Change.ANY)
    final_board_set: Boards | None = setting(None, Change.BEFORE_FINAL)
    final_pairs: POSITIVE_INT = setting(1, Change.BEFORE_FINAL)
    #: when uploads close and the league freezes by itself (seconds since the epoch; None: the
    #: teacher freezes by hand). Written `deadline:` as a date and time, e.g. 2026-12-18 23:59
    #: (the server's local time) or 2026-12-18T23:59:00+01:00
    deadline_ts: Annotated[float | None, BeforeValidator(_deadline)] = setting(
        None, Change.BEFORE_FINAL, alias="deadline")
    #: start the final round robin at the deadline (`serve` does it)
    final_at_deadline: FLAG = setting(False, Change.BEFORE_FINAL)
    #: the final's pairing: every game, or the games its ranking needs
    #: (`arena.league.final_adaptive`), to the goal of the three keys below (`Goal`)
    final_pairing: Annotated[Literal["round_robin", "adaptive"], explained(
        "expected round_robin or adaptive")] = setting("round_robin", Change.BEFORE_FINAL)
    final_confidence: Annotated[NUMBER, Gt(0.5), Lt(1), explained(
        "expected a confidence between 0.5 and 1, e.g. 0.95")] = setting(
        _GOAL.confidence, Change.BEFORE_FINAL)
    final_top_k: POSITIVE_INT | None = setting(_GOAL.top_k, Change.BEFORE_FINAL)
    final_max_fraction: Annotated[NUMBER, Gt(0), Le(1), explained(
        "expected a share of the full round robin's games, > 0 and <= 1")] = setting(
        _GOAL.max_fraction, Change.BEFORE_FINAL)
    extensions: EXTENSIONS = setting(None, Change.BEFORE_FINAL)
    #: CPU seconds the workers may spend analysing one game a student lost (the evaluation
    #: strip and blunders of its replay, arena.league.analysis); 0: no analyses
    analysis_budget_s: Annotated[NUMBER, Ge(0), explained(
        "expected a number of CPU seconds >= 0 (0: no analyses)")] = setting(
        ANALYSIS_BUDGET_S, Change.ANY)
    #: wall seconds the server's background worker may spend asking one version (or reference
    #: bot) for its moves in the play-similarity positions (`arena.similarity.background`)
    similarity_budget_s: Annotated[NUMBER, Ge(0), explained(
        "expected a number of seconds >= 0 (0: no play similarity in the background)")] = \
        setting(SIMILARITY_BUDGET_S, Change.ANY)
    #: conformance checks run at once by the server (never two of one student at a time)
    check_workers: POSITIVE_INT = setting(CHECK_WORKERS, Change.ANY)
    #: the wall-clock limit of one check, start-up and every game included; a check still
    #: running then is ended and its version fails; None: `LeagueConfig.check_limit`
    check_limit_s: Annotated[Annotated[NUMBER, Gt(0)] | None, explained(
        f"expected a positive number of seconds (leave it out for the default, "
        f"{CHECK_LIMIT_BASE_S:g} s + {CHECK_LIMIT_MOVES} moves at timeout_s)")] = setting(
        None, Change.ANY)
    #: the disk one student's versions may take (MiB): their uploads (all kept) and the
    #: unpacked trees of the versions still in use; an upload past it is refused
    disk_quota_mb: Annotated[NUMBER, Gt(0), explained(
        "expected a positive number of MiB per student")] = setting(DISK_QUOTA_MB, Change.ANY)
    #: None: Java bots are taken where the game's bots are the course's (`Game.COURSE_BOTS`)
    java: FLAG | None = setting(None, Change.ANY)
    #: the check fails a move over 90 % of the limit (check-bot --strict-time); default: only
    #: one a game on the server would charge (above 80 % it warns)
    strict_time: FLAG = setting(False, Change.ANY)

    def bots(self) -> tuple[str, ...]:
        """The reference bots: as given, else the game's own (`Game.REFERENCE_BOTS`)."""
        if self.reference_bots is not None:
            return tuple(self.reference_bots)
        return GAMES[self.game].REFERENCE_BOTS

    @model_validator(mode="after")
    def _whole(self) -> LeagueFile:
        """What no one key says alone."""
        for key in ("board_set", "final_board_set"):
            if not self.takes_boards and getattr(self, key) is not None:
                raise ValueError(f"{key}: is for Connect-X; game {self.game!r} takes params: "
                                 f"(a list of parameter sets, e.g. [{{size: 8}}])")
        if self.boards is not None and self.board_set is not None:
            raise ValueError("give either boards (the name tournament configs use) or "
                             "board_set (its old name), not both")
        if self.opening_plies is not None and self.openings is not None:
            raise ValueError("give either openings: {plies: P} or opening_plies: P (the "
                             "league's old name), not both")
        if self.openings is not None and self.openings.file is not None:
            raise ValueError("openings: a league takes {plies: P, seed: S} (no opening files)")
        if self.max_pairs_per_submission < self.pairs_per_submission:
            raise ValueError(f"max_pairs_per_submission must be at least "
                             f"pairs_per_submission ({self.pairs_per_submission})")
        if self.final_at_deadline and self.deadline_ts is None:
            raise ValueError("final_at_deadline needs a deadline")
        if self.extensions and self.deadline_ts is None:
            raise ValueError("extensions: need a deadline (an extension is a later deadline "
                             "for one student)")
        for user, when in sorted((self.extensions or {}).items()):
            if self.deadline_ts is not None and when <= self.deadline_ts:
                raise ValueError(f"extensions: {user}: {_local(when)} is not after the "
                                 f"deadline ({_local(self.deadline_ts)}); an extension is a "
                                 f"later deadline (remove it, or give a later date)")
        if self.anchor is not None and self.anchor not in self.bots():
            raise ValueError(f"anchor: expected one of reference_bots "
                             f"({', '.join(self.bots()) or 'none given'}), got {self.anchor!r}")
        return self


def _boards(given: str | tuple[Board, ...] | None, key: str,
            near: Path | None) -> tuple[str, tuple[Board, ...]]:
    """(set name, ()) for a set of boards.yaml (checked: `resolve_boards`), ("listed", boards)
    for a list; no `key` in the file: the default set."""
    name, boards = resolve_boards(given or DEFAULT_BOARD_SET, near, key)
    return (name, ()) if name is not None else ("listed", boards)


def parse_config(text: str, where: str = "league.yaml",
                 near: Path | None = None) -> LeagueConfig:
    """Read league.yaml text; a bad key or value raises ValueError naming it and the file.
    Named board sets are looked up in the boards.yaml of folder `near` (the league.yaml's own
    folder), else in the project's."""
    near = None if near is None else Path(near).resolve()
    try:
        file = parse_settings(LeagueFile, text, where)
        old_name = file.board_set is not None
        board_set, board_list = _boards(file.board_set if old_name else file.boards,
                                        "board_set" if old_name else "boards", near)
        final_set, final_list = _boards(file.final_board_set, "final_board_set", near)
    except UsageError as exc:
        raise ValueError(str(exc) if str(exc).startswith(where) else f"{where}: {exc}") \
            from None
    openings = file.openings
    return LeagueConfig(
        file=file, board_set=board_set, board_list=board_list, final_board_set=final_set,
        final_board_list=final_list, reference_bots=file.bots(),
        opening_plies=(file.opening_plies if file.opening_plies is not None else
                       openings.plies if openings is not None else 2),
        seed=file.seed if openings is None or openings.seed is None else openings.seed,
        extensions=tuple(sorted((file.extensions or {}).items())),
        java=GAMES[file.game].COURSE_BOTS if file.java is None else file.java,
        param_sets=file.param_sets(), boards_dir="" if near is None else str(near),
        notes=(f"{where}: board_set: is the old name of boards: (the name tournament configs "
               f"use); it still works, and boards: is what to write",) if old_name else ())


#: the league folder's copy of the settings, their source of truth (`League.apply_config_file`)
CONFIG_FILE = "league.yaml"

def _local(ts: float) -> str:
    """A time as league.yaml's changes show it: local, to the minute, with its offset."""
    return datetime.datetime.fromtimestamp(ts).astimezone().isoformat(timespec="minutes")


def _shown(key: str, value: Any) -> str:
    if key == "deadline":
        return "none" if value is None else _local(value)
    if key == "extensions":
        return "{" + ", ".join(f"{user}: {_local(ts)}" for user, ts in value) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown("", v) for v in value) + "]"
    return str(value)


def _settings(cfg: LeagueConfig) -> dict[str, tuple[Any, ...]]:
    """league.yaml key -> `cfg`'s values for it, in the file's order: the derived fields' by
    the key that names them (a board set's name and its list under `boards`), else the file's
    own value (a key a derived field reads but does not name, e.g. `board_set`, is left out)."""
    derived: dict[str, tuple[Any, ...]] = {}
    held: set[str] = set()
    for f in dataclasses.fields(cfg):
        keys = f.metadata.get("keys", (f.name,))
        held.update(keys)
        if keys:
            derived[keys[0]] = derived.get(keys[0], ()) + (getattr(cfg, f.name),)
    out: dict[str, tuple[Any, ...]] = {}
    for name, info in LeagueFile.model_fields.items():
        key = info.alias or name
        if key in derived or key not in held:
            out[key] = derived.get(key, (getattr(cfg.file, name),))
    return out


def config_changes(old: LeagueConfig, new: LeagueConfig, final_started: bool = False
                   ) -> tuple[list[str], list[str]]:
    """(changes, refusals) from `old` to `new`: "max_uploads_per_day: 10 -> 20" per changed
    setting that may change, and "timeout_s: may not change (reason)" per one that may not;
    when a key may change is its field's (`LeagueFile`, `arena.competition.settings.Change`)."""
    changes: list[str] = []
    refused: list[str] = []
    after = _settings(new)
    for key, was in _settings(old).items():
        now = after[key]
        if was == now:
            continue
        change, why = change_rule(LeagueFile, key) or (Change.FIXED, "")
        if change is Change.FIXED:
            refused.append(f"{key}: may not change while the league runs" + (f" ({why})" if why
                                                                              else ""))
        elif change is Change.BEFORE_FINAL and final_started:
            refused.append(f"{key}: may not change once the final round robin has started (its "
                           f"entries and games are fixed)")
        else:  # shown by its last value that says something (a board list over its set's name)
            shown = [_shown(key, next((v for v in reversed(vs) if v), vs[0])) for vs in (was, now)]
            changes.append(f"{key}: {shown[0]} -> {shown[1]}")
    return changes, refused


def java_time_problem(cfg: LeagueConfig) -> str:
    """"" when the league's time limit suits its entrants; else why not: a Connect-X league
    that takes Java bots needs whole seconds (CXPlayer.initPlayer's timeout_in_secs is an int,
    so 0.5 s cannot be given to a Java bot at all)."""
    if not (GAMES[cfg.file.game].COURSE_BOTS and cfg.java) or cfg.timeout_s == int(cfg.timeout_s):
        return ""
    return (f"timeout_s: {cfg.timeout_s:g} is not a whole number of seconds, and this league "
            f"takes Java bots (java: true, the default), whose CXPlayer.initPlayer gets the "
            f"limit as whole seconds (timeout_in_secs, an int): give a whole number of seconds "
            f"(the course's CXGame uses 10; a bot that sizes its search from timeout_in_secs - "
            f"1 needs at least 2), or java: false for a league of Python bots only")
