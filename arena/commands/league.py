"""`cxarena league`: set up a class league, its accounts, and submit bots from the shell."""

from __future__ import annotations

import argparse
import csv
import io
import logging
import sqlite3
import sys
from pathlib import Path
from typing import Any

HELP = ("run a class league: init, config, add-user, add-users, submit, entry, check, "
        "standings, grades, serve, final")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="league_command", metavar="SUBCOMMAND", required=True)
    p = sub.add_parser("init", help="create a league in DIR (DIR/league.sqlite)")
    p.add_argument("dir", type=Path)
    p.add_argument("--config", type=Path, default=None, help="league.yaml")
    p = sub.add_parser("add-user", help="create an account and print its one-time secret")
    p.add_argument("dir", type=Path)
    p.add_argument("name")
    p.add_argument("--admin", action="store_true")
    p = sub.add_parser("add-users", help="create one account per row of a roster CSV "
                       "(first column: name; a name is letters, digits, '_', '-' or '.'); "
                       "prints 'name,secret' per line; a roster with a bad or repeated name "
                       "creates no account and lists every such line")
    p.add_argument("dir", type=Path)
    p.add_argument("roster", type=Path)
    p = sub.add_parser("submit", help="submit a bot (a .py, .java files, a .zip or a .jar)")
    p.add_argument("dir", type=Path)
    p.add_argument("--user", required=True)
    p.add_argument("--kaggle", action="store_true", help="the .py file is a Kaggle agent")
    p.add_argument("--class", dest="class_name", default=None, metavar="NAME",
                   help="the class to play when the files hold several bots (e.g. "
                        "connectx.mybot.MyPlayer; a Kaggle agent: its function); default: "
                        "the user's last choice; '' clears it")
    p.add_argument("paths", type=Path, nargs="+")
    p = sub.add_parser("entry", help="make a student's version their entry in the final "
                       "(as the student's own \"Use this version in the final\"; the teacher "
                       "may until the final starts); prints the new entry")
    p.add_argument("dir", type=Path)
    p.add_argument("--user", required=True)
    p.add_argument("version", help="the version number (3, or v3)")
    p = sub.add_parser("standings", help="print the leaderboard, as the web page shows it: "
                       "the ranked entries and the reference bots, with each entry's score "
                       "against them")
    p.add_argument("dir", type=Path)
    p.add_argument("--json", action="store_true",
                   help="one JSON object per row (kind: entry or reference)")
    p = sub.add_parser("config", help="apply DIR/league.yaml (or FILE, then copied there) to "
                       "the league: validated as at init; prints what changed, or refuses "
                       "what may not change, with the reason (a running server applies it "
                       "by itself too)")
    p.add_argument("dir", type=Path)
    p.add_argument("file", type=Path, nargs="?", default=None)
    p = sub.add_parser("grades", help="print the grades as CSV: one row per roster student "
                       "(or, with --final, the final's ranking with its tie-break)")
    p.add_argument("dir", type=Path)
    p.add_argument("--final", action="store_true",
                   help="the final round robin's standings (head to head, then "
                        "Sonneborn-Berger, then a shared rank)")
    p = sub.add_parser("serve", help="run the web app (log-in, uploads, leaderboard, admin) "
                       "and its workers; binds 127.0.0.1 unless --host says otherwise")
    p.add_argument("dir", type=Path)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0: a free port (printed)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=int, default=None,
                   help="rating-game worker processes on this machine (default 1)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="play the rating games on this Dask scheduler's workers instead")
    p.add_argument("--unsafe-no-isolation", action="store_true",
                   help="run uploaded code without the sandbox (never on a shared machine)")
    p.add_argument("--forwarded-allow-ips", default=None, metavar="ADDR",
                   help="the reverse proxy's address(es), comma-separated, whose "
                        "X-Forwarded-For/-Proto headers are trusted (default: none is)")
    p = sub.add_parser("final", help="run (or resume) the final round robin over the frozen "
                       "entries in the foreground (what the admin page starts)")
    p.add_argument("dir", type=Path)
    p.add_argument("--dry-run", action="store_true",
                   help="only say how many games it has and how long it will take, here and "
                        "on 4, 8 and 16 Dask workers (estimated from the league's measured "
                        "rating and calibration games, per board), and how to shorten it")
    p.add_argument("--measure", action="store_true",
                   help="with --dry-run: first play a few calibration games on each board of "
                        "the final with too few measured games (kept apart: no rating "
                        "changes), on --workers cores")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="games at once (default: one per usable core)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="play its games on a Dask cluster (as `tournament --scheduler`)")
    p.add_argument("--results", type=Path, default=None, metavar="FOLDER",
                   help="its results folder (default: DIR/results/final)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--adaptive", action="store_true",
                   help="an adaptive final: play the games the ranking still needs, until it "
                        "is decided (arena.competition.adaptive_final; default: every game)")
    p.add_argument("--confidence", type=float, default=None, metavar="P",
                   help="with --adaptive: the confidence of each decided place (default: "
                        "league.yaml's final_confidence, 0.95)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="with --adaptive: decide only the first K places (default: "
                        "league.yaml's final_top_k, all)")
    p.add_argument("--max-fraction", type=float, default=None, metavar="F",
                   help="with --adaptive: at most this share of the full round robin's games "
                        "(default: league.yaml's final_max_fraction, 1; 0.25 reproduced the "
                        "full order in bench final_adaptive)")
    p = sub.add_parser("check", help="run the sandboxed conformance check of every queued "
                       "version and print each verdict (what the web app's workers will do)")
    p.add_argument("dir", type=Path)
    p = sub.add_parser("similarity", help="code and play similarity of every student's "
                       "current version, flagged pairs first (for the teacher: a flag asks for "
                       "a conversation, not a verdict)")
    p.add_argument("dir", type=Path)
    p.add_argument("--known", type=Path, default=None, metavar="FOLDER",
                   help="also compare each version with the bots in FOLDER (earlier years)")
    p.add_argument("--csv", action="store_true", help="print CSV instead of words")
    p.add_argument("--no-play", action="store_true",
                   help="code similarity only (no games: seconds, not minutes)")

def _standings(league: Any, args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from arena.league.standings import LEADERBOARD_COLUMNS, leaderboard, leaderboard_cells

    rows = leaderboard(league)  # the web leaderboard's rows: the entries and the reference bots
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=1))
        return 0
    table = [LEADERBOARD_COLUMNS, *(leaderboard_cells(r) for r in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(LEADERBOARD_COLUMNS))]
    numeric = {0, 3, 4, 5, 6}  # right-aligned, as the page's numbers are
    for line in table:
        print("  ".join(cell.rjust(w) if i in numeric else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(line, widths, strict=True))).rstrip())
    return 0


