"""Code similarity of a league, computed once and kept (issue 48): each version's fingerprint
(`arena.similarity.code.fingerprint`: its sources tokenised, winnowed, the boilerplate gone)
in the league's folder, and each pair's code score in the league's database, so that the
admin page reads them instead of tokenising every upload on every load.

**Which versions.** Every version a student entered that passed its check (`PASSED`: the
current one, the ones replaced since, and above all the one their final entry plays,
`arena.league.entries.entry_of`), against every version of every other student
(`screened_versions`, `pairs_of`): a student who enters a copied older version and uploads a
clean one last is screened on both. Pairs with a final entry come first, then current versions,
then the rest.

**When.** The league server's background (`arena.similarity.background`: `step_code`) makes the
missing fingerprints, oldest version first (one a step), then the missing pairs (about a second
of them a step), when nothing more urgent runs. The admin page (`code_report`) reads what is
kept and makes what is missing itself only up to `PAGE_CHARS` characters of sources a load (a
small league needs no background); the rest says "not compared yet".

**Where.** Fingerprints: DIR/similarity-code/ID.npz (hashes, their positions, the filter's
offsets, the text the regions are read from), one file per version, written whole by a rename;
the table ``similarity_code`` says which exist (or why a version could not be read); pairs:
``similarity_code_pairs``, one JSON row per pair of submission ids (smaller id first). A
version's files never change, so neither does what is kept; `FORMAT` changes when the way of
fingerprinting does, and what was kept in another format is made again.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.similarity.code import (
    Code,
    CodeMatch,
    Region,
    Winnowed,
    compare_code,
    fingerprint,
    unreadable,
)

__all__ = ["FOLDER", "FORMAT", "PAGE_CHARS", "Version", "code_report", "kept_code", "load_code",
           "pairs_of", "screened_versions", "step_code", "stored_pair", "version_code"]

#: the version of what is kept (a fingerprint or pair kept in another is made again)
FORMAT = 1
#: the folder of the fingerprints, in the league's folder
FOLDER = "similarity-code"
#: the characters of sources the admin page fingerprints and compares itself on one load
#: (about a second of tokenising); more waits for the background
PAGE_CHARS = 150_000

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS similarity_code (submission_id INTEGER PRIMARY KEY, "
    "format INTEGER NOT NULL, language TEXT, tokens INTEGER NOT NULL, chars INTEGER NOT NULL, "
    "problem TEXT NOT NULL, made_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS similarity_code_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, "
    "format INTEGER NOT NULL, result TEXT NOT NULL, PRIMARY KEY (a, b))",
)


@dataclass(frozen=True)
class Version:
    """A version screened: its submission id, author, number, and what it is to the league."""

    id: int
    user: str
    version: int
    entry: bool  # the version the student's final entry plays
    current: bool  # the student's latest version that passed

    @property
    def label(self) -> str:
        return f"{self.user} v{self.version}"

    @property
    def rank(self) -> int:
        """0 for a final entry, 1 for a current version, 2 for an older one."""
        return 0 if self.entry else 1 if self.current else 2


def screened_versions(league: Any) -> list[Version]:
    """Every version that passed its check (`PASSED`), each marked as its author's final entry
    and/or current version; in submission order."""
    from arena.league.entries import CURRENT, PASSED, entry_of  # the league's states

    passed = [s for s in league.submissions() if s.status in PASSED]
    current: dict[str, int] = {}
    for s in passed:
        if s.status in CURRENT and s.id > current.get(s.user, 0):
            current[s.user] = s.id
    entries = set()
    for user in sorted({s.user for s in passed}):
        e = entry_of(league, user)
        if e is not None:
            entries.add(e.submission_id)
    return [Version(s.id, s.user, s.version, s.id in entries, current.get(s.user) == s.id)
            for s in passed]


def pairs_of(versions: Sequence[Version]) -> list[tuple[Version, Version]]:
    """Every pair of versions of two different students, the pairs of final entries first,
    then of current versions, then the rest."""
    pairs = [(a, b) for i, a in enumerate(versions) for b in versions[i + 1:]
             if a.user != b.user]
    pairs.sort(key=lambda p: (p[0].rank + p[1].rank, max(p[0].rank, p[1].rank), p[0].id,
                              p[1].id))
    return pairs


def ensure_tables(conn: Any) -> None:
    with conn:
        for statement in _SCHEMA:
            conn.execute(statement)


def _path(league: Any, submission_id: int) -> Path:
    return Path(league.dir) / FOLDER / f"{submission_id}.npz"


def version_code(league: Any, v: Version) -> Code:
    """Fingerprint version `v` from its files (as `league_similarity` reads them) and keep it;
    a version whose sources cannot be read is kept as such (`Code.problem`)."""
    from arena.similarity.view import version_sources  # the files a version's SPEC plays

    try:
        _, _, files = version_sources(league, v.id)
        code = fingerprint(v.label, files)
    except (OSError, KeyError, ValueError, UnicodeError, RecursionError, MemoryError) as e:
        code = unreadable(v.label, e)
    _save(league, v.id, code)
    return code


def _save(league: Any, submission_id: int, code: Code) -> None:
    import numpy as np  # with copydetect

    ensure_tables(league.conn)
    if code.comparable:
        assert code.fp is not None
        path = _path(league, submission_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        np.savez(buf, hashes=code.fp.hashes, idx=code.fp.idx,
                 offsets=np.asarray(code.fp.offsets, dtype=np.int64).reshape(-1, 2),
                 text=np.frombuffer(code.text.encode("utf-8"), dtype=np.uint8),
                 starts=np.asarray(code.starts, dtype=np.int64),
                 meta=np.frombuffer(json.dumps({
                     "names": list(code.names), "k": code.fp.k, "length": code.fp.length,
                     "coverage": code.fp.coverage}).encode(), dtype=np.uint8))
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    with league.conn:
        league.conn.execute(
            "INSERT OR REPLACE INTO similarity_code (submission_id, format, language, tokens, "
            "chars, problem, made_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (submission_id, FORMAT, code.language, code.tokens, len(code.text), code.problem,
             time.time()))


def _rows(league: Any) -> dict[int, tuple[str | None, int, str]]:
    """submission id -> (language, tokens, problem) of the fingerprints kept in this FORMAT."""
    ensure_tables(league.conn)
    return {int(r[0]): (r[1], int(r[2]), str(r[3])) for r in league.conn.execute(
        "SELECT submission_id, language, tokens, problem FROM similarity_code WHERE format=?",
        (FORMAT,))}


def load_code(league: Any, v: Version, row: tuple[str | None, int, str] | None = None
              ) -> Code | None:
    """Version `v`'s kept fingerprint (None: none kept, or its file is gone or unreadable)."""
    import numpy as np  # with copydetect

    if row is None:
        row = _rows(league).get(v.id)
        if row is None:
            return None
    language, tokens, problem = row
    if problem or not tokens:
        return Code(v.label, (), language, problem=problem)
    try:
        with np.load(_path(league, v.id), allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            text = bytes(data["text"]).decode("utf-8")
            fp = Winnowed(int(meta["k"]), data["hashes"], data["idx"], data["offsets"],
                          int(meta["length"]), int(meta["coverage"]))
            starts = tuple(int(x) for x in data["starts"])
    except (OSError, ValueError, KeyError, UnicodeError):
        return None
    return Code(v.label, (), language, text, starts, tuple(str(n) for n in meta["names"]), fp,
                tokens)


def kept_code(league: Any, submission_id: int) -> Code | None:
    """The fingerprint kept of a league version (None: none kept yet), for the pair page."""
    row = _rows(league).get(submission_id)
    if row is None:
        return None
    sub = league.submission(submission_id)
    if sub is None:
        return None
    return load_code(league, Version(sub.id, sub.user, sub.version, False, False), row)


#: the matched regions kept of a pair, each side (the page lists 6; the pair page finds them all)
KEPT_REGIONS = 12


def _match_dict(m: CodeMatch) -> dict[str, Any]:
    return {"score": m.score, "share_a": m.share_a, "share_b": m.share_b, "overlap": m.overlap,
            "note": m.note, "flagged": m.flagged,
            "regions_a": [[r.file, r.first, r.last] for r in m.regions_a[:KEPT_REGIONS]],
            "regions_b": [[r.file, r.first, r.last] for r in m.regions_b[:KEPT_REGIONS]]}


def _match(a: str, b: str, d: dict[str, Any], swap: bool) -> CodeMatch:
    ra = tuple(Region(str(f), int(x), int(y)) for f, x, y in d["regions_a"])
    rb = tuple(Region(str(f), int(x), int(y)) for f, x, y in d["regions_b"])
    sa, sb = float(d["share_a"]), float(d["share_b"])
    if swap:
        ra, rb, sa, sb = rb, ra, sb, sa
    return CodeMatch(a, b, float(d["score"]), sa, sb, int(d["overlap"]), ra, rb,
                     note=str(d["note"]), flagged=bool(d["flagged"]))


def _pair_rows(league: Any) -> dict[tuple[int, int], dict[str, Any]]:
    ensure_tables(league.conn)
    out = {}
    for a, b, result in league.conn.execute(
            "SELECT a, b, result FROM similarity_code_pairs WHERE format=?", (FORMAT,)):
        try:
            out[int(a), int(b)] = json.loads(result)
        except ValueError:
            continue
    return out


def stored_pair(league: Any, a: Version, b: Version,
                rows: dict[tuple[int, int], dict[str, Any]] | None = None) -> CodeMatch | None:
    """The kept code score of `a` and `b` (side `a` first), None: not compared yet."""
    rows = _pair_rows(league) if rows is None else rows
    lo, hi = sorted((a.id, b.id))
    d = rows.get((lo, hi))
    if d is None:
        return None
    try:
        return _match(a.label, b.label, d, swap=a.id != lo)
    except (KeyError, TypeError, ValueError):
        return None


def _compare_and_keep(league: Any, a: Version, b: Version, ca: Code, cb: Code) -> CodeMatch:
    match = compare_code(ca, cb)
    lo, hi = sorted((a.id, b.id))
    kept = match if a.id == lo else compare_code(cb, ca)
    with league.conn:
        league.conn.execute(
            "INSERT OR REPLACE INTO similarity_code_pairs (a, b, format, result) "
            "VALUES (?, ?, ?, ?)", (lo, hi, FORMAT, json.dumps(_match_dict(kept))))
    return match


def step_code(league: Any, budget_s: float = 1.0,
              clock: Callable[[], float] = time.monotonic) -> str:
    """One step of the background's code work: the oldest screened version without a kept
    fingerprint is fingerprinted, else pairs (`pairs_of`) not compared yet are compared, for
    about `budget_s` seconds of `clock` (at least one); returns what was done in words ("" :
    nothing was missing)."""
    versions = screened_versions(league)
    rows = _rows(league)
    missing = [v for v in versions if v.id not in rows or (
        not rows[v.id][2] and rows[v.id][1] and not _path(league, v.id).is_file())]
    if missing:
        v = missing[0]
        code = version_code(league, v)
        return f"code of {v.label} fingerprinted" + (f": {code.problem}" if code.problem else "")
    done = _pair_rows(league)
    codes: dict[int, Code | None] = {}
    compared = []
    start = clock()
    for a, b in pairs_of(versions):
        if tuple(sorted((a.id, b.id))) in done:
            continue
        for v in (a, b):
            if v.id not in codes:
                codes[v.id] = load_code(league, v, rows[v.id])
        ca, cb = codes[a.id], codes[b.id]
        if ca is None or cb is None:
            continue
        _compare_and_keep(league, a, b, ca, cb)
        compared.append(f"{a.label} ~ {b.label}")
        if clock() - start >= budget_s:
            break
    if not compared:
        return ""
    return f"code of {len(compared)} pair(s) compared ({', '.join(compared[:3])}" + (
        ", ...)" if len(compared) > 3 else ")")


def code_report(league: Any, page_chars: int = PAGE_CHARS) -> Any:
    """The code similarity of every screened pair, as kept (`SimilarityReport`, code only):
    what is missing is made here up to `page_chars` characters of sources, the rest is listed
    as not compared yet. Reads one table of each kind and the fingerprints it compares."""
    from arena.similarity.report import Pair, SimilarityReport  # the report's shape

    versions = screened_versions(league)
    rows = _rows(league)
    pair_rows = _pair_rows(league)
    codes: dict[int, Code | None] = {}
    spent = 0
    waiting = 0

    def code_of(v: Version) -> Code | None:
        nonlocal spent
        if v.id not in codes:
            got = load_code(league, v, rows[v.id]) if v.id in rows else None
            if got is None and spent < page_chars:
                got = version_code(league, v)
                spent += len(got.text)
            codes[v.id] = got
        return codes[v.id]

    pairs = []
    for a, b in pairs_of(versions):
        match = stored_pair(league, a, b, pair_rows)
        if match is None and spent < page_chars:
            ca, cb = code_of(a), code_of(b)
            if ca is not None and cb is not None:
                spent += len(ca.text) + len(cb.text)
                match = _compare_and_keep(league, a, b, ca, cb)
        if match is None:
            waiting += 1
            match = CodeMatch(a.label, b.label, 0.0, 0.0, 0.0, 0,
                              note="not compared yet (the league's server does it in the "
                                   "background)")
        pairs.append(Pair(a.label, b.label, match, None))
    pairs.sort(key=Pair.sort_key)
    notes = []
    entries = [v.label for v in versions if v.entry]
    older = sum(1 for v in versions if not v.current)
    notes.append(f"code: every version that passed its check is screened ({len(versions)} "
                 f"versions of {len({v.user for v in versions})} students, {older} of them "
                 f"replaced since); the final entries: {', '.join(entries) or 'none yet'}")
    bad = []
    for v in versions:
        c = codes.get(v.id)
        problem = c.problem if c is not None else rows.get(v.id, (None, 0, ""))[2]
        if problem:
            bad.append(f"{v.label}: {problem}")
    notes += [f"code: could not compare this version ({b})" for b in bad]
    if waiting:
        notes.append(f"code: {waiting} pair(s) not compared yet; the league's server compares "
                     f"them in the background (reload later)")
    report = SimilarityReport(pairs, notes=notes)
    report.ids = {v.label: v.id for v in versions}
    return report
