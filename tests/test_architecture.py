"""The import direction of `arena/` (issue: one direction, no cycles), checked by reading every
module's imports with `ast`:

commands -> (play, report, onboarding, league) -> tournament -> competition -> results -> (referee, entrants) -> wire
-> (rules, records); a game's folder holds its rules (with the rules) and may hold the entrant
adapter of its own bot API (`arena/games/NAME/entrant.py`, with the entrants)

- no module of `arena/referee/` imports `arena.entrants`, and no module of `arena/entrants/`
  imports `arena.referee` (they meet in `arena.wire`, which of `arena` imports only the games);
- no module of `arena/tournament/` or `arena/results/` imports `arena.report`, `arena.play`,
  `arena.onboarding` or `arena.commands`;
- nothing in `arena/` imports `players` (the opening judge comes through an entry point);
- no import cycle between files, counting imports inside functions too;
- an import inside a function says why (start-up time, an optional dependency) in a comment on
  its line or the line above; the commands' `run` functions are covered by the rule in
  `arena/commands/__init__.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ARENA = Path(__file__).resolve().parent.parent / "arena"

#: package -> the layer it sits in (a module may import only from its own layer or below)
LAYERS = {
    "commands": 7, "cli": 7, "__main__": 7,
    # similarity: who copied whom (issue #41) reads the league's submissions and runs bots
    # through the referee, for the league's pages and the commands above it
    "play": 6, "report": 6, "onboarding": 6, "league": 6, "similarity": 6,
    "tournament": 5,
    # the competition core (issue #38): settings, pairing and executors that the tournament
    # and the league share
    "competition": 4,
    "results": 3, "analysis": 3,
    "referee": 2, "entrants": 2,
    "wire": 1,
    # the rules, the player interface, records, limits and the package's own small modules
    "board": 0, "games": 0, "player": 0, "timing": 0, "records": 0, "errors": 0, "defaults": 0,
    "limits": 0, "": 0,
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ARENA.rglob("*.py")):
        parts = path.relative_to(ARENA.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The arena modules (and `players`) that module `name` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{a.name}" for a in node.names]
        for t in targets:
            if t == "players" or t.startswith("players."):
                yield "players"
            elif t in known and t != name:
                yield t


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: set(_imports(name, path, set(mods))) for name, path in mods.items()}


#: a game folder's module -> its layer, when not the rules' (a game plug-in holds its rules,
#: layer 0, and may hold the entrant adapter of its own bot API, at the entrants' layer)
GAME_PARTS = {"entrant": LAYERS["entrants"]}


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 4 and parts[1] == "games" and parts[3] in GAME_PARTS:
        return GAME_PARTS[parts[3]]
    return LAYERS[parts[1] if len(parts) > 1 else ""]


def test_every_package_has_a_layer() -> None:
    for name in _modules():
        parts = name.split(".")
        assert (parts[1] if len(parts) > 1 else "") in LAYERS, name


def test_imports_point_one_way() -> None:
    wrong = []
    for name, targets in _graph().items():
        for t in targets:
            if t == "players":
                wrong.append(f"{name} imports players (arena/ never imports a bot)")
            elif t != "arena" and _layer(t) > _layer(name):
                wrong.append(f"{name} (layer {_layer(name)}) imports {t} (layer {_layer(t)})")
    assert wrong == []


def test_referee_and_entrants_meet_only_in_the_wire() -> None:
    graph = _graph()
    for name, targets in graph.items():
        if name.startswith("arena.referee"):
            assert not [t for t in targets if t.startswith("arena.entrants")], name
        if name.startswith("arena.entrants"):
            assert not [t for t in targets if t.startswith("arena.referee")], name


def test_the_wire_imports_only_the_games() -> None:
    """As arena/wire/__init__.py says: of `arena`, the wire imports only `arena.games`."""
    outside = sorted(f"{name} imports {t}" for name, targets in _graph().items()
                     if name.startswith("arena.wire") for t in targets
                     if not t.startswith(("arena.wire", "arena.games")))
    assert outside == []


def test_no_import_cycle_between_files() -> None:
    graph = _graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph or nxt == "arena":
                continue  # `players`, and the package root's version string
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


def test_imports_inside_functions_say_why() -> None:
    silent = []
    for name, path in _modules().items():
        if name == "arena.commands" or name.startswith("arena.commands."):
            continue  # the package docstring says why each command imports inside `run`
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        nested = {id(n): n for f in ast.walk(tree)
                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for node in nested.values():
            around = lines[max(0, node.lineno - 2):node.end_lineno]
            if not any("#" in line for line in around):
                silent.append(f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert silent == []
