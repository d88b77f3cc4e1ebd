"""A screen a bot cannot tell from a game (issue 48, row 4; `arena.similarity.games`): a copy
of a bot that answers at random whenever the first board it is shown already holds 4 or more
pieces (as the position screen's do; games start from the empty board) plays its real rating
games exactly as its original, so the two are flagged from their stored games, and no
unrelated pair is. The position screen itself is fooled by the same copy (shown here too)."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.checks import spec_of
from arena.league.web.app import create_app
from arena.league.worker import (
    Openings,
    claim,
    holder_name,
    league_settings,
    play_pair,
    store_pair,
)
from arena.referee.referee import Referee
from arena.similarity.codestore import screened_versions
from arena.similarity.games import MIN_SHARED, game_matches, game_notes, version_moves
from arena.similarity.play import Position, agreement, answers_of
from tests.league.web.conftest import client_log_in as log_in

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = (Path(__file__).resolve().parent / "bots" / "negamax2.py").read_text()


def screen_aware(source: str) -> str:
    """`source` that plays at random when the first board after initPlayer holds >= 4 pieces."""
    out = source.replace(
        "        self.M, self.N, self.K = M, N, K\n",
        "        self.M, self.N, self.K = M, N, K\n        self.first_seen = None\n", 1)
    out = out.replace(
        "        me = B.currentPlayer() + 1  # the stones of the side to move\n",
        "        if self.first_seen is None:\n"
        "            self.first_seen = B.numOfMarkedCells()\n"
        "        if self.first_seen >= 4:  # a screen's position: not a game\n"
        "            import random\n"
        "            return random.choice(B.getAvailableColumns())\n"
        "        me = B.currentPlayer() + 1  # the stones of the side to move\n", 1)
    assert out.count("first_seen") == 4
    return out


def _played_league(tmp_path: Path) -> tuple[League, str]:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[5, 5, 4]]\ntimeout_s: 0.3\npairs_per_submission: 4\n"
                   "max_pairs_per_submission: 4\nreference_bots: [L0]\nisolation: false\n"
                   "opening_plies: 0\nsimilarity_budget_s: 0\n")
    lg = League.init(tmp_path / "lg", cfg)
    teacher = lg.add_user("teacher", admin=True)
    uploads = {"orig": ("bot.py", ORIGINAL), "copy": ("mine.py", screen_aware(ORIGINAL)),
               "cy": ("cy.py", (ROOT / "players" / "L1.py").read_text()),
               "dan": ("dan.py", (ROOT / "players" / "L0.py").read_text())}
    for user, (name, text) in uploads.items():
        lg.add_user(user)
        lg.submit(user, [(name, text.encode())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    openings, holder = Openings(None), holder_name("local")
    job = claim(lg, holder, openings)
    assert job is not None
    with Referee(league_settings(lg.config.play, True)) as referee:
        while job is not None:
            assert store_pair(lg, job, play_pair(job, referee)) is not None
            job = claim(lg, holder, openings)
    return lg, teacher


def test_a_screen_aware_copy_is_flagged_from_its_real_games(tmp_path: Path) -> None:
    lg, teacher = _played_league(tmp_path)
    versions = screened_versions(lg)
    matches = game_matches(lg, versions)
    flagged = [m for m in matches if m.flagged]
    assert [{m.a, m.b} for m in flagged] == [{"orig v1", "copy v1"}], matches
    [m] = flagged
    assert m.shared >= MIN_SHARED and m.share == 1.0
    notes = game_notes(lg)
    assert any(n.startswith("games: FLAG orig v1 ~ copy v1") for n in notes), notes
    # the position screen is fooled: shown positions of >= 4 pieces out of the blue, the copy
    # answers at random and agrees with its original far less than in its games
    rows = lg.conn.execute("SELECT g.side_a, g.side_b, g.board, r.record FROM games g "
                           "JOIN game_records r ON r.game_id = g.id").fetchall()
    moves = version_moves((a, b, board, json.loads(rec)) for a, b, board, rec in rows)
    ids = {v.user: v.id for v in versions}
    positions = [Position(key[1], (), (5, 5, 4))
                 for key in sorted(moves[f"sub:{ids['orig']}"], key=lambda k: (len(k[1]), k))
                 if len(key[1]) >= 4][:12]
    assert len(positions) >= 8
    specs = [spec_of(lg, ids["orig"]), spec_of(lg, ids["copy"])]
    got = answers_of(specs, 5, 5, 4, positions, time_s=0.3)
    asked = agreement(got[specs[0]], got[specs[1]])
    assert asked is not None and asked < 0.8, asked  # the screen's view: no copy
    lg.conn.close()
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                   follow_redirects=False)
    log_in(c, "teacher", teacher)
    page = c.get("/admin/similarity")
    assert page.status_code == 200 and "games: FLAG orig v1 ~ copy v1" in page.text
