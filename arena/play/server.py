"""The web app of `cxarena serve`: play the listed bots in the browser, browse stored results.

Starlette (ASGI routing, WebSocket, static files) served by uvicorn: well-kept libraries, so no
HTTP or WebSocket code is written here. Routes:

- ``/``: the play page of every game (`static/index.html`, `play.js`, `play.css`; no CDN): its
  board is the report's game viewer, served from the report's folder at ``/viewer/viewer.js``
  and ``/viewer/report.css``, with the games' drawers: ``/viewer/games/NAME/draw.js`` (the
  ``draw.js`` of each installed game's folder, `arena.games.drawer_paths`) and all of them as
  one script, ``/viewer/drawers.js``;
- ``/api/bots``: the bots a game may name (`BotList`, fixed when the server starts), the games
  they play as each game describes itself (`games_json`: its title, its parameters with their
  labels and defaults; the page names no game) and limits;
- ``/ws/play``: one WebSocket per browser tab; each tab plays its own `HumanGame`s, so has its
  own bot process. Messages are JSON: the tab sends ``{"type": "new", "game": NAME, "bot":
  NAME, "params": {...}, "time", "first"}`` (a board's ``"M", "N", "K"`` in place of
  ``params``: the fields of a record, `arena.records.record_params`), ``{"type": "move", "move":
  TEXT}`` (``"column": C`` as well), ``{"type": "resign"}``; the server answers ``started``
  (the game's name, title, label and colours), ``moved``, ``finished`` (with the stored
  record) or ``error``. For a game whose pieces drop down columns (the drawing's ``gravity``)
  ``started`` gives the board (``M``, ``N``, ``K``) and ``moved`` the column and row; for the
  others both carry the position's drawing (`Presentation.drawing`) and the person's legal moves;
- ``/games``: the same page, the second game of the menu chosen first;
- ``/results``: the results folders (each with a ``games.sqlite``) under the results root, and
  ``/results/NAME/``: that folder's HTML report (`arena.report.html.render_report`, imported
  when asked; without it the page says the report module is not available);
- ``/favicon.ico``: the icon (`static/favicon.svg`; the pages name it too), which a browser
  asks for on every page whether or not a page names one: without it, one 404 per page.

Security (the server starts processes): a request chooses a bot only by its listed name, never
a SPEC, a path or a command; a tab's game ends (the person resigns, the referee ends the bot's
process) when its WebSocket closes, which a closed tab or a missed heartbeat (uvicorn's
WebSocket pings) causes; at most `max_games` games run at once; Host and Origin headers are
checked so that other web sites cannot drive the server from the user's browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import json
import logging
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.games import GAMES, Game, GameError, drawer_paths, make_game, presentation_of
from arena.play.session import (
    DEFAULT_RESULTS,
    MAX_TIMEOUT_S,
    Entrant,
    Event,
    Finished,
    GameSetup,
    HumanGame,
    IllegalMove,
    Moved,
    check_playable,
    check_time_limit,
)
from arena.records import record_params
from arena.results.store import DB_FILE, ResultStore

__all__ = ["BotList", "create_app", "LOOPBACK_HOSTS"]

#: the largest board side the page offers, that of the competition's largest board (the session
#: refuses dearer games: `check_playable`)
MAX_SIDE = 50

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: how long a tab's closing waits for its game to end before the next request is served
_CLOSE_WAIT_S = 5.0

log = logging.getLogger("arena.play.server")


@dataclass(frozen=True)
class BotList:
    """The bots a request may choose from, by name (fixed when the server starts)."""

    entrants: tuple[Entrant, ...]
    docs: dict[str, str] = field(default_factory=dict)  # name -> one-line description

    def __post_init__(self) -> None:
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate bot names in {names}")

    def get(self, name: object) -> Entrant | None:
        """The listed bot of that name, else None (a SPEC or path is never a listed name)."""
        if not isinstance(name, str):
            return None
        return next((e for e in self.entrants if e.name == name), None)

    def to_json(self) -> list[dict[str, str]]:
        return [{"name": e.name, "source": e.source, "doc": self.docs.get(e.name, ""),
                 "game": e.game} for e in self.entrants]


@dataclass
class _ServerState:
    bots: BotList
    results_dir: Path  # where played games are stored
    results_root: Path  # browsed for results folders
    max_games: int
    running: int = 0


def create_app(bots: BotList, results_dir: Path | str = DEFAULT_RESULTS,
               results_root: Path | str | None = None, max_games: int = 8,
               allowed_hosts: Iterable[str] | None = LOOPBACK_HOSTS) -> Starlette:
    """The ASGI app. `allowed_hosts` (None: any) are the names the browser may use in the Host
    header; a cross-site Origin is refused for the WebSocket."""
    results_dir = Path(results_dir)
    state = _ServerState(bots, results_dir,
                         Path(results_root) if results_root is not None else results_dir.parent,
                         max_games)
    hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def api_bots(request: Request) -> Response:
        return JSONResponse({"bots": state.bots.to_json(),
                             "games": games_json({e.game for e in state.bots.entrants}),
                             "defaults": {"time": 1.0},
                             "limits": {"max_side": MAX_SIDE, "max_time": MAX_TIMEOUT_S}})

    async def results_list(request: Request) -> Response:
        folders = _results_folders(state.results_root)
        items = "\n".join(
            f'<li><a href="/results/{html.escape(name)}/">{html.escape(name)}</a> '
            f'({count} games)</li>' for name, count in folders)
        body = (f"<h1>Stored results</h1><p>Results folders under "
                f"<code>{html.escape(str(state.results_root))}</code>:</p>"
                f"<ul id=\"results\">{items or '<li>none yet</li>'}</ul>")
        return HTMLResponse(_page("Stored results", body))

    async def results_report(request: Request) -> Response:
        name = request.path_params["name"]
        folders = dict(_results_folders(state.results_root))
        if name not in folders:  # only listed folders: no path ever comes from a request
            return HTMLResponse(_page("Not found", f"<p>No results folder {html.escape(name)!s}"
                                                   f" here. <a href=\"/results\">All results"
                                                   f"</a></p>"), status_code=404)
        try:  # start-up: the report (matplotlib) loads at the first report page
            from arena.report.html import render_report
        except ImportError as e:
            body = (f"<h1>Report module not available</h1><p>This cxarena has no HTML report "
                    f"(<code>arena.report.html</code> could not be imported: "
                    f"{html.escape(str(e))}). The games of <code>{html.escape(name)}</code> "
                    f"are stored; <code>cxarena report "
                    f"{html.escape(str(state.results_root / name))}</code> prints their "
                    f"standings.</p>")
            return HTMLResponse(_page("Report module not available", body), status_code=501)
        path = state.results_root / name
        try:
            page = await asyncio.get_running_loop().run_in_executor(None, render_report, path)
        except Exception as e:  # say what failed instead of a bare 500
            log.exception("rendering the report of %s", path)
            body = (f"<h1>No report</h1><p>The report of <code>{html.escape(name)}</code> "
                    f"failed: {html.escape(f'{type(e).__name__}: {e}')}</p>")
            return HTMLResponse(_page("No report", body), status_code=500)
        return HTMLResponse(str(page))

    async def report_asset(request: Request) -> Response:
        """Files the report page refers to next to itself (from arena/report/static)."""
        try:  # as render_report above: the report package only when a page needs it
            import arena.report
        except ImportError:
            return Response(status_code=404)
        static = Path(arena.report.__file__).resolve().parent / "static"
        wanted = request.path_params["file"]
        if static.is_dir() and wanted in os.listdir(static):
            return FileResponse(static / wanted)
        return Response(status_code=404)

    async def play_ws(websocket: WebSocket) -> None:
        if not _same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            await websocket.close(code=1008)  # policy violation: another site's page
            return
        await websocket.accept()
        await _Tab(websocket, state).serve()

    app = Starlette(routes=[
        Route("/", index),
        Route("/games", index),
        Route("/viewer/drawers.js", _drawers),
        Route("/viewer/games/{name}/draw.js", _drawer),
        Route("/viewer/{file}", _viewer_file),
        Route("/favicon.ico", _icon),
        Route("/api/bots", api_bots),
        Route("/results", results_list),
        Route("/results/", results_list),
        Route("/results/{name}/", results_report),
        Route("/results/{name}/{file}", report_asset),
        WebSocketRoute("/ws/play", play_ws),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    if hosts is not None:
        app.add_middleware(TrustedHostMiddleware,
                           allowed_hosts=sorted(hosts | {f"[{h}]" for h in hosts if ":" in h}))
    return app


async def _viewer_file(request: Request) -> Response:
    """The game viewer and its styles, from the report's folder (arena/report/static)."""
    wanted = request.path_params["file"]
    if wanted in _VIEWER_FILES:
        path = _report_static() / wanted
        if path.is_file():
            return FileResponse(path)
    return Response(status_code=404)


