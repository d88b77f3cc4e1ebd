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
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena import defaults
from arena.entrants.java import JavaTarget, check_class
from arena.entrants.loading import load_game_player_class
from arena.entrants.specs import BotSpec, Kind, SpecError, bot_pythonpath, parse_spec
from arena.games.connectx.entrant import load_player_class
from arena.wire.door import DoorJob, DoorResult
from arena.wire.door import run as door_run

__all__ = ["Probe", "check_loadable", "inspect_target", "load", "probe_each", "probe_in_turn",
           "probe_job"]

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


def _serve(targets: Sequence[str], game: str | None = None,
           each_timeout_s: float | None = None) -> int:
    """The probe process: READY, then one JSON line per target (bots print to stderr). With
    `each_timeout_s`, a target that takes longer gets a line saying so and the process ends
    (a watchdog thread: the caller starts a fresh process for the rest)."""
    import arena.entrants.specs  # noqa: F401 - the harness (and numpy) before READY

    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a bot printing (even from C code) writes to stderr, not into our lines
    sys.stdout = sys.stderr
    print(READY, file=out, flush=True)
    for target in targets:
        done = threading.Event()
        if each_timeout_s is not None:
            threading.Thread(target=_watchdog, args=(out, target, each_timeout_s, done),
                             daemon=True).start()
        with contextlib.redirect_stdout(sys.stderr):
            try:
                probe = inspect_target(target, game)
            except BaseException as e:  # anything at all: report, go on
                probe = Probe(target, error=f"inspection failed: {one_line(e)}")
        done.set()
        print(json.dumps(asdict(probe)), file=out, flush=True)
    out.flush()
    os._exit(0)  # do not wait for a bot's non-daemon threads


def _watchdog(out: Any, target: str, timeout_s: float, done: threading.Event) -> None:
    if not done.wait(timeout_s):
        why = f"import or playerName() took over {timeout_s:g} s"
        print(json.dumps(asdict(Probe(target, error=why))), file=out, flush=True)
        os._exit(TIMED_OUT_STATUS)


#: the probe process's exit status after a target ran over its time
TIMED_OUT_STATUS = 75


def probe_job(targets: Sequence[str], timeout_s: float, game: str | None = None,
              each_timeout_s: float | None = None) -> DoorJob:
    """The door job (`arena.wire.door`) that probes `targets` in one process: it sees what
    the bots' games would (their own files read-only, `arena`, the shared helpers)."""
    argv = [sys.executable, "-m", "arena.entrants.probe"]
    if game is not None:
        argv += ["--game", game]
    if each_timeout_s is not None:
        argv += ["--each", repr(each_timeout_s)]
    read: list[str] = []
    for target in targets:
        try:
            read += parse_spec(target).launch().expose
        except SpecError:
            pass  # the probe says so itself
    return DoorJob(door="probe", label=" ".join(targets)[:200], argv=(*argv, "--", *targets),
                   timeout_s=timeout_s,
                   env=(("PYTHONPATH", bot_pythonpath()), ("PYTHONUNBUFFERED", "1")),
                   read_paths=tuple(dict.fromkeys(read)))


