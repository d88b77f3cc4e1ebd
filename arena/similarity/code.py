"""Code similarity: token-based winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003), as
MOSS, JPlag, Dolos and copydetect do, through the library `copydetect` (0.5.0).

How a pair is scored:

1. A bot's **sources** (`sources_of_spec`, `sources_in`): a Python or Kaggle file with the
   modules beside it that it imports (recursively), or every .py/.java file of a folder (a
   Java bot's sources, a league version's unpacked folder); a jar or an ``exec:`` program has
   none. The files of the bot's main language are put end to end, in name order, as one
   document (a function moved to another file is a function reordered).
2. copydetect **tokenises** the document with pygments and filters it: every identifier
   becomes ``V`` (``F`` a function's name, ``O`` a class's), every string ``S``, comments and
   whitespace go. So renaming, reformatting and comments change nothing.
3. It hashes every k-gram of the filtered text (`NOISE` characters, about a dozen tokens) and
   **winnows** them (the smallest hash of each window of `WINDOW` k-grams): a copied run of
   `NOISE + WINDOW - 1` characters or more is always seen, and the set of fingerprints does not
   depend on the order of the functions.
4. **Boilerplate** goes: every k-gram of the course's API (arena/player.py, arena/board.py,
   the Java API in arena/entrants/java/connectx) and of the templates cxarena hands out
   (arena/onboarding/templates) is removed from both sides before comparing, so two bots
   that both start from `cxarena new-bot` share nothing for it.
5. The **shares**: of each side's fingerprinted tokens, the fraction inside a run found in the
   other. The pair's score is the larger share (a small bot copied whole into a large one
   scores high), in [0, 1]; the matched regions are reported as file and line ranges on both
   sides. A pair is flagged when its score is at least `FLAG_SCORE` and the matched text is at
   least `MIN_OVERLAP` filtered characters (two tiny wrappers around a library look alike for
   want of anything else).

Why copydetect, and what is done around it: it tokenises with pygments (Python and Java among
many) and filters (`filter_code`), which is kept; its k-gram hashes are Python's `hash` of
strings, salted per process, so the k-grams are hashed here instead (`stable_kgrams`: the same
in every process, so that a version's fingerprint is computed once and kept,
`arena.similarity.codestore`), then winnowed with copydetect's `winnow` and compared as its
`compare_files` does (`_overlap`); the boilerplate is removed from the kept hashes (`_drop`).

Sources are read as their compiler reads them (`source_text`): Python in the encoding its
first lines declare (PEP 263), Java with its unicode escapes applied (JLS 3.3). A version whose
sources cannot be read or tokenised (hostile text) is named as not compared (`Code.problem`),
never a failure of the whole comparison.
"""

from __future__ import annotations

import ast
import functools
import io
import logging
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.entrants.sources import is_junk

__all__ = ["FLAG_SCORE", "MIN_OVERLAP", "Code", "CodeMatch", "Region", "SourceFile",
           "boilerplate_paths", "compare_code", "fingerprint", "sources_in", "sources_of_spec"]

#: k: the length of a hashed k-gram of the filtered text (copydetect's noise threshold)
NOISE = 25
#: the winnowing window, in k-grams (a shared run of NOISE + WINDOW - 1 chars is always seen)
WINDOW = 4
#: a pair whose score is at least this is flagged (with MIN_OVERLAP)
FLAG_SCORE = 0.5
#: ... and whose matched text is at least this many filtered characters (about a dozen lines
#: of code: alphabeta.py and minimax.py, two three-method wrappers of one library, match
#: over 257, all their code)
MIN_OVERLAP = 300
#: file name ending -> the pygments lexer
LANGUAGES = {".py": "python", ".java": "java"}
#: folders never read for sources
_SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", "build", "target", "out"}
#: at most this many characters of sources per bot (a bigger upload is cut, in name order)
MAX_CHARS = 2_000_000

