"""The admin pages and their acts, each kept in the audit log; the teacher's CSV downloads; and
the final's report (for students without the bots' own words). A version's disable/enable:
`routes.submissions`.

``/admin``: the leaderboard's freeze, the final, the queue, the workers' health, the disk, the
roster (one compact row per student: the grade row of grades.csv with the latest check and the
leaderboard's rank; ``?q=`` filters it by name, and admin.js filters it as one types), the
newest uploads and the audit log. ``/admin/user/NAME``: one account, its live sessions, its
versions and the buttons that act on them (reset the secret, end sessions, disable/enable).
"""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from arena.errors import UsageError
from arena.league import League, LeagueError
from arena.league.db import LeagueGames, format_time
from arena.league.disk import disk_text, league_disk_use
from arena.league.entries import Status
from arena.league.final import entries, final_status, final_time_left, plan_final, start_final
from arena.league.final_length import measured_games
from arena.league.final_measure import measure_status, start_measure
from arena.league.grades import TIE_BREAK, final_standings_csv, grades_csv
from arena.league.standings import leaderboard
from arena.league.web.common import Site, admin_only, csv_file, db, form, logged_in, page, site
from arena.league.web.security import inline_script_csp
from arena.league.worker import queue_state, worker_health
from arena.results.fairness import load_account

__all__ = ["admin_page", "audit", "public_report", "roster", "routes"]

#: the final's report as students see it (no bot's own words), beside report.html
PUBLIC_REPORT_HTML = "report-public.html"
#: the longest roster search (``?q=``) taken; the rest is dropped
MAX_QUERY = 100
#: the newest uploads the admin page lists (a student's page lists all of theirs)
NEWEST_UPLOADS = 20
#: the longest check summary the roster shows (its version's page shows all of it)
MAX_SUMMARY = 120


def _lines(queue: dict[str, Any]) -> dict[str, Any]:
    """The queue's values as text for the admin page (a list: one item a line)."""
    return {k: "\n  ".join(["", *map(str, v)]) if isinstance(v, (list, tuple)) and v
            else ("none" if isinstance(v, (list, tuple)) else v) for k, v in queue.items()}


def _mib(size: float) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


def _final_length(lg: League, state: Site) -> dict[str, Any]:
    """The admin card of the final's length (admin_final_plan.html): its plan (`plan_final`,
    made again only when a game was stored, a calibration game kept, or the entries changed;
    or why it cannot be planned) and the calibration run's state (`measure_status`)."""
    games = LeagueGames(lg).count()
    key = (games, len(measured_games(lg.dir)), tuple(entries(lg)))
    plan, error = None, ""
    try:
        if state.final_plan is None or state.final_plan[0] != key:
            state.final_plan = (key, plan_final(lg))
        plan = state.final_plan[1]
    except (LeagueError, ValueError, UsageError) as exc:
        error = f"The final round robin cannot be planned yet: {exc}"
    return {"plan": plan, "error": error, "measure": measure_status(lg)}


def _disk(lg: League) -> str:
    """What the league takes of the disk, and what is free on it."""
    try:
        used = disk_text(league_disk_use(lg))
    except (OSError, sqlite3.Error) as exc:  # the page still shows the rest
        used = f"unknown ({exc})"
    try:
        usage = shutil.disk_usage(lg.dir)
    except OSError as exc:
        return f"free space unknown ({exc}); the league takes {used}"
    return (f"{_mib(usage.free)} free on this disk (of {_mib(usage.total)}); the league "
            f"takes {used}")


def _extensions(lg: League) -> str:
    """The extensions of league.yaml in one line: each student's own deadline, and whether it
    still runs (the frozen leaderboard is the league's deadline's: they are not in it with
    the versions they upload since)."""
    return "; ".join(f"{user}: extension until {format_time(ts)}"
                     f"{' (running)' if lg.cut_of(user) is None else ' (ended)'}"
                     for user, ts in lg.config.extensions)


#: the rating games the admin page's account of a busy machine looks at (the newest)
BUSY_GAMES = 1000


def _busy(lg: League) -> str:
    """The account of a busy machine over the newest rating games, in the words every
    command that plays ends with (`arena.results.fairness`)."""
    return load_account([g.record for g in LeagueGames(lg).games(newest=BUSY_GAMES)],
                        lg.config.timeout_s).text()


