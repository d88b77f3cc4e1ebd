"""The league's Starlette app: server-rendered pages (Jinja2) over the `arena.league` API,
built from the routes of each area (`routes.auth`, `routes.submissions`, `routes.games`,
`routes.admin`; their docstrings list the URLs). All but /login and the static files need a
logged-in session; the admin pages need an admin.

Refusals are 4xx pages with a message: another user's submission, code, stderr or download is
403, an unknown id 404, a POST without the session's CSRF token 403, too many failed logins
429, an upload past the user's daily quota 429 (with ``Retry-After``), an oversized body 413,
a refused upload (bad archive, unknown type, a bad file name...) 400; a full disk anywhere is
507. A ``.json`` URL gets its refusal as JSON.

Sessions are server-side (`League.create_session`): the signed cookie carries the session's
random token and the CSRF token; the league's table says whether the session is live. Logout,
a secret reset, disabling a user or the admin's "End sessions" ends them for good.

What a bot or a student wrote reaches a page only escaped (Jinja2 autoescape; JSON for scripts
in ``data-`` attributes, see `security.json_for_html`), and every response carries the CSP of
`security.SECURITY_HEADERS` (no inline script). docs/league-web.md states the whole model.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from arena.league import League
from arena.league.db import DISK_FULL_MESSAGE, is_disk_full
from arena.league.web.common import HERE, Site, refuse
from arena.league.web.routes import admin, auth, games, submissions, timeouts
from arena.league.web.security import BodyLimit, SecurityHeaders

__all__ = ["LOOPBACK_HOSTS", "create_app", "session_secret"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SECRET_FILE = "web-session.key"
#: the body cap of every request but an upload (forms are small)
FORM_LIMIT_BYTES = 64 * 1024
#: room for the multipart framing and the other fields around the uploaded files
MULTIPART_OVERHEAD_BYTES = 64 * 1024

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


async def _http_error(request: Request, exc: Exception) -> Response:
    """A refusal (HTTPException) as the error page with its headers, or as JSON for a
    ``.json`` URL."""
    assert isinstance(exc, HTTPException)
    if request.url.path.endswith(".json"):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return refuse(request, exc.status_code, str(exc.detail), exc.headers)


async def _disk_full(request: Request, exc: Exception) -> Response:
    """A full disk (sqlite's SQLITE_FULL, ENOSPC) anywhere: 507 with the message, logged once
    per request for the admin; anything else goes on as an error."""
    if not is_disk_full(exc):
        raise exc
    log.error("%s %s: the disk is full (%s)", request.method, request.url.path, exc)
    if request.url.path.endswith(".json"):
        return JSONResponse({"error": DISK_FULL_MESSAGE}, status_code=507)
    return refuse(request, 507, f"Refused: {DISK_FULL_MESSAGE}.")


def create_app(directory: Path | str, *, results_root: Path | str | None = None,
               allowed_hosts: Iterable[str] | None = LOOPBACK_HOSTS,
               secret_key: str | None = None) -> Starlette:
    """The league web app over the league in `directory` (LeagueError if it is not one).
    `allowed_hosts` (None: any) are the names the browser may use in the Host header."""
    directory = Path(directory)
    league = League.open(directory)  # LeagueError now if it is not a league
    try:
        config = league.config
    finally:
        league.conn.close()
    state = Site(directory, Path(results_root) if results_root else directory / "results",
                 config)

    def body_limit(path: str) -> int:
        """An upload's cap follows the latest settings (max_upload_bytes may change)."""
        if path == "/submit":
            return state.config.file.max_upload_bytes + MULTIPART_OVERHEAD_BYTES
        return FORM_LIMIT_BYTES

    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        hosts = {h.lower() for h in allowed_hosts}
        middleware.append(Middleware(
            TrustedHostMiddleware,
            allowed_hosts=sorted(hosts | {f"[{h}]" for h in hosts if ":" in h})))
    middleware += [
        Middleware(BodyLimit, limit_for=body_limit),
        Middleware(SessionMiddleware, secret_key=secret_key or session_secret(directory),
                   session_cookie="league_session", same_site="lax", https_only=False,
                   max_age=auth.SESSION_TTL_S),
    ]
    routes = [*auth.routes, *games.routes, *submissions.routes, *admin.routes, *timeouts.routes,
              Mount("/static", StaticFiles(directory=HERE / "static"), name="static")]
    web = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: _http_error,
                                        sqlite3.Error: _disk_full, OSError: _disk_full})
    web.state.site = state  # what the routes share (`common.site`)
    web.state.login_limiters = (state.name_limiter, state.addr_limiter)  # tests read their size
    return web
