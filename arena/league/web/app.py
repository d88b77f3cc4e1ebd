"""The league's Starlette app: server-rendered pages (Jinja2) over the `arena.league` API.

Routes (all but /login and /static need a logged-in session; /admin* need an admin):

- ``GET/POST /login``, ``POST /logout``;
- ``GET /``: the leaderboard (rank, user, Elo and its interval, games, faults, latest version);
- ``GET/POST /submit``: upload a bot (a .py file, a Kaggle agent, .java files or a .zip of
  them, a .jar), multipart, capped before it is read whole (413);
- ``GET /submissions/{id}``: the conformance check (passed, or the problems in words with the
  bot's own stderr), its rating games as they are played (the page polls
  ``/submissions/{id}/status.json``), the result against the author's previous version;
- ``GET /submissions/{id}/download``: the version's files as uploaded (a zip when several);
- ``GET /my-games``: the student's games (every version), newest first, filtered by version,
  board, opponent and result (GET parameters), each linking to its replay;
- ``GET /games/{id}``: the replay viewer (arena/report/static/viewer.js); for the author of a
  side (and admins), the workers' analysis (evaluation strip, blunders) and the first blunder
  of the author's side (arena.league.analysis);
  ``GET /games/{id}/log/{submission_id}``: that side's stderr, for its author;
- ``GET /admin``, ``POST /admin/disable``, ``/admin/enable`` (its undo),
  ``/admin/reset-secret``, ``/admin/user``, ``/admin/freeze``, ``/admin/final``; each admin act
  asks for confirmation in the page, is kept in the audit log (`League.audit`) the admin page
  shows, and a disabling one offers its undo; ``GET /admin/similarity`` (code similarity of
  the current versions, `arena.similarity`); ``GET /standings.csv``, ``/grades.csv``
  (every roster student) and ``/final/standings.csv`` (the final's ranking with its
  tie-break), admins only.

Refusals are 4xx pages with a message: another user's submission, code, stderr or download is
403, an unknown id 404, a POST without the session's CSRF token 403, too many failed logins
429, an upload past the user's daily quota 429 (with ``Retry-After``), an oversized body 413,
a refused upload (bad archive, unknown type, a bad file name...) 400.

Sessions are server-side (`League.create_session`): the signed cookie carries the session's
random token and the CSRF token; the league's table says whether the session is live. Logout,
a secret reset, disabling a user or the admin's "End sessions" ends them for good.

What a bot or a student wrote reaches a page only escaped (Jinja2 autoescape; JSON for scripts
in ``data-`` attributes, see `security.json_for_html`), and every response carries the CSP of
`security.SECURITY_HEADERS` (no inline script). A bot's own words (its exception text, stderr)
are shown only to its author and to admins; everyone else sees how the game ended ("crash",
"timeout") without them. docs/league-web.md states the whole model.
"""

from __future__ import annotations

import io
import logging
import secrets
import shutil
import sqlite3
import time
import zipfile
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import arena.report
from arena.analysis.batch import covered
from arena.analysis.render import viewer_data
from arena.errors import UsageError
from arena.games import drawer_paths
from arena.league import League, LeagueError, UploadError
from arena.league.analysis import cached_analysis, first_blunder, losing_students, student_games
from arena.league.config import LeagueConfig
from arena.league.db import (
    DISK_FULL_MESSAGE,
    DiskFull,
    DiskQuotaExceeded,
    QuotaExceeded,
    check_file_name,
    is_disk_full,
    time_left,
)
from arena.league.disk import disk_text, league_disk_use
from arena.league.final import entries, final_time_left, plan_final
from arena.league.grades import TIE_BREAK, final_standings_csv, grades_csv
from arena.league.standings import leaderboard
from arena.league.web.core import Core, NotAvailable
from arena.league.web.security import (
    CSRF_FIELD,
    CSRF_HEADER,
    BodyLimit,
    LoginLimiter,
    SecurityHeaders,
    check_csrf,
    csrf_token,
    inline_script_csp,
    json_for_html,
)
from arena.league.worker import worker_health
from arena.records import GameRecord
from arena.report.frames import game_frames
from arena.report.html import write_report
from arena.report.show import peak_memory_text

__all__ = ["LOOPBACK_HOSTS", "create_app", "session_secret"]

