"""Helpers of the league's tests (no tests here): a student's browser against a real server,
a frozen league of two students, a bot that crashes, a random won game."""

from __future__ import annotations

import http.cookiejar
import random
import re
import secrets as random_tokens
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from arena.board import CXBoard, CXGameState
from arena.league import League
from arena.league.web.app import create_app
from arena.records import GameRecord, Reason
from tests.helpers import cx_record

ROOT = Path(__file__).resolve().parents[2]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Student:
    """A browser of one student against the real server: cookies kept, redirects not
    followed (a 303 is an answer)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect())

    def request(self, path: str, data: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
        req = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        try:
            with self.opener.open(req, timeout=60) as r:
                return r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)

    def csrf(self, path: str) -> str:
        m = re.search(r'name="csrf" value="([^"]+)"', self.request(path)[1])
        assert m, f"no CSRF field on {path}"
        return m.group(1)

    def post(self, path: str, fields: dict[str, str]) -> tuple[int, str, dict[str, str]]:
        return self.request(path, urllib.parse.urlencode(fields).encode(),
                            {"content-type": "application/x-www-form-urlencoded"})

    def upload(self, name: str, code: bytes) -> tuple[int, str, dict[str, str]]:
        boundary = random_tokens.token_hex(16)
        body = (f"--{boundary}\r\ncontent-disposition: form-data; name=\"csrf\"\r\n\r\n"
                f"{self.csrf('/submit')}\r\n--{boundary}\r\ncontent-disposition: form-data; "
                f"name=\"files\"; filename=\"{name}\"\r\ncontent-type: "
                f"application/octet-stream\r\n\r\n").encode() + code + \
            f"\r\n--{boundary}--\r\n".encode()
        return self.request("/submit", body,
                            {"content-type": f"multipart/form-data; boundary={boundary}"})


def student(url: str, name: str, secret: str) -> Student:
    """A logged-in student."""
    c = Student(url)
    status, text, _ = c.post("/login", {"name": name, "secret": secret,
                                        "csrf": c.csrf("/login")})
    assert status == 303, text
    return c


def upload(c: Student, name: str, code: bytes) -> int:
    status, text, headers = c.upload(name, code)
    assert status == 303, text
    return int(headers["location"].rsplit("/", 1)[1])


def frozen_league(tmp_path: Path, bob_file: str, bob_code: bytes) -> tuple[
        Path, dict[str, str], TestClient]:
    """A frozen league of a teacher, ann (L1) and bob (`bob_code`), both passed; its folder,
    the secrets and a test client of its app."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                   "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann"),
               "bob": lg.add_user("bob")}
    lg.submit("ann", [("L1.py", (ROOT / "players" / "L1.py").read_bytes())])
    lg.submit("bob", [(bob_file, bob_code)])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.freeze()
    lg.conn.close()
    d = tmp_path / "lg"
    return d, secrets, TestClient(create_app(d), base_url="http://127.0.0.1",
                                  follow_redirects=False)


CRASHER = b'''from arena.player import CXPlayer


class Crasher(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        raise ValueError("BOT-WORDS-" + "x" * 3)

    def playerName(self):
        return "crasher"
'''


def random_won_game(seed: int) -> GameRecord:
    """A game of random moves on 5x5x4 that player 1 wins."""
    rng = random.Random(seed)
    while True:
        board = CXBoard(5, 5, 4)
        state = CXGameState.OPEN
        while state is CXGameState.OPEN:
            state = board.markColumn(rng.choice(board.getAvailableColumns()))
        if state is CXGameState.WINP1:
            moves = tuple(board.moves())
            return cx_record(M=5, N=5, K=4, p1="a.py", p2="b.py", names=("a", "b"),
                              moves=moves, times_ms=(0.0,) * len(moves), winner=1,
                              reason=Reason.WIN, detail="", seed=seed)


def all_played(lg: League) -> bool:
    """No pair is in play and none is left to play, read so that a worker's claim cannot slip
    between the two looks: `plan_next` passes over an entry in play (its lease), so a pair
    claimed after the look for leases made "nothing left" true with its games unplayed (a
    busy machine found it). The leases and the stored games are read again after the plan,
    and must be as before."""
    from arena.league.worker import plan_next

    def leases() -> int:
        return int(lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0])

    mark = lg.games_mark()
    if leases():
        return False
    return plan_next(lg) is None and not leases() and lg.games_mark() == mark
