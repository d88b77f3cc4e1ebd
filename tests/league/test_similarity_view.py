"""Where the teacher looks (issue 41, point 3): from the admin page's similarity list, a pair
of versions side by side with the code both share marked, and the positions where they chose
the same move when `cxarena league similarity DIR` played them (kept in DIR/similarity.json).
Only admins see it; every byte a student wrote is shown as inert text, and at most
`MAX_SHOWN` characters of it a side."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.league import League
from arena.league.web.app import create_app
from arena.similarity import league as league_module
from arena.similarity.code import SourceFile, compare_code, fingerprint
from arena.similarity.play import Answers, Reference, judge, load_positions
from arena.similarity.report import Pair, SimilarityReport
from arena.similarity.store import load, save, store_path
from arena.similarity.view import MAX_SHOWN, board_text, pair_view
from tests.league.web.conftest import client_log_in as log_in
from tests.similarity.disguise import disguise

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "arena" / "league" / "web" / "templates"
ORIGINAL = (ROOT / "players" / "montecarlo.py").read_text()
#: what a hostile student puts in a file: markup that would run or break out of its box
HOSTILE = ('"""</textarea></pre><script>alert(1)</script>"""\n'
           "# <img src=x onerror=alert(2)> \u202e reordered\n")


def _league(tmp_path: Path, uploads: dict[str, list[tuple[str, bytes]]]
            ) -> tuple[Path, dict[str, str], dict[str, int]]:
    """A league with an admin and a user per upload, every version taken as checked: its
    folder, the secrets and each user's submission id."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\ntimeout_s: 1\nreference_bots: [L0]\n"
                   "isolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True)}
    ids = {}
    for user, files in uploads.items():
        secrets[user] = lg.add_user(user)
        ids[user] = lg.submit(user, files).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg", secrets, ids


def _client(d: Path) -> TestClient:
    return TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)


def _side(html: str, n: int) -> str:
    """One side's cell of the side-by-side table."""
    return html.split(f'id="side-{n}"')[1].split("</td>")[0]


@pytest.fixture
def copied(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, int]]:
    """ann uploads a built-in, bob a disguised copy of it, cy another built-in."""
    return _league(tmp_path, {
        "ann": [("montecarlo.py", ORIGINAL.encode())],
        "bob": [("mine.py", disguise(ORIGINAL).encode())],
        "cy": [("L1.py", (ROOT / "players" / "L1.py").read_bytes())],
    })


def test_a_renamed_copy_is_shown_side_by_side_with_its_matches_marked(copied) -> None:
    d, secrets, ids = copied
    c = _client(d)
    log_in(c, "teacher", secrets["teacher"])
    listing = c.get("/admin/similarity").text
    flagged = listing.split('class="status-failed"')[1].split("</tr>")[0]
    link = f'/admin/similarity/pair?a={ids["ann"]}&amp;b={ids["bob"]}'
    assert link in flagged or f'/admin/similarity/pair?a={ids["bob"]}&amp;b={ids["ann"]}' \
        in flagged
    page = c.get(f"/admin/similarity/pair?a={ids['ann']}&b={ids['bob']}")
    assert page.status_code == 200
    assert "ann v1 and bob v1 side by side" in page.text
    assert "flagged" in page.text.split('id="code-score"')[1].split("</p>")[0]
    left, right = _side(page.text, 1), _side(page.text, 2)
    assert "<code>montecarlo.py</code>" in left and "<code>mine.py</code>" in right
    # both codes are there (the original's docstring, the copy's new names), mostly marked
    assert "flat Monte-Carlo search" in left and "flat Monte-Carlo search" not in right
    for side in (left, right):
        lines = side.split("<pre>")[1].split("</pre>")[0].split("\n")
        marked = [line for line in lines if "<mark>" in line]
        assert len(marked) > 0.5 * len([line for line in lines if line.strip()]), side[:500]
    # the regions listed are the lines marked
    assert re.search(r"<code>montecarlo\.py:\d+-\d+</code>", page.text)
    # an unrelated pair has little marked (the few lines every bot's set-up shares)
    other = c.get(f"/admin/similarity/pair?a={ids['ann']}&b={ids['cy']}").text
    lines = _side(other, 1).split("<pre>")[1].split("</pre>")[0].split("\n")
    assert len([line for line in lines if "<mark>" in line]) < 0.1 * len(lines)
    assert "No stored play result for these two versions" in other