async def _icon(request: Request) -> Response:
    """The site's icon, at the address every browser asks for."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


async def _drawer(request: Request) -> Response:
    """A game's drawer for the viewer: the ``draw.js`` in the game's folder."""
    path = drawer_paths().get(request.path_params["name"])
    if path is None:  # only an installed game's: no path ever comes from a request
        return Response(status_code=404)
    return FileResponse(path, media_type="text/javascript")

async def _drawers(request: Request) -> Response:
    """Every installed game's drawer, as one script."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in drawer_paths().values())
    return Response(text, media_type="text/javascript")


#: the files of the report's folder that the play page loads
_VIEWER_FILES = ("viewer.js", "report.css")


def _report_static() -> Path:
    return Path(__file__).resolve().parents[1] / "report" / "static"


def _same_origin(origin: str | None, host: str | None) -> bool:
    """A WebSocket from our own page (or from a non-browser client, which sends no Origin)."""
    if origin is None:
        return True
    return host is not None and origin.lower() in (f"http://{host.lower()}",
                                                   f"https://{host.lower()}")


def _results_folders(root: Path) -> list[tuple[str, int]]:
    """(name, games) of each folder under `root` holding a results database."""
    found = []
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    for d in entries:
        if (d / DB_FILE).is_file():
            try:
                with ResultStore(d / DB_FILE, create=False) as store:
                    found.append((d.name, store.count()))
            except Exception:  # not a results database after all: not listed
                continue
    return found


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(title)}</title><link rel=\"icon\" href=\"/static/favicon.svg\" "
            f"type=\"image/svg+xml\"><link rel=\"stylesheet\" href=\"/static/play.css\">"
            f"</head><body><nav><a href=\"/\">Play</a> <a href=\"/results\">Stored results</a>"
            f"</nav><main>{body}</main></body></html>")


