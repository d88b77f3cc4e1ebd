"""What the routes of every area share: the app's state (`Site`, on ``app.state.site``), the
page and refusal renderers, the league off the event loop (`db`), the session's user
(`logged_in`, `admin_only`) and the CSRF-checked form."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from arena.league import League, User
from arena.league.config import LeagueConfig
from arena.league.db import time_left
from arena.league.standings import side_name
from arena.league.web import security

__all__ = ["SESSION_KEY", "Site", "admin_only", "csv_file", "current_user",
           "db", "form", "logged_in", "page", "refuse", "side_label", "site", "when"]

HERE = Path(__file__).resolve().parent
#: the most files one upload may carry
MAX_FILES = 50
#: the session cookie's key that holds the server-side session's token
SESSION_KEY = "sid"

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]


def when(t: float | None) -> str:
    """A time stamp as the pages show it ("2026-01-31 14:05 UTC"), "" for none."""
    if not t:
        return ""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(t)))


def side_label(league: League, side: str) -> str:
    """A game's side as the pages name it: 'alice v2' for a submitted version, a reference
    bot by its short name, as on the leaderboard (`arena.league.standings.side_name`)."""
    return side_name(league, side)


def _templates() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(["html"]))
    env.filters["when"] = when
    env.filters["json"] = security.json_for_html
    return env


@dataclass
class Site:
    """The app's state, one per `create_app`: the league folder and what the requests share."""

    dir: Path
    results_root: Path
    #: the league's settings as last read (each request with a session reads them again:
    #: league.yaml may change mid-term)
    config: LeagueConfig
    #: failed logins per user name (a rotating client address does not get past it)
    name_limiter: security.LoginLimiter = field(default_factory=security.LoginLimiter)
    #: and per client address (nor does a rotating user name)
    addr_limiter: security.LoginLimiter = field(
        default_factory=lambda: security.LoginLimiter(max_failures=20))
    templates: Environment = field(default_factory=_templates)
    #: the final's plan (`FinalPlan`), and the (games, calibration games, entries) it rests on
    #: (`routes.admin`)
    final_plan: tuple[Any, Any] | None = None


def site(request: Request) -> Site:
    """The `Site` of the app serving `request`."""
    return cast(Site, request.app.state.site)


def _run(directory: Path, fn: Callable[[League], T]) -> T:
    league = League.open(directory)
    try:
        return fn(league)
    finally:
        league.conn.close()


async def db(request: Request, fn: Callable[[League], T]) -> T:
    """`fn` over the league, in Starlette's thread pool (sqlite blocks): each call opens its
    own `League`, so one sqlite connection per thread."""
    return await run_in_threadpool(_run, site(request).dir, fn)


def page(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    """`template` rendered with the page's user, its CSRF token and the deadline's time left."""
    user = getattr(request.state, "user", None)
    # a student's own deadline: their extension, if they have one
    ctx.setdefault("deadline", time_left(site(request).config,
                                         user=user.name if user is not None else None))
    html = site(request).templates.get_template(template).render(
        user=user, csrf=security.csrf_token(request.session), **ctx)
    return HTMLResponse(html, status_code=status)


def csv_file(text: str, filename: str) -> Response:
    """A CSV download named `filename`."""
    return Response(text, media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def refuse(request: Request, status: int, message: str,
           headers: Mapping[str, str] | None = None) -> HTMLResponse:
    """The error page with `message`, as a `status` response."""
    resp = page(request, "error.html", status=status, status_code=status, message=message)
    if headers:
        resp.headers.update(headers)
    return resp


async def current_user(request: Request) -> User | None:
    """The user of the request's live server-side session (also `request.state.user`), else
    None; the league's settings are read again with it (league.yaml applied mid-term shows at
    the next request)."""
    token = request.session.get(SESSION_KEY)
    if not isinstance(token, str):
        return None
    user, site(request).config = await db(request, lambda lg: (lg.session_user(token),
                                                                lg.config))
    request.state.user = user
    return user


def logged_in(handler: Endpoint) -> Endpoint:
    """`handler` for a logged-in user only: a page asked for without a session redirects to
    the login page, anything else is refused (401)."""
    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        if await current_user(request) is None:
            if request.method == "GET" and not request.url.path.endswith(".json"):
                return RedirectResponse("/login", status_code=303)
            raise HTTPException(401, "Log in first.")
        return await handler(request)
    return endpoint


def admin_only(handler: Endpoint) -> Endpoint:
    """`handler` for a logged-in admin only (403 for another user)."""
    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        if not request.state.user.admin:
            raise HTTPException(403, "The admin pages are for the league's admins.")
        return await handler(request)
    return logged_in(endpoint)


async def form(request: Request) -> FormData:
    """The POSTed form, or an HTTPException 403 when its CSRF token is missing/wrong."""
    data = await request.form(max_files=MAX_FILES, max_fields=100)
    sent = data.get(security.CSRF_FIELD) or request.headers.get(security.CSRF_HEADER)
    if not security.check_csrf(request.session, sent):
        raise HTTPException(403, "Refused: the form's CSRF token is missing or wrong "
                                 "(the page may be old: reload it and try again).")
    return data