def test_the_pair_page_is_the_admins_only_and_unknown_ids_are_404(copied) -> None:
    d, secrets, ids = copied
    c = _client(d)
    url = f"/admin/similarity/pair?a={ids['ann']}&b={ids['bob']}"
    assert c.get(url).status_code == 303  # to the login page
    token = log_in(c, "ann", secrets["ann"])
    refused = c.get(url)
    assert refused.status_code == 403 and "<mark>" not in refused.text
    assert "Monte" not in refused.text
    c.post("/logout", data={"csrf": token})
    log_in(c, "teacher", secrets["teacher"])
    for query in (f"a={ids['ann']}&b=999", f"a=0&b={ids['bob']}", "a=x&b=1", "a=1",
                  f"a=-1&b={ids['bob']}", "a=99999999999999999999999&b=1", ""):
        assert c.get(f"/admin/similarity/pair?{query}").status_code == 404, query


def test_hostile_text_is_shown_inert(tmp_path: Path) -> None:
    name = "<img src=x onerror=alert(3)>.py"
    d, secrets, ids = _league(tmp_path, {
        "ann": [("montecarlo.py", ORIGINAL.encode())],
        "eve": [(name, (HOSTILE + ORIGINAL + HOSTILE).encode())],
    })
    c = _client(d)
    log_in(c, "teacher", secrets["teacher"])
    page = c.get(f"/admin/similarity/pair?a={ids['ann']}&b={ids['eve']}")
    assert page.status_code == 200
    text = page.text
    for raw in ("<script>alert(1)", "</textarea>", "<img src=x", "</pre><script>"):
        assert raw not in text, raw
    assert "&lt;/textarea&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(3)&gt;.py" in text  # the file name too
    assert "\u202e" not in text and "&lt;U+202E&gt;" in text  # shown, not obeyed
    assert text.count("<pre>") == text.count("</pre>")  # no box was broken out of
    # and the copy inside the hostile file is still found
    assert "<mark>" in _side(text, 2)


def test_no_template_of_the_similarity_pages_trusts_its_text() -> None:
    for path in TEMPLATES.glob("similarity*.html"):
        assert "|safe" not in path.read_text().replace(" ", ""), path
        assert "autoescape false" not in path.read_text(), path


def test_the_code_shown_is_bounded_and_says_so(tmp_path: Path) -> None:
    """A file a little over the page's cut (the page compares the whole file, in seconds a
    100 KB: a bigger one shows nothing more); where the cut falls is the cut's own test
    (`test_the_view_cuts_at_a_line_and_marks_across_files`)."""
    filler = "".join(f"value_{i} = {i} * {i}  # <{i}>\n" for i in range(7_000))
    assert MAX_SHOWN < len(ORIGINAL + filler) < 2 * MAX_SHOWN
    d, secrets, ids = _league(tmp_path, {
        "ann": [("montecarlo.py", ORIGINAL.encode())],
        "big": [("big.py", (ORIGINAL + filler).encode())],
    })
    c = _client(d)
    log_in(c, "teacher", secrets["teacher"])
    page = c.get(f"/admin/similarity/pair?a={ids['big']}&b={ids['ann']}")
    assert page.status_code == 200
    left = _side(page.text, 1)
    assert f"Cut: showing the first {MAX_SHOWN // 1000} KB of" in left
    assert "Cut:" not in _side(page.text, 2)
    assert "value_6999 " not in page.text  # the end of the file is not sent
    assert "<mark>" in left  # the copied part, at the top, is shown and marked
    # what is sent: the shown code, escaped, with line numbers and marks, not the whole file
    assert len(page.text) < 4 * MAX_SHOWN


