"""Similarity (arena.similarity, issue #41): the band of play similarity over unrelated pairs
(the built-ins) and the threshold it gives, the false positives among pairs known unrelated,
the related pairs' scores, code similarity over the same bots, and the time per new version
for a class of 50.

Play: every built-in (players/: L0, L1, alphabeta, minimax, montecarlo, mcts) and every Python
bot of the test data (tests/similarity/bots: negamax2 and negamax2_tweak, one evaluation
constant apart) asked on the first POSITIONS positions of arena/data/similarity_positions_6x7x4
at TIME_S a move, each twice, through the referee in the sandbox of games (`answers_of`).
Java bots (tests/similarity/data/java, examples/java) are compared by code only here: the
course API gives them whole seconds, so 2 x POSITIONS asks cost 2 x POSITIONS s each.

`CXARENA_SIM_BOARDS=SET` (a board set of arena/data/boards.yaml, e.g. ``competition``) asks
on every board of SET with a published set instead: POSITIONS spread over them
(`arena.similarity.positions.board_count`, at least 2 a board), one board after the other, as
a league on those boards asks them.

`CXARENA_SIM_ADMIN=1` measures something else instead (issue 48): the cost of a load of the
league's `/admin/similarity` page when the code fingerprints and pair scores are kept
(`arena.similarity.codestore`), for a league of `CXARENA_SIM_ENTRANTS` (50) students each with
one upload of `CXARENA_SIM_UPLOAD_MB` (2) MB of Python (generated, unrelated to one another),
and what keeping them cost the background (`step_code` until nothing is missing).

The class of 50 is extrapolated, not measured: a new version costs its own asks (the measured
mean per bot, both asks), its fingerprint and 49 code comparisons (measured per comparison),
and 49 play comparisons of stored answers (microseconds); nothing else is run again.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from arena.similarity.code import compare_code, fingerprint, sources_in, sources_of_spec
from arena.similarity.play import (
    REFERENCE_BOTS,
    RELATED,
    Position,
    Reference,
    answers_of,
    judge,
    load_positions,
)
from arena.similarity.positions import board_count, published

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = int(os.environ.get("CXARENA_SIM_POSITIONS", "60"))
TIME_S = 0.1
BOTS = ROOT / "tests" / "similarity" / "bots"
TEST_BOTS = {"negamax2": str(BOTS / "negamax2.py"),
             "negamax2_tweak": str(BOTS / "negamax2_tweak.py")}
JAVA = {"Blocker": ROOT / "examples" / "java" / "connectx" / "Blocker",
        "Stopper (renamed Blocker)": ROOT / "tests" / "similarity" / "data" / "java" / "Stopper"}
CLASS = 50
BOARD_SET = os.environ.get("CXARENA_SIM_BOARDS", "")


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _positions() -> tuple[list[Position], str]:
    """The positions asked, and what they are in words."""
    if not BOARD_SET:
        return (load_positions(6, 7, 4, limit=POSITIONS),
                "of 6x7x4 (arena/data/similarity_positions_6x7x4.txt)")
    from arena.tournament.config import resolve_board_set  # the named board sets

    boards = [b for b in dict.fromkeys(resolve_board_set(BOARD_SET, "CXARENA_SIM_BOARDS"))
              if published(b) is not None]
    n = board_count(POSITIONS, len(boards))
    out = [p for b in boards for p in published(b, n) or []]
    return out, (f"of the {len(boards)} boards of `{BOARD_SET}` with a published set "
                 f"(arena/data/similarity_positions_*.txt; {n} a board)")


def _upload(seed: int, size: int) -> bytes:
    """About `size` bytes of Python: functions of random names, statements and constants,
    each student's own (`seed`): no two share a run of tokens by design."""
    rng = random.Random(seed)
    ops = ["+", "-", "*", "//", "%", "<<", "^", "|", "&"]
    out = [f'"""Student {seed}: a bot."""\n', "import math\n\n"]
    total = 0
    n = 0
    while total < size:
        n += 1
        args = [f"v{rng.randrange(10**6)}" for _ in range(rng.randint(1, 4))]
        lines = [f"def f{seed}_{n}({', '.join(args)}):"]
        for _ in range(rng.randint(2, 9)):
            a, b = rng.choice(args), rng.choice(args)
            kind = rng.randrange(4)
            if kind == 0:
                lines.append(f"    {a} = {b} {rng.choice(ops)} {rng.randrange(10**9)}")
            elif kind == 1:
                lines.append(f"    if {a} > {rng.randrange(10**9)}:\n"
                             f"        {b} = {rng.randrange(10**9)} - {a}")
            elif kind == 2:
                lines.append(f"    for i in range({rng.randrange(10**9)}):\n"
                             f"        {a} += i {rng.choice(ops)} {b}")
            else:
                lines.append(f"    {a} = math.{rng.choice(['floor', 'ceil', 'trunc'])}"
                             f"({b} / {rng.randrange(1, 10**9)})")
        lines.append(f"    return {' + '.join(args)} + {rng.randrange(10**9)}\n\n")
        text = "\n".join(lines)
        out.append(text)
        total += len(text)
    return "".join(out).encode()