def _parse(result: DoorResult) -> tuple[bool, list[Probe]]:
    """(whether the process got as far as READY, the Probes it printed)."""
    lines = result.stdout.splitlines()
    if READY not in lines:
        return False, []
    probes = []
    for line in lines[lines.index(READY) + 1:]:
        try:
            probes.append(Probe(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return True, probes


def probe_each(targets: Sequence[str], timeout_s: float,
               game: str | None = None) -> dict[str, Probe]:
    """Probe every target (bots of `game`: see `load`) in a process of its own (through the
    door: sandboxed like a game), all at once, within `timeout_s` each (start-up included). A
    target that takes longer or ends its process gets an error."""
    unique = list(dict.fromkeys(targets))
    results: dict[str, DoorResult] = {}
    failures: list[BaseException] = []

    def one(target: str) -> None:
        try:
            results[target] = door_run(probe_job([target], timeout_s, game))
        except BaseException as e:  # the harness's (a bot's fault is in the result)
            failures.append(e)

    threads = [threading.Thread(target=one, args=(t,), daemon=True) for t in unique]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    out: dict[str, Probe] = {}
    for target in unique:
        result = results[target]
        ready, probes = _parse(result)
        got = next((p for p in probes if p.target == target), None)
        if got is not None:
            out[target] = got
        elif result.timed_out:
            out[target] = Probe(target, error=f"did not finish importing within "
                                              f"{timeout_s:g} s")
        elif result.fault:
            out[target] = Probe(target, error=f"importing it {result.fault}")
        elif not ready and result.status not in (0, None):
            out[target] = Probe(target, error=f"exited with status {result.status} while "
                                              f"importing{_last_words(result)}")
        else:
            out[target] = Probe(target, error=f"exited with status {result.status} while "
                                              f"importing")
    return out


def _last_words(result: DoorResult) -> str:
    """The last line of a probe process's stderr, for a process that failed before READY
    (the harness itself could not start there: say why)."""
    lines = result.stderr.strip().splitlines()
    return f" ({lines[-1][:200]})" if lines else ""


def probe_in_turn(targets: Sequence[str], each_timeout_s: float,
                  startup_timeout_s: float) -> dict[str, Probe]:
    """Probe the targets one after another in one process (through the door: sandboxed like
    a game); after a target that takes longer than `each_timeout_s` or ends the process, go
    on in a fresh one. Raises RuntimeError if a probe process does not start within
    `startup_timeout_s`."""
    todo = list(dict.fromkeys(targets))
    out: dict[str, Probe] = {}
    while todo:
        result = door_run(probe_job(todo, startup_timeout_s + each_timeout_s * len(todo) + 1.0,
                                    each_timeout_s=each_timeout_s))
        ready, probes = _parse(result)
        if not ready:
            raise RuntimeError("the probe process (python -m arena.entrants.probe) did not "
                               f"start; is the arena package importable?{_last_words(result)}")
        before = len(todo)
        for probe in probes:
            if probe.target in todo:
                out[probe.target] = probe
                todo.remove(probe.target)
        if todo and (result.status not in (0, TIMED_OUT_STATUS) or len(todo) == before):
            target = todo.pop(0)
            if result.timed_out:
                why = f"import or playerName() took over {each_timeout_s:g} s"
            else:
                why = f"importing it ended the process (exit code {result.status})"
            out[target] = Probe(target, error=why)
    return out


def main(args: list[str]) -> int:
    game = each = None
    while args and args[0] != "--":
        if args[0] == "--game":
            game, args = args[1], args[2:]
        elif args[0] == "--each":
            each, args = float(args[1]), args[2:]
        else:
            break
    return _serve(args[1:] if args[:1] == ["--"] else args, game, each)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


def check_loadable(specs: Sequence[BotSpec],
                   timeout_s: float = defaults.STARTUP_TIMEOUT_S) -> dict[str, str]:
    """Load every Python bot and Kaggle agent (`arena.entrants.probe`), and every Java bot's
    class (in a JVM: the Java host's ``--check``), each in its own process through the door
    (`arena.wire.door`: sandboxed like a game), all at once, and instantiate its class.

    Returns {spec text: one-line error} for the bots that fail (empty when all load). `exec:`
    bots were already checked by `parse_spec` (the program exists).
    """
    unique = {spec.text: spec for spec in specs}
    errors: dict[str, str] = {}

    failures: list[BaseException] = []

    def java(text: str, spec: BotSpec) -> None:
        assert spec.cls is not None
        try:
            why = check_class(JavaTarget(spec.classpath, spec.cls), timeout_s)
        except BaseException as e:  # the harness's (a bot's fault is in `why`)
            failures.append(e)
            return
        if why is not None:
            errors[text] = f"bot {text!r}: {why}"

    threads = [threading.Thread(target=java, args=(text, spec), daemon=True)
               for text, spec in unique.items() if spec.kind is Kind.JAVA]
    for t in threads:
        t.start()
    python = {spec.host_target(): text for text, spec in unique.items() if spec.is_python}
    for target, probe in probe_each(list(python), timeout_s).items():
        if probe.error:
            errors[python[target]] = f"bot {python[target]!r}: {probe.error}"
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return {text: errors[text] for text in unique if text in errors}
