"""Kaggle ConnectX agents as CXPlayers: `agent_player_class` wraps a submission's
``agent(observation, configuration)`` function in a class the Python host runs
(`arena.entrants.kaggle_host` is that host's entry point for ``kaggle:`` SPECs)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.board import CXBoard
from arena.entrants.specs import BotSpec, SpecError, import_bot_module
from arena.player import CXPlayer

__all__ = ["KAGGLE_EPISODE_STEPS", "Struct", "agent_player_class", "find_agent"]

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
    module = import_bot_module(spec)
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