HERE = Path(__file__).resolve().parent
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SECRET_FILE = "web-session.key"
#: the final's report as students see it (no bot's own words), beside report.html
PUBLIC_REPORT_HTML = "report-public.html"
#: the body cap of every request but an upload (forms are small)
FORM_LIMIT_BYTES = 64 * 1024
#: room for the multipart framing and the other fields around the uploaded files
MULTIPART_OVERHEAD_BYTES = 64 * 1024
MAX_FILES = 50
#: the most rows the "My games" page lists (the newest of those the filters match)
MY_GAMES_SHOWN = 500
#: how long a login session lives (server-side; the cookie's own lifetime is the same)
SESSION_TTL_S = 7 * 24 * 3600
#: the session cookie's key that holds the server-side session's token
SESSION_KEY = "sid"

log = logging.getLogger("arena.league.web")


def session_secret(directory: Path) -> str:
    """The key that signs session cookies: DIR/web-session.key (made once, mode 0600), so that
    sessions outlive a restart of the server."""
    path = Path(directory) / SECRET_FILE
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 32:
            return text
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(48)
    tmp = path.with_suffix(".tmp")
    tmp.touch(mode=0o600)
    tmp.write_text(key, encoding="ascii")
    tmp.replace(path)
    return key


def _fmt_time(t: float | None) -> str:
    if not t:
        return ""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(t)))


