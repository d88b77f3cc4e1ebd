"""Loading a Python bot (or Kaggle agent) in a subprocess before any game: the one mechanism
behind `specs.check_loadable` (a config's or a match's players), `discovery.discover`
(`cxarena players`) and the host (`arena.entrants.host`, which loads its bot with `load`).

``python -m arena.entrants.probe [--game NAME] TARGET...`` prints ``READY`` once the harness is
imported, then, for each TARGET in turn (a SPEC as `BotSpec.host_target()` writes it), loads the
bot exactly as the host does (`load`: the course's `CXPlayer`, or with ``--game`` the
`GamePlayer` of that game, played in protocol version 2), instantiates it, asks its name and
prints one JSON line (a `Probe`). A bot's own output goes to stderr, never into those lines; a
bot that hangs, exits or crashes at import cannot take the caller with it.

`ProbeProcess` starts and reads one such process with timeouts. `probe_each` probes every
target in a process of its own, all at once (`check_loadable`); `probe_in_turn` probes many
targets in as few processes as it can, starting a fresh one after a target that hangs or ends
its process (`discover`).

Must not live here: games, or which bots exist (that is `arena.onboarding.discovery`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena import defaults
from arena.entrants.java import JavaTarget, check_argv
from arena.entrants.loading import load_game_player_class
from arena.entrants.specs import BotSpec, Kind, SpecError, bot_pythonpath, parse_spec
from arena.games.connectx.entrant import load_player_class

__all__ = ["Probe", "ProbeProcess", "check_loadable", "inspect_target", "load", "probe_each",
           "probe_in_turn"]

#: the first line of a probe process, once the harness is imported
READY = "cxarena-probe-ready"
_SPEC_PREFIX = re.compile(r"^bot SPEC '[^']*': ")


@dataclass(frozen=True)
class Probe:
    """What loading one bot showed. `error`: why it cannot play (None: it loads and
    instantiates); `name_error`: why its playerName() failed (a game survives that)."""

    target: str
    error: str | None = None
    player_name: str | None = None
    name_error: str | None = None
    doc: str = ""  # first line of the module's (else the class's) docstring

    @property
    def spec_error(self) -> bool:
        """The error is the SPEC's (no such class, no bot class in the file, ...), not a fault
        of the bot's code (import, instantiation, time)."""
        return self.error is not None and not self.error.startswith(BOT_FAULTS)


#: how the errors that are the bot's code's own fault begin (the others are the SPEC's)
BOT_FAULTS = ("fails to import", "fails to instantiate", "inspection failed", "did not finish",
              "exited with status", "import or playerName()", "importing it ended")


def load(target: str, game: str | None = None) -> type[Any]:
    """The CXPlayer class behind `target`, or with `game` its GamePlayer class for that game
    (raises SpecError, or whatever the bot raises)."""
    if game is not None:
        return load_game_player_class(target, game)
    return load_player_class(parse_spec(target))


def first_doc_line(doc: str | None) -> str:
    """The first non-empty line of a docstring, stripped ("" if none)."""
    for line in (doc or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def inspect_target(target: str, game: str | None = None) -> Probe:
    """Load, instantiate and name the bot behind `target` (for `game`: see `load`) in this
    process. Never raises for a fault of the bot: it is in the returned `Probe`."""

    try:
        cls = load(target, game)
    except SpecError as e:
        return Probe(target, error=_SPEC_PREFIX.sub("", " ".join(str(e).split())))
    except BaseException as e:  # the bot's own code failed (even sys.exit)
        return Probe(target, error=f"fails to import: {one_line(e)}")
    module = sys.modules.get(cls.__module__)
    doc = first_doc_line(getattr(module, "__doc__", None)) or first_doc_line(cls.__doc__)
    try:
        player = cls()
    except BaseException as e:
        return Probe(target, error=f"fails to instantiate: {one_line(e)}", doc=doc)
    call = "playerName" if game is None else "player_name"
    try:
        name = getattr(player, call)()
    except BaseException as e:
        return Probe(target, name_error=f"{call}() failed: {one_line(e)}", doc=doc)
    if not isinstance(name, str):
        return Probe(target, name_error=f"{call}() returned {type(name).__name__}, "
                                        f"not str", doc=doc)
    return Probe(target, player_name=name, doc=doc)


def _serve(targets: Sequence[str], game: str | None = None) -> int:
    """The probe process: READY, then one JSON line per target (bots print to stderr)."""
    import arena.entrants.specs  # noqa: F401 - the harness (and numpy) before READY

    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a bot printing (even from C code) writes to stderr, not into our lines
    sys.stdout = sys.stderr
    print(READY, file=out, flush=True)
    for target in targets:
        with contextlib.redirect_stdout(sys.stderr):
            try:
                probe = inspect_target(target, game)
            except BaseException as e:  # anything at all: report, go on
                probe = Probe(target, error=f"inspection failed: {one_line(e)}")
        print(json.dumps(asdict(probe)), file=out, flush=True)
    out.flush()
    os._exit(0)  # do not wait for a bot's non-daemon threads


class ProbeProcess:
    """One probe process over `targets` (bots of `game`: see `load`); read its lines with
    timeouts."""

    def __init__(self, targets: Sequence[str], game: str | None = None) -> None:

        env = dict(os.environ, PYTHONPATH=bot_pythonpath())  # what a bot's process imports
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena.entrants.probe",
             *(["--game", game] if game is not None else []), *targets], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self._buf = b""

    def readline(self, timeout_s: float) -> str | None:
        """The next line (without its newline); "" at EOF (the process died); None after
        `timeout_s` seconds."""
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
        return line.decode("utf-8", "replace")

    def ready(self, timeout_s: float) -> bool:
        return self.readline(timeout_s) == READY

    def next_probe(self, timeout_s: float) -> Probe | str | None:
        """The next target's Probe; "" if the process died first; None after timeout_s."""
        line = self.readline(timeout_s)
        if not line:
            return line
        return Probe(**json.loads(line))

    def exit_code(self, wait_s: float = 5.0) -> int | None:
        try:
            return self.proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def probe_each(targets: Sequence[str], timeout_s: float,
               game: str | None = None) -> dict[str, Probe]:
    """Probe every target (bots of `game`: see `load`) in a process of its own, all at once,
    within `timeout_s` in all (start-up included). A target that takes longer or ends its
    process gets an error."""
    procs = {t: ProbeProcess([t], game) for t in dict.fromkeys(targets)}
    deadline_s = time.monotonic() + timeout_s
    out: dict[str, Probe] = {}
    try:
        for target, proc in procs.items():
            def left() -> float:
                return max(0.1, deadline_s - time.monotonic())

            got = proc.next_probe(left()) if proc.ready(left()) else None
            if isinstance(got, Probe):
                out[target] = got
            elif got is None and proc.proc.poll() is None:
                out[target] = Probe(target, error=f"did not finish importing within "
                                                  f"{timeout_s:g} s")
            else:
                code = proc.exit_code()
                out[target] = Probe(target, error=f"exited with status {code} while importing")
    finally:
        for proc in procs.values():
            proc.kill()
    return out