def _config(league: Any, args: argparse.Namespace) -> int:
    text = None if args.file is None else args.file.read_text(encoding="utf-8")
    changes = league.apply_config_file("league config", text)
    for change in changes:
        print(change)
    print(f"{len(changes)} setting(s) changed; they take effect at once "
          f"({args.dir / 'league.yaml'})")
    return 0


def _grades(league: Any, args: argparse.Namespace) -> int:
    from arena.league import LeagueError
    from arena.league.grades import final_standings_csv, grades_csv

    text = final_standings_csv(league) if args.final else grades_csv(league)
    if text is None:
        raise LeagueError("the final round robin has not started: no standings yet")
    sys.stdout.write(text)
    return 0


def _similarity(league: Any, args: argparse.Namespace) -> int:
    from arena.similarity.league import league_similarity

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    report = league_similarity(league, args.known, play=not args.no_play, progress=progress)
    if report.reference is not None:  # a run that played: the admin page shows it
        from arena.similarity.store import save  # with the report

        print(f"kept for the admin page: {save(league.dir, report)}", file=sys.stderr)
    if args.csv:
        sys.stdout.write(report.csv())
    else:
        print("\n".join(report.lines()))
    return 0


def _check(league: Any, args: argparse.Namespace) -> int:
    from arena.league.checks import check_next

    checked = 0
    while (sid := check_next(league)) is not None:
        checked += 1
        done = league.submission(sid)
        assert done is not None
        print(f"submission {sid}: {done.user} version {done.version}: {done.status}")
        if done.status == "failed":
            print("  " + done.check_summary.replace("\n", "\n  "))
    print(f"{checked} version(s) checked")
    return 0