ARENA = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class SourceFile:
    """One file of a bot: its name (relative to the bot's folder) and text."""

    name: str
    text: str

    @property
    def language(self) -> str | None:
        return LANGUAGES.get(Path(self.name).suffix.lower())


@dataclass(frozen=True)
class Region:
    """A matched stretch of one side: lines `first`..`last` (from 1) of file `file`."""

    file: str
    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.file}:{self.first}-{self.last}"


@dataclass
class Code:
    """A bot's sources fingerprinted (`fingerprint`)."""

    label: str
    files: tuple[SourceFile, ...]
    language: str | None
    text: str = ""  # the files of `language` end to end
    starts: tuple[int, ...] = ()  # where each file of `language` starts in `text`
    names: tuple[str, ...] = ()
    fp: Winnowed | None = None  # the winnowed hashes (None: nothing to compare)
    tokens: int = 0  # fingerprinted tokens (after boilerplate)
    #: why this version's sources could not be compared ("" : they could), one line: an
    #: upload whose text breaks the tokeniser is named, never a failure for the whole page
    problem: str = ""

    @property
    def comparable(self) -> bool:
        return self.fp is not None and self.tokens > 0

    def file_spans(self, spans: Iterable[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
        """Character spans of `text` (`CodeMatch.spans_a`) cut at the files' borders: file
        name -> spans of that file's own text (from 0)."""
        import bisect  # small and only here

        out: dict[str, list[tuple[int, int]]] = {name: [] for name in self.names}
        ends = [*self.starts[1:], len(self.text)]
        for start, end in spans:
            i = max(0, bisect.bisect_right(self.starts, start) - 1)
            while i < len(self.names) and start < end:
                stop = min(end, ends[i])
                if stop > start:
                    out[self.names[i]].append((start - self.starts[i], stop - self.starts[i]))
                start = stop
                i += 1
        return out

    def regions(self, slices: Any) -> list[Region]:
        """Character slices of `text` (copydetect's 2 x n array) as file line ranges."""
        out: list[Region] = []
        if slices is None or len(slices) == 0 or len(slices[0]) == 0:
            return out
        import bisect  # small and only here

        newlines = [m.start() for m in re.finditer("\n", self.text)]  # once, not per slice
        for start, end in zip(slices[0], slices[1], strict=True):
            start, end = int(start), int(end)
            i = max(0, bisect.bisect_right(self.starts, start) - 1)
            before = bisect.bisect_left(newlines, self.starts[i])
            first = bisect.bisect_left(newlines, start) - before + 1
            last = bisect.bisect_left(newlines, max(start, end - 1)) - before + 1
            if out and out[-1].file == self.names[i] and first <= out[-1].last + 1:
                first = out.pop().first  # one region for a run of touching ones
            out.append(Region(self.names[i], first, last))
        return out


@dataclass(frozen=True)
class CodeMatch:
    """Two bots' code compared: `score` (the larger share, in [0, 1]), each side's share,
    the matched filtered characters, and the matched regions of each side."""

    a: str
    b: str
    score: float
    share_a: float
    share_b: float
    overlap: int
    regions_a: tuple[Region, ...] = ()
    regions_b: tuple[Region, ...] = ()
    note: str = ""  # why there is no score ("no sources", "different languages")
    flagged: bool = field(default=False)
    #: the matched stretches of each side as character spans of its `Code.text` (start, end),
    #: as copydetect found them: what the side-by-side view marks (`arena.similarity.view`)
    spans_a: tuple[tuple[int, int], ...] = field(default=(), repr=False, compare=False)
    spans_b: tuple[tuple[int, int], ...] = field(default=(), repr=False, compare=False)

    @property
    def scored(self) -> bool:
        return not self.note


# ----------------------------------------------------------------------------- sources

def _read(path: Path) -> str:
    """A source file's text as its compiler reads it (`source_text`)."""
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return source_text(data, path.suffix.lower())


def source_text(data: bytes, suffix: str) -> str:
    """The text a source file's compiler sees: Python decoded with the encoding its first two
    lines declare (PEP 263; a UTF-8 BOM), as the interpreter does, so that a copy saved as
    UTF-7 reads as the code it runs; Java decoded as UTF-8 (javac's ``-encoding UTF-8``) with
    its unicode escapes applied (`java_unescape`), so that ``\\u000a`` is the line break javac
    sees. Bytes the encoding cannot decode become U+FFFD (the file would not compile)."""
    if suffix == ".py":
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding, errors="replace")
        except (SyntaxError, LookupError, UnicodeError, ValueError):
            return data.decode("utf-8", errors="replace")  # not runnable: read as it is
    text = data.decode("utf-8", errors="replace")
    return java_unescape(text) if suffix == ".java" else text


#: a unicode escape of JLS 3.3: a backslash, one or more u's, four hex digits
_JAVA_ESCAPE = re.compile(r"\\+u+[0-9A-Fa-f]{4}")


def java_unescape(text: str) -> str:
    """Java source with its unicode escapes applied (JLS 3.3): ``\\uXXXX`` (any number of
    u's) is the character XXXX, unless its backslash is itself escaped (preceded by an odd
    number of backslashes). The result is what javac tokenises, in one pass (an escape's
    result is never read as the start of another)."""
    if "\\u" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        run = m.group(0)
        slashes = len(run) - len(run.lstrip("\\"))
        if slashes % 2 == 0:  # the last backslash is escaped: no unicode escape
            return run
        rest = run[slashes:].lstrip("u")
        return "\\" * (slashes - 1) + chr(int(rest, 16))

    return _JAVA_ESCAPE.sub(one, text)


def _local_imports(text: str) -> set[str]:
    """The top-level module names a Python file imports (absolute imports, and the module of
    a relative one)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text: the regex
        return set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", text, re.M))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def _python_with_siblings(path: Path) -> list[SourceFile]:
    """A Python file and the modules beside it that it imports (and they import)."""
    folder = path.parent
    seen: dict[Path, SourceFile] = {}
    todo = [path]
    while todo:
        p = todo.pop()
        if p in seen or not p.is_file():
            continue
        text = _read(p)
        seen[p] = SourceFile(p.relative_to(folder).as_posix(), text)
        for name in sorted(_local_imports(text)):
            for cand in (folder / f"{name}.py", folder / name):
                if cand.is_file():
                    todo.append(cand)
                elif cand.is_dir():
                    todo.extend(sorted(cand.rglob("*.py")))
    return sorted(seen.values(), key=lambda f: f.name)


def sources_in(path: str | Path) -> list[SourceFile]:
    """The sources of the bot at `path`: a .py file with the modules beside it that it imports,
    a .java file, or every .py and .java file under a folder (names relative to it)."""
    p = Path(path)
    if p.is_file():
        if p.suffix.lower() == ".py":
            return _python_with_siblings(p)
        if p.suffix.lower() in LANGUAGES:
            return [SourceFile(p.name, _read(p))]
        return []
    if not p.is_dir():
        return []
    out: list[SourceFile] = []
    total = 0
    for f in sorted(p.rglob("*")):
        rel = f.relative_to(p)
        if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if is_junk(rel):  # macOS ._X.java twins, __MACOSX/ (arena.entrants.sources)
            continue
        if f.is_file() and f.suffix.lower() in LANGUAGES:
            text = _read(f)
            total += len(text)
            if total > MAX_CHARS:
                break
            out.append(SourceFile(rel.as_posix(), text))
    return out


def _split(text: str, prefix: str) -> str:
    """The PATH of ``prefix PATH[:NAME]`` (PATH may contain ':' when it exists as given)."""
    rest = text[len(prefix):]
    if Path(rest).expanduser().exists():
        return rest
    where, sep, _ = rest.rpartition(":")
    return where if sep and where else rest


def sources_of_spec(text: str) -> list[SourceFile]:
    """The sources of the bot a SPEC names (`arena.entrants.specs`): a .py file (and the
    modules beside it it imports), ``kaggle:FILE``, ``java:FOLDER`` or ``java:FILE.java``, a
    module of `players` or an importable module. A jar, a class folder or ``exec:`` have none.
    Raises SpecError for a SPEC that names nothing."""
    from arena.entrants.specs import SpecError, parse_spec  # only for module SPECs

    text = text.strip()
    if text.startswith("exec:"):
        return []
    if text.startswith(("java:", "kaggle:")):
        folder = Path(_split(text, text.split(":", 1)[0] + ":")).expanduser()
        if not folder.exists():
            raise SpecError(f"bot SPEC {text!r}: no such file or folder {str(folder)!r}")
        return sources_in(folder)
    where = text.partition(":")[0]
    if where.endswith(".py") or "/" in where:
        p = Path(where).expanduser()
        if not p.is_file():
            raise SpecError(f"bot SPEC {text!r}: no such file {where!r}")
        return sources_in(p)
    spec = parse_spec(text)
    if spec.module is None:
        return []
    from arena.entrants.modpath import find_module  # only for module SPECs

    found = find_module(spec.module)  # the file system only: nothing of the bot is imported
    origin = None if found is None else found.origin
    return sources_in(origin) if origin else []


# ----------------------------------------------------------------------------- fingerprints

def boilerplate_paths() -> dict[str, list[Path]]:
    """language -> the files whose every k-gram is boilerplate: the course's API and the
    templates cxarena hands out."""
    templates = sorted((ARENA / "onboarding" / "templates").glob("*.tmpl"))
    return {
        "python": [ARENA / "player.py", ARENA / "board.py", *templates],
        "java": sorted((ARENA / "entrants" / "java" / "connectx").glob("*.java")),
    }


def _copydetect() -> Any:
    # copydetect imports matplotlib and its report code: loaded only when code is compared
    import copydetect

    logging.getLogger("matplotlib").setLevel(logging.WARNING)
    return copydetect


@dataclass
class Winnowed:
    """A document's winnowed k-gram hashes, as copydetect's `CodeFingerprint` holds them but
    with hashes that are the same in every process (`stable_kgrams`), so that they can be kept
    per version (`arena.similarity.codestore`): `hashes[i]` is the hash of the k-gram at
    position `idx[i]` of the filtered text (`length` characters); `offsets` maps the filtered
    text back to the original (copydetect's `filter_code`); `coverage`: the filtered characters
    inside a kept k-gram (the fingerprinted tokens)."""

    k: int
    hashes: Any  # np.ndarray of int64
    idx: Any  # np.ndarray of int64
    offsets: Any  # np.ndarray, N x 2 (or empty)
    length: int
    coverage: int = 0


def stable_kgrams(text: str, k: int) -> Any:
    """The hash of every k-gram of `text` (an int64 array, 52 bits used: exact as the float64
    that copydetect's winnowing compares): a polynomial of the code points, mixed by
    splitmix64's finaliser. The same in every process (Python's `hash` of a string is not)."""
    import numpy as np  # with copydetect, only when code is compared

    if len(text) < k:
        return np.zeros(0, dtype=np.int64)
    a = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = len(a) - k + 1
    h = np.zeros(n, dtype=np.uint64)
    base = np.uint64(1_000_003)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * base + a[j:j + n]
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return (h >> np.uint64(12)).astype(np.int64)


def _fingerprint(text: str, language: str, window: int) -> Winnowed:
    """`text` tokenised and filtered by copydetect (`filter_code`: names V/F/O, strings S,
    comments and whitespace gone), its k-grams hashed (`stable_kgrams`) and winnowed."""
    import numpy as np  # with copydetect

    utils = _copydetect().utils
    filtered, offsets = utils.filter_code(text, f"bot.{language}", language)
    hashes = stable_kgrams(filtered, NOISE)
    if len(hashes) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Winnowed(NOISE, empty, empty, np.asarray(offsets), len(filtered))
    chosen, idx = utils.winnow(hashes, window_size=window, remove_duplicates=False)
    idx, first = np.unique(np.asarray(idx, dtype=np.int64), return_index=True)
    fp = Winnowed(NOISE, np.asarray(chosen, dtype=np.int64)[first], idx, np.asarray(offsets),
                  len(filtered))
    fp.coverage = _coverage(fp)
    return fp


def _coverage(fp: Winnowed) -> int:
    """The filtered characters inside a kept k-gram (copydetect's `get_token_coverage`)."""
    import numpy as np  # with copydetect

    covered = np.zeros(fp.length, dtype=bool)
    for offset in range(fp.k):
        covered[fp.idx + offset] = True
    return int(covered.sum())


def _overlap(a: Winnowed, b: Winnowed) -> tuple[int, tuple[float, float], tuple[Any, Any]]:
    """copydetect's `compare_files` on two `Winnowed`: the matched filtered characters (of
    `a`), each side's share, and each side's matched slices of its original text."""
    import numpy as np  # with copydetect

    utils = _copydetect().utils
    idx_a = a.idx[np.isin(a.hashes, b.hashes)]
    idx_b = b.idx[np.isin(b.hashes, a.hashes)]
    slices_a = utils.get_copied_slices(idx_a, a.k)
    slices_b = utils.get_copied_slices(idx_b, b.k)
    if len(slices_a[0]) == 0:
        return 0, (0.0, 0.0), (np.array([]), np.array([]))
    overlap_a = int(np.sum(slices_a[1] - slices_a[0]))
    overlap_b = int(np.sum(slices_b[1] - slices_b[0]))
    share_a = overlap_a / a.coverage if a.length > 0 and a.coverage else 0.0
    share_b = overlap_b / b.coverage if b.length > 0 and b.coverage else 0.0
    for fp, sl in ((a, slices_a), (b, slices_b)):
        if len(fp.offsets) > 0:
            sl += fp.offsets[:, 1][np.clip(np.searchsorted(fp.offsets[:, 0], sl), 0,
                                           fp.offsets.shape[0] - 1)]
    return overlap_a, (share_a, share_b), (slices_a, slices_b)


@functools.lru_cache(maxsize=8)
def _boilerplate(language: str, extra: tuple[str, ...] = ()) -> Any:
    """The hashes of every k-gram of the boilerplate files of `language` (a sorted array)."""
    import numpy as np  # with copydetect

    parts = [np.zeros(0, dtype=np.int64)]
    paths = boilerplate_paths().get(language, []) + [Path(p) for p in extra]
    for path in paths:
        if path.is_file() and LANGUAGES.get(path.suffix.lower(), language) == language:
            text = _read(path)
            if path.suffix == ".tmpl":  # as handed out: its {placeholders} filled in
                try:
                    text = text.format_map(_AnyName())
                except (ValueError, IndexError, KeyError):
                    pass
            filtered, _ = _copydetect().utils.filter_code(text, f"bot.{language}", language)
            parts.append(stable_kgrams(filtered, NOISE))
    return np.unique(np.concatenate(parts))


class _AnyName(dict[str, str]):
    """A template's every placeholder filled with a name."""

    def __missing__(self, key: str) -> str:
        return "Bot"


def _drop(fp: Winnowed, boilerplate: Any) -> int:
    """Remove the boilerplate hashes from `fp`; its fingerprinted tokens after."""
    import numpy as np  # with copydetect

    keep = ~np.isin(fp.hashes, boilerplate)
    fp.hashes, fp.idx = fp.hashes[keep], fp.idx[keep]
    fp.coverage = _coverage(fp)
    return fp.coverage


def fingerprint(label: str, files: Sequence[SourceFile],
                boilerplate: Iterable[str | Path] = ()) -> Code:
    """A bot's sources fingerprinted: the files of its main language (the one with the most
    text) end to end, the boilerplate (`boilerplate_paths`, and `boilerplate` files of the
    same language) removed."""
    by_lang: dict[str, int] = {}
    for f in files:
        if f.language:
            by_lang[f.language] = by_lang.get(f.language, 0) + len(f.text)
    if not by_lang:
        return Code(label, tuple(files), None)
    language = max(sorted(by_lang), key=lambda k: by_lang[k])
    mine = [f for f in sorted(files, key=lambda f: f.name) if f.language == language]
    starts, parts, pos = [], [], 0
    for f in mine:
        starts.append(pos)
        body = f.text if f.text.endswith("\n") else f.text + "\n"
        parts.append(body)
        pos += len(body)
    text = "".join(parts)
    try:
        fp = _fingerprint(text, language, WINDOW)
        tokens = _drop(fp, _boilerplate(language, tuple(str(p) for p in boilerplate)))
    except (RecursionError, MemoryError, ValueError, UnicodeError, IndexError) as e:
        # hostile text: this version is not compared, the others are
        return Code(label, tuple(files), language, problem=unparsable(e))
    return Code(label, tuple(files), language, text, tuple(starts),
                tuple(f.name for f in mine), fp, tokens)


def unparsable(e: BaseException) -> str:
    """One line saying why a version's sources could not be fingerprinted."""
    detail = str(e).splitlines()[0][:120] if str(e) else ""
    return f"its sources could not be read ({type(e).__name__}{': ' + detail if detail else ''})"


def unreadable(label: str, e: BaseException) -> Code:
    """A version whose sources could not be found or read: compared with nothing."""
    return Code(label, (), None, problem=unparsable(e))


def compare_code(a: Code, b: Code) -> CodeMatch:
    """Score two fingerprinted bots (see the module docstring)."""
    bad = next((c for c in (a, b) if c.problem), None)
    if bad is not None:
        return CodeMatch(a.label, b.label, 0.0, 0.0, 0.0, 0,
                         note=f"could not compare this version ({bad.label}): {bad.problem}")
    if not a.comparable or not b.comparable:
        which = a.label if not a.comparable else b.label
        return CodeMatch(a.label, b.label, 0.0, 0.0, 0.0, 0,
                         note=f"no sources to compare ({which})")
    if a.language != b.language:
        return CodeMatch(a.label, b.label, 0.0, 0.0, 0.0, 0,
                         note=f"different languages ({a.language}, {b.language})")
    assert a.fp is not None and b.fp is not None  # comparable
    overlap, (share_a, share_b), (slices_a, slices_b) = _overlap(a.fp, b.fp)
    share_a, share_b = min(1.0, float(share_a)), min(1.0, float(share_b))
    score = max(share_a, share_b)
    flagged = score >= FLAG_SCORE and int(overlap) >= MIN_OVERLAP
    return CodeMatch(a.label, b.label, round(score, 4), round(share_a, 4), round(share_b, 4),
                     int(overlap), tuple(a.regions(slices_a)), tuple(b.regions(slices_b)),
                     flagged=flagged, spans_a=_spans(slices_a), spans_b=_spans(slices_b))


def _spans(slices: Any) -> tuple[tuple[int, int], ...]:
    """copydetect's 2 x n array of slices as sorted (start, end) pairs, touching or
    overlapping ones merged (copydetect's k-grams overlap)."""
    if slices is None or len(slices) == 0 or len(slices[0]) == 0:
        return ()
    out: list[tuple[int, int]] = []
    for start, end in sorted(zip((int(x) for x in slices[0]), (int(x) for x in slices[1]),
                                 strict=True)):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        elif end > start:
            out.append((start, end))
    return tuple(out)
