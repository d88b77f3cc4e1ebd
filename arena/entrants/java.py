"""Course Java bots (`java:PATH[:CLASS]`): compiling them, finding their class, starting the JVM.

PATH is a folder of ``.java`` sources (laid out by package or not), a single ``.java`` file, a
folder of ``.class`` files, or a ``.jar``. CLASS is the fully qualified (binary) name of a class
implementing ``connectx.CXPlayer``; without it, PATH must hold exactly one concrete such class
with a constructor without arguments.

cxarena ships its own implementation of the course's API (package ``connectx``, folder
``java/connectx``) and a host class speaking the line protocol (``java/cxarena/Host.java``).
Both are compiled once per JDK, and a bot's sources once per content, with ``javac`` into a
cache (`cache_root`): a rerun does not recompile, an edit does. The course's framework files
in package ``connectx`` itself (``connectx/CX*.java``: CXBoard, CXGame, CXPlayerTester ...) are
replaced by cxarena's and not compiled; bots live in subpackages (``connectx.MyBot.MyBot``).
The course's Swing classes a bot may name (CXGame, CXBoardPanel, CXInputPanel) are headless
stand-ins in cxarena's API. macOS litter (``._X.java``, ``__MACOSX/``) is no source
(`arena.entrants.sources`). A compile error is a `SpecError` (a usage error) showing the
compiler's first errors with the student's paths, and naming a course class cxarena lacks.

Which classes implement ``CXPlayer`` is read from the class files themselves (`read_class`,
the constant pool and the super/interface names), so finding the bot never starts a JVM.

Must not live here: anything about games or the referee (the JVM speaks the protocol itself).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import struct
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from arena.entrants.sources import is_junk_part, walk
from arena.wire.door import DoorJob
from arena.wire.door import run as door_run

__all__ = ["DEFAULT_JVM_OPTIONS", "check_class", "JVM_OPTIONS_KEY", "ClassInfo",
           "JavaError", "JavaTarget", "cache_root", "code_files", "java_argv",
           "jvm_options_problem", "read_class", "resolve", "time_limit_problem"]

#: the shipped Java sources: the course API (connectx/) and the host (cxarena/)
JAVA_DIR = Path(__file__).resolve().with_name("java")
HOST_CLASS = "cxarena.Host"
API_PACKAGE = "connectx"
_CXPLAYER = "connectx/CXPlayer"
#: the per-bot option (in a config's ``options:``) holding the bot's JVM options
JVM_OPTIONS_KEY = "jvm_options"
#: JVM options of every Java bot (a bot's own jvm_options come after, and win):
#: one garbage-collector thread and no background GC work competing with the bot on its core,
#: no shared-memory performance file in /tmp, a JVM crash report in the bot's log (stderr)
#: rather than an hs_err file in the working directory
#: the JVM's own log (warnings such as a thread it could not start) on stderr, never on stdout,
#: the protocol's channel
DEFAULT_JVM_OPTIONS = ("-XX:+UseSerialGC", "-XX:-UsePerfData", "-XX:ErrorFile=/dev/stderr",
                       "-Djava.awt.headless=true", "-Xlog:disable", "-Xlog:all=warning:stderr")
#: JVM options a bot may not give (cxarena sets the class path and the main class)
_FORBIDDEN_JVM_OPTIONS = ("-cp", "-classpath", "--class-path", "-jar", "-m", "--module",
                          "-version", "--version", "-help", "--help", "-h", "-?",
                          "--dry-run", "-showversion", "--show-version")
#: javac's first errors shown for a bot that does not compile
_MAX_ERRORS_SHOWN = 3
_MAX_ERROR_LINES = 30
_COMPILE_TIMEOUT_S = 300.0


class JavaError(ValueError):
    """A Java bot that cannot be used as given (one clear message; may hold javac's errors)."""


@dataclass(frozen=True)
class JavaTarget:
    """A resolved Java bot: where its classes are and which class plays."""

    classpath: tuple[str, ...]  # cxarena's API first, then the bot's classes
    cls: str  # binary name, e.g. connectx.MyBot.MyBot


# ------------------------------------------------------------------------------ the JDK
@dataclass(frozen=True)
class _Jdk:
    javac: str
    java: str
    key: str  # identifies the JDK in cache keys


@lru_cache(maxsize=1)
def _jdk() -> _Jdk:
    home = os.environ.get("JAVA_HOME", "")
    javac = (os.path.join(home, "bin", "javac") if home and
             os.access(os.path.join(home, "bin", "javac"), os.X_OK) else shutil.which("javac"))
    if not javac:
        raise JavaError("Java bots need a JDK: no `javac` on PATH (install e.g. the "
                        "default-jdk-headless package, or set JAVA_HOME)")
    real = os.path.realpath(javac)
    java = os.path.join(os.path.dirname(real), "java")
    if not os.access(java, os.X_OK):
        java = shutil.which("java") or ""
    if not java:
        raise JavaError(f"Java bots need `java` next to {real} or on PATH")
    st = os.stat(real)
    return _Jdk(javac=real, java=java, key=f"{real}:{st.st_size}:{st.st_mtime_ns}")


def cache_root() -> Path:
    """Where compiled classes are kept: $CXARENA_CACHE_DIR/java, else
    $XDG_CACHE_HOME/cxarena/java, else ~/.cache/cxarena/java."""
    if os.environ.get("CXARENA_CACHE_DIR"):
        base = Path(os.environ["CXARENA_CACHE_DIR"])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = Path(xdg) / "cxarena"
    return base / "java"


def _hash_files(h: Any, files: Iterable[tuple[str, Path]]) -> None:
    for rel, path in files:
        data = path.read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)