def serve_log_to_stdout() -> logging.Handler:
    """`league serve`'s log (config changes applied or refused, the final's start, a check's
    failure) on stdout beside its other lines, each written as it happens: stdout is line
    buffered, so that `league serve > log` shows them at once, not when a buffer fills."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(line_buffering=True)
    logger = logging.getLogger("arena.league")
    for handler in logger.handlers:
        if getattr(handler, "cxarena_serve", False):
            return handler
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    handler.cxarena_serve = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    return handler


def _serve(league: Any, args: argparse.Namespace) -> int:
    from arena.commands import analysis_oracle, opening_judge
    from arena.league.web.server import serve
    from arena.referee.cgroups import summary

    print(summary(), file=sys.stderr, flush=True)  # what contains the workers' bots
    serve_log_to_stdout()
    serve(args.dir, args.host, args.port, args.workers, args.scheduler,
          args.unsafe_no_isolation, judge=opening_judge(league.config.file.game),
          forwarded_allow_ips=args.forwarded_allow_ips,
          # the search the analyses of lost games use comes from here, like the opening judge
          oracle_factory=analysis_oracle)
    return 0


def _final(league: Any, args: argparse.Namespace) -> int:
    import dataclasses

    from arena.commands.tournament import run_and_report
    from arena.competition.final_goal import Goal
    from arena.league import LeagueError
    from arena.league.final import FINAL_NAME, final_config, note_run, plan_final, with_broken
    from arena.results.standings import TieBreak

    if args.measure and not args.dry_run:
        raise LeagueError("--measure goes with --dry-run (it measures, then prints the plan)")
    if args.dry_run:
        if args.measure:
            from arena.league.final_measure import measure_final

            def progress(line: str) -> None:
                print(line, file=sys.stderr, flush=True)

            kept = measure_final(league, args.workers,
                                 progress=None if args.quiet else progress)
            print(f"{kept} calibration game(s) played on the final's boards", flush=True)
        print(plan_final(league, args.workers).text())
        return 0
    config = final_config(league)  # a resumed final: the same entries
    results = args.results or args.dir / "results" / FINAL_NAME
    note_run(league, results, args.scheduler)  # the admin page and the grades read this run
    print(f"final round robin: {len(config.players)} players -> {results}", flush=True)
    config = with_broken(config).with_file(workers=args.workers or "auto",
                                           scheduler=args.scheduler or None)
    cfg = league.config
    league.conn.close()
    if args.adaptive or cfg.file.final_pairing == "adaptive":
        try:
            goal = Goal(confidence=args.confidence or cfg.file.final_confidence,
                        top_k=args.top_k or cfg.file.final_top_k,
                        max_fraction=args.max_fraction or cfg.file.final_max_fraction,
                        rounds=config.file.rounds, seed=config.file.seed)
        except ValueError as e:
            raise LeagueError(f"the adaptive final's goal: {e}") from None
        return _adaptive_final(dataclasses.replace(config, tie_break=TieBreak.ADAPTIVE),
                               results, goal, args.quiet)
    outcome = run_and_report(config, results, quiet=args.quiet)
    return 0 if outcome.complete else 1


def _adaptive_final(config: Any, results: Path, goal: Any, quiet: bool) -> int:
    """The final as an adaptive final (`arena.league.final_adaptive`): the tournament run in
    steps, each only the games the policy names, then its report."""
    from arena.commands import game_judge, opening_judge
    from arena.commands.tournament import write_html_report
    from arena.league.final_adaptive import run_adaptive_final
    from arena.results import ADAPTIVE_MD
    from arena.results.folder import code_section, read_results, write_standings
    from arena.results.store import DB_FILE, ResultStore
    from arena.tournament.run import run_tournament
    from arena.tournament.schedule import make_schedule

    other_judge = game_judge(config)
    schedule = make_schedule(config, opening_judge(), other_judge)

    def play(ids: frozenset[str]) -> None:
        run_tournament(config, results, judge=opening_judge(), game_judge=other_judge,
                       quiet=True, only=ids, out=io.StringIO())

    step = run_adaptive_final(schedule, [p.name for p in config.players], results, goal, play,
                              say=None if quiet else print)
    with ResultStore(results / DB_FILE, create=False) as store:  # its order, now decided
        standings, meta, _ = read_results(store)
        write_standings(results, standings, f"Standings: {config.file.name}", meta.get("games"),
                        code_section(store))
    report = write_html_report(results)
    print(f"adaptive final: {step.why}; {step.ranking.text()}; ranking in "
          f"{results / ADAPTIVE_MD}" + (f"; report: {report}" if report else ""))
    return 0


def _accounts(league: Any, args: argparse.Namespace) -> int:
    if args.league_command == "add-user":
        print(league.add_user(args.name, admin=args.admin))
        return 0
    names = _roster_names(args.roster)
    created = league.add_users(names)
    for name, secret in created:
        print(f"{name},{secret}")
    made = {name for name, _ in created}
    for name in names:
        if name not in made:
            print(f"{name}: already a user, skipped (the admin page resets a secret)",
                  file=sys.stderr)
    return 0


#: first cells of a roster's header row (skipped)
_ROSTER_HEADERS = {"name", "names", "user", "username", "login", "student"}


def _roster_names(path: Path) -> list[str]:
    """The first column of a roster CSV, without a header row or blank lines; a bad name
    raises LeagueError naming its line."""
    from arena.league import LeagueError
    from arena.league.db import check_user_name

    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise LeagueError(f"{path}: cannot read the roster ({e})") from None
    names: list[tuple[int, str]] = [(i + 1, row[0].strip()) for i, row in enumerate(rows)
                                    if row and row[0].strip()]
    if names and names[0][1].lower() in _ROSTER_HEADERS:
        names = names[1:]
    if not names:
        raise LeagueError(f"{path}: no names (one per line, in the first column)")
    first_line: dict[str, int] = {}
    problems: list[str] = []
    for line, name in names:
        try:
            check_user_name(name)
        except LeagueError as e:
            usable = _usable_name(name)
            problems.append(f"line {line}: {e}" + (f" (e.g. {usable!r})" if usable else ""))
            continue
        if name in first_line:
            problems.append(f"line {line}: {name!r} is also on line {first_line[name]}")
        first_line.setdefault(name, line)
    if problems:  # every line to fix at once; nothing half done
        shown = problems[:_MAX_ROSTER_PROBLEMS] + (
            [f"... and {len(problems) - _MAX_ROSTER_PROBLEMS} more"]
            if len(problems) > _MAX_ROSTER_PROBLEMS else [])
        raise LeagueError(f"{path}: no account was created; fix these lines and run again:\n"
                          + "\n".join("  " + p for p in shown))
    return [name for _, name in names]


#: at most this many bad roster lines are listed
_MAX_ROSTER_PROBLEMS = 20


def _usable_name(name: str) -> str:
    """`name` with what an account name cannot hold left out ("o'brien" -> "obrien"; ""
    when nothing is left)."""
    return "".join(c for c in name if c.isalnum() or c in "_-.")[:64]


def _entry(league: Any, args: argparse.Namespace) -> int:
    from arena.league import LeagueError
    from arena.league.entries import choose_entry

    text = args.version.strip().lower().removeprefix("v")
    if not (text.isascii() and text.isdigit()):
        raise LeagueError(f"version {args.version[:40]!r}: expected a version number such "
                          f"as 3 or v3")
    if league.user(args.user) is None:
        raise LeagueError(f"no user {args.user[:60]!r}")
    entry = choose_entry(league, args.user, int(text), by="teacher (league entry)",
                         after_cut=True)
    league.audit("league entry", "final entry", args.user, entry.text())
    print(f"{args.user}'s final entry: {entry.text()}")
    return 0


def _submit(league: Any, args: argparse.Namespace) -> int:
    files = [(p.name, p.read_bytes()) for p in args.paths]
    sub = league.submit(args.user, files, kind="kaggle" if args.kaggle else None,
                        class_name=args.class_name)
    chosen = f", class {sub.class_name}" if sub.class_name else ""
    print(f"submission {sub.id}: {sub.user} version {sub.version} ({sub.kind}{chosen}), "
          f"fingerprint {sub.fingerprint}, {sub.status}")
    return 0


_COMMANDS = {"add-user": _accounts, "add-users": _accounts, "submit": _submit,
             "standings": _standings, "serve": _serve, "final": _final,
             "check": _check, "grades": _grades, "config": _config,
             "similarity": _similarity, "entry": _entry}


def run(args: argparse.Namespace) -> int:
    from arena.league import League, LeagueError, UploadError
    from arena.league.db import DISK_FULL_MESSAGE, is_disk_full
    from arena.league.entries import EntryRefused

    try:
        if args.league_command == "init":
            _check_config_file(args.config)
            _check_time_limit(args.config)
            league = League.init(args.dir, args.config)
            for note in league.config.notes:
                print(f"note: {note}", file=sys.stderr)
            print(f"league created in {args.dir}")
            return 0
        return _COMMANDS[args.league_command](League.open(args.dir), args)
    except (LeagueError, UploadError, EntryRefused, OSError, sqlite3.Error) as exc:
        if isinstance(exc, sqlite3.Error) and not is_disk_full(exc):
            raise
        text = (f"{DISK_FULL_MESSAGE} (the disk of {args.dir} is full: free some space)"
                if is_disk_full(exc) else _plain(exc))
        print(f"cxarena league {args.league_command}: error: {text}", file=sys.stderr)
        return 2


def _plain(exc: BaseException) -> str:
    """An error in words: an OSError as "PATH: what went wrong" (no "[Errno N]")."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror[0].lower()}{exc.strerror[1:]}"
    return str(exc)


def _check_time_limit(path: Path | None) -> None:
    """`init` refuses a time limit its entrants cannot be given (`java_time_problem`)."""
    from arena.league import LeagueError
    from arena.league.config import java_time_problem, parse_config

    try:
        cfg = parse_config("" if path is None else path.read_text(encoding="utf-8"),
                           str(path), None if path is None else path.parent)
    except ValueError:
        return  # League.init says what is wrong
    problem = java_time_problem(cfg)
    if problem:
        raise LeagueError(f"{path}: {problem}; no league was created")


def _check_config_file(path: Path | None) -> None:
    """A league.yaml that is not there: say where it was looked for and where the project's
    example is (the README's `--config configs/league.yaml` is relative to the project)."""
    from arena.league import LeagueError
    from arena.tournament.config import REPO_CONFIGS

    if path is None or path.is_file():
        return
    example = REPO_CONFIGS / "league.yaml"
    hint = (f"; the project's example is {example}" if example.is_file() and
            example.resolve() != path.resolve() else "")
    raise LeagueError(f"{path}: no such league config (a relative path is read from the "
                      f"folder you run in, {Path.cwd()}){hint}; no league was created")
