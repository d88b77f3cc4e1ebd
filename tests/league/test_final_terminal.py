"""A final run from a terminal (`cxarena league final DIR`, here or with --scheduler on Dask)
is the league's final (issue 40, the term's walkthrough): the admin page shows it finished with
its report, and the grades read its ranking, as for a final the admin page started."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from arena.cli import main
from arena.league import League
from arena.league.final import final_status
from arena.league.grades import grades_csv

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()


def test_a_final_run_in_a_terminal_is_the_leagues_final(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                   "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    for user, bot in (("ann", L1), ("bob", L0)):
        lg.add_user(user)
        lg.submit(user, [("bot.py", bot)])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.freeze()
    assert final_status(lg).state == "not started"
    lg.conn.close()
    assert main(["league", "final", str(d), "--workers", "1", "--quiet"]) == 0
    lg = League.open(d)
    status = final_status(lg)
    assert status.state == "finished" and status.report, status
    rows = {r["user"]: r for r in csv.DictReader(io.StringIO(grades_csv(lg)))}
    assert rows["ann"]["final_rank"] and rows["bob"]["final_rank"], rows
    lg.conn.close()