def _compile(key: str, sources: Sequence[Path], src_root: Path, classpath: Sequence[str],
             what: str, main: Path | None = None) -> Path:
    """Compile `sources` (files under `src_root`) into the cache folder `key`, unless it is
    there already; return that folder. Raises JavaError with javac's first errors.

    javac is an untrusted program here (`arena.wire.door`, the door "javac"): it runs in the
    sandbox on a copy of the sources (regular files only, course framework files left out),
    may write only its output folder, gets every source as ``./path`` (a file named ``@x``
    or ``-x`` is never an argument file or an option), and runs no annotation processor
    (``-proc:none``). With `main`, only that file is named, and what it references is found
    in the copy (``-sourcepath``) and compiled with it: the other files of a course repository
    (which may need the course's Swing classes) are not compiled."""
    root = cache_root()
    final = root / key
    if final.is_dir():
        return final
    jdk = _jdk()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    except OSError as e:
        raise JavaError(f"cannot create the Java cache folder {root}: {e} (set "
                        f"CXARENA_CACHE_DIR to a writable folder)") from None
    try:
        return _compile_in(tmp, final, jdk, sources, src_root, classpath, what, main)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _compile_in(tmp: Path, final: Path, jdk: _Jdk, sources: Sequence[Path], src_root: Path,
                classpath: Sequence[str], what: str, main: Path | None) -> Path:
    src, out, logs = tmp / "src", tmp / "classes", tmp / "log"
    for d in (src, out, logs):
        d.mkdir()
    rels = []
    for source in sources:
        if source.is_symlink() or not source.is_file():
            continue  # what a link points at is not the bot's to show javac
        rel = source.relative_to(src_root)
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, src / rel)
        rels.append(rel.as_posix())
    if main is not None:
        rels = [main.relative_to(src_root).as_posix()]
    argv = [jdk.javac, "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData",
            "-d", str(out), "-encoding", "UTF-8", "-g", "-nowarn", "-Xmaxerrs", "20",
            "-proc:none", "-implicit:class", "-sourcepath", str(src),
            "-Xstdout", str(logs / "javac.txt")]
    if classpath:
        argv += ["-cp", os.pathsep.join(classpath)]
    argv += ["./" + rel for rel in rels]
    result = door_run(DoorJob(door="javac", label=what, argv=tuple(argv),
                              timeout_s=_COMPILE_TIMEOUT_S, cwd=str(src),
                              read_paths=(str(src), *classpath, *_jdk_paths(jdk)),
                              write_paths=(str(out), str(logs))))
    try:
        with open(logs / "javac.txt", "rb") as f:
            said = f.read(256 * 1024).decode("utf-8", "replace")
    except OSError:
        said = ""
    said = _student_paths(said, src)
    if result.timed_out:
        raise JavaError(f"javac did not finish compiling {what} within "
                        f"{_COMPILE_TIMEOUT_S:g} s")
    if result.fault:
        raise JavaError(f"javac {result.fault} compiling {what}")
    if result.status != 0:
        missing = _missing_course_class(said)
        raise JavaError(f"javac cannot compile {what}; {missing}its first errors:\n"
                        f"{_first_errors(said or result.stderr)}")
    try:
        os.rename(out, final)  # atomic: a folder in the cache is always complete
    except OSError:
        if not final.is_dir():  # not a concurrent compile of the same sources: a real error
            raise JavaError(f"cannot store compiled classes in {final}") from None
    return final


