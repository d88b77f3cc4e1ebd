"""`cxarena match SPEC1 SPEC2`: games between two bots, each result and a summary.

Games come in **pairs**: game 2k-1 has SPEC1 moving first, game 2k SPEC2, both from the same
start. Game i (from 1) has its seed derived from --seed and i (`game_seed`), so a rerun replays
the same games. When more than one pair is played, each pair starts from its own opening
(`arena.competition.openings`: a suite made from --seed, or --openings FILE) unless
--no-openings; pairs cycle over the boards (--board, or every board of --board-set).

The summary gives W/D/L, faults, how many distinct games were played (a warning when games
repeat) and the Elo difference: pentanomial over pairs when every game is paired, trinomial
otherwise (`arena.results.stats`). With --sprt ELO0 ELO1 the match plays pairs until the
GSPRT decides (H1: SPEC1 is better by ELO1; H0: it is not better by ELO0) or --games is reached,
printing the LLR after every pair.

With --json, stdout carries one GameRecord JSON object per game and line (nothing else); the
summary goes to stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena import defaults
from arena.commands import checked_board, opening_judge
from arena.competition.openings import DEFAULT_PLIES, random_opening
from arena.errors import UsageError
from arena.records import GameRecord
from arena.referee.sandbox import MODES
from arena.results.fairness import load_account
from arena.tournament import schedule

if TYPE_CHECKING:
    from arena.entrants.specs import BotSpec

HELP = "play a few games between two bots and print the results and a summary"

__all__ = ["HELP", "SPRT_DEFAULT_CAP", "add_arguments", "display_names", "game_seed", "run",
           "summary_lines"]

#: games a --sprt match plays at most unless --games says otherwise
SPRT_DEFAULT_CAP = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec1", metavar="SPEC1", help="first bot (moves first in game 1)")
    parser.add_argument("spec2", metavar="SPEC2", help="second bot")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--board", nargs=3, type=int, metavar=("M", "N", "K"),
                       help="rows, columns, pieces in a row to win (e.g. 6 7 4)")
    where.add_argument("--board-set", metavar="NAME", default=None,
                       help="cycle the pairs over every board of a set of the project's "
                            "boards.yaml (e.g. competition), or of a file: FILE.yaml[:NAME]")
    where.add_argument("--game", metavar="NAME", default=None,
                       help=f"play a registered game by name: {known_games()} (parameters "
                            f"with --param)")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of --game, e.g. size=6 (othello) or no_mill_moves=60 "
                             "(morris); repeatable")
    parser.add_argument("--time", type=float, required=True, metavar="T",
                        help="time limit per move and for initPlayer, in seconds")
    parser.add_argument("--games", type=int, default=None, metavar="G",
                        help="number of games, alternating who moves first (default 2; with "
                             f"--sprt the cap, default {SPRT_DEFAULT_CAP})")
    parser.add_argument("--openings", metavar="FILE", default=None,
                        help="play the pairs from the openings in FILE (one board only; "
                             "format: `cxarena openings --help`)")
    parser.add_argument("--no-openings", action="store_true",
                        help="every game from the empty board (the course's format)")
    parser.add_argument("--plies", type=int, default=None, metavar="P",
                        help=f"moves per generated opening (default {DEFAULT_PLIES} for "
                             f"Connect-X, {GAME_PLIES} for another game)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), default=None,
                        help="sequential test: stop as soon as SPEC1 is shown better than "
                             "SPEC2 by ELO1 (H1) or not better by ELO0 (H0); logistic Elo")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="SPRT false-positive rate (default %(default)g)")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="SPRT false-negative rate (default %(default)g)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="base seed; each game's seed is derived from it (default 0)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON record per game and line on stdout (summary on "
                             "stderr)")
    parser.add_argument("--grace-ms", type=float, default=defaults.GRACE_S * 1000, metavar="MS",
                        help="grace margin before an answer counts as late (default %(default)g)")
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_LIMIT_MB, metavar="MB",
                        help="memory limit per bot in MiB, 0 for none (default %(default)d)")
    parser.add_argument("--max-tasks", type=int, default=defaults.MAX_TASKS, metavar="N",
                        help="processes and threads a bot may run at once, where cgroups count "
                             "them; 0 for no cap (default %(default)d)")
    parser.add_argument("--no-cgroups", action="store_true",
                        help="no cgroup per bot even where the machine offers them (rlimits "
                             "only; see cxarena doctor)")
    parser.add_argument("--startup-s", type=float, default=defaults.STARTUP_TIMEOUT_S,
                        metavar="S", help="time a bot may take to start up (default %(default)g)")
    parser.add_argument("--fresh", action="store_true",
                        help="a new bot process for every game (default: reuse processes)")
    parser.add_argument("--cpu", type=int, default=None, metavar="C",
                        help="pin the bots to this CPU core")
    parser.add_argument("--isolation", choices=MODES,
                        default=defaults.ISOLATION,
                        help="sandbox each bot: auto (where the machine allows it), namespaces "
                             "(required), none (trusted bots) (default %(default)s)")
    parser.add_argument("--log-dir", default=None, metavar="DIR",
                        help="keep the bots' stderr logs here (default: a new "
                             "cxarena-match-logs-* folder under the system's temporary "
                             "directory, which the match names; only the folders of the last "
                             f"{defaults.KEEP_MATCH_LOGS} matches are kept there, older ones "
                             "are removed)")


def game_seed(base_seed: int, game_index: int) -> int:
    """The seed of game `game_index` (from 1) of a match with --seed `base_seed` (derived as a
    tournament's game seeds are, see `arena.tournament.schedule.game_seed`)."""
    return schedule.game_seed(base_seed, f"match-{game_index}")


def pick_game(name: str | None, params: list[str], board: list[int] | None) -> Any:
    """The `arena.games.Game` that --game NAME with its --param KEY=VALUE, or the course's
    --board M N K, names (None: neither). Pure: the arguments are not changed."""
    from arena.games import GameError, make_game
    from arena.games.params import parse_params
    from arena.referee.referee import course_game

    try:
        if name is None:
            if params:
                raise UsageError("--param needs --game")
            return None if board is None else course_game(*board)
        return make_game(name, parse_params(",".join(params)) if params else {})
    except (GameError, ValueError) as e:
        shown = " ".join(map(str, board or []))
        what = f"--game {name}" if name is not None else f"--board {shown}"
        raise UsageError(f"{what}: {e}") from None


def course_board(game: Any) -> tuple[int, int, int] | None:
    """(M, N, K) when `game` is the course's game (the one whose own dialect is protocol version
    1: Connect-X), which a match plays on its boards with its openings; None for any other."""
    from arena.wire.protocol import PROTOCOL_VERSION, version_of

    if version_of(game) != PROTOCOL_VERSION:
        return None
    M, N, K = (int(f) for f in game.dialect_fields(game.params))
    return M, N, K


def known_games() -> str:
    """The registered games' names, for help texts ("connectx, mnk, morris, othello"), read
    without loading any game."""
    from arena.games import game_names

    return ", ".join(game_names())


#: plies of another game's generated openings unless --plies says otherwise
GAME_PLIES = 4


def _game_pairs_open(args: argparse.Namespace) -> bool:
    return not args.no_openings and (args.games + 1) // 2 > 1


def game_opening(args: argparse.Namespace, game: Any, k: int) -> tuple[str, ...]:
    """Pair k's opening in another game: random legal plies (`arena.competition.openings`) from a
    seed made from --seed and k; none for a single pair or with --no-openings."""
    if not _game_pairs_open(args):
        return ()
    plies = GAME_PLIES if args.plies is None else args.plies
    return random_opening(game, plies, schedule.game_seed(args.seed, f"match-pair-{k + 1}"),
                          opening_judge(game.name))


def game_starts(args: argparse.Namespace, game: Any) -> str:
    if not _game_pairs_open(args):
        return "every game from the start position"
    plies = GAME_PLIES if args.plies is None else args.plies
    return (f"{plies} random legal plies from the seed, judged by the game's search, one "
            f"opening per pair")


def _check(args: argparse.Namespace, game: Any, board: tuple[int, int, int] | None) -> None:
    """The flags' errors; `game`, `board`: what `_pick` found."""
    if board is not None:
        checked_board(list(board))
    if args.games is None:
        args.games = SPRT_DEFAULT_CAP if args.sprt else 2
    if args.openings is not None and game is not None:
        raise UsageError(f"--game {game.name}: --openings FILE is for Connect-X; another game's "
                         f"pairs start from random legal plies (--plies P)")
    if args.openings is not None and board is None:
        raise UsageError("--openings FILE holds openings for one board: use it with --board")
    if args.openings is not None and args.no_openings:
        raise UsageError("--openings and --no-openings contradict each other")
    if args.plies is not None and args.plies < 0:
        raise UsageError(f"--plies must be >= 0, got {args.plies}")
    if args.sprt is not None:
        from arena.results.stats import Sprt

        try:
            Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as e:
            raise UsageError(f"--sprt: {e}") from None
        if args.games < 2:
            raise UsageError(f"--games (the SPRT's cap) must be at least 2, got {args.games}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    _check_limits(args)
    if args.cpu is not None:
        if args.cpu not in os.sched_getaffinity(0):
            raise UsageError(f"--cpu {args.cpu}: not a core this process may use "
                             f"({sorted(os.sched_getaffinity(0))})")


def _check_limits(args: argparse.Namespace) -> None:
    """The flags that make the match's `Limits`, each named in its error."""
    if not (args.time > 0 and math.isfinite(args.time)):
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.grace_ms < 0:
        raise UsageError(f"--grace-ms must be >= 0, got {args.grace_ms}")
    if args.memory_mb and not args.memory_mb >= defaults.MIN_MEMORY_MB:
        raise UsageError(f"--memory-mb must be 0 (no limit) or at least {defaults.MIN_MEMORY_MB}, "
                         f"got {args.memory_mb}")
    if not args.startup_s > 0:
        raise UsageError(f"--startup-s must be > 0, got {args.startup_s}")
    if args.max_tasks and not args.max_tasks >= defaults.MIN_TASKS:
        raise UsageError(f"--max-tasks must be 0 (no cap) or at least {defaults.MIN_TASKS}, "
                         f"got {args.max_tasks}")


MATCH_LOGS_PREFIX = "cxarena-match-logs-"


def prune_match_logs(keep: int, current: str) -> list[str]:
    """Remove this user's cxarena-match-logs-* folders in the temp dir but the `keep` newest
    (`current` always stays); the removed paths."""
    import shutil

    root = Path(tempfile.gettempdir())
    mine = []
    for p in root.glob(f"{MATCH_LOGS_PREFIX}*"):
        try:
            st = p.lstat()
        except OSError:
            continue
        if p.is_dir() and not p.is_symlink() and st.st_uid == os.getuid():
            mine.append((st.st_mtime, str(p)))
    mine.sort(reverse=True)
    old = [path for _, path in mine if path != current][max(0, keep - 1):]
    for path in old:
        shutil.rmtree(path, ignore_errors=True)
    return old


def _pick(args: argparse.Namespace) -> tuple[Any, tuple[int, int, int] | None]:
    """(the game, None) for a game of its own (--game), or (None, its board) for the course's
    Connect-X (--board, or --game connectx with its --param): it plays on its boards with its
    openings. (None, None) for --board-set. `args` are not changed."""
    picked = pick_game(args.game, args.param, args.board)
    board = None if picked is None else course_board(picked)
    return (None, board) if board is not None or picked is None else (picked, None)


def _boards(args: argparse.Namespace,
            board: tuple[int, int, int] | None) -> list[tuple[int, int, int]]:
    """The course's boards of the match: `board`, else every board of --board-set."""
    if board is not None:
        return [board]
    from arena.tournament.config import resolve_board_set

    return list(resolve_board_set(args.board_set))


class _Starts:
    """Where each pair starts: (game, opening as move texts) for pair k (0-based). `game`: a
    game of its own (--game), which makes its openings itself (`game_opening`); None: the
    course's game on `boards`, with its opening suites."""

    def __init__(self, args: argparse.Namespace, game: Any,
                 boards: list[tuple[int, int, int]]) -> None:
        from arena.competition.openings import DEFAULT_PLIES, OpeningStream, read_suite

        self.args = args
        self.game = game
        self.boards = boards
        pairs = (args.games + 1) // 2
        self.use_openings = (game is None and not args.no_openings
                             and (pairs > 1 or args.openings is not None))
        self.file = None if args.openings is None else read_suite(args.openings, *boards[0])
        plies = DEFAULT_PLIES if args.plies is None else args.plies
        self.plies = plies
        self.streams = {} if self.file is not None or not self.use_openings else {
            b: OpeningStream(*b, opening_judge(), plies=min(plies, b[0] * b[1] - 1),
                             seed=args.seed)
            for b in boards}

    def at(self, k: int) -> tuple[Any, tuple[str, ...]]:
        from arena.referee.referee import course_game

        if self.game is not None:
            return self.game, game_opening(self.args, self.game, k)
        board = self.boards[k % len(self.boards)]
        if not self.use_openings:
            return course_game(*board), ()
        j = k // len(self.boards)
        if self.file is not None:
            moves = self.file.openings[j % len(self.file.openings)].moves
        else:
            moves = self.streams[board].get(j).moves
        return course_game(*board), tuple(str(c) for c in moves)

    def describe(self) -> str:
        if self.game is not None:
            return game_starts(self.args, self.game)
        if not self.use_openings:
            return "every game from the empty board"
        if self.file is not None:
            return f"openings from {self.file.source} ({self.file.distinct} distinct)"
        return f"{self.plies}-ply openings made from the seed, one per pair"


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from arena.competition.settings import referee_settings
    from arena.entrants.probe import check_loadable
    from arena.entrants.specs import SpecError, parse_spec, time_limit_problem
    from arena.limits import make_limits
    from arena.referee.cgroups import summary as containment_summary
    from arena.referee.door import install as install_door
    from arena.referee.referee import GameRequest, Referee
    from arena.results.stats import Pentanomial, Sprt, SprtResult
    from arena.tournament.preflight import refuse_unseen_programs

    game, board = _pick(args)
    _check(args, game, board)
    boards = _boards(args, board) if game is None else []
    # the bots' code is loaded (and Java bots compiled) through the door, as they play:
    isolation = install_door(args.isolation, not args.no_cgroups)  # UsageError: impossible
    notice = isolation.notice()
    if notice:
        print(notice, file=sys.stderr)
    spec1, spec2 = parse_spec(args.spec1), parse_spec(args.spec2)  # SpecError: exit 2
    name1, name2 = display_names(spec1, spec2)
    shown = {spec1.text: name1, spec2.text: name2}
    for spec in (spec1, spec2):
        problem = time_limit_problem(spec, args.time)  # Java bots: whole seconds
        if problem:
            raise UsageError(f"--time {args.time:g}: {problem}")
    refuse_unseen_programs([spec1, spec2], isolation.isolated)
    # the probes load CXPlayer classes; a bot for another game shows at its start instead
    failed = check_loadable([spec1, spec2]) if game is None else {}
    if failed:
        raise SpecError(next(iter(failed.values())))
    starts = _Starts(args, game, boards)
    log_dir = args.log_dir or tempfile.mkdtemp(prefix=MATCH_LOGS_PREFIX)
    if args.log_dir is None:
        prune_match_logs(keep=defaults.KEEP_MATCH_LOGS, current=log_dir)
    limits = make_limits(args.time, args.grace_ms / 1000.0, args.startup_s,
                         args.memory_mb or None, where="match",
                         max_tasks=args.max_tasks or None)
    settings = referee_settings(limits, "match", isolation=args.isolation,
                                cgroups=not args.no_cgroups, fresh_process=args.fresh,
                                cpu=args.cpu, log_dir=log_dir)
    sprt = None if args.sprt is None else Sprt(args.sprt[0], args.sprt[1], args.alpha,
                                               args.beta)
    out = sys.stderr if args.json else sys.stdout
    print(containment_summary(not args.no_cgroups), file=sys.stderr)
    if sprt is not None:
        print(f"{sprt.describe()}; at most {args.games} games", file=out, flush=True)
    records: list[GameRecord] = []
    penta = Pentanomial()
    verdict = None
    with Referee(settings) as referee:
        for i in range(1, args.games + 1):
            k = (i - 1) // 2
            rules, opening = starts.at(k)
            first, second = (spec1, spec2) if i % 2 == 1 else (spec2, spec1)
            rec = referee.run(GameRequest(first, second, rules, game_seed(args.seed, i),
                                          game_id=f"{i} of the match", opening=opening))
            rec = dataclasses.replace(rec, pair_id=f"match-{args.seed}-pair{k + 1}")
            records.append(rec)
            if args.json:
                print(rec.to_json(), flush=True)
            else:
                print(_result_line(i, rec, shown), flush=True)
            if sprt is not None and i % 2 == 0:
                penta = penta.add_pair(_score(records[-2], 1), _score(records[-1], 2))
                state = sprt.state(penta)
                print(f"  pair {k + 1}: {penta}  LLR {state.llr:+.2f} (bounds "
                      f"{state.lower:+.2f} .. {state.upper:+.2f})", file=out, flush=True)
                if state.result is not SprtResult.CONTINUE:
                    verdict = state
                    break
    lines = summary_lines(records, name1, name2, args.time)
    lines.insert(1, f"  starts: {starts.describe()}")
    lines[2:2] = [f"  {name} = {spec.text}" for name, spec in ((name1, spec1), (name2, spec2))
                  if name != spec.text]
    if sprt is not None:
        if verdict is None:
            st = sprt.state(penta)
            lines.append(f"  SPRT: cap of {args.games} games reached without a decision "
                         f"(LLR {st.llr:+.2f}, bounds {st.lower:+.2f} .. {st.upper:+.2f})")
        elif verdict.result is SprtResult.H1:
            lines.append(f"  SPRT: H1 accepted after {len(records)} games: {name1} is "
                         f"stronger than {name2} (Elo >= {sprt.elo1:g} rather than <= "
                         f"{sprt.elo0:g}; LLR {verdict.llr:+.2f} >= {verdict.upper:.2f})")
        else:
            lines.append(f"  SPRT: H0 accepted after {len(records)} games: {name1} is "
                         f"not shown stronger than {name2} (Elo <= {sprt.elo0:g} rather "
                         f"than >= {sprt.elo1:g}; LLR {verdict.llr:+.2f} <= "
                         f"{verdict.lower:.2f})")
    account = load_account(records, args.time)
    lines.append(f"  {account.text()}")
    if account.replays:
        lines.append("  (the games played again were not charged: their late moves came from "
                     "waiting for a CPU; run on a quieter machine)")
    lines.append(f"bot logs (stderr, one file per bot process, a header before each game): "
                 f"{log_dir}")
    print("\n".join(lines), file=out)
    return 0


def _score(rec: GameRecord, seat: int) -> float:
    """Points (1, 1/2, 0) of the player in `seat` (1 first, 2 second)."""
    if rec.winner is None:
        return 0.5
    return 1.0 if rec.winner == seat else 0.0


def display_names(spec1: BotSpec, spec2: BotSpec) -> tuple[str, str]:
    """How the match's output names its two bots: a Java bot by its class's simple name (its
    SPEC is often a long path, e.g. java:/home/me/course/src), else by the folder's last part;
    any other bot by its SPEC as typed. Two bots that would share a name keep their SPECs."""
    names = (_display_name(spec1), _display_name(spec2))
    if names[0] == names[1] and spec1.text != spec2.text:
        return spec1.text, spec2.text
    return names


def _display_name(spec: BotSpec) -> str:
    from arena.entrants.specs import Kind

    if spec.kind is not Kind.JAVA:
        return spec.text
    if spec.cls:
        return spec.cls.rpartition(".")[2]
    return Path(spec.path).name if spec.path else spec.text


def _result_line(i: int, rec: GameRecord, shown: dict[str, str] | None = None) -> str:
    """One game's line; `shown` names the bots (SPEC -> display name; default: the SPECs)."""
    p1, p2 = ((shown or {}).get(rec.p1, rec.p1), (shown or {}).get(rec.p2, rec.p2))
    if rec.winner is None:
        result = "draw"
    else:
        result = f"{p1 if rec.winner == 1 else p2} wins"
    how = "" if rec.reason.value == result else f" by {rec.reason.value}"  # not "draw by draw"
    line = (f"game {i}: {p1} vs {p2} (seed {rec.seed}): {result}{how} "
            f"after {rec.n_moves} moves")
    if rec.detail and rec.offender is None:
        line += f"\n  {rec.detail}"
    elif rec.detail:
        who = p1 if rec.offender == 1 else p2
        line += f"\n  {rec.reason.value} by {who}: {rec.detail}"
    for incident in rec.extra.get("overload") or []:
        line += f"\n  played again: {incident}"
    if rec.stderr_tail:
        last = rec.stderr_tail.splitlines()[-1]
        line += f"\n  last stderr line: {last}"
    return line


def summary_lines(records: Sequence[GameRecord], spec1: str, spec2: str,
                  timeout_s: float) -> list[str]:
    """The match summary from SPEC1's view: W/D/L, points, faults, Elo difference.
    `records` are the games in order (SPEC1 first in the 1st, 3rd ... game)."""
    wins = draws = losses = 0
    faults: list[Counter[str]] = [Counter(), Counter()]  # by spec1, by spec2
    for i, rec in enumerate(records):
        me = 1 if i % 2 == 0 else 2  # spec1's seat: first in games 1, 3, 5 ...
        if rec.winner is None:
            draws += 1
        elif rec.winner == me:
            wins += 1
        else:
            losses += 1
        if rec.offender is not None:
            faults[0 if rec.offender == me else 1][rec.reason.value] += 1
    from arena.results.standings import board_label, record_board_key

    lines = []
    if records:
        r = records[0]
        boards = list(dict.fromkeys(x.game_label for x in records))
        where = board_label(record_board_key(r)) \
            if len(boards) == 1 else f"{len(boards)} boards"
        lines.append(f"{spec1} vs {spec2}: {len(records)} games on {where}, "
                     f"{timeout_s:g} s per move")
    lines.append(f"  W/D/L for {spec1}: {wins}/{draws}/{losses}   points {spec1} "
                 f"{3 * wins + draws} - {3 * losses + draws} {spec2}")
    for who, counts in zip((spec1, spec2), faults, strict=True):
        total = sum(counts.values())
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        lines.append(f"  faults by {who}: {total}" + (f" ({kinds})" if kinds else ""))
    lines.extend(_distinct_lines(records))
    lines.append(f"  {_elo_line(records, wins, losses, draws, spec1)}")
    return lines


def _distinct_lines(records: Sequence[GameRecord]) -> list[str]:
    """How many distinct games (and pairs) were played, and a warning when they repeat."""
    def key(r: GameRecord) -> tuple[object, ...]:
        return (r.game_label, r.p1, r.p2, r.texts)  # either shape of a record

    games = len({key(r) for r in records})
    text = f"  distinct games: {games} of {len(records)}"
    paired = bool(records) and len(records) % 2 == 0
    if paired:
        pairs = len({(key(a), key(b)) for a, b in zip(records[0::2], records[1::2],
                                                      strict=True)})
        text += f"; distinct pairs: {pairs} of {len(records) // 2}"
        repeated, unit = len(records) // 2 - pairs, "pairs"
    else:
        repeated, unit = len(records) - games, "games"
    if not repeated:
        return [text]
    return [text, f"  warning: {repeated} {unit} repeat an earlier one move for move "
                  f"(deterministic bots replay a game from the same start): a repeat adds no "
                  f"information, so the interval below is too narrow. Vary the starts: more "
                  f"pairs, --openings FILE, or more --plies"]


def _elo_line(records: Sequence[GameRecord], wins: int, losses: int, draws: int,
              view: str) -> str:
    """Pentanomial Elo over the pairs when every game is paired, else trinomial; the pairs
    from `view`'s side (the first bot's, which moves first in a pair's first game)."""
    from arena.results.stats import Pentanomial, Trinomial, estimate

    if records and len(records) % 2 == 0:
        penta = Pentanomial()
        for a, b in zip(records[0::2], records[1::2], strict=True):
            penta = penta.add_pair(_score(a, 1), _score(b, 2))
        return f"{estimate(penta).describe()}\n    pairs from {view}'s view: {penta}"
    return estimate(Trinomial(wins, draws, losses)).describe()