class _Tab:
    """One browser tab: its games, one at a time, each with its own bot process."""

    def __init__(self, websocket: WebSocket, state: _ServerState) -> None:
        self.ws = websocket
        self.state = state
        self.game: HumanGame | None = None
        self.number = 0  # of the current game, sent with each message
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def serve(self) -> None:
        sender = asyncio.create_task(self._send_loop())
        try:
            while True:
                try:
                    msg = await self.ws.receive_json()
                except WebSocketDisconnect:
                    return
                except (json.JSONDecodeError, UnicodeDecodeError, KeyError):
                    await self._error("not a JSON message")
                    continue
                await self._handle(msg)
        finally:
            sender.cancel()
            await self._end_game("left the game (page closed)")

    async def _send_loop(self) -> None:
        while True:
            msg = await self.outbox.get()
            try:
                await self.ws.send_json(msg)
            except Exception:  # the tab is gone; serve() ends the game
                return

    async def _error(self, text: str) -> None:
        await self.outbox.put({"type": "error", "game": self.number, "message": text})

    async def _handle(self, msg: object) -> None:
        if not isinstance(msg, dict):
            await self._error("a message must be a JSON object")
            return
        kind = msg.get("type")
        if kind == "new":
            await self._new(msg)
        elif kind == "move":
            if self.game is None:
                await self._error("no game: start one first")
                return
            try:  # a gravity game's page sends the column as a number
                self.game.play(msg["column"] if "column" in msg else msg.get("move"))
            except IllegalMove as e:
                await self._error(str(e))
        elif kind == "resign":
            if self.game is not None:
                self.game.resign("resigned")
        else:
            await self._error(f"unknown message type {str(kind)[:40]!r}")

    async def _new(self, msg: dict[str, Any]) -> None:
        entrant = self.state.bots.get(msg.get("bot"))
        game_name = msg.get("game") or _first_game()
        if entrant is None or entrant.game != game_name:
            shown = str(msg.get("bot"))[:80]
            await self._error(f"refused: {shown!r} is not one of the listed bots of "
                              f"{str(game_name)[:40]} (a game can only name a bot this server "
                              f"listed at start)")
            return
        try:
            params = msg.get("params") or {}
            if not isinstance(params, dict):
                raise ValueError("params must be an object of integers")
            if "M" in msg:  # a board as records hold it: the game reads its parameters there
                if str(game_name) not in GAMES:
                    raise GameError(f"unknown game {str(game_name)[:40]!r}")
                params = record_params(str(game_name), _int(msg.get("M")), _int(msg.get("N")),
                                       _int(msg.get("K")), params)
            rules = make_game(str(game_name), params)
            check_playable(rules)
            setup = GameSetup(timeout_s=_seconds(msg.get("time")),
                              human_first=bool(msg.get("first", True)))
            check_time_limit(entrant, setup.timeout_s)  # a Java bot: whole seconds
        except ValueError as e:  # GameError is a ValueError too
            await self._error(f"refused: {e}")
            return
        await self._end_game("started a new game")
        if self.state.running >= self.state.max_games:
            await self._error(f"refused: {self.state.max_games} games are running already; "
                              f"try again when one has ended")
            return
        self.number += 1
        number = self.number

        def on_event(event: Event) -> None:  # from the game's threads
            with contextlib.suppress(RuntimeError):  # the server is shutting down
                self.loop.call_soon_threadsafe(self._on_event, number, event)

        try:
            game = HumanGame(entrant, rules, setup, self.state.results_dir, on_event=on_event)
        except OSError as e:
            await self._error(f"cannot start a game: {e}")
            return
        self.game = game
        self.state.running += 1
        view = presentation_of(rules)
        drawing = view.drawing(game.state)
        start: dict[str, Any] = {"type": "started", "game": number, "bot": entrant.name,
                                 "time": setup.timeout_s, "human": setup.human,
                                 "name": rules.name, "title": view.title(),
                                 "label": rules.label(), "describe": view.describe(),
                                 "colors": list(drawing.get("colors") or view.SIDES)}
        if drawing.get("gravity"):  # a board the page drops pieces into, column by column
            start.update(M=drawing["rows"], N=drawing["cols"], K=drawing.get("k"))
        else:
            start.update(**_position(rules, game.state, setup.human))
        await self.outbox.put(start)
        game.start()

    def _on_event(self, number: int, event: Event) -> None:
        game = self.game
        if isinstance(event, Moved):
            msg: dict[str, Any] = {"type": "moved", "game": number, "player": event.player,
                                   "elapsed_ms": event.elapsed_ms, "by_human": event.by_human,
                                   "ends_game": event.ends_game}
            if game is not None and event.state is not None:
                drawing = presentation_of(game.game).drawing(event.state)
                if drawing.get("gravity"):  # where the piece landed: the column's top piece
                    col = int(event.move)
                    msg.update(column=col, row=next(
                        i for i, row in enumerate(drawing["cells"]) if row[col]))
                else:
                    msg.update(move=event.move, **_position(game.game, event.state,
                                                           game.setup.human))
        else:
            self.state.running -= 1
            msg = _finished_json(number, event)
        self.outbox.put_nowait(msg)

    async def _end_game(self, why: str) -> None:
        game, self.game = self.game, None
        if game is not None and game.finished is None:
            game.close(why)
            await self.loop.run_in_executor(None, game.wait, _CLOSE_WAIT_S)