def _student_paths(said: str, src: Path) -> str:
    """javac's output with the sources named as the student names them (relative to the
    folder compiled): its ``./X.java`` and, for a file it found itself on the source path, the
    copy's absolute path in the cache."""
    for prefix in {str(src), os.path.realpath(src)}:
        said = said.replace(prefix.rstrip("/") + "/", "")
    return re.sub(r"(?m)^\./", "", said)


def _course_api_names() -> set[str]:
    return {p.stem for p in (JAVA_DIR / API_PACKAGE).glob("*.java")}


def _missing_course_class(said: str) -> str:
    """One line naming the course classes (connectx.CX...) the sources use that cxarena does
    not provide ("" when javac's errors name none)."""
    names = set(re.findall(r"\bconnectx\.(CX\w+)", said))
    if re.search(r"import\s+connectx\.\*", said):  # a wildcard import: the names javac misses
        names |= set(re.findall(r"(?m)^\s*symbol:\s+class\s+(CX\w+)\s*$", said))
    missing = sorted(names - _course_api_names())
    if not missing:
        return ""
    have = ", ".join(sorted(_course_api_names()))
    return (f"it uses the course class{'es' if len(missing) > 1 else ''} "
            f"{', '.join('connectx.' + n for n in missing)}, which cxarena does not provide "
            f"(it provides {have}): remove that use from the bot's files, or name the bot's "
            f"class (java:PATH:CLASS) so that only its file and what it uses are compiled; ")


def _jdk_paths(jdk: _Jdk) -> list[str]:
    """What a JVM or javac in the sandbox must read besides the system folders: the JDK's
    home (two folders above its bin/java), wherever it is installed."""
    return [str(Path(jdk.java).parent.parent), str(Path(jdk.javac).parent.parent)]


def check_class(target: JavaTarget, timeout_s: float) -> str | None:
    """Load and instantiate the bot's class in a JVM through the door (`arena.wire.door`:
    sandboxed like a game); None when it loads, else why not (one line)."""
    result = door_run(DoorJob(door="java-check", label=target.cls,
                              argv=tuple(check_argv(target)), timeout_s=timeout_s,
                              read_paths=(*target.classpath, *_jdk_paths(_jdk()))))
    if result.timed_out:
        return f"did not finish loading within {timeout_s:g} s"
    if result.fault:
        return f"loading it {result.fault}"
    if result.status != 0:
        last = result.stdout.strip().splitlines()[-1:]
        return last[0][:500] if last else f"exited with status {result.status} while loading"
    return None