def probe_in_turn(targets: Sequence[str], each_timeout_s: float,
                  startup_timeout_s: float) -> dict[str, Probe]:
    """Probe the targets one after another in one process; after a target that takes longer
    than `each_timeout_s` or ends the process, go on in a fresh one. Raises RuntimeError if a
    probe process does not start within `startup_timeout_s`."""
    todo = list(dict.fromkeys(targets))
    out: dict[str, Probe] = {}
    while todo:
        proc = ProbeProcess(todo)
        try:
            if not proc.ready(startup_timeout_s):
                raise RuntimeError("the probe process (python -m arena.entrants.probe) did not "
                                   "start; is the arena package importable?")
            while todo:
                got = proc.next_probe(each_timeout_s)
                if not isinstance(got, Probe):
                    target = todo.pop(0)
                    if got is None:
                        why = f"import or playerName() took over {each_timeout_s:g} s"
                    else:
                        why = f"importing it ended the process (exit code {proc.exit_code()})"
                    out[target] = Probe(target, error=why)
                    break  # a fresh process for the rest
                out[got.target] = got
                todo = [t for t in todo if t != got.target]
        finally:
            proc.kill()
    return out


if __name__ == "__main__":
    _args = sys.argv[1:]
    if _args[:1] == ["--game"]:
        raise SystemExit(_serve(_args[2:], _args[1]))
    raise SystemExit(_serve(_args))


def check_loadable(specs: Sequence[BotSpec],
                   timeout_s: float = defaults.STARTUP_TIMEOUT_S) -> dict[str, str]:
    """Load every Python bot and Kaggle agent (`arena.entrants.probe`), and every Java bot's
    class (in a JVM: the Java host's ``--check``), each in its own subprocess, all at once, and
    instantiate its class.

    Returns {spec text: one-line error} for the bots that fail (empty when all load). `exec:`
    bots were already checked by `parse_spec` (the program exists).
    """
    unique = {spec.text: spec for spec in specs}
    jvms = {}
    for text, spec in unique.items():
        if spec.kind is Kind.JAVA:
            assert spec.cls is not None
            jvms[text] = subprocess.Popen(
                check_argv(JavaTarget(spec.classpath, spec.cls)), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                start_new_session=True)
    deadline_s = time.monotonic() + timeout_s
    python = {spec.host_target(): text for text, spec in unique.items() if spec.is_python}
    errors = {python[target]: f"bot {python[target]!r}: {probe.error}"
              for target, probe in probe_each(list(python), timeout_s).items() if probe.error}
    for text, proc in jvms.items():
        try:
            out, _ = proc.communicate(timeout=max(0.1, deadline_s - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            errors[text] = f"bot {text!r}: did not finish loading within {timeout_s:g} s"
            continue
        if proc.returncode != 0:
            last = out.strip().splitlines()[-1:] or [f"exited with status {proc.returncode} "
                                                      f"while loading"]
            errors[text] = f"bot {text!r}: {last[0]}"
    return {text: errors[text] for text in unique if text in errors}
