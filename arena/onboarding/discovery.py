"""Finding the bots in the `players` package: what `cxarena players` lists.

A bot is a module (or subpackage) of `players` whose name does not start with an underscore;
its short name is the module name, which is also its SPEC. Bots are found without importing
`players.*` into the caller's process: each candidate is imported in a worker subprocess
(``python -m arena.onboarding.discovery``) so that a bot that fails to import, calls ``sys.exit``,
hangs
or crashes the interpreter at import is listed with its error and never hides the others.

`inspect_bot` does the in-process work for one bot (what the worker runs); `discover` drives
the workers and returns one `BotInfo` per candidate, sorted by name.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import select
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from arena import defaults
from arena.entrants.specs import PLAYERS_PACKAGE
from arena.errors import UsageError

__all__ = ["BotInfo", "candidate_names", "discover", "first_doc_line", "inspect_bot"]


#: marker printed by a worker before it starts importing bots
_READY = "cxarena-discovery-ready"
#: environment variable passing the caller's sys.path to a worker (JSON list)
_PATH_ENV = "CXARENA_DISCOVERY_PATH"


@dataclass(frozen=True)
class BotInfo:
    """What discovery learnt about one candidate bot module."""

    name: str  # short name = SPEC (module name inside `players`)
    location: str = ""  # file or directory of the module ("" if unknown)
    player_name: str | None = None  # what playerName() returned (None if not obtained)
    doc: str = ""  # first line of the module's (else the class's) docstring
    error: str | None = None  # one line: why the module is not a usable bot (None = fine)
    name_error: str | None = None  # one line: why playerName() failed (None = fine)

    @property
    def ok(self) -> bool:
        return self.error is None and self.name_error is None


def _players_paths() -> list[str]:
    """The directories of the `players` package as imported from the current sys.path."""
    try:
        pkg = importlib.import_module(PLAYERS_PACKAGE)
    except Exception as e:  # reported as a usage error
        raise UsageError(f"cannot import the {PLAYERS_PACKAGE!r} package: "
                         f"{type(e).__name__}: {e}") from None
    paths = list(getattr(pkg, "__path__", []))
    if not paths:
        raise UsageError(f"{PLAYERS_PACKAGE!r} is a module, not a package of bots")
    return paths


def candidate_names() -> list[tuple[str, str]]:
    """(short name, location) of every bot module of `players`, sorted, without importing any.

    The first directory of ``players.__path__`` that holds a name wins, as for imports.
    """
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(_players_paths()):
        if info.name.startswith("_") or info.name in found:
            continue
        base = Path(getattr(info.module_finder, "path", ""))
        loc = base / info.name if info.ispkg else _module_file(base, info.name)
        found[info.name] = str(loc)
    return sorted(found.items(), key=lambda kv: kv[0].lower())


def _module_file(base: Path, name: str) -> Path:
    for suffix in (".py", ".pyc"):
        p = base / (name + suffix)
        if p.exists():
            return p
    matches = sorted(base.glob(name + ".*"))  # extension modules (.so, .pyd)
    return matches[0] if matches else base / name


def first_doc_line(doc: str | None) -> str:
    """The first non-empty line of a docstring, stripped ("" if none)."""
    for line in (doc or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def inspect_bot(name: str, location: str = "") -> BotInfo:
    """Import ``players.<name>`` in this process, find its CXPlayer class, ask its name.

    Never raises for a fault of the bot: import errors, a module without (or with several)
    CXPlayer subclasses, a constructor or playerName() that raises or returns a non-string
    all end up in the returned `BotInfo`.
    """
    from arena.entrants.specs import BotSpec, SpecError, load_player_class

    spec = BotSpec(text=name, module=f"{PLAYERS_PACKAGE}.{name}")
    try:
        cls = load_player_class(spec)
    except SpecError as e:
        msg = str(e).replace(f"bot SPEC {name!r}: ", "")
        return BotInfo(name, location, error=msg)
    except (Exception, SystemExit) as e:  # a broken bot is data here
        return BotInfo(name, location, error=f"import failed: {_one_line(e)}")
    module = sys.modules.get(spec.module or "")
    doc = first_doc_line(getattr(module, "__doc__", None)) or first_doc_line(cls.__doc__)
    try:
        pname = cls().playerName()
    except (Exception, SystemExit) as e:
        return BotInfo(name, location, doc=doc, name_error=f"playerName() failed: "
                                                           f"{_one_line(e)}")
    if not isinstance(pname, str):
        return BotInfo(name, location, doc=doc, name_error=f"playerName() returned "
                                                           f"{type(pname).__name__}, not str")
    return BotInfo(name, location, player_name=pname, doc=doc)


# ----------------------------------------------------------------- the worker subprocess
def _worker(names: list[str]) -> int:
    """Inspect each bot named in `names` (with locations) and print one JSON line per bot.

    Bots' own prints are redirected to stderr so that only our lines reach stdout.
    """
    extra = os.environ.get(_PATH_ENV)
    if extra:
        sys.path[:] = json.loads(extra)  # exactly the caller's module search path
    import arena.entrants.specs  # noqa: F401 - load the harness (and numpy) before the clock starts

    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a bot printing at import time writes to stderr, not into our protocol
    sys.stdout = sys.stderr
    print(_READY, file=out, flush=True)
    for item in names:
        name, _, location = item.partition("=")
        with contextlib.redirect_stdout(sys.stderr):
            try:
                info = inspect_bot(name, location)
            except BaseException as e:  # anything at all: report, go on
                info = BotInfo(name, location, error=f"inspection failed: {_one_line(e)}")
        print(json.dumps(asdict(info)), file=out, flush=True)
    return 0


class _Worker:
    """One worker subprocess inspecting a list of bots; read its lines with a timeout."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        env = dict(os.environ)
        # the worker sees the same modules as we do
        env[_PATH_ENV] = json.dumps([p or os.getcwd() for p in sys.path])
        argv = [sys.executable, "-m", "arena.onboarding.discovery",
                *(f"{n}={loc}" for n, loc in items)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env,
                                     start_new_session=True)
        self._buf = b""

    def readline(self, timeout_s: float) -> str | None:
        """The next line; "" at EOF (the worker died); None after `timeout_s` seconds."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline_s = time.monotonic() + timeout_s
        while b"\n" not in self._buf:
            left_s = deadline_s - time.monotonic()
            if left_s <= 0 or not select.select([fd], [], [], left_s)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return ""
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def discover(import_timeout_s: float = 10.0,
             startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S) -> list[BotInfo]:
    """Every bot of the `players` package with its playerName() and docstring, or its error.

    Each bot gets `import_timeout_s` seconds to import and answer playerName(); a bot that
    takes longer, or kills the worker process, is reported with that error and the remaining
    bots are inspected by a fresh worker.
    """
    todo = candidate_names()
    results: dict[str, BotInfo] = {}
    while todo:
        worker = _Worker(todo)
        try:
            ready = worker.readline(startup_timeout_s)
            if not ready or ready.strip() != _READY:
                raise UsageError("the discovery worker (python -m arena.onboarding.discovery) "
                                 "did not "
                                 "start; is the arena package importable?")
            while todo:
                name, location = todo[0]
                line = worker.readline(import_timeout_s)
                if not line:
                    if line is None:
                        why = f"import or playerName() took over {import_timeout_s:g} s"
                    else:
                        try:
                            code: int | None = worker.proc.wait(timeout=5)
                        except subprocess.TimeoutExpired:
                            code = None
                        why = f"importing it ended the process (exit code {code})"
                    results[name] = BotInfo(name, location, error=why)
                    todo.pop(0)
                    break  # start a fresh worker for the rest
                info = BotInfo(**json.loads(line))
                results[info.name] = info
                todo = [t for t in todo if t[0] != info.name]
        finally:
            worker.kill()
    return sorted(results.values(), key=lambda b: b.name.lower())


if __name__ == "__main__":
    raise SystemExit(_worker(sys.argv[1:]))