def _plain(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {k: _plain(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return str(obj)


def viewer_game(record: GameRecord, game_id: int, own_words: bool = True) -> dict[str, Any]:
    """The viewer's game object (see viewer.js) from a stored `GameRecord`, as the report
    builds it (`arena.report.html`): Connect-X's board and columns, which its drawer replays;
    another game's move texts and its positions for its drawer (`game_frames`). `own_words`:
    the viewer may read the faulting bot's own words (its exception text in the detail);
    without it the game shows only how it ended (the reason)."""
    d = record.to_dict()
    names = d.get("names") or ["", ""]
    players = [d.get("player1") or names[0] or d.get("p1", "player 1"),
               d.get("player2") or names[1] or d.get("p2", "player 2")]
    frames = game_frames(record)  # another game: its positions, for its drawer
    board: dict[str, Any] = ({"M": d["M"], "N": d["N"], "K": d["K"], "moves": d["moves"]}
                             if frames is None else {"moves": d["move_texts"]})
    return {**board,
            "times_ms": d.get("times_ms"), "players": players, "id": game_id,
            "seed": d.get("seed"), "winner": d.get("winner"), "reason": d.get("reason"),
            "offender": d.get("offender"),
            "explanation": (d.get("detail") or None) if own_words else None,
            "opening": (d.get("opening") if frames is None else d.get("opening_texts")) or [],
            "info": {k: v for k, v in (("pair", d.get("pair_id")),
                                       ("time limit (s)", d.get("timeout_s")),
                                       ("peak memory", _peaks(record)))
                     if v not in (None, "")},
            **(frames or {})}


def _peaks(record: Any) -> str | None:
    peaks = peak_memory_text(record.extra)
    return " / ".join(peaks) if peaks else None


class _App:
    def __init__(self, core: Core, results_root: Path) -> None:
        self.core = core
        self.results_root = results_root
        #: the league's settings as last read (each request with a session reads them again:
        #: league.yaml may change mid-term); None until `create_app` reads them
        self.config: LeagueConfig | None = None
        self._plan: tuple[Any, str] | None = None  # the final's plan, and what it rests on
        #: failed logins per user name (a rotating client address does not get past it)
        self.name_limiter = LoginLimiter()
        #: and per client address (nor does a rotating user name)
        self.addr_limiter = LoginLimiter(max_failures=20)
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"),
                               autoescape=select_autoescape(["html"]))
        self.env.filters["when"] = _fmt_time
        self.env.filters["json"] = json_for_html

    # ------------------------------------------------------------------ helpers
    def page(self, request: Request, template: str, status: int = 200,
             **ctx: Any) -> HTMLResponse:
        user = request.state.user if hasattr(request.state, "user") else None
        ctx.setdefault("deadline", time_left(self.config) if self.config else "")
        html = self.env.get_template(template).render(
            user=user, csrf=csrf_token(request.session), **ctx)
        return HTMLResponse(html, status_code=status)

    def refuse(self, request: Request, status: int, message: str,
               headers: dict[str, str] | None = None) -> HTMLResponse:
        resp = self.page(request, "error.html", status=status, status_code=status,
                         message=message)
        if headers:
            resp.headers.update(headers)
        return resp

    async def db(self, fn: Any) -> Any:
        return await run_in_threadpool(self.core.run, fn)

    async def current_user(self, request: Request) -> Any:
        """The user of the request's live server-side session, else None."""
        token = request.session.get(SESSION_KEY)
        if not isinstance(token, str):
            return None
        # the settings with it: league.yaml applied mid-term shows at the next request
        user, self.config = await self.db(lambda lg: (lg.session_user(token), lg.config))
        request.state.user = user
        return user

    async def form(self, request: Request) -> Any:
        """The POSTed form, or an HTTPException 403 when its CSRF token is missing/wrong."""
        form = await request.form(max_files=MAX_FILES, max_fields=100)
        sent = form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        if not check_csrf(request.session, sent):
            raise HTTPException(403, "Refused: the form's CSRF token is missing or wrong "
                                     "(the page may be old: reload it and try again).")
        return form

    # ------------------------------------------------------------------ login
    async def login_get(self, request: Request) -> Response:
        await self.current_user(request)
        return self.page(request, "login.html", error=None, name="")

    async def login_post(self, request: Request) -> Response:
        form = await self.form(request)
        name = str(form.get("name", "")).strip()[:100]
        secret = str(form.get("secret", ""))[:200]
        client = request.client.host if request.client else "?"
        wait = max(self.name_limiter.retry_after_s(name), self.addr_limiter.retry_after_s(client))
        if wait > 0:
            return self.refuse(
                request, 429, f"Too many failed logins for {name!r} or from this address: "
                f"try again in {int(wait) + 1} s.", {"Retry-After": str(int(wait) + 1)})
        user = await self.db(lambda lg: lg.verify_login(name, secret))
        if user is None:
            self.name_limiter.failed(name)
            self.addr_limiter.failed(client)
            return self.page(request, "login.html", status=401, name=name,
                             error="Unknown user or wrong secret.")
        self.name_limiter.succeeded(name)
        token = await self.db(lambda lg: lg.create_session(user.name, SESSION_TTL_S, client))
        request.session.clear()  # a new session: no fixation
        request.session[SESSION_KEY] = token
        csrf_token(request.session)
        return RedirectResponse("/", status_code=303)

    async def logout(self, request: Request) -> Response:
        await self.form(request)
        token = request.session.get(SESSION_KEY)
        if isinstance(token, str):
            await self.db(lambda lg: lg.end_session(token))
        request.session.clear()
        return RedirectResponse("/login", status_code=303)

    # ------------------------------------------------------------------ pages
    async def leaderboard(self, request: Request) -> Response:
        def read(lg: League) -> tuple[list[Any], bool, bool, float]:
            try:
                final = bool(getattr(self.core.final_status(lg), "report", ""))
            except NotAvailable:
                final = False
            # the ranked entries and the reference bots, on the anchored scale
            return leaderboard(lg), lg.frozen, final, lg.config.anchor_elo

        rows, frozen, final, anchor_elo = await self.db(read)
        anchor = next((r for r in rows if r.anchor), None)
        return self.page(request, "leaderboard.html", rows=rows, frozen=frozen, final=final,
                         anchor=anchor, anchor_elo=anchor_elo,
                         references=any(r.kind == "reference" for r in rows))

    async def submit_get(self, request: Request) -> Response:
        def read(lg: League) -> tuple[Any, Any, bool]:
            return lg.submissions(request.state.user.name), lg.config, lg.frozen

        mine, config, frozen = await self.db(read)
        return self.page(request, "submit.html", mine=list(reversed(mine)), config=config,
                         frozen=frozen, error=None,
                         last_class=mine[-1].class_name if mine else "")

    async def submit_post(self, request: Request) -> Response:
        form = await self.form(request)
        files: list[tuple[str, bytes]] = []
        try:
            for item in form.getlist("files"):
                if isinstance(item, UploadFile) and item.filename:
                    check_file_name(item.filename)  # as sent: a path is refused, not cut
                    files.append((item.filename, await item.read()))
        except UploadError as exc:
            return self.refuse(request, 400, f"Upload refused: {exc}")
        kind = "kaggle" if form.get("kind") == "kaggle" else None
        chosen = form.get("class_name")
        # an empty field keeps the last version's choice; "-" clears it
        class_name = None if not isinstance(chosen, str) or not chosen.strip() else (
            "" if chosen.strip() == "-" else chosen)
        user = request.state.user.name
        try:
            sub = await self.db(lambda lg: lg.submit(user, files, kind=kind, quota=True,
                                                     class_name=class_name))
        except QuotaExceeded as exc:
            wait = str(int(exc.retry_after_s) + 1)
            return self.refuse(request, 429, f"Upload refused: {exc}.", {"Retry-After": wait})
        except DiskFull as exc:  # 507: the server's disk, not the student's doing
            return self.refuse(request, 507, f"Upload refused: {exc}.")
        except DiskQuotaExceeded as exc:  # 413: this upload is too large for what is left
            return self.refuse(request, 413, f"Upload refused: {exc}.")
        except UploadError as exc:
            return self.refuse(request, 400, f"Upload refused: {exc}")
        return RedirectResponse(f"/submissions/{sub.id}", status_code=303)

    async def _own_submission(self, request: Request) -> Any:
        sid = int(request.path_params["sid"])
        sub = await self.db(lambda lg: lg.submission(sid))
        if sub is None:
            raise HTTPException(404, f"No submission {sid}.")
        me = request.state.user
        if sub.user != me.name and not me.admin:
            raise HTTPException(403, f"Submission {sid} is not yours: its code, its check "
                                     "and its logs are for its author only.")
        return sub

    def _status(self, lg: League, sub: Any) -> dict[str, Any]:
        try:
            games = [_plain(g) for g in self.core.games_of(lg, sub.id)]
        except NotAvailable:
            games = []
        for g in games:
            g["finished"] = _fmt_time(g.get("finished_at"))
            g["opponent_label"] = _side_label(lg, str(g.get("opponent", "")))
        try:
            versus = _plain(self.core.versus_previous(lg, sub.id))
        except NotAvailable:
            versus = "not available"
        fresh = lg.submission(sub.id) or sub
        return {"id": fresh.id, "status": fresh.status, "check_summary": fresh.check_summary,
                "check_stderr": fresh.check_stderr, "games": games, "versus": versus}

    async def submission(self, request: Request) -> Response:
        sub = await self._own_submission(request)
        status = await self.db(lambda lg: self._status(lg, sub))
        return self.page(request, "submission.html", sub=sub, st=status)

    async def submission_status(self, request: Request) -> Response:
        sub = await self._own_submission(request)
        return JSONResponse(await self.db(lambda lg: self._status(lg, sub)))

    async def download(self, request: Request) -> Response:
        sub = await self._own_submission(request)
        files = await self.db(lambda lg: lg.submission_files(sub.id))
        if len(files) == 1:
            name, data = files[0]
        else:
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for n, d in files:
                    zf.writestr(n, d)
            name, data = f"submission-{sub.id}.zip", buf.getvalue()
        safe = "".join(c for c in name if c.isalnum() or c in "._-") or "download"
        return Response(data, media_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{safe}"'})

    async def game(self, request: Request) -> Response:
        gid = int(request.path_params["gid"])

        def read(lg: League) -> tuple[Any, Any]:
            sides = self.core.game_sides(lg, gid)
            try:
                record = self.core.game_record(lg, gid)
            except NotAvailable:
                record = None
            return sides, record

        sides, record = await self.db(read)
        labels = await self.db(lambda lg: [_side_label(lg, s) for s in sides or ()])
        if sides is None and record is None:
            raise HTTPException(404, f"No game {gid}.")
        me = request.state.user
        mine = [s for s in (sides or ()) if s.startswith("sub:")]
        subs = await self.db(lambda lg: [lg.submission(int(s[4:])) for s in mine])
        own = {f"sub:{s.id}" for s in subs if s is not None and (s.user == me.name or me.admin)}
        logs = [(s.id, f"{s.user} v{s.version}") for s in subs
                if s is not None and f"sub:{s.id}" in own]
        game = None
        if record is not None:
            offender = getattr(record, "offender", None)
            side = sides[offender - 1] if sides and offender in (1, 2) else None
            # the faulting bot's own words (its exception text): its author and admins only
            game = viewer_game(record, gid, own_words=me.admin or side in own
                               or not str(side or "").startswith("sub:"))
        blunder, analysis_state = None, None
        if game is not None and sides is not None and own:
            blunder, analysis_state = await self.db(
                lambda lg: _own_analysis(lg, gid, record, sides, own, labels, game))
        return self.page(request, "game.html", gid=gid, sides=labels, game=game, logs=logs,
                         blunder=blunder, analysis_state=analysis_state)

    async def my_games(self, request: Request) -> Response:
        """The logged-in student's games (every version's), newest first, filtered by the GET
        parameters version, board, opponent and result (a value not offered is ignored)."""
        me = request.state.user
        games, versions = await self.db(lambda lg: (
            student_games(lg, me.name), [s.version for s in lg.submissions(me.name)]))
        options = {
            "version": [str(v) for v in versions],
            "board": sorted({g.board for g in games}, key=_board_order),
            "opponent": sorted({g.opponent_key for g in games}),
            "result": ["win", "draw", "loss"],
        }
        chosen = {k: str(request.query_params.get(k, "")) for k in options}
        chosen = {k: v if v in options[k] else "" for k, v in chosen.items()}
        rows = [g for g in games
                if (not chosen["version"] or str(g.version) == chosen["version"])
                and (not chosen["board"] or g.board == chosen["board"])
                and (not chosen["opponent"] or g.opponent_key == chosen["opponent"])
                and (not chosen["result"] or g.result == chosen["result"])]
        return self.page(request, "mygames.html", rows=rows[:MY_GAMES_SHOWN], matching=len(rows),
                         total=len(games), options=options, chosen=chosen,
                         shown=MY_GAMES_SHOWN)

    async def game_log(self, request: Request) -> Response:
        gid = int(request.path_params["gid"])
        sid = int(request.path_params["sid"])
        sub = await self.db(lambda lg: lg.submission(sid))
        sides = await self.db(lambda lg: self.core.game_sides(lg, gid))
        if sub is None or sides is None or f"sub:{sid}" not in sides:
            raise HTTPException(404, f"No log of submission {sid} in game {gid}.")
        me = request.state.user
        if sub.user != me.name and not me.admin:
            raise HTTPException(403, "That log belongs to another user's bot.")
        try:
            text = await self.db(lambda lg: self.core.game_log(lg, gid, sid))
        except NotAvailable:
            text = "(this version of the league does not keep per-game logs)"
        return PlainTextResponse(text or "(the bot wrote nothing to stderr)")

    # ------------------------------------------------------------------ admin
    def _admin(self, request: Request) -> None:
        if not request.state.user.admin:
            raise HTTPException(403, "The admin pages are for the league's admins.")

    def _admin_view(self, lg: League) -> dict[str, Any]:
        subs = lg.submissions()
        try:
            queue = _plain(self.core.queue_state(lg))
        except NotAvailable:
            counts: dict[str, int] = {}
            for s in subs:
                counts[s.status] = counts.get(s.status, 0) + 1
            try:
                (played,) = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()
            except Exception:  # no game stored yet
                played = 0
            queue = {"checks waiting": counts.get("queued", 0) + counts.get("checking", 0),
                     "versions rating": counts.get("rating", 0) + counts.get("active", 0),
                     "versions failed": counts.get("failed", 0),
                     "versions disabled": counts.get("disabled", 0),
                     "games played": played}
        try:
            final = _plain(self.core.final_status(lg))
            final_available = True
            if final.get("state") == "running":  # how far, by cost, and the time left
                final["text"] = final["text"].rstrip(".") + final_time_left(lg) + "."
        except NotAvailable:
            final, final_available = None, False
        sessions: dict[str, list[Any]] = {}
        for session in lg.sessions():
            sessions.setdefault(session.user, []).append(session)
        plan = None
        if final is None or final.get("state") == "not started":
            try:
                plan = self._final_plan(lg)
            except (LeagueError, ValueError, UsageError) as exc:
                plan = f"The final round robin cannot be planned yet: {exc}"
        try:
            disk = disk_text(league_disk_use(lg))
        except (OSError, sqlite3.Error) as exc:  # the page still shows the rest
            disk = f"unknown ({exc})"
        try:
            usage = shutil.disk_usage(lg.dir)
            disk = (f"{_mib(usage.free)} free on this disk (of {_mib(usage.total)}); the "
                    f"league takes {disk}")
        except OSError as exc:
            disk = f"free space unknown ({exc}); the league takes {disk}"
        return {"users": lg.users(), "subs": list(reversed(subs)), "queue": _lines(queue),
                "workers": worker_health(lg.dir), "disk": disk,
                "frozen": lg.frozen, "final": final, "final_available": final_available,
                "final_plan": plan, "sessions": sessions, "audit": lg.audit_log(),
                "tie_break": TIE_BREAK}

    def _final_plan(self, lg: League) -> str:
        """The final's plan in words (`plan_final`), made again only when a game was stored or
        the entries changed."""
        (games,) = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()
        key = (games, tuple(entries(lg)))
        if self._plan is None or self._plan[0] != key:
            self._plan = (key, plan_final(lg).text())
        return self._plan[1]

    async def admin(self, request: Request, **extra: Any) -> Response:
        self._admin(request)
        view = await self.db(self._admin_view)
        return self.page(request, "admin.html", notice=extra.get("notice"),
                         new_secret=extra.get("new_secret"), undo=extra.get("undo"), **view)

    async def _audit(self, request: Request, action: str, target: str, detail: str) -> None:
        admin = request.state.user.name
        await self.db(lambda lg: lg.audit(admin, action, target, detail))

    async def admin_disable(self, request: Request) -> Response:
        """Disable a version (`League.disable`), saying whose entry it leaves; undo offered."""
        return await self._submission_act(request, disable=True)

    async def admin_enable(self, request: Request) -> Response:
        """Undo the disabling of a version (`League.enable`)."""
        return await self._submission_act(request, disable=False)

    async def _submission_act(self, request: Request, disable: bool) -> Response:
        self._admin(request)
        form = await self.form(request)
        sid = _int_or_none(form.get("submission_id"))
        sub = None if sid is None else await self.db(lambda lg: lg.submission(sid))
        if sid is None or sub is None:
            raise HTTPException(404, f"No submission {form.get('submission_id')!s:.40}.")

        def act(lg: League) -> str:
            lg.disable(sid) if disable else lg.enable(sid)
            entry = dict(entries(lg)).get(sub.user)
            now = lg.submission(entry) if entry is not None else None
            return (f"{sub.user}'s entry is now v{now.version}" if now is not None
                    else f"{sub.user} has no entry now (no other version passed its check)")

        where = await self.db(act)
        label = f"{sub.user} v{sub.version}"
        if disable:
            notice = (f"Submission {sid} ({label}) is disabled: out of the rating games, the "
                      f"leaderboard and the final; {where}.")
            undo = {"action": "/admin/enable", "fields": {"submission_id": str(sid)},
                    "label": f"Undo: enable {label} again"}
        else:
            notice, undo = f"Submission {sid}: {label} is enabled again; {where}.", None
        await self._audit(request, "disable submission" if disable else "enable submission",
                          f"{label} (submission {sid})", where)
        return await self.admin(request, notice=notice, undo=undo)

    async def admin_reset(self, request: Request) -> Response:
        self._admin(request)
        form = await self.form(request)
        name = str(form.get("user", ""))[:100]
        try:
            secret = await self.db(lambda lg: lg.reset_secret(name))
        except LeagueError as exc:
            raise HTTPException(404, str(exc)) from exc
        await self._audit(request, "reset secret", name, "a new secret; their sessions ended")
        return await self.admin(request, notice=f"New secret for {name} (shown once):",
                                new_secret=secret)

    async def admin_user(self, request: Request) -> Response:
        """Disable or enable an account, or end its sessions (all, or the one named by
        `session`)."""
        self._admin(request)
        form = await self.form(request)
        name = str(form.get("user", ""))[:100]
        action = str(form.get("action", ""))
        key = str(form.get("session", ""))[:20] or None
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
            notice = await self.db(act)
        except LeagueError as exc:
            raise HTTPException(404, str(exc)) from exc
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from exc
        await self._audit(request, {"disable": "disable user", "enable": "enable user",
                                    "end-sessions": "end sessions"}[action], name, notice)
        undo = ({"action": "/admin/user", "fields": {"user": name, "action": "enable"},
                 "label": f"Undo: enable {name} again"} if action == "disable" else None)
        return await self.admin(request, notice=notice, undo=undo)

    async def admin_freeze(self, request: Request) -> Response:
        self._admin(request)
        await self.form(request)
        await self.db(lambda lg: lg.freeze())
        await self._audit(request, "freeze", "the leaderboard", "no new versions accepted")
        return await self.admin(request, notice="The leaderboard is frozen: no new versions "
                                                "are accepted.")

    async def admin_final(self, request: Request) -> Response:
        self._admin(request)
        await self.form(request)
        try:
            folder = await self.db(lambda lg: self.core.start_final(lg, self.results_root))
        except NotAvailable:
            raise HTTPException(501, "The final round robin is not available in this version "
                                     "of the league core.") from None
        except (LeagueError, ValueError) as exc:
            raise HTTPException(409, f"The final round robin cannot start: {exc}") from exc
        await self._audit(request, "start final", "the final round robin", str(folder))
        return await self.admin(request, notice=f"The final round robin started ({folder}).")

    async def final_report(self, request: Request) -> Response:
        try:
            status = await self.db(self.core.final_status)
        except NotAvailable:
            status = None
        path = getattr(status, "report", None) or getattr(status, "path", None)
        if not path or not Path(path).is_file():
            raise HTTPException(404, "No report of the final round robin yet.")
        report = Path(path)
        if not request.state.user.admin:  # the bots' own words are their authors' to read
            report = await run_in_threadpool(public_report, report)
        text = report.read_text(encoding="utf-8")  # self-contained: its own scripts only
        return HTMLResponse(text, headers={"Content-Security-Policy": inline_script_csp(text)})

    async def admin_similarity(self, request: Request) -> Response:
        """Code similarity of every student's current version (`arena.similarity`), flagged
        pairs first, admins only; play similarity takes minutes of games: `cxarena league
        similarity DIR` gives both."""
        self._admin(request)
        from arena.similarity.report import league_similarity  # copydetect: only when asked

        report = await self.db(lambda lg: league_similarity(lg, play=False))
        return self.page(request, "similarity.html", report=report)

    async def grades_csv(self, request: Request) -> Response:
        """Every roster student's grade row (`arena.league.grades.grades_csv`), admins only."""
        self._admin(request)
        text = await self.db(grades_csv)
        return Response(text, media_type="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="grades.csv"'})

    async def final_standings_csv(self, request: Request) -> Response:
        """The final's ranking with its tie-break (`final_standings_csv`), admins only."""
        self._admin(request)
        text = await self.db(final_standings_csv)
        if text is None:
            raise HTTPException(404, "The final round robin has not started: no standings yet.")
        return Response(text, media_type="text/csv", headers={
            "Content-Disposition": 'attachment; filename="final-standings.csv"'})

    async def standings_csv(self, request: Request) -> Response:
        self._admin(request)
        text = await self.db(self.core.standings_csv)
        return Response(text, media_type="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="standings.csv"'})


def public_report(report: Path) -> Path:
    """The final's report without what the bots wrote (fault details, stderr), for students:
    `report-public.html` beside `report`, made again whenever `report` is newer."""
    public = report.with_name(PUBLIC_REPORT_HTML)
    if not public.is_file() or public.stat().st_mtime < report.stat().st_mtime:
        write_report(report.parent, public, bot_text=False)
    return public


def _board_order(board: str) -> tuple[int, ...]:
    """'6x7x4' as (6, 7, 4), so that boards sort by size."""
    try:
        return tuple(int(x) for x in board.split("x"))
    except ValueError:
        return (1 << 30,)


def _own_analysis(lg: League, gid: int, record: Any, sides: tuple[str, str], own: set[str],
                  labels: list[str], game: dict[str, Any]
                  ) -> tuple[dict[str, Any] | None, str | None]:
    """For a viewer who wrote a side of the game (or an admin): the cached analysis into the
    viewer's game object, and the first blunder of the viewer's side (the side that lost when
    the viewer has both); ("pending") when a student lost it on a covered board and the
    workers have not analysed it yet; (None, None) when there is none to come."""
    analysis = cached_analysis(lg, gid)
    if analysis is None or analysis.moves != tuple(record.moves):
        lost = losing_students(sides, record.winner)
        pending = bool(lost) and (sides[lost[0] - 1] in own and lg.config.analysis_budget_s > 0
                   and record.game == "connectx" and covered(record.M, record.N))
        return None, "pending" if pending else None
    game["analysis"] = viewer_data(analysis)
    mine = [p for p in (1, 2) if sides[p - 1] in own]
    loser = 3 - record.winner if record.winner in (1, 2) else None
    player = loser if loser in mine else mine[0]
    first = first_blunder(analysis, player)
    sub = lg.submission(int(sides[player - 1][4:]))
    return {"player": player, "label": labels[player - 1] if player <= len(labels) else "",
            "author": sub.user if sub else "",
            "ply": None if first is None else first.ply,
            "move": None if first is None else first.ply + 1,
            "col": None if first is None else first.col,
            "reason": "" if first is None else first.reason,
            "better": [] if first is None else list(first.better)}, "ready"


def _side_label(lg: League, side: str) -> str:
    """'alice v2' for 'sub:<id>', a reference bot's SPEC as it is."""
    if side.startswith("sub:") and side[4:].isdigit():
        sub = lg.submission(int(side[4:]))
        return f"{sub.user} v{sub.version}" if sub else side
    return side


def _lines(queue: Any) -> Any:
    """The queue's values as text for the admin page (a list: one item a line)."""
    if not isinstance(queue, dict):
        return queue
    return {k: "\n  ".join(["", *map(str, v)]) if isinstance(v, (list, tuple)) and v
            else ("none" if isinstance(v, (list, tuple)) else v) for k, v in queue.items()}


def _mib(size: float) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


def _int_or_none(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


PUBLIC = ("/login", "/static/")


def create_app(directory: Path | str, *, results_root: Path | str | None = None,
               allowed_hosts: Iterable[str] | None = LOOPBACK_HOSTS,
               secret_key: str | None = None) -> Starlette:
    """The league web app over the league in `directory` (LeagueError if it is not one).
    `allowed_hosts` (None: any) are the names the browser may use in the Host header."""
    directory = Path(directory)
    core = Core(directory)
    app = _App(core, Path(results_root) if results_root else directory / "results")
    app.config = core.run(lambda lg: lg.config)

    def upload_cap() -> int:  # the latest settings' (max_upload_bytes may change mid-term)
        assert app.config is not None
        return app.config.max_upload_bytes + MULTIPART_OVERHEAD_BYTES

    def logged_in(handler: Any, admin: bool = False) -> Any:
        async def endpoint(request: Request) -> Response:
            user = await app.current_user(request)
            if user is None:
                if request.method == "GET" and not request.url.path.endswith(".json"):
                    return RedirectResponse("/login", status_code=303)
                raise HTTPException(401, "Log in first.")
            return await handler(request)
        return endpoint

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if not hasattr(request.state, "user"):
            request.state.user = None
        if request.url.path.endswith(".json"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return app.refuse(request, exc.status_code, str(exc.detail))

    async def disk_full(request: Request, exc: Exception) -> Response:
        """A full disk (sqlite's SQLITE_FULL, ENOSPC) anywhere: 507 with the message, logged
        once per request for the admin; anything else goes on as an error."""
        if not is_disk_full(exc):
            raise exc
        log.error("%s %s: the disk is full (%s)", request.method, request.url.path, exc)
        if not hasattr(request.state, "user"):
            request.state.user = None
        if request.url.path.endswith(".json"):
            return JSONResponse({"error": DISK_FULL_MESSAGE}, status_code=507)
        return app.refuse(request, 507, f"Refused: {DISK_FULL_MESSAGE}.")

    routes = [
        Route("/login", app.login_get, methods=["GET"]),
        Route("/login", app.login_post, methods=["POST"]),
        Route("/logout", logged_in(app.logout), methods=["POST"]),
        Route("/", logged_in(app.leaderboard)),
        Route("/submit", logged_in(app.submit_get), methods=["GET"]),
        Route("/submit", logged_in(app.submit_post), methods=["POST"]),
        Route("/submissions/{sid:int}", logged_in(app.submission)),
        Route("/submissions/{sid:int}/status.json", logged_in(app.submission_status)),
        Route("/submissions/{sid:int}/download", logged_in(app.download)),
        Route("/my-games", logged_in(app.my_games)),
        Route("/games/{gid:int}", logged_in(app.game)),
        Route("/games/{gid:int}/log/{sid:int}", logged_in(app.game_log)),
        Route("/admin", logged_in(app.admin)),
        Route("/admin/disable", logged_in(app.admin_disable), methods=["POST"]),
        Route("/admin/enable", logged_in(app.admin_enable), methods=["POST"]),
        Route("/admin/reset-secret", logged_in(app.admin_reset), methods=["POST"]),
        Route("/admin/user", logged_in(app.admin_user), methods=["POST"]),
        Route("/admin/freeze", logged_in(app.admin_freeze), methods=["POST"]),
        Route("/admin/final", logged_in(app.admin_final), methods=["POST"]),
        Route("/final/report.html", logged_in(app.final_report)),
        Route("/standings.csv", logged_in(app.standings_csv)),
        Route("/grades.csv", logged_in(app.grades_csv)),
        Route("/admin/similarity", logged_in(app.admin_similarity)),
        Route("/final/standings.csv", logged_in(app.final_standings_csv)),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        Route("/viewer/games/{name}/draw.js", _game_drawer),  # viewer.js loads a game's own
        Mount("/viewer", StaticFiles(directory=_report_static()), name="viewer"),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        hosts = {h.lower() for h in allowed_hosts}
        middleware.append(Middleware(
            TrustedHostMiddleware,
            allowed_hosts=sorted(hosts | {f"[{h}]" for h in hosts if ":" in h})))
    middleware += [
        Middleware(BodyLimit,
                   limit_for=lambda path: upload_cap() if path == "/submit" else FORM_LIMIT_BYTES),
        Middleware(SessionMiddleware, secret_key=secret_key or session_secret(directory),
                   session_cookie="league_session", same_site="lax", https_only=False,
                   max_age=SESSION_TTL_S),
    ]
    web = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: http_error,
                                        sqlite3.Error: disk_full, OSError: disk_full})
    web.state.login_limiters = (app.name_limiter, app.addr_limiter)  # tests read their size
    return web


async def _game_drawer(request: Request) -> Response:
    """A game's board drawer for the replay viewer (the draw.js of the game's folder)."""
    path = drawer_paths().get(str(request.path_params["name"]))
    if path is None:
        raise HTTPException(404, "No such game drawer.")
    return FileResponse(path, media_type="text/javascript")


def _report_static() -> Path:

    return Path(arena.report.__file__).resolve().parent / "static"