def test_the_view_cuts_at_a_line_and_marks_across_files() -> None:
    a = [SourceFile("a.py", ORIGINAL)]
    half = ORIGINAL.index("\ndef ") if "\ndef " in ORIGINAL else len(ORIGINAL) // 2
    b = [SourceFile("one.py", ORIGINAL[:half] + "\n"), SourceFile("two.py", ORIGINAL[half:])]
    view = pair_view(("a", 1, a), ("b", 2, b), limit=len(ORIGINAL) // 3)
    assert view.code.score > 0.9
    shown = view.a.files[0]
    assert shown.cut and shown.shown <= len(ORIGINAL) // 3
    assert ORIGINAL[:shown.shown].endswith("\n")  # whole lines
    assert [f.name for f in view.b.files] == ["one.py", "two.py"]
    assert view.b.files[0].marked_lines > 0
    numbers = [line.number for line in view.b.files[0].lines]
    assert numbers == list(range(1, len(numbers) + 1))


def _played(report_ids: dict[str, int]) -> SimilarityReport:
    """A report as a run that played would make (answers made up, no games): ann and bob
    answer alike, cy does not; the band from four made-up unrelated bots."""
    positions = load_positions(6, 7, 4, limit=8)
    first = tuple(p.best[0] for p in positions)
    other = tuple(next(c for c in range(7) if c not in p.best) for p in positions)
    answers = {"ann v1": Answers("ann v1", first, first), "bob v1": Answers("bob v1", first, first),
               "cy v1": Answers("cy v1", other, other)}
    band = [Answers(f"r{i}", tuple((m + i) % 7 for m in first), tuple((m + i) % 7 for m in first))
            for i in range(1, 5)]
    reference = Reference.of(band)
    code = compare_code(fingerprint("x", [SourceFile("x.py", ORIGINAL)]),
                        fingerprint("y", [SourceFile("y.py", "x = 1\n")]))
    pairs = [Pair(a, b, code, judge(answers[a], answers[b], reference))
             for a, b in (("ann v1", "bob v1"), ("ann v1", "cy v1"), ("bob v1", "cy v1"))]
    return SimilarityReport(pairs, reference, answers, board=(6, 7, 4), positions=8,
                            position_set=tuple(positions), ids=dict(report_ids))


def test_a_stored_play_run_is_listed_and_its_agreed_positions_drawn(
        copied, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    d, secrets, ids = copied
    played = _played({f"{u} v1": ids[u] for u in ("ann", "bob", "cy")})
    # the command keeps the run it made (its games made up here: they take minutes)
    monkeypatch.setattr(league_module, "league_similarity", lambda *a, **k: played)
    assert main(["league", "similarity", str(d)]) == 0
    assert "kept for the admin page" in capsys.readouterr().err
    run = load(d)
    assert run is not None and run.played and len(run.positions) == 8
    assert run.play_between(ids["bob"], ids["ann"]).share == 1.0
    monkeypatch.undo()
    c = _client(d)
    log_in(c, "teacher", secrets["teacher"])
    listing = c.get("/admin/similarity").text
    assert "Play similarity from the last run" in listing
    assert "8 positions of 6x7x4 at" in listing  # the run's boards, in words
    flagged = listing.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in flagged and "bob v1" in flagged and "1.00 (z" in flagged
    page = c.get(f"/admin/similarity/pair?a={ids['bob']}&b={ids['ann']}").text
    assert "Identical moves in 100% of 8 positions" in page
    agreed = page.split('id="agreed">')[1].split("</pre>")[0]
    assert agreed.count("#") == 8 and "best" in agreed and "^" in agreed
    assert "chose the same move (their first answer), on 6x7x4:" in page
    assert "Identical moves in 0% of 8 positions" in c.get(
        f"/admin/similarity/pair?a={ids['ann']}&b={ids['cy']}").text
    # a version uploaded since the run has no stored play score
    lg = League.open(d)
    new = lg.submit("bob", [("mine.py", b"x = 1\n")]).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating' WHERE id=?", (new,))
    lg.conn.close()
    assert "No stored play result" in c.get(
        f"/admin/similarity/pair?a={ids['ann']}&b={new}").text
    # the version replaced since is still screened, beside the new one (issue 48): its pairs
    # stay in the listing, with their play scores
    listing = c.get("/admin/similarity").text
    assert "Other pairs of the last run" not in listing
    flagged = listing.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in flagged and "bob v1" in flagged and "1.00 (z" in flagged
    assert "bob v2" in listing


def test_a_broken_store_is_no_store(tmp_path: Path) -> None:
    assert load(tmp_path) is None
    store_path(tmp_path).write_text("{not json")
    assert load(tmp_path) is None
    store_path(tmp_path).write_text('{"format": 1, "board": "x"}')
    assert load(tmp_path) is None
    save(tmp_path, _played({"ann v1": 1, "bob v1": 2, "cy v1": 3}))
    assert load(tmp_path) is not None


def test_a_board_is_drawn_as_text() -> None:
    assert board_text(4, 4, 3, [1, 1, 2], mark=3).split("\n") == [
        ". . . .", ". . . .", ". O . .", ". X X .", "0 1 2 3", "      ^"]
