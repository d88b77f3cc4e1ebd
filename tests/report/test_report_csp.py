"""The report's Content-Security-Policy (issue 48, item 5): the ``<meta>`` of a rendered report
and the header the league serves it with allow exactly cxarena's own inline scripts, by
hashes computed from cxarena's template and scripts; a script injected into the page (a bot's
name that got past the escaping, an edited file) is not allowed."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
from pathlib import Path

from arena.commands.tournament import run_and_report
from arena.league.web.security import inline_script_csp
from arena.report.html import render_report, report_csp
from arena.tournament.config import load_config
from tests.report.conftest import Played

INJECTED = "alert(document.cookie)"


def _hash(body: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


def _meta_csp(page: str) -> str:
    m = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert m is not None, "no CSP meta in the report"
    return html.unescape(m.group(1))


def _script_sources(csp: str) -> set[str]:
    directive = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
    return set(directive.split()[1:])


def test_the_report_allows_its_own_scripts_and_nothing_injected(played: Played) -> None:
    page = render_report(played.results_dir)
    csp = _meta_csp(page)
    assert csp == report_csp()
    assert page.index("Content-Security-Policy") < page.index("<title>")  # before any text
    own = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(own) == 2 and {_hash(b) for b in own} | {"'self'"} == _script_sources(csp)
    # a script that found its way into the page (after the fact, or by a bot's name): the
    # policy is the same, and does not allow it
    hostile = page.replace("</main>", f"<script>{INJECTED}</script></main>")
    assert _meta_csp(hostile) == csp
    assert _hash(INJECTED) not in _script_sources(csp)
    assert _hash(INJECTED) not in _script_sources(inline_script_csp())
    assert "'unsafe-inline'" not in _script_sources(csp)


def test_a_bot_name_with_a_script_is_text_and_not_allowed(tmp_path: Path) -> None:
    """A real tournament whose bot is named like a script: the report shows the name escaped,
    and the only scripts its policy allows are the template's two."""
    name = f"</script><script>{INJECTED}</script>"
    cfg = tmp_path / "t.yaml"
    cfg.write_text(f"name: csp\nplayers: [L0, {{spec: L1, name: {json.dumps(name)}}}]\n"
                   "boards: [[4, 4, 4]]\ntimeout_s: 0.05\ngrace_s: 0.02\nrounds: 1\n"
                   "workers: 1\nseed: 7\n")
    assert run_and_report(load_config(cfg), tmp_path / "r", quiet=True,
                          out=io.StringIO()).complete
    page = (tmp_path / "r" / "report.html").read_text()
    csp = _meta_csp(page)
    bodies = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert INJECTED in page and name not in page  # shown, as text
    assert INJECTED not in "".join(bodies)
    assert {_hash(b) for b in bodies} | {"'self'"} == _script_sources(csp)
    assert _hash(INJECTED) not in csp
