"""Bot SPECs: the strings that name a bot, and loading the CXPlayer class behind them.

A SPEC is one of:
- a short name: a module in the `players` package (``L0``, ``alphabeta``, ``mybot``);
- ``package.module`` or ``package.module:Class``: an importable module;
- ``path/to/file.py`` or ``path/to/file.py:Class``: a Python file;
- ``exec:COMMAND LINE``: any program that speaks the line protocol (docs/protocol.md).

Without ``:Class`` the module must define exactly one concrete CXPlayer subclass.
Resolving a SPEC never starts a game; an unresolvable SPEC raises `SpecError` (a usage error).
`check_loadable` goes one step further before any game: it imports each Python bot in a
subprocess of its own (a bot that hangs, exits or crashes at import cannot take the caller with
it) and checks that its class loads and can be instantiated; `exec:` programs must exist.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from arena import defaults
from arena.player import CXPlayer

__all__ = ["BotSpec", "SpecError", "bot_pythonpath", "check_loadable", "load_player_class",
           "parse_spec"]

PLAYERS_PACKAGE = "players"
_SHORT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class SpecError(ValueError):
    """A SPEC that names no usable bot (one clear line)."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed SPEC. `text` is what the user wrote; exactly one of module/path/command is set."""

    text: str
    module: str | None = None  # importable module name
    path: str | None = None  # absolute path of a .py file
    cls: str | None = None  # class name, or None for "the single CXPlayer subclass"
    command: tuple[str, ...] | None = None  # argv of an exec: bot

    @property
    def is_python(self) -> bool:
        return self.command is None

    def argv(self) -> list[str]:
        """The command line that starts this bot speaking the protocol."""
        if self.command is not None:
            return list(self.command)
        return [sys.executable, "-m", "arena.entrants.host", self.host_target()]

    def host_target(self) -> str:
        """The unambiguous target string `python -m arena.entrants.host` takes."""
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
    raise SpecError(f"unknown bot {text!r}: not a module in players/, an importable "
                    f"module, a .py file or exec:COMMAND ({hint})")


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _import(spec: BotSpec) -> ModuleType:
    if spec.path is not None:
        name = "cxbot_" + re.sub(r"\W", "_", Path(spec.path).stem)
        mspec = importlib.util.spec_from_file_location(name, spec.path)
        if mspec is None or mspec.loader is None:
            raise SpecError(f"bot SPEC {spec.text!r}: cannot load {spec.path}")
        module = importlib.util.module_from_spec(mspec)
        sys.modules[name] = module
        mspec.loader.exec_module(module)
        return module
    assert spec.module is not None
    return importlib.import_module(spec.module)


def load_player_class(spec: BotSpec) -> type[CXPlayer]:
    """Import the bot's module and return its CXPlayer subclass.

    Raises SpecError for a module without (or with several) CXPlayer subclasses or an unknown
    class; any exception raised while importing the bot's code propagates unchanged.
    """
    if spec.command is not None:
        raise SpecError(f"bot SPEC {spec.text!r} is a program, not a Python class")
    module = _import(spec)
    if spec.cls is not None:
        obj = getattr(module, spec.cls, None)
        if not (inspect.isclass(obj) and issubclass(obj, CXPlayer)):
            raise SpecError(f"bot SPEC {spec.text!r}: {spec.cls!r} is not a CXPlayer subclass "
                            f"in {module.__name__}")
        return obj
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, CXPlayer)
             and obj.__module__ == module.__name__ and not inspect.isabstract(obj)]
    if not found:
        raise SpecError(f"bot SPEC {spec.text!r}: {module.__name__} defines no CXPlayer subclass")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise SpecError(f"bot SPEC {spec.text!r}: {module.__name__} defines several CXPlayer "
                        f"subclasses ({names}); name one as SPEC:Class")
    return found[0]


def bot_pythonpath() -> str:
    """PYTHONPATH for a Python bot's process: the directories this process imports from that
    are not part of the Python installation (the working directory, the project, dirs callers
    added to sys.path), then any PYTHONPATH already set; so a bot imports what we import."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    extra = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if os.path.isdir(path) and not any(path == p or path.startswith(p + os.sep)
                                           for p in prefixes):
            extra.append(path)
    if os.environ.get("PYTHONPATH"):
        extra.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(dict.fromkeys(extra))


def check_loadable(specs: Sequence[BotSpec],
                   timeout_s: float = defaults.STARTUP_TIMEOUT_S) -> dict[str, str]:
    """Import every Python bot in its own subprocess (all at once) and instantiate its class.

    Returns {spec text: one-line error} for the bots that fail (empty when all load). `exec:`
    bots were already checked by `parse_spec` (the program exists).
    """
    env = dict(os.environ, PYTHONPATH=bot_pythonpath())
    procs = {}
    for spec in specs:
        if spec.is_python and spec.text not in procs:
            procs[spec.text] = subprocess.Popen(
                [sys.executable, "-m", "arena.entrants.specs", spec.host_target()], env=env,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, start_new_session=True)
    errors: dict[str, str] = {}
    deadline_s = time.monotonic() + timeout_s
    for text, proc in procs.items():
        try:
            out, _ = proc.communicate(timeout=max(0.1, deadline_s - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            errors[text] = f"bot {text!r} did not finish importing within {timeout_s:g} s"
            continue
        if proc.returncode != 0:
            last = out.strip().splitlines()[-1:] or [f"exited with status {proc.returncode} "
                                                      f"while importing"]
            errors[text] = f"bot {text!r}: {last[0]}"
    return errors


def _check_main(target: str) -> int:
    """`python -m arena.entrants.specs TARGET`: load and instantiate the bot; exit 0, or print why
    not."""
    try:
        load_player_class(parse_spec(target))()
    except SpecError as e:
        print(str(e).replace("\n", " "), flush=True)
        return 1
    except BaseException as e:  # the bot's own code failed (even sys.exit)
        print(f"fails to import: {type(e).__name__}: {e}".replace("\n", " "), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(_check_main(sys.argv[1]))
