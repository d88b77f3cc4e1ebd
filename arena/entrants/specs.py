"""Bot SPECs: the strings that name a bot, and loading the CXPlayer class behind them.

A SPEC is one of:
- a short name: a module in the `players` package (``L0``, ``alphabeta``, ``mybot``);
- ``package.module`` or ``package.module:Class``: an importable module;
- ``path/to/file.py`` or ``path/to/file.py:Class``: a Python file (it may import the
  modules beside it: its folder comes first on the bot's module search path);
- ``java:PATH`` or ``java:PATH:CLASS``: a course Java bot (`arena.entrants.java`); resolving
  it compiles its sources (once: cached by content);
- ``kaggle:PATH`` or ``kaggle:PATH:FUNCTION``: a Kaggle ConnectX agent
  (`arena.entrants.kaggle_host`);
- ``exec:COMMAND LINE``: any program that speaks the line protocol (docs/protocol.md).

Without ``:Class`` the module must define exactly one concrete CXPlayer subclass.
Resolving a SPEC never runs the bot's code, nor a parent package's ``__init__`` (module SPECs
are found in the file system: `arena.entrants.modpath`); it never starts a game; an
unresolvable SPEC raises `SpecError` (a usage error).
`check_loadable` goes one step further before any game: it loads each Python bot and Kaggle
agent (`arena.entrants.probe`, the loading the host does), and each Java bot's class in a JVM,
in a subprocess of its own (a bot that hangs, exits or crashes at import cannot take the caller
with it) and checks that its class loads and can be instantiated; `exec:` programs must exist.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util
import os
import pkgutil
import re
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.entrants.exposure import bot_paths
from arena.entrants.java import JavaError, JavaTarget, java_argv, resolve
from arena.entrants.java import time_limit_problem as java_problem
from arena.entrants.modpath import find_module
from arena.wire.launch import BotLaunch

__all__ = ["BotSpec", "Kind", "SpecError", "bot_pythonpath", "import_bot_module",
           "parse_spec", "time_limit_problem"]

PLAYERS_PACKAGE = "players"
_SHORT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_JAVA_CLASS = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")
JAVA_PREFIX = "java:"
KAGGLE_PREFIX = "kaggle:"


class SpecError(ValueError):
    """A SPEC that names no usable bot (one clear line)."""


class Kind(Enum):
    """What kind of bot a SPEC names (how it is started)."""

    PYTHON = "python"  # a CXPlayer class in a module or a .py file
    EXEC = "exec"  # a program speaking the protocol
    JAVA = "java"  # a course Java bot
    KAGGLE = "kaggle"  # a Kaggle agent function


@dataclass(frozen=True)
class BotSpec:
    """A parsed SPEC. `text` is what the user wrote; exactly one of module/path/command is set.

    PYTHON: `module` or `path` (a .py file), `cls` the class (None: the single one).
    EXEC: `command`. JAVA: `path` (sources, class folder or jar), `cls` the resolved class,
    `classpath` its compiled classes. KAGGLE: `path` (the file), `cls` the function (None: the
    last callable defined in the file)."""

    text: str
    module: str | None = None  # importable module name
    path: str | None = None  # absolute path of the bot's file (or Java folder)
    cls: str | None = None  # class name, or None for "the single CXPlayer subclass"
    command: tuple[str, ...] | None = None  # argv of an exec: bot
    kind: Kind = Kind.PYTHON  # EXEC whenever `command` is given
    classpath: tuple[str, ...] = ()  # JAVA: where its classes are (cxarena's API first)

    def __post_init__(self) -> None:
        if self.command is not None and self.kind is Kind.PYTHON:
            object.__setattr__(self, "kind", Kind.EXEC)

    @property
    def is_python(self) -> bool:
        """Runs in a Python host process (a CXPlayer class or a Kaggle agent)."""
        return self.kind in (Kind.PYTHON, Kind.KAGGLE)

    def argv(self, options: Mapping[str, Any] | None = None) -> list[str]:
        """The command line that starts this bot speaking the protocol. `options` (the bot's
        per-player options) matter to Java bots only: their ``jvm_options``."""
        if self.command is not None:
            return list(self.command)
        if self.kind is Kind.JAVA:
            assert self.cls is not None
            return java_argv(JavaTarget(self.classpath, self.cls), options)
        if self.kind is Kind.KAGGLE:
            where = f"{self.path}:{self.cls}" if self.cls else str(self.path)
            return [sys.executable, "-m", "arena.entrants.kaggle_host", where]
        return [sys.executable, "-m", "arena.entrants.host", self.host_target()]

    def launch(self, options: Mapping[str, Any] | None = None) -> BotLaunch:
        """How the referee starts this bot (`arena.wire.launch`): argv, environment and the
        paths a sandbox must let it read."""
        env: tuple[tuple[str, str], ...] = ()
        if self.is_python:
            env = (("PYTHONUNBUFFERED", "1"), ("PYTHONPATH", bot_pythonpath()))
        return BotLaunch(label=self.text, argv=tuple(self.argv(options)), env=env,
                         expose=_exposed(self), python_host=self.is_python)

    def host_target(self) -> str:
        """The unambiguous target string `python -m arena.entrants.host` takes (and
        `parse_spec` reads back)."""
        if self.kind is Kind.KAGGLE:
            return f"{KAGGLE_PREFIX}{self.path}" + (f":{self.cls}" if self.cls else "")
        where = self.path if self.path is not None else self.module
        return f"{where}:{self.cls}" if self.cls else str(where)


def parse_spec(text: str) -> BotSpec:
    """Parse and check a SPEC (files and modules must exist). Raises SpecError."""
    text = text.strip()
    if not text:
        raise SpecError("empty bot SPEC")
    if text.startswith("exec:"):
        try:
            argv = tuple(shlex.split(text[5:]))
        except ValueError as e:
            raise SpecError(f"bot SPEC {text!r}: cannot split the command line: {e}") from None
        if not argv:
            raise SpecError(f"bot SPEC {text!r}: exec: needs a command")
        program = argv[0]
        found = (os.path.isfile(program) and os.access(program, os.X_OK)) if os.sep in program \
            else shutil.which(program) is not None
        if not found:
            raise SpecError(f"bot SPEC {text!r}: no executable program {program!r} "
                            f"(give a path or a command on PATH)")
        return BotSpec(text=text, command=argv)
    if text.startswith(JAVA_PREFIX):
        return _parse_java(text)
    if text.startswith(KAGGLE_PREFIX):
        return _parse_kaggle(text)
    where, _, cls = text.partition(":")
    if cls and not _SHORT.match(cls):
        raise SpecError(f"bot SPEC {text!r}: {cls!r} is not a class name")
    if where.endswith(".py") or "/" in where or "\\" in where:
        p = Path(where).expanduser()
        if not p.is_file():
            raise SpecError(f"bot SPEC {text!r}: no such file {where!r}")
        return BotSpec(text=text, path=str(p.resolve()), cls=cls or None)
    if _SHORT.match(where) and _module_exists(f"{PLAYERS_PACKAGE}.{where}"):
        return BotSpec(text=text, module=f"{PLAYERS_PACKAGE}.{where}", cls=cls or None)
    if _DOTTED.match(where) and "." in where and _module_exists(where):
        return BotSpec(text=text, module=where, cls=cls or None)
    hint = "see `cxarena players` for the built-in and local bots"
    near = _near_names(where)
    if near:
        hint = f"did you mean {' or '.join(near)}? " + hint
    raise SpecError(f"unknown bot {text!r}: not a module in players/, an importable "
                    f"module, a .py file or exec:COMMAND ({hint})")


def _near_names(name: str) -> list[str]:
    """The bots in players/ whose name is close to `name` (`AbStudent` -> `ab_student`,
    `AlphaBeta` -> `alphabeta`): compared in lower case, CamelCase also as snake_case."""
    package = find_module(PLAYERS_PACKAGE)  # its folders, found without importing it
    if package is None:
        return []
    names = sorted({m.name for m in pkgutil.iter_modules([str(d) for d in package.package_dirs])
                    if not m.name.startswith("_")})
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    by_lower = {n.lower(): n for n in names}
    found = [by_lower[k] for k in (name.lower(), snake) if k in by_lower]
    found += [by_lower[k] for k in difflib.get_close_matches(snake, list(by_lower), n=3,
                                                             cutoff=0.75)]
    return list(dict.fromkeys(found))[:3]


def _path_and_name(text: str, prefix: str, what: str, pattern: re.Pattern[str]) -> tuple[
        str, str | None]:
    """Split ``prefix PATH[:NAME]`` (PATH may itself contain ':' when it exists as given)."""
    rest = text[len(prefix):]
    if not rest:
        raise SpecError(f"bot SPEC {text!r}: {prefix} needs a path")
    if os.path.exists(os.path.expanduser(rest)):
        return rest, None
    where, sep, name = rest.rpartition(":")
    if not sep or not where:
        return rest, None
    if not pattern.match(name):
        raise SpecError(f"bot SPEC {text!r}: {name!r} is not a {what} name")
    return where, name


def _parse_java(text: str) -> BotSpec:
    where, cls = _path_and_name(text, JAVA_PREFIX, "Java class", _JAVA_CLASS)
    p = Path(where).expanduser()
    if not p.exists():
        raise SpecError(f"bot SPEC {text!r}: no such file or folder {where!r} (give a folder "
                        f"of .java sources or .class files, or a .jar)")
    try:
        target = resolve(str(p.resolve()), cls)
    except JavaError as e:
        raise SpecError(f"bot SPEC {text!r}: {e}") from None
    return BotSpec(text=text, path=str(p.resolve()), cls=target.cls, kind=Kind.JAVA,
                   classpath=target.classpath)


def _parse_kaggle(text: str) -> BotSpec:
    where, function = _path_and_name(text, KAGGLE_PREFIX, "function", _SHORT)
    p = Path(where).expanduser()
    if not p.is_file():
        raise SpecError(f"bot SPEC {text!r}: no such file {where!r} (give the Kaggle "
                        f"submission file, e.g. kaggle:main.py or kaggle:main.py:my_agent)")
    return BotSpec(text=text, path=str(p.resolve()), cls=function, kind=Kind.KAGGLE)


def time_limit_problem(spec: BotSpec, timeout_s: float) -> str | None:
    """Why `spec` cannot play with this per-move limit (None when it can): Java bots get
    ``timeout_in_secs`` as an int, so their limit must be a whole number of seconds."""
    if spec.kind is not Kind.JAVA:
        return None
    problem = java_problem(timeout_s)
    return f"Java bot {spec.text!r}: {problem}" if problem else None


def _module_exists(name: str) -> bool:
    """Is there a module `name` on the path? Looked up in the file system only: nothing of the
    bot's (not even a parent package's ``__init__``) runs here (`arena.entrants.modpath`)."""
    return find_module(name) is not None


def import_bot_module(spec: BotSpec) -> ModuleType:
    """Import the module of a Python bot or Kaggle agent (a file's folder goes on sys.path,
    so it imports the modules beside it, as a script would)."""
    if spec.path is not None:
        name = "cxbot_" + re.sub(r"\W", "_", Path(spec.path).stem)
        mspec = importlib.util.spec_from_file_location(name, spec.path)
        if mspec is None or mspec.loader is None:
            raise SpecError(f"bot SPEC {spec.text!r}: cannot load {spec.path}")
        module = importlib.util.module_from_spec(mspec)
        folder = str(Path(spec.path).parent)
        if folder not in sys.path:  # the bot imports the modules beside it, as a script would
            sys.path.insert(0, folder)
        sys.modules[name] = module
        mspec.loader.exec_module(module)
        return module
    assert spec.module is not None
    return importlib.import_module(spec.module)


@functools.lru_cache(maxsize=256)
def _exposed(spec: BotSpec) -> tuple[str, ...]:
    """The paths a sandbox shows this bot (looked up once per SPEC and process)."""
    return tuple(bot_paths(spec))


def bot_pythonpath() -> str:
    """PYTHONPATH for a Python bot's process: the directories this process imports from that
    are not part of the Python installation (the working directory, the project, dirs callers
    added to sys.path), then any PYTHONPATH already set; so a bot imports what we import."""
    return _pythonpath(tuple(sys.path), os.getcwd(), os.environ.get("PYTHONPATH", ""))


@functools.lru_cache(maxsize=8)
def _pythonpath(path: tuple[str, ...], cwd: str, pythonpath: str) -> str:
    """`bot_pythonpath` for this sys.path, working directory and PYTHONPATH (resolving every
    entry costs about a millisecond: once per change, not once per game)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    extra = []
    for entry in path:
        resolved = os.path.realpath(entry or cwd)
        if os.path.isdir(resolved) and not any(resolved == p or resolved.startswith(p + os.sep)
                                               for p in prefixes):
            extra.append(resolved)
    if pythonpath:
        extra.append(pythonpath)
    return os.pathsep.join(dict.fromkeys(extra))