def _first_game() -> str:
    """The game a request that names none plays: the first of the menu."""
    return games_json(GAMES)[0]["name"]


def games_json(names: Iterable[str]) -> list[dict[str, Any]]:
    """The installed games among `names` as the play page shows them, each as it describes
    itself (its presentation, `Presentation`): its name, title and parameters (name, label
    (`PARAM_LABELS`) and default). The menu's order: a game with a protocol dialect of its own
    (the course's game) first, then by title."""
    views = sorted((presentation_of(GAMES[n]()) for n in set(names) if n in GAMES),
                   key=lambda v: (v.game.DIALECT is None, v.title().lower()))
    return [{"name": v.game.name, "title": v.title(),
             "params": [{"name": p, "label": v.PARAM_LABELS.get(p, p), "default": d}
                        for p, d in v.game.PARAMS.items()]} for v in views]


def _position(game: Game, state: Any, human: int) -> dict[str, Any]:
    """A position for the play page: its drawing, and the person's legal moves (when it is their
    turn)."""
    mine = game.outcome(state) is None and game.to_move(state) + 1 == human
    return {"drawing": presentation_of(game).drawing(state),
            "legal": [game.move_to_text(state, m) for m in game.legal_moves(state)] if mine
            else []}


def _finished_json(number: int, fin: Finished) -> dict[str, Any]:
    return {"type": "finished", "game": number, "outcome": fin.outcome, "message": fin.message,
            "winning_cells": [list(c) for c in fin.winning_cells], "game_id": fin.game_id,
            "store_error": fin.store_error,
            "record": fin.record.to_dict() if fin.record is not None else None}


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"board sizes must be whole numbers, got {value!r}")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"board sizes must be whole numbers, got {value!r}") from None


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"the time limit must be a number of seconds, got {value!r}")
    try:
        t = float(value)
    except ValueError:
        raise ValueError(f"the time limit must be a number of seconds, got {value!r}") from None
    if not math.isfinite(t):
        raise ValueError(f"the time limit must be a finite number, got {value!r}")
    return t


def is_loopback(host: str) -> bool:
    """True for the loopback names and addresses (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    return False