def _first_errors(text: str) -> str:
    """javac's first `_MAX_ERRORS_SHOWN` errors (with their source lines), and its count."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    shown: list[str] = []
    errors = 0
    for ln in lines:
        if re.search(r": error: ", ln):
            errors += 1
            if errors > _MAX_ERRORS_SHOWN:
                break
        if re.match(r"^\d+ errors?$", ln) or ln.startswith("Note: "):
            continue
        shown.append("  " + ln)
        if len(shown) >= _MAX_ERROR_LINES:
            break
    total = next((ln for ln in lines if re.match(r"^\d+ errors?$", ln)), "")
    if total and (errors > _MAX_ERRORS_SHOWN or len(shown) >= _MAX_ERROR_LINES):
        shown.append(f"  ... ({total} in all)")
    return "\n".join(shown) if shown else "  (javac printed nothing)"


def _api_sources() -> list[tuple[str, Path]]:
    return [(p.relative_to(JAVA_DIR).as_posix(), p) for p in sorted(JAVA_DIR.rglob("*.java"))]


@lru_cache(maxsize=1)
def _api_key() -> str:
    h = hashlib.sha256(f"cxarena java api\0{_jdk().key}\0".encode())
    _hash_files(h, _api_sources())
    return "api-" + h.hexdigest()[:16]


def api_classes() -> Path:
    """The compiled course API and host (compiled on first use, then cached)."""
    return _compile(_api_key(), [p for _, p in _api_sources()], JAVA_DIR, [],
                    "cxarena's Java API")


# --------------------------------------------------------------------------- class files
_ACC_INTERFACE = 0x0200
_ACC_ABSTRACT = 0x0400
# constant-pool entry sizes after the tag byte (JVMS 4.4); Utf8 (1) is variable
_CP_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2,
             17: 4, 18: 4, 19: 2, 20: 2}


@dataclass(frozen=True)
class ClassInfo:
    """What a class file says about its class (names in internal form, a/b/C)."""

    name: str
    super_name: str | None
    interfaces: tuple[str, ...]
    flags: int
    has_noarg_constructor: bool

    @property
    def concrete(self) -> bool:
        return not self.flags & (_ACC_INTERFACE | _ACC_ABSTRACT)


def read_class(data: bytes) -> ClassInfo:
    """Parse the parts of a class file we need (JVMS chapter 4). Raises ValueError."""
    try:
        if data[:4] != b"\xca\xfe\xba\xbe":
            raise ValueError("not a class file")
        pos = 8
        (count,) = struct.unpack_from(">H", data, pos)
        pos += 2
        utf8: dict[int, str] = {}
        class_name: dict[int, int] = {}
        index = 1
        while index < count:
            tag = data[pos]
            pos += 1
            if tag == 1:
                (length,) = struct.unpack_from(">H", data, pos)
                utf8[index] = data[pos + 2:pos + 2 + length].decode("utf-8", "replace")
                pos += 2 + length
            elif tag in _CP_SIZES:
                if tag == 7:
                    class_name[index] = struct.unpack_from(">H", data, pos)[0]
                pos += _CP_SIZES[tag]
                if tag in (5, 6):  # long and double take two slots
                    index += 1
            else:
                raise ValueError(f"unknown constant-pool tag {tag}")
            index += 1

        def cls(i: int) -> str:
            return utf8[class_name[i]]

        flags, this, sup, n_ifaces = struct.unpack_from(">HHHH", data, pos)
        pos += 8
        ifaces = tuple(cls(struct.unpack_from(">H", data, pos + 2 * k)[0])
                       for k in range(n_ifaces))
        pos += 2 * n_ifaces
        noarg = False
        for part in ("fields", "methods"):
            (n,) = struct.unpack_from(">H", data, pos)
            pos += 2
            for _ in range(n):
                _, name_i, desc_i, n_attrs = struct.unpack_from(">HHHH", data, pos)
                pos += 8
                if part == "methods" and utf8[name_i] == "<init>" and utf8[desc_i] == "()V":
                    noarg = True
                for _ in range(n_attrs):
                    (length,) = struct.unpack_from(">I", data, pos + 2)
                    pos += 6 + length
        return ClassInfo(name=cls(this), super_name=cls(sup) if sup else None,
                         interfaces=ifaces, flags=flags, has_noarg_constructor=noarg)
    except (struct.error, IndexError, KeyError) as e:
        raise ValueError(f"malformed class file ({e!r})") from None


def _players(classes: Mapping[str, ClassInfo]) -> dict[str, ClassInfo]:
    """The classes of `classes` that implement CXPlayer (directly or through their supertypes
    within `classes`), by binary name."""
    memo: dict[str, bool] = {}

    def implements(name: str | None) -> bool:
        if name is None:
            return False
        if name == _CXPLAYER:
            return True
        if name in memo:
            return memo[name]
        memo[name] = False  # cycles (malformed input) end here
        info = classes.get(name)
        result = info is not None and (implements(info.super_name)
                                       or any(implements(i) for i in info.interfaces))
        memo[name] = result
        return result

    return {n.replace("/", "."): info for n, info in classes.items() if implements(n)}


# --------------------------------------------------------------------------- sources
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def _package_of(source: Path) -> str:
    text = _COMMENTS.sub(" ", source.read_text(encoding="utf-8", errors="replace"))
    m = _PACKAGE.search(text)
    return m.group(1) if m else ""


def _is_framework(source: Path) -> bool:
    """A course framework file in package connectx itself (replaced by cxarena's API)."""
    return source.name.startswith("CX") and _package_of(source) == API_PACKAGE


def _walk(folder: Path, suffix: str) -> list[Path]:
    """The real `suffix` files under `folder` (macOS ``._*`` files, ``__MACOSX/`` and other
    litter left out: `arena.entrants.sources`)."""
    return walk(folder, (suffix,))


def _sources(path: Path) -> tuple[Path, list[Path]]:
    """(the folder javac runs in, the bot's .java files) for a source PATH ([] if none)."""
    if path.is_file():
        real = path.suffix == ".java" and not is_junk_part(path.name, folder=False)
        return path.parent, [path] if real else []
    return path, [s for s in _walk(path, ".java") if not _is_framework(s)]


def code_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files a Java bot at PATH consists of (for its code fingerprint): its sources, or
    its jar, or its class files; then cxarena's Java API and host sources."""
    p = Path(path)
    if p.is_file():
        own = [p]
    else:
        own = _walk(p, ".java") or _walk(p, ".class")
    return own + [f for _, f in _api_sources()]


# --------------------------------------------------------------------------- resolving
def _scan_jar(jar: Path) -> dict[str, ClassInfo]:
    classes: dict[str, ClassInfo] = {}
    try:
        with zipfile.ZipFile(jar) as z:
            for entry in z.namelist():
                if (entry.endswith(".class") and not entry.startswith("META-INF/")
                        and not entry.endswith("module-info.class")):
                    try:
                        info = read_class(z.read(entry))
                    except ValueError:
                        continue
                    classes[info.name] = info
    except (OSError, zipfile.BadZipFile) as e:
        raise JavaError(f"cannot read the jar {jar}: {e}") from None
    return classes


def _scan_folder(folder: Path) -> tuple[dict[str, ClassInfo], list[str]]:
    """The classes under `folder` and the class-path roots they need (the folder above
    each class's package folders)."""
    classes: dict[str, ClassInfo] = {}
    roots: list[str] = []
    for f in _walk(folder, ".class"):
        try:
            info = read_class(f.read_bytes())
        except (OSError, ValueError) as e:
            raise JavaError(f"{f}: cannot read this class file: {e}") from None
        if info.name.rsplit("/", 1)[-1].startswith("module-info"):
            continue
        full = f.resolve().as_posix()
        tail = "/" + info.name + ".class"
        if not full.endswith(tail):
            package = info.name.rpartition("/")[0].replace("/", ".")
            raise JavaError(f"{f} holds class {info.name.replace('/', '.')} of package "
                            f"{package}: it must be in a folder {info.name.rpartition('/')[0]}/ "
                            f"(or give PATH as the folder above the package folders)")
        root = full[:-len(tail)] or "/"
        if root not in roots:
            roots.append(root)
        classes[info.name] = info
    return classes, roots


def _choose(classes: Mapping[str, ClassInfo], cls: str | None, where: str) -> str:
    players = _players(classes)
    if cls is not None:
        info = classes.get(cls.replace(".", "/"))
        if info is None:
            known = ", ".join(sorted(players)) or "none"
            raise JavaError(f"no class {cls} in {where} (classes implementing "
                            f"connectx.CXPlayer there: {known})")
        if cls not in players:
            raise JavaError(f"class {cls} in {where} does not implement connectx.CXPlayer")
        if not info.concrete:
            raise JavaError(f"class {cls} in {where} is abstract (or an interface)")
        if not info.has_noarg_constructor:
            raise JavaError(f"class {cls} in {where} has no constructor without arguments "
                            f"(cxarena creates a new player per game with `new {cls}()`)")
        return cls
    usable = sorted(n for n, info in players.items() if info.concrete
                    and info.has_noarg_constructor and n.rpartition(".")[0] != API_PACKAGE)
    if not usable:
        raise JavaError(f"no class in {where} implements connectx.CXPlayer (with a "
                        f"constructor without arguments)")
    if len(usable) > 1:
        raise JavaError(f"several classes in {where} implement connectx.CXPlayer "
                        f"({', '.join(usable)}); name one: java:PATH:CLASS")
    return usable[0]


def resolve(path: str, cls: str | None) -> JavaTarget:
    """Compile (or find in the cache) the bot at `path` and find its class. Raises JavaError."""
    p = Path(path)
    if not p.exists():
        raise JavaError(f"no such file or folder {path!r}")
    api = api_classes()
    if p.is_file() and p.suffix == ".jar":
        return JavaTarget((str(api), str(p)), _choose(_scan_jar(p), cls, str(p)))
    if not (p.is_dir() or p.suffix == ".java"):
        raise JavaError(f"{path!r} is not a folder of .java or .class files, a .java file or "
                        f"a .jar")
    cwd, sources = _sources(p)
    if sources:
        rels = [s.relative_to(cwd).as_posix() for s in sources]
        h = hashlib.sha256(f"{_api_key()}\0".encode())
        _hash_files(h, zip(rels, sources, strict=True))
        out = _compile_bot(h, sources, cwd, str(api), str(p), cls)
        classes = {}
        for f in _walk(out, ".class"):
            info = read_class(f.read_bytes())
            classes[info.name] = info
        return JavaTarget((str(api), str(out)), _choose(classes, cls, str(p)))
    classes, roots = _scan_folder(p)
    if not classes:
        raise JavaError(f"{path!r} holds no .java or .class files")
    return JavaTarget((str(api), *roots), _choose(classes, cls, str(p)))


def _compile_bot(h: Any, sources: Sequence[Path], cwd: Path, api: str, what: str,
                 cls: str | None) -> Path:
    """The bot's compiled classes: with a named class whose source file is found, that file
    and what it references only (a course repository's other files may not compile here),
    falling back to all sources; else all of them."""
    main = _source_of(cls, sources) if cls else None
    if main is not None:
        try:
            return _compile(f"bot-{h.hexdigest()[:16]}-{cls}", sources, cwd, [api], what, main)
        except JavaError as first:
            try:
                return _compile("bot-" + h.hexdigest()[:16], sources, cwd, [api], what)
            except JavaError:
                raise first from None
    return _compile("bot-" + h.hexdigest()[:16], sources, cwd, [api], what)


def _source_of(cls: str, sources: Sequence[Path]) -> Path | None:
    """The source file that declares top-level class `cls` (binary name): NAME.java in its
    package; None if no such file or several."""
    package, _, name = cls.rpartition(".")
    found = [s for s in sources if s.name == f"{name}.java" and _package_of(s) == package]
    return found[0] if len(found) == 1 else None


# ------------------------------------------------------------------------------ running
def jvm_options(options: Mapping[str, Any] | None) -> list[str]:
    """The bot's own JVM options from its options (a list of strings, or one string split
    like a shell would); [] when none. Raises ValueError when malformed."""
    value = (options or {}).get(JVM_OPTIONS_KEY)
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{JVM_OPTIONS_KEY} must be a list of strings, got {value!r}")


def jvm_options_problem(value: Any) -> str | None:
    """Why `value` is not a usable jvm_options setting (None when it is)."""
    try:
        opts = jvm_options({JVM_OPTIONS_KEY: value})
    except ValueError as e:
        return str(e)
    for o in opts:
        if not o.startswith("-"):
            return f"JVM option {o!r} does not start with '-'"
        name = o.split("=", 1)[0]
        if name in _FORBIDDEN_JVM_OPTIONS:
            return f"JVM option {o!r} is set by cxarena (class path and main class)"
    return None


def java_argv(target: JavaTarget, options: Mapping[str, Any] | None = None) -> list[str]:
    """The command line of a Java bot: the JVM, cxarena's options, the bot's own, the host."""
    own = jvm_options(options)
    base = list(DEFAULT_JVM_OPTIONS)
    if any(re.fullmatch(r"-XX:\+Use\w*GC", o) for o in own):  # the bot picks its collector
        base.remove("-XX:+UseSerialGC")
    return [_jdk().java, *base, *own, "-cp", os.pathsep.join(target.classpath), HOST_CLASS,
            target.cls]


def check_argv(target: JavaTarget) -> list[str]:
    """The command line that loads and instantiates the bot's class, then exits (0: fine;
    else its stdout's last line says why)."""
    argv = java_argv(target)
    return [*argv[:-1], "--check", argv[-1]]


def time_limit_problem(timeout_s: float) -> str | None:
    """Why a run with this per-move limit cannot have Java bots (None when it can): the
    course API's ``timeout_in_secs`` is an int."""
    if timeout_s >= 1 and float(timeout_s).is_integer():
        return None
    return (f"the time limit {timeout_s:g} s is not a whole number of seconds (at least 1), "
            f"and the course API gives Java bots timeout_in_secs as an int: use a limit of "
            f"1, 2, ... s for a run with Java bots")
