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


#: how an agent's parameters are named (Kaggle's docs: agent(observation, configuration))
_OBSERVATION_NAMES = ("observation", "obs")
_CONFIGURATION_NAMES = ("configuration", "config", "conf", "cfg")


def find_agent(module: Any, function: str | None, where: str,
               path: str | None = None) -> Callable[..., Any]:
    """FUNCTION of the loaded submission; else, as on Kaggle, the last callable defined in the
    file when it can be called as agent(observation[, configuration]); else the one function
    of the file whose parameters are named so. Raises ValueError (one line) when there is
    none, or several (Kaggle's own environment file, connectx.py: its last function is
    html_renderer and it holds two agents): it names them and how to choose (`path`: the
    file as the SPEC gave it)."""
    if function is not None:
        agent = getattr(module, function, None)
        if not callable(agent):
            raise ValueError(f"{where} defines no function {function!r}")
        return agent
    own = [(k, v) for k, v in vars(module).items() if not k.startswith("__") and callable(v)
           and getattr(v, "__module__", None) == module.__name__]
    if not own:
        raise ValueError(f"{where} defines no function (the agent is called as "
                         f"agent(observation, configuration))")
    last_name, last = own[-1]
    if _callable_as_agent(last):
        return last
    agents = [(k, v) for k, v in own if inspect.isfunction(v) and _named_as_agent(v)]
    if len(agents) == 1:
        return agents[0][1]
    kind = "class" if inspect.isclass(last) else "function"
    takes = _takes(last)
    listed = ", ".join(k for k, _ in agents) or "none"
    example = agents[-1][0] if agents else "FUNCTION"
    raise ValueError(f"the agent would be {last_name} (the last {kind} of {where}), which "
                     f"{takes}; name yours: kaggle:{path or where}:{example} (agents here, "
                     f"taking (observation, configuration): {listed})")


def _positional(agent: Callable[..., Any]) -> tuple[list[inspect.Parameter], bool] | None:
    """The positional parameters of `agent` and whether it takes *args (None: unknown)."""
    try:
        params = list(inspect.signature(agent).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return positional, any(p.kind is p.VAR_POSITIONAL for p in params)


def _callable_as_agent(agent: Callable[..., Any]) -> bool:
    """True when agent(observation) or agent(observation, configuration) is a valid call."""
    found = _positional(agent)
    if found is None:
        return True
    positional, varargs = found
    required = sum(1 for p in positional if p.default is p.empty)
    return required <= 2 and (varargs or len(positional) >= 1)


def _named_as_agent(agent: Callable[..., Any]) -> bool:
    """Callable as an agent, its parameters named (observation[, configuration])."""
    found = _positional(agent)
    if found is None or not _callable_as_agent(agent) or not found[0]:
        return False
    names = [p.name.lower() for p in found[0]]
    return names[0] in _OBSERVATION_NAMES or (
        len(names) > 1 and names[1] in _CONFIGURATION_NAMES)


def _takes(agent: Callable[..., Any]) -> str:
    found = _positional(agent)
    if found is None:
        return "cannot be called as agent(observation, configuration)"
    positional = found[0]
    if not positional:
        return "takes no arguments"
    return f"takes ({', '.join(p.name for p in positional)})"


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


def _spec_path(spec: BotSpec) -> str:
    """The file as the SPEC names it (kaggle:PATH[:FUNCTION])."""
    rest = spec.text.split(":", 1)[1] if ":" in spec.text else spec.text
    if spec.cls and rest.endswith(":" + spec.cls):
        rest = rest[:-len(spec.cls) - 1]
    return rest


def agent_player_class(spec: BotSpec) -> type[CXPlayer]:
    """Load the agent of a ``kaggle:`` BotSpec and wrap it as a CXPlayer class.
    Raises SpecError when the file has no agent; the file's own errors propagate."""
    module = import_bot_module(spec)
    try:
        agent = find_agent(module, spec.cls, os.path.basename(str(spec.path)),
                           _spec_path(spec))
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
