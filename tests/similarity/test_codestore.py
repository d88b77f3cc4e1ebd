"""Code similarity kept per version and pair (issue 48, item 4, `arena.similarity.codestore`):
every version a student entered is screened, the final entry above all (a copied older version
chosen as the entry, a clean one uploaded last: flagged); fingerprints and pair scores are
made once (by the background's `step_code`, or by a page load within its budget) and the admin
page reads them; the k-gram hashes are the same in every process, so what one process kept
another compares."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from starlette.testclient import TestClient

from arena.league import League
from arena.league.web.app import create_app
from arena.similarity.code import stable_kgrams
from arena.similarity.codestore import (
    FOLDER,
    code_report,
    pairs_of,
    screened_versions,
    step_code,
)
from tests.league.web.conftest import client_log_in as log_in

ROOT = Path(__file__).resolve().parents[2]
MONTECARLO = (ROOT / "players" / "montecarlo.py").read_bytes()
CLEAN = (ROOT / "players" / "L1.py").read_bytes()


def _league(tmp_path: Path) -> tuple[Path, str, dict[str, int]]:
    """bob's original; ann's copy of it (v1, chosen as her final entry) and a clean v2 (her
    latest); cy's own bot."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\ntimeout_s: 1\nreference_bots: [L0]\n"
                   "isolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    teacher = lg.add_user("teacher", admin=True)
    for u in ("ann", "bob", "cy"):
        lg.add_user(u)
    ids = {"bob": lg.submit("bob", [("bot.py", MONTECARLO)]).id,
           "ann1": lg.submit("ann", [("mine.py", MONTECARLO.replace(b"playouts", b"trials"))]).id,
           "cy": lg.submit("cy", [("cy.py", (ROOT / "players" / "L0.py").read_bytes())]).id}
    ids["ann2"] = lg.submit("ann", [("mine.py", CLEAN)]).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
        lg.store_entry_choice("ann", ids["ann1"], "ann")
    lg.conn.close()
    return tmp_path / "lg", teacher, ids


def test_every_entered_version_is_screened_the_entry_first(tmp_path: Path) -> None:
    d, _, ids = _league(tmp_path)
    lg = League.open(d)
    versions = {v.label: v for v in screened_versions(lg)}
    assert set(versions) == {"bob v1", "ann v1", "cy v1", "ann v2"}
    assert versions["ann v1"].entry and not versions["ann v1"].current
    assert versions["ann v2"].current and not versions["ann v2"].entry
    pairs = pairs_of(list(versions.values()))
    assert len(pairs) == 5  # never a student's two versions with each other
    assert {pairs[0][0].label, pairs[0][1].label} <= {"bob v1", "ann v1", "cy v1"}
    assert "ann v2" in {pairs[-1][0].label, pairs[-1][1].label}
    lg.conn.close()


def test_the_background_keeps_everything_and_the_page_only_reads(tmp_path: Path) -> None:
    d, teacher, ids = _league(tmp_path)
    lg = League.open(d)
    before = code_report(lg, page_chars=0)  # nothing kept, nothing made: all waiting
    assert not before.flagged
    assert all(p.code is not None and p.code.note.startswith("not compared yet")
               for p in before.pairs)
    done = []
    ticks = iter(range(1000))
    while (what := step_code(lg, budget_s=2, clock=lambda: float(next(ticks)))):
        done.append(what)  # a version a step; pairs for 2 ticks of the clock (2 pairs) a step
    assert done[:4] == [f"code of {v} fingerprinted" for v in ("bob v1", "ann v1", "cy v1",
                                                                "ann v2")]
    assert [w.split(" pair(s)")[0] for w in done[4:]] == ["code of 2", "code of 2", "code of 1"]
    assert len(list((d / FOLDER).glob("*.npz"))) == 4
    assert step_code(lg) == ""  # made once
    after = code_report(lg, page_chars=0)  # reads only what is kept
    [flag] = after.flagged
    assert {flag.a, flag.b} == {"ann v1", "bob v1"}
    assert any("the final entries: bob v1, ann v1, cy v1" in n for n in after.notes)
    lg.conn.close()
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    log_in(c, "teacher", teacher)
    page = c.get("/admin/similarity")
    assert page.status_code == 200 and "1 flagged pair(s) of 5" in page.text
    row = page.text.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in row and "bob v1" in row
    assert "the final entries: bob v1, ann v1, cy v1" in page.text
    # the pair page shows the pair from the fingerprints kept, its matched lines marked
    pair = c.get(f"/admin/similarity/pair?a={ids['ann1']}&b={ids['bob']}")
    assert pair.status_code == 200 and "ann v1" in pair.text and "<mark" in pair.text


def test_a_page_load_makes_what_is_missing_within_its_budget(tmp_path: Path) -> None:
    d, _, _ = _league(tmp_path)
    lg = League.open(d)
    report = code_report(lg)  # a small league: the page makes it all, and keeps it
    assert len(report.flagged) == 1 and "not compared yet" not in " ".join(report.notes)
    assert step_code(lg) == ""  # nothing left for the background
    lg.conn.close()


def test_kgram_hashes_are_the_same_in_another_process() -> None:
    text = MONTECARLO.decode()
    here = stable_kgrams(text, 25)
    code = ("import sys; from arena.similarity.code import stable_kgrams; "
            "h = stable_kgrams(open(sys.argv[1]).read(), 25); print(int(h.sum()), len(h))")
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code, str(ROOT / "players" / "montecarlo.py")],
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        assert [int(out[0]), int(out[1])] == [int(here.sum()), len(here)]
    assert len(np.unique(here)) > 0.95 * len(here)  # distinct k-grams, distinct hashes
