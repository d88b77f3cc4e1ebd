"""Sources read as their compiler reads them, every parse of hostile text bounded (issue 48,
rows 2 and 3): a verbatim copy saved as UTF-7 (Python) or written as one ``//`` line with
``\\u000a`` escapes (Java, compiled by a real javac) is flagged; an upload whose text is too deep
for `ast` leaves `cxarena similarity`, `league similarity` and the admin page working for
everyone else (200 / exit 0)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.entrants.specs import parse_spec
from arena.league import League
from arena.league.web.app import create_app
from arena.similarity.code import (
    Code,
    SourceFile,
    compare_code,
    fingerprint,
    java_unescape,
    source_text,
    sources_in,
    sources_of_spec,
)
from arena.similarity.report import compare
from tests.league.web.conftest import client_log_in as log_in

ROOT = Path(__file__).resolve().parents[2]
MONTECARLO = ROOT / "players" / "montecarlo.py"
STOPPER = Path(__file__).resolve().parent / "data" / "java" / "Stopper" / "Stopper.java"
#: Python files `ast` cannot take: RecursionError ("too deep") when they are parsed
DEEP = "x = " + "+".join(["1"] * 20_000) + "\n"
DEEP2 = "y = " + "*".join(["2"] * 20_000) + "\n"


def utf7(source: str) -> bytes:
    return b"# -*- coding: utf-7 -*-\n" + source.encode("utf-7")


def one_line_java(source: str) -> str:
    """The whole class as one `//` comment to a reader who ignores unicode escapes (its
    package line, the first, stays in the comment for javac too: the copy is in no package)."""
    return "// nothing to see here: " + source.replace("\n", "\\u000a") + "\n"


def test_python_sources_are_decoded_with_their_declared_encoding() -> None:
    text = MONTECARLO.read_text()
    assert source_text(utf7(text), ".py") == "# -*- coding: utf-7 -*-\n" + text
    assert source_text(utf7(text), ".py") != utf7(text).decode("utf-8", "replace")
    bom = b"\xef\xbb\xbfx = 1\n"
    assert source_text(bom, ".py") == "x = 1\n"
    # an unknown codec does not run as Python either: read as UTF-8, never a failure
    assert source_text(b"# coding: no-such-codec\nx = 1\n", ".py").endswith("x = 1\n")


def test_java_unicode_escapes_are_applied_as_javac_does() -> None:
    assert java_unescape("a\\u0041b") == "aAb"
    assert java_unescape("\\uuuu000a") == "\n"  # any number of u's
    assert java_unescape("\\\\u0041") == "\\\\u0041"  # an escaped backslash: no escape
    assert java_unescape("\\\\\\u0041") == "\\\\A"  # the third backslash is a new one
    assert java_unescape("\\u005cu0041") == "\\u0041"  # an escape's result starts nothing
    assert java_unescape("\\u00") == "\\u00"  # not four hex digits: left as it is


def test_a_utf7_copy_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(MONTECARLO, tmp_path / "a" / "bot.py")
    (tmp_path / "b" / "bot.py").write_bytes(utf7(MONTECARLO.read_text()))
    report = compare([str(tmp_path / "a" / "bot.py"), str(tmp_path / "b" / "bot.py")],
                     play=False)
    [pair] = report.pairs
    assert pair.code is not None and pair.code.flagged, pair.code
    assert pair.code.score > 0.9


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac not found: install a JDK")
def test_a_one_line_escaped_java_copy_compiles_and_is_flagged(tmp_path: Path) -> None:
    copy = tmp_path / "Stopper"
    copy.mkdir()
    (copy / "Stopper.java").write_text(one_line_java(STOPPER.read_text()))
    assert len((copy / "Stopper.java").read_text().splitlines()) == 1
    spec = parse_spec(f"java:{copy}")  # javac compiles it, for real
    classes = Path(spec.classpath[-1])
    assert spec.cls == "Stopper" and (classes / "Stopper.class").is_file(), spec.classpath
    original = fingerprint("original", sources_of_spec(f"java:{STOPPER.parent}"))
    hidden = fingerprint("hidden", sources_in(copy))
    match = compare_code(original, hidden)
    assert match.flagged and match.score > 0.9, match


def test_a_version_that_cannot_be_read_is_named_and_the_others_compared() -> None:
    bad = Code("eve v2", (), None, problem="its sources could not be read (RecursionError)")
    good = fingerprint("ann v1", sources_in(MONTECARLO))
    match = compare_code(good, bad)
    assert not match.scored and not match.flagged
    assert match.note.startswith("could not compare this version (eve v2)")


def test_similarity_command_survives_a_too_deep_upload(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text in (DEEP, DEEP2):
        with pytest.raises(RecursionError):  # the attack is real
            ast.parse(text)
    (tmp_path / "deep.py").write_text(DEEP)
    (tmp_path / "deep7.py").write_bytes(utf7(DEEP2))
    shutil.copy(MONTECARLO, tmp_path / "mc.py")
    (tmp_path / "mc7.py").write_bytes(utf7(MONTECARLO.read_text()))
    assert main(["similarity", "--no-play", *(str(tmp_path / n) for n in
                                              ("deep.py", "deep7.py", "mc.py", "mc7.py"))]) == 0
    out = capsys.readouterr().out
    assert "1 flagged pair(s) of 6" in out, out
    assert f"FLAG {tmp_path / 'mc.py'}  ~  {tmp_path / 'mc7.py'}" in out \
        or f"FLAG {tmp_path / 'mc7.py'}  ~  {tmp_path / 'mc.py'}" in out


def test_admin_page_survives_hostile_uploads_and_flags_hidden_copies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\ntimeout_s: 1\nreference_bots: [L0]\n"
                   "isolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    teacher = lg.add_user("teacher", admin=True)
    for user in ("ann", "bob", "eve", "mal"):
        lg.add_user(user)
    lg.submit("ann", [("montecarlo.py", MONTECARLO.read_bytes())])
    lg.submit("bob", [("mine.py", utf7(MONTECARLO.read_text()))])
    lg.submit("eve", [("deep.py", utf7(DEEP))])
    lg.submit("mal", [("deeper.py", DEEP2.encode())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    d = tmp_path / "lg"
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    log_in(c, "teacher", teacher)
    page = c.get("/admin/similarity")
    assert page.status_code == 200, page.text[-2000:]
    assert "1 flagged pair(s) of 6" in page.text
    flagged = page.text.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in flagged and "bob v1" in flagged
    assert main(["league", "similarity", str(d), "--no-play"]) == 0
    assert "FLAG ann v1  ~  bob v1" in capsys.readouterr().out