def _view(lg: League, state: Site) -> dict[str, Any]:
    """Everything the admin page shows."""
    final = asdict(final_status(lg))
    if final["state"] == "running":  # how far, by cost, and the time left
        final["text"] = final["text"].rstrip(".") + final_time_left(lg) + "."
    sessions: dict[str, list[Any]] = {}
    for session in lg.sessions():
        sessions.setdefault(session.user, []).append(session)
    plan = _final_length(lg, state) if final["state"] == "not started" else None
    return {"users": lg.users(), "subs": list(reversed(lg.submissions())),
            "queue": _lines(queue_state(lg)), "workers": worker_health(lg.dir),
            "disk": _disk(lg), "frozen": lg.frozen, "final": final, "final_length": plan,
            "sessions": sessions, "audit": lg.audit_log(), "tie_break": TIE_BREAK,
            "extensions": _extensions(lg), "busy": _busy(lg), "busy_games": BUSY_GAMES}


def _short(text: str, limit: int = MAX_SUMMARY) -> str:
    """`text` on one line, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def roster(lg: League, query: str = "") -> list[dict[str, Any]]:
    """One row per roster student whose name holds `query` (any case): the grade row of
    grades.csv (`grades_csv`: versions submitted and passed, entry, score against each
    reference bot, rating with its interval, faults, disabled) with the student's rank on the
    leaderboard and their latest version's check."""
    query = query.strip().lower()
    ranks = {r.user: r.rank for r in leaderboard(lg) if r.kind == "entry"}
    latest: dict[str, Any] = {}
    for version in lg.submissions():  # by id: the last one is the newest
        latest[version.user] = version
    reader = csv.DictReader(io.StringIO(grades_csv(lg)))
    refs = [f[3:-7] for f in reader.fieldnames or () if f.startswith("vs_")
            and f.endswith("_points")]
    rows = []
    for g in reader:
        name = g["user"]
        if query and query not in name.lower():
            continue
        sub = latest.get(name)
        vs = []
        for ref in refs:
            points, games = g[f"vs_{ref}_points"], g[f"vs_{ref}_games"]
            won = bool(games) and float(points or 0) > int(games) / 2
            vs.append({"bot": ref, "points": points, "games": games, "beats": won})
        rows.append({
            "name": name, "disabled": g["disabled"] == "yes",
            "submitted": int(g["submitted"]), "passed": int(g["passed"]),
            "latest": None if sub is None else {
                "id": sub.id, "version": sub.version, "status": str(sub.status),
                "summary": _short(sub.check_summary) if sub.status is Status.FAILED else ""},
            "entry_version": g["entry_version"], "entry_id": g["entry_submission_id"],
            "vs": vs, "elo": g["elo"], "elo_low": g["elo_low"], "elo_high": g["elo_high"],
            "games": g["rated_games"], "faults": int(g["faults"] or 0),
            "rank": ranks.get(name), "final_rank": g["final_rank"]})
    return rows


def _roster_view(lg: League, query: str) -> dict[str, Any]:
    """The admin page's roster (`roster`, filtered by `query`) and the newest uploads."""
    rows = roster(lg, query)
    return {"roster": rows, "q": query,
            "refs": [v["bot"] for v in rows[0]["vs"]] if rows else [],
            "subs": list(reversed(lg.submissions()))[:NEWEST_UPLOADS]}


def _query(request: Request) -> str:
    """The roster search of the request (``?q=``), bounded."""
    return request.query_params.get("q", "")[:MAX_QUERY]


async def admin_page(request: Request, **extra: Any) -> Response:
    """The admin page, with the notice (a new secret, an undo) of the act just done."""
    state = site(request)
    query = _query(request)
    view = await db(request, lambda lg: {**_view(lg, state), **_roster_view(lg, query)})
    return page(request, "admin.html", notice=extra.get("notice"),
                new_secret=extra.get("new_secret"), undo=extra.get("undo"), **view)


async def user_page(request: Request, name: str, **extra: Any) -> Response:
    """One account's page: its state, live sessions and versions, and the buttons that act
    on them; with the notice (a new secret, an undo) of the act just done. 404 for no such
    user."""
    def build(lg: League) -> dict[str, Any] | None:
        account = lg.user(name)
        if account is None:
            return None
        return {"account": account,
                "sessions": [s for s in lg.sessions() if s.user == name],
                "subs": list(reversed(lg.submissions(name))),
                "row": next((r for r in roster(lg, name) if r["name"] == name), None)}

    view = await db(request, build)
    if view is None:
        raise HTTPException(404, "No such user.")
    return page(request, "admin_user.html", notice=extra.get("notice"),
                new_secret=extra.get("new_secret"), undo=extra.get("undo"), **view)


