"""The web app's protections, each small and testable on its own.

- Output encoding: `json_for_html` makes JSON safe inside an HTML element (a
  ``<script type="application/json">`` data block): ``<``, ``>``, ``&`` and U+2028/U+2029 are
  written as escapes, so no text a bot or a student wrote can close the element.
- Security headers on every response (`SecurityHeaders`): a Content-Security-Policy that allows
  scripts only from this server's own files (no inline script, no eval), no plugins, no
  ``<base>``, no framing; ``X-Content-Type-Options: nosniff``; ``Referrer-Policy: same-origin``.
- CSRF: one random token per session (kept in the signed session cookie), sent back in a hidden
  field of every state-changing form (or an ``X-CSRF-Token`` header); a POST without the right
  token gets 403 and a message.
- Login rate limit: at most `max_failures` failed logins per key within `window_s`; further
  attempts get 429 until the window has passed (the secret is not even checked then). The app
  counts per user name and per client address, so that neither a rotating address nor a
  rotating name gets past it. The limiter's memory is bounded: only a failure makes an entry
  (never a check, a 429 or a success), an entry is forgotten once its last failure is older
  than the window, and past `max_keys` entries the one whose last failure is oldest goes.
- Body cap: an ASGI middleware that answers 413 to a request whose Content-Length is over the
  cap, and stops reading (413) a body without one as soon as it grows past the cap, so an
  oversized upload is never read whole.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, MutableMapping
from typing import Any

__all__ = ["CSP", "LOGIN_LIMITER_KEYS", "BodyLimit", "LoginLimiter", "SecurityHeaders",
           "check_csrf", "csrf_token", "inline_script_csp", "json_for_html"]

CSRF_KEY = "csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"

#: the Content-Security-Policy of every page: scripts, styles, images and requests only from
#: this server; no inline script or style, no plugins, no <base>, no framing, forms post here
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
       "form-action 'self'")
_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                 "\u2029": "\\u2029"}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


def json_for_html(value: Any) -> str:
    """`value` as JSON that is safe as the text of an HTML element: the characters that could
    end the element or start markup are written as JSON escapes (the same value when parsed)."""
    text = json.dumps(value, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def inline_script_csp() -> str:
    """The Content-Security-Policy of a self-contained page cxarena serves (the final's HTML
    report): the report's own inline scripts allowed by hashes computed from cxarena's own
    template and scripts (`arena.report.html.report_csp`), never from the page served, so
    that a script injected into it is not allowed; nothing else inline, no framing."""
    from arena.report.html import report_csp  # the report's template: only when one is served

    return report_csp() + "; frame-ancestors 'none'"


def csrf_token(session: MutableMapping[str, Any]) -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get(CSRF_KEY)
    if not isinstance(token, str) or len(token) < 16:
        token = secrets.token_urlsafe(24)
        session[CSRF_KEY] = token
    return token


def check_csrf(session: MutableMapping[str, Any], sent: object) -> bool:
    """True when `sent` is this session's token (compared in constant time)."""
    token = session.get(CSRF_KEY)
    if not isinstance(token, str) or not isinstance(sent, str) or not sent:
        return False
    return hmac.compare_digest(token.encode(), sent.encode())


#: the most keys a `LoginLimiter` remembers (each some hundred bytes)
LOGIN_LIMITER_KEYS = 4096


class LoginLimiter:
    """Failed logins per key (user name + client address) in a sliding window, in bounded
    memory: at most `max_keys` keys, each with at most `max_failures` times, each forgotten
    `window_s` after its last failure."""

    def __init__(self, max_failures: int = 5, window_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic,
                 max_keys: int = LOGIN_LIMITER_KEYS) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.clock = clock
        self.max_keys = max(1, max_keys)
        #: key -> its last `max_failures` failure times; ordered by the last failure, oldest
        #: first (a failure moves its key to the end)
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._failures)

    def _forget_old(self, now: float) -> None:
        """Drop the keys whose last failure is out of the window (they are first)."""
        while self._failures:
            key, q = next(iter(self._failures.items()))
            if q and now - q[-1] < self.window_s:
                break
            del self._failures[key]

    def retry_after_s(self, key: str) -> float:
        """0 when an attempt is allowed, else the seconds until it is."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            q = self._failures.get(key)
            if q is None:
                return 0.0
            while q and now - q[0] >= self.window_s:
                q.popleft()
            if len(q) < self.max_failures:
                return 0.0
            return max(0.0, self.window_s - (now - q[0]))

    def failed(self, key: str) -> None:
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            q = self._failures.pop(key, None)
            if q is None:
                q = deque(maxlen=self.max_failures)
            q.append(now)
            self._failures[key] = q  # now the newest
            while len(self._failures) > self.max_keys:
                self._failures.popitem(last=False)

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)


class BodyTooLarge(Exception):
    pass


_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Any]
_Send = Callable[[MutableMapping[str, Any]], Any]


class BodyLimit:
    """ASGI middleware: 413 for a request body over `limit_for(path)` bytes."""

    def __init__(self, app: Any, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    await _plain(send, 400, "bad Content-Length header")
                    return
                if length > limit:
                    await _plain(send, 413, _too_large(limit))
                    return
        seen = 0
        started = False

        async def counted_receive() -> Any:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge
            return message

        async def watched_send(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if not started:
                await _plain(send, 413, _too_large(limit))


class SecurityHeaders:
    """ASGI middleware: the `CSP` and the other headers of `_HEADERS` on every response (a
    response that sets its own Content-Security-Policy keeps it)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", CSP.encode()))
                for name, value in _HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _too_large(limit: int) -> str:
    return (f"Request too large: the limit is {limit} bytes ({limit / 1e6:.1f} MB). "
            "Upload a smaller file.")


async def _plain(send: _Send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
