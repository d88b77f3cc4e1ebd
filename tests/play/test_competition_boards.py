"""Browser play offers every board of the competition set (configs/boards.yaml: up to 50 x 50)
and refuses, before anything starts, a Java bot at a time limit it cannot be given (the course
API's ``initPlayer`` takes whole seconds): issue 42, point 9."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from arena.entrants.specs import BotSpec, Kind, parse_spec
from arena.games import make_game
from arena.play.server import MAX_SIDE, BotList, create_app
from arena.play.session import Entrant, check_playable

ROOT = Path(__file__).resolve().parents[2]


def competition_boards() -> list[tuple[int, int, int]]:
    sets = yaml.safe_load((ROOT / "configs" / "boards.yaml").read_text(encoding="utf-8"))
    return [tuple(b) for b in sets["competition"]]


def test_every_competition_board_is_playable() -> None:
    boards = competition_boards()
    assert (50, 50, 10) in boards and (40, 40, 10) in boards
    for m, n, k in boards:
        game = make_game("connectx", {"rows": m, "cols": n, "k": k})
        assert check_playable(game) is game
        assert max(m, n) <= MAX_SIDE  # the page offers it too


def test_a_board_beyond_the_competitions_is_still_refused() -> None:
    with pytest.raises(ValueError, match="too big"):
        check_playable(make_game("connectx", {"rows": 51, "cols": 50, "k": 10}))


# ------------------------------------------------------------------ the server, in this process
JAVA = Entrant("course-bot", BotSpec(text="java:/nowhere/bots", path="/nowhere/bots",
                                     cls="CourseBot", kind=Kind.JAVA))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The play app with one Python bot (L0) and one Java bot (never started: refused first),
    served by uvicorn in a thread; yields its WebSocket URL."""
    import uvicorn

    bots = BotList((Entrant("L0", parse_spec("L0")), JAVA))
    app = create_app(bots, results_dir=tmp_path_factory.mktemp("play") / "play")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(600):  # up to a minute on a busy machine
        if server.started:
            break
        threading.Event().wait(0.1)
    assert server.started, "the play server did not start"
    yield f"ws://127.0.0.1:{port}/ws/play"
    server.should_exit = True
    thread.join(30)
    sock.close()


def replies_to(url: str, msg: dict) -> list[dict]:
    """What the server answers to `msg` (the first reply, and whatever follows it at once)."""
    from websockets.sync.client import connect

    with connect(url) as ws:
        ws.send(json.dumps(msg))
        replies = [json.loads(ws.recv(timeout=60))]
        if replies[0]["type"] == "started":
            ws.send(json.dumps({"type": "resign"}))
            while replies[-1]["type"] != "finished":
                replies.append(json.loads(ws.recv(timeout=60)))
    return replies


def test_a_java_bot_at_half_a_second_is_refused_before_the_game(server: str) -> None:
    replies = replies_to(server, {"type": "new", "bot": "course-bot", "M": 6, "N": 7, "K": 4,
                                  "time": 0.5, "first": True})
    assert [r["type"] for r in replies] == ["error"]
    message = replies[0]["message"]
    assert message.startswith("refused:")
    assert "0.5 s is not a whole number of seconds" in message
    assert "timeout_in_secs" in message and "course-bot" in message


def test_a_python_bot_at_half_a_second_plays(server: str) -> None:
    replies = replies_to(server, {"type": "new", "bot": "L0", "M": 6, "N": 7, "K": 4,
                                  "time": 0.5, "first": True})
    assert replies[0]["type"] == "started"
    assert replies[-1]["type"] == "finished"


def test_a_fifty_by_fifty_game_starts(server: str) -> None:
    replies = replies_to(server, {"type": "new", "bot": "L0", "M": 50, "N": 50, "K": 10,
                                  "time": 1, "first": True})
    assert replies[0]["type"] == "started", replies
    assert (replies[0]["M"], replies[0]["N"], replies[0]["K"]) == (50, 50, 10)
    assert replies[-1]["type"] == "finished"


def test_the_page_is_told_the_largest_side() -> None:
    async def limits() -> dict:
        app = create_app(BotList((Entrant("L0", parse_spec("L0")),)))
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/api/bots", "raw_path": b"/api/bots",
                 "query_string": b"", "headers": [(b"host", b"127.0.0.1")], "scheme": "http",
                 "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": "",
                 "http_version": "1.1"}
        await app(scope, receive, send)
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return json.loads(body)["limits"]

    assert asyncio.run(limits())["max_side"] >= 50