@admin_only
async def admin_user_page(request: Request) -> Response:
    """``/admin/user/NAME``."""
    return await user_page(request, str(request.path_params["name"])[:100])


async def audit(request: Request, action: str, target: str, detail: str) -> None:
    """Keep an admin's act in the audit log."""
    admin = request.state.user.name
    await db(request, lambda lg: lg.audit(admin, action, target, detail))


@admin_only
async def admin_reset(request: Request) -> Response:
    data = await form(request)
    name = str(data.get("user", ""))[:100]
    try:
        secret = await db(request, lambda lg: lg.reset_secret(name))
    except LeagueError as exc:
        raise HTTPException(404, str(exc)) from exc
    await audit(request, "reset secret", name, "a new secret; their sessions ended")
    return await user_page(request, name, notice=f"New secret for {name} (shown once):",
                           new_secret=secret)


@admin_only
async def admin_user(request: Request) -> Response:
    """Disable or enable an account, or end its sessions (all, or the one named by
    `session`)."""
    data = await form(request)
    name = str(data.get("user", ""))[:100]
    action = str(data.get("action", ""))
    key = str(data.get("session", ""))[:20] or None
    me = request.state.user.name

    def act(lg: League) -> str:
        if lg.user(name) is None:
            raise LeagueError(f"no user {name!r}")
        if action == "disable":
            if name == me:
                raise ValueError("you cannot disable your own account")
            lg.set_disabled(name, True)
            return (f"User {name} is disabled: out of the leaderboard, standings.csv and "
                    f"the final's entries; their sessions ended, no login or upload.")
        if action == "enable":
            lg.set_disabled(name, False)
            return f"User {name} is enabled again: back in the leaderboard and the final."
        if action == "end-sessions":
            n = lg.end_sessions(name, key)
            return f"{n} session(s) of {name} ended."
        raise ValueError(f"unknown action {action[:40]!r}")

    try:
        notice = await db(request, act)
    except LeagueError as exc:
        raise HTTPException(404, str(exc)) from exc
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc
    await audit(request, {"disable": "disable user", "enable": "enable user",
                          "end-sessions": "end sessions"}[action], name, notice)
    undo = ({"action": "/admin/user", "fields": {"user": name, "action": "enable"},
             "label": f"Undo: enable {name} again"} if action == "disable" else None)
    return await user_page(request, name, notice=notice, undo=undo)


@admin_only
async def admin_freeze(request: Request) -> Response:
    await form(request)
    await db(request, lambda lg: lg.freeze())
    await audit(request, "freeze", "the leaderboard", "no new versions accepted")
    return await admin_page(request, notice="The leaderboard is frozen: no new versions are "
                                            "accepted.")


@admin_only
async def admin_final(request: Request) -> Response:
    await form(request)
    results_root = site(request).results_root
    try:
        folder = await db(request, lambda lg: start_final(lg, results_root))
    except (LeagueError, ValueError) as exc:
        raise HTTPException(409, f"The final round robin cannot start: {exc}") from exc
    await audit(request, "start final", "the final round robin", folder)
    return await admin_page(request, notice=f"The final round robin started ({folder}).")


@admin_only
async def admin_final_measure(request: Request) -> Response:
    """Start the calibration games on the final's boards in the background (`start_measure`:
    a process of its own; the page returns at once and shows how far it got)."""
    await form(request)
    try:
        games = await db(request, start_measure)
    except LeagueError as exc:
        raise HTTPException(409, f"The final's boards cannot be measured: {exc}") from exc
    if not games:
        return await admin_page(request, notice="Every board of the final has measured games "
                                                "already: nothing to play.")
    await audit(request, "measure final", "the final's boards", f"{games} calibration games")
    return await admin_page(request, notice=f"Measuring the final's boards: {games} calibration "
                                            f"games, in the background.")


def public_report(report: Path) -> Path:
    """The final's report without what the bots wrote (fault details, stderr), for students:
    `report-public.html` beside `report`, made again whenever `report` is newer."""
    public = report.with_name(PUBLIC_REPORT_HTML)
    if not public.is_file() or public.stat().st_mtime < report.stat().st_mtime:
        from arena.report.html import write_report  # matplotlib: only when a report is made

        write_report(report.parent, public, bot_text=False)
    return public


