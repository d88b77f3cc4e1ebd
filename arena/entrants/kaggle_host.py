"""Kaggle ConnectX agents (`kaggle:PATH[:FUNCTION]`) and their host:
``python -m arena.entrants.kaggle_host PATH[:FUNCTION]`` speaks the line protocol for one.

PATH is a Kaggle submission file; the agent is FUNCTION, or, as on Kaggle, the last callable
defined in the file (a function, class or callable object whose ``__module__`` is the file's;
names imported into it do not count). The file's folder comes first on the module search path,
so ``from helpers import ...`` works. The file is loaded once per process (at ``hello``,
outside every game clock); a process plays many games, so module-level state lives on.

Each turn the agent is called as ``agent(observation, configuration)`` (or
``agent(observation)`` when it takes one argument) with what Kaggle's ConnectX gives, both
as attributes and as items (`Struct`, like Kaggle's own objects):

- observation: ``board`` (a flat list of rows*columns ints, row 0 at the top, 0 empty, 1 and
  2 the players' marks), ``mark`` (1 moving first, else 2), ``step`` (moves played so far),
  ``remainingOverageTime`` (always 0: a late answer loses at once here);
- configuration: ``rows``, ``columns``, ``inarow``, ``actTimeout``, ``timeout`` and
  ``agentTimeout`` (all three the per-move limit in seconds), ``episodeSteps``.

The answer is an int column (numpy integers accepted); anything else is an illegal move.

Must not live here: the game loop or the protocol itself (`arena.entrants.host` does both).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.board import CXBoard
from arena.player import CXPlayer

if TYPE_CHECKING:
    from arena.entrants.specs import BotSpec

__all__ = ["Struct", "agent_player_class", "find_agent", "main"]

#: Kaggle's default episodeSteps (raised for boards with more cells)
KAGGLE_EPISODE_STEPS = 1000
_MAX_NAME_CHARS = 40


class Struct(dict[str, Any]):
    """A dict whose keys are also attributes (``obs.board`` and ``obs["board"]``), as the
    objects Kaggle passes to agents."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None


def find_agent(module: Any, function: str | None, where: str) -> Callable[..., Any]:
    """FUNCTION of the loaded submission, else its last callable defined in the file.
    Raises ValueError (one line) when there is none."""
    if function is not None:
        agent = getattr(module, function, None)
        if not callable(agent):
            raise ValueError(f"{where} defines no function {function!r}")
        return agent
    own = [v for k, v in vars(module).items() if not k.startswith("__") and callable(v)
           and getattr(v, "__module__", None) == module.__name__]
    if not own:
        raise ValueError(f"{where} defines no function (the agent is called as "
                         f"agent(observation, configuration))")
    return own[-1]


def _wants_configuration(agent: Callable[..., Any]) -> bool:
    """False for an agent that takes only the observation (as Kaggle allows)."""
    try:
        params = list(inspect.signature(agent).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) != 1


def agent_player_class(spec: BotSpec) -> type[CXPlayer]:
    """Load the agent of a ``kaggle:`` BotSpec and wrap it as a CXPlayer class.
    Raises SpecError when the file has no agent; the file's own errors propagate."""
    from arena.entrants.specs import SpecError, _import

    module = _import(spec)
    try:
        agent = find_agent(module, spec.cls, os.path.basename(str(spec.path)))
    except ValueError as e:
        raise SpecError(f"bot SPEC {spec.text!r}: {e}") from None
    with_configuration = _wants_configuration(agent)
    assert spec.path is not None
    path = Path(spec.path)
    name = f"{path.parent.name}/{path.stem}" + (f":{spec.cls}" if spec.cls else "")

    class KaggleAgent(CXPlayer):
        """A Kaggle agent function seen as a CXPlayer."""

        def initPlayer(self, M: int, N: int, K: int, first: bool,
                       timeout_in_secs: float) -> None:
            t = float(timeout_in_secs)
            limit: float = int(t) if t.is_integer() else t
            self.mark = 1 if first else 2
            self.configuration = Struct(
                rows=M, columns=N, inarow=K, actTimeout=limit, timeout=limit,
                agentTimeout=limit, episodeSteps=max(KAGGLE_EPISODE_STEPS, M * N + 1))

        def selectColumn(self, B: CXBoard) -> int:
            observation = Struct(board=B.getBoard().ravel().tolist(), mark=self.mark,
                                 step=B.numOfMarkedCells(), remainingOverageTime=0)
            if with_configuration:
                return agent(observation, self.configuration)
            return agent(observation)

        def playerName(self) -> str:
            return name[:_MAX_NAME_CHARS]

    KaggleAgent.__qualname__ = KaggleAgent.__name__ = f"KaggleAgent[{name}]"
    return KaggleAgent


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m arena.entrants.kaggle_host PATH[:FUNCTION]   "
              "(speaks docs/protocol.md on stdin/stdout)", file=sys.stderr)
        return 2
    from arena.entrants import host
    from arena.entrants.specs import KAGGLE_PREFIX

    return host.main([KAGGLE_PREFIX + args[0]])


if __name__ == "__main__":
    raise SystemExit(main())