def admin_load() -> None:
    """The admin page's load cost with the code kept (see the module docstring)."""
    from starlette.testclient import TestClient

    from arena.league import League
    from arena.league.web.app import create_app
    from arena.similarity.codestore import code_report, step_code

    entrants = int(os.environ.get("CXARENA_SIM_ENTRANTS", "50"))
    size = int(float(os.environ.get("CXARENA_SIM_UPLOAD_MB", "2")) * 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "league.yaml"
        cfg.write_text("board_set: [[6, 7, 4]]\ntimeout_s: 1\nreference_bots: [L0]\n"
                       "isolation: false\nsimilarity_budget_s: 0\n")
        lg = League.init(Path(tmp) / "lg", cfg)
        secret = lg.add_user("teacher", admin=True)
        for i in range(entrants):
            lg.add_user(f"s{i:02d}")
            lg.submit(f"s{i:02d}", [("bot.py", _upload(i, size)[:size])])
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating'")
        t0 = time.perf_counter()
        fp_s, pair_s, fps, pairs = 0.0, 0.0, 0, 0
        while True:
            t = time.perf_counter()
            what = step_code(lg)
            if not what:
                break
            if " pair(s) compared" in what:
                pair_s += time.perf_counter() - t
                pairs += int(what.split()[2])
            else:
                fp_s += time.perf_counter() - t
                fps += 1
        background_s = time.perf_counter() - t0
        report_s = []
        for _ in range(5):
            t = time.perf_counter()
            report = code_report(lg)
            report_s.append(time.perf_counter() - t)
        lg.conn.close()
        c = TestClient(create_app(Path(tmp) / "lg"), base_url="http://127.0.0.1",
                       follow_redirects=False)
        login = c.get("/login").text
        token = re.search(r'name="csrf" value="([^"]+)"', login)
        assert token is not None
        c.post("/login", data={"name": "teacher", "secret": secret, "csrf": token.group(1)})
        page_s = []
        for _ in range(5):
            t = time.perf_counter()
            r = c.get("/admin/similarity")
            page_s.append(time.perf_counter() - t)
            assert r.status_code == 200, r.status_code
        flagged = len(report.flagged)
    print("## The admin page with the code kept (bench_similarity, CXARENA_SIM_ADMIN=1, "
          "issue 48)\n")
    print(f"{entrants} students, one upload each of {size / 1e6:g} MB of Python (generated, "
          f"unrelated): {entrants * (entrants - 1) // 2} pairs.\n")
    print("| what | cost |")
    print("|---|---:|")
    print(f"| background, once: {fps} fingerprints | {fp_s:.0f} s ({fp_s / max(1, fps):.1f} s "
          f"each) |")
    print(f"| background, once: {pairs} pair scores | {pair_s:.0f} s "
          f"({pair_s / max(1, pairs) * 1000:.0f} ms each) |")
    print(f"| background, all | {background_s / 60:.1f} min |")
    print(f"| `code_report` (the page's work), median of 5 | "
          f"{statistics.median(report_s) * 1000:.0f} ms |")
    print(f"| GET /admin/similarity over HTTP (TestClient), median of 5 (max) | "
          f"{statistics.median(page_s) * 1000:.0f} ms ({max(page_s) * 1000:.0f} ms) |")
    print(f"\nFlagged pairs among the unrelated uploads: {flagged}.\n")


def main() -> None:
    if os.environ.get("CXARENA_SIM_ADMIN"):
        admin_load()
        return
    positions, where = _positions()
    specs = list(REFERENCE_BOTS) + list(TEST_BOTS.values())
    label = {v: k for k, v in TEST_BOTS.items()} | {b: b for b in REFERENCE_BOTS}
    t0 = time.perf_counter()
    got = answers_of(specs, 6, 7, 4, positions, time_s=TIME_S)
    wall = time.perf_counter() - t0
    answers = {label[s]: a for s, a in got.items()}
    ref = Reference.of([got[b] for b in REFERENCE_BOTS])
    print("## Similarity: play and code (bench_similarity)\n")
    print(f"{len(positions)} positions {where}, {TIME_S:g} s a move, every bot asked twice "
          f"through the referee; {len(specs)} bots in {wall:.0f} s of wall time.\n")
    print("**The band of unrelated pairs** (the built-ins agreeing with themselves at least "
          f"half the time: not {', '.join(ref.random_bots) or '-'}; every pair but "
          f"alphabeta~minimax, related by design): {len(ref.shares)} pairs, shares of identical "
          f"answers "
          f"min {min(ref.shares):.2f}, median {ref.mean:.2f}, max {max(ref.shares):.2f}; "
          f"spread (1.4826 MAD, floored at 0.05) {ref.sd:.2f}; "
          f"**threshold (z >= 5): {ref.threshold:.2f}**.\n")
    print("| bot | self-agreement | faults | s for both asks |")
    print("|---|---:|---:|---:|")
    for name, a in answers.items():
        print(f"| {name} | {_fmt(a.self_agreement)} | {a.faults} | {a.seconds:.1f} |")
    print()
    print("| pair | share | z | flagged | relation |")
    print("|---|---:|---:|---|---|")
    fp = 0
    unrelated = 0
    for x, y in itertools.combinations(answers, 2):
        m = judge(answers[x], answers[y], ref)
        related = (frozenset({x, y}) in RELATED
                   or {x, y} == {"negamax2", "negamax2_tweak"})
        relation = "related" if related else "unrelated"
        if not related:
            unrelated += 1
            fp += m.flagged
        print(f"| {x} ~ {y} | {_fmt(m.share)} | {m.z:+.1f} | {'yes' if m.flagged else 'no'}"
              f"{' (' + m.why + ')' if m.flagged else ''} | {relation} |")
    print(f"\n**False positives: {fp} of {unrelated} unrelated pairs flagged.**\n")

    # code similarity over the same bots (and the Java pair)
    t1 = time.perf_counter()
    codes = {name: fingerprint(name, sources_of_spec(spec))
             for name, spec in [(b, b) for b in REFERENCE_BOTS] + list(TEST_BOTS.items())}
    codes.update({name: fingerprint(name, sources_in(p)) for name, p in JAVA.items()})
    fp_s = (time.perf_counter() - t1) / len(codes)
    rows = []
    t2 = time.perf_counter()
    n_cmp = 0
    for x, y in itertools.combinations(codes, 2):
        cm = compare_code(codes[x], codes[y])
        n_cmp += 1
        if cm.scored:
            rows.append((cm.score, x, y, cm))
    cmp_s = (time.perf_counter() - t2) / max(1, n_cmp)
    rows.sort(reverse=True)
    print("Code similarity (copydetect winnowing, k = 25 filtered characters, window 4; flagged "
          "at score >= 0.5 with >= 300 matched characters), every pair of one language:\n")
    print("| pair | score | shares | matched chars | flagged |")
    print("|---|---:|---:|---:|---|")
    for score, x, y, cm in rows[:12]:
        print(f"| {x} ~ {y} | {score:.2f} | {cm.share_a:.2f} / {cm.share_b:.2f} | "
              f"{cm.overlap} | {'yes' if cm.flagged else 'no'} |")
    per_bot = statistics.fmean(a.seconds for a in got.values())
    new_version = per_bot + fp_s + (CLASS - 1) * cmp_s
    print(f"\n**A class of {CLASS}** (extrapolated from the measured costs above, not run): a new "
          f"version costs its asks, {per_bot:.1f} s (the mean per bot here, both asks of "
          f"{len(positions)} positions at {TIME_S:g} s), its fingerprint ({fp_s * 1000:.0f} ms) "
          f"and {CLASS - 1} code comparisons ({cmp_s * 1000:.1f} ms each): about "
          f"**{new_version:.0f} s per new version**, one core; the whole class from scratch "
          f"about {CLASS * per_bot / 60:.0f} min of asks plus "
          f"{CLASS * (CLASS - 1) / 2 * cmp_s:.0f} s of code comparisons. A Java version asks "
          f"at 1 s a move: about {2 * len(positions) * 1.0:.0f} s at most.\n")