@logged_in
async def final_report(request: Request) -> Response:
    status = await db(request, final_status)
    if not status.report or not Path(status.report).is_file():
        raise HTTPException(404, "No report of the final round robin yet.")
    report = Path(status.report)
    if not request.state.user.admin:  # the bots' own words are their authors' to read
        report = await run_in_threadpool(public_report, report)
    text = report.read_text(encoding="utf-8")  # self-contained: its own scripts only
    return HTMLResponse(text, headers={"Content-Security-Policy": inline_script_csp()})


@admin_only
async def admin_similarity(request: Request) -> Response:
    """Code similarity of every version that passed its check, final entries first, as kept
    per version and pair (`arena.similarity.codestore`: made once, in the background), with
    the play similarity of the answers stored per version (play takes minutes of games: the
    page does not play), flagged pairs first; each pair links to its side-by-side view."""
    from arena.similarity.answers import list_run  # the answers stored per version
    from arena.similarity.codestore import code_report  # the code scores kept
    from arena.similarity.games import game_notes  # the league's own games
    from arena.similarity.store import listing  # with the report

    def build(lg: League) -> tuple[Any, Any]:
        report = code_report(lg)
        report.notes.extend(game_notes(lg))  # moves of their real games: a screen-aware copy
        return report, listing(report, list_run(lg))

    report, listed = await db(request, build)
    return page(request, "similarity.html", report=report, listed=listed)


#: the largest submission id asked for (sqlite's integers are 64-bit)
_MAX_ID = 2**63 - 1


def _submission_id(request: Request, key: str) -> int:
    """The query's submission id `key`, or an HTTPException 404."""
    text = request.query_params.get(key, "")
    if not text.isdigit() or len(text) > 19 or not 0 < int(text) <= _MAX_ID:
        raise HTTPException(404, "No such version.")
    return int(text)


@admin_only
async def admin_similarity_pair(request: Request) -> Response:
    """Two versions side by side (``?a=ID&b=ID``, submission ids): their code with the
    stretches code similarity matched marked, and the positions where they chose the same
    move when the last stored run played them (`arena.similarity.view`); 404 for an unknown
    id."""
    from arena.similarity.answers import pair_run  # copydetect: only when a pair is asked
    from arena.similarity.codestore import kept_code  # the fingerprints kept
    from arena.similarity.view import MAX_SHOWN, pair_view, version_sources  # the same

    a, b = _submission_id(request, "a"), _submission_id(request, "b")

    def build(lg: League) -> Any:
        try:
            side_a, side_b = version_sources(lg, a), version_sources(lg, b)
        except KeyError:
            return None
        return pair_view(side_a, side_b, pair_run(lg, a, b),
                         kept=(kept_code(lg, a), kept_code(lg, b)))

    view = await db(request, build)
    if view is None:
        raise HTTPException(404, "No such version.")
    return page(request, "similarity_pair.html", view=view, max_kb=MAX_SHOWN // 1000)


@admin_only
async def grades_csv_file(request: Request) -> Response:
    """Every roster student's grade row (`arena.league.grades.grades_csv`)."""
    return csv_file(await db(request, grades_csv), "grades.csv")


@admin_only
async def final_standings_csv_file(request: Request) -> Response:
    """The final's ranking with its tie-break (`final_standings_csv`)."""
    text = await db(request, final_standings_csv)
    if text is None:
        raise HTTPException(404, "The final round robin has not started: no standings yet.")
    return csv_file(text, "final-standings.csv")


routes = [
    Route("/admin", admin_only(admin_page)),
    Route("/admin/reset-secret", admin_reset, methods=["POST"]),
    Route("/admin/user", admin_user, methods=["POST"]),
    Route("/admin/user/{name}", admin_user_page),
    Route("/admin/freeze", admin_freeze, methods=["POST"]),
    Route("/admin/final", admin_final, methods=["POST"]),
    Route("/admin/final/measure", admin_final_measure, methods=["POST"]),
    Route("/admin/similarity", admin_similarity),
    Route("/admin/similarity/pair", admin_similarity_pair),
    Route("/final/report.html", final_report),
    Route("/final/standings.csv", final_standings_csv_file),
    Route("/grades.csv", grades_csv_file),
]
