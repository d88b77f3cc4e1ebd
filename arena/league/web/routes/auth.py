"""Logging in (rate-limited per user name and per client address; a new server-side session,
no fixation; a disabled account is told so, only once its secret is right) and out (the
session ended in the league's table)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.league.web.common import SESSION_KEY, current_user, db, form, logged_in, page, site
from arena.league.web.security import csrf_token

__all__ = ["DISABLED_MESSAGE", "SESSION_TTL_S", "routes"]

#: what a disabled student is told at login, once their secret is right
DISABLED_MESSAGE = ("Your account is disabled: you cannot log in or upload. Ask your teacher "
                    "to enable it again.")
#: how long a login session lives (server-side; the cookie's own lifetime is the same)
SESSION_TTL_S = 7 * 24 * 3600


async def login_get(request: Request) -> Response:
    await current_user(request)
    return page(request, "login.html", error=None, name="")


async def login_post(request: Request) -> Response:
    data = await form(request)
    name = str(data.get("name", "")).strip()[:100]
    secret = str(data.get("secret", ""))[:200]
    client = request.client.host if request.client else "?"
    limits = site(request)
    wait = max(limits.name_limiter.retry_after_s(name), limits.addr_limiter.retry_after_s(client))
    if wait > 0:
        raise HTTPException(429, f"Too many failed logins for {name!r} or from this address: "
                            f"try again in {int(wait) + 1} s.",
                            {"Retry-After": str(int(wait) + 1)})
    user = await db(request, lambda lg: lg.secret_owner(name, secret))
    if user is None:
        limits.name_limiter.failed(name)
        limits.addr_limiter.failed(client)
        return page(request, "login.html", status=401, name=name,
                    error="Unknown user or wrong secret.")
    if user.disabled:  # said only to whoever holds the right secret
        return page(request, "login.html", status=403, name=name,
                    error=DISABLED_MESSAGE)
    limits.name_limiter.succeeded(name)
    token = await db(request, lambda lg: lg.create_session(user.name, SESSION_TTL_S, client))
    request.session.clear()  # a new session: no fixation
    request.session[SESSION_KEY] = token
    csrf_token(request.session)
    return RedirectResponse("/", status_code=303)


@logged_in
async def logout(request: Request) -> Response:
    await form(request)
    token = request.session.get(SESSION_KEY)
    if isinstance(token, str):
        await db(request, lambda lg: lg.end_session(token))
    request.session.clear()
    return RedirectResponse("/login", status_code=303)


routes = [
    Route("/login", login_get, methods=["GET"]),
    Route("/login", login_post, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
]
