"""One module per `cxarena` subcommand. Each defines `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit code); `arena.cli` wires them together.

The commands are the top of the import order (commands -> play, report, onboarding ->
tournament -> results -> referee, entrants -> wire -> rules, records) and the one place that
hands the project's search to the harness (`opening_judge`, through an entry point). Each
command imports its
dependencies inside `run`, so that `cxarena --help` starts fast.
"""

from __future__ import annotations

from arena.board import CXBoard
from arena.errors import UsageError
from arena.games.openings import GameJudge
from arena.tournament.openings import Judge


def checked_board(board: list[int]) -> tuple[int, int, int]:
    """The `--board M N K` of a command as a tuple; UsageError naming the flag if no such board."""
    M, N, K = board
    try:
        CXBoard(M, N, K)
    except ValueError as e:
        raise UsageError(f"--board {M} {N} {K}: {e}") from None
    return M, N, K


#: the entry-point group where a package offers its judge of generated openings
JUDGE_GROUP = "cxarena.opening_judges"


#: the entry point group of other games' opening judges (one entry per game name)
GAME_JUDGE_GROUP = "cxarena.game_opening_judges"


def game_opening_judge(game: str) -> GameJudge:
    """The judge of another game's generated openings (its bots' search, registered in
    pyproject.toml under `GAME_JUDGE_GROUP` by game name; `arena.games.openings`)."""
    from importlib.metadata import entry_points  # as opening_judge: only when asked

    found = [ep for ep in entry_points(group=GAME_JUDGE_GROUP) if ep.name == game]
    if not found:
        raise UsageError(f"no opening judge for {game!r} is installed (entry point group "
                         f"{GAME_JUDGE_GROUP}); reinstall cxarena (make, or pip install -e .)")
    judge: GameJudge = found[0].load()
    return judge


def opening_judge(name: str = "search") -> Judge:
    """The judge of generated openings, found by its entry point (pyproject.toml registers
    `players._shared.judge:judge_opening`, the search engine shared by the built-in bots, as
    ``search``): the bots offer it, so nothing in `arena/` imports `players`."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=JUDGE_GROUP) if ep.name == name]
    if not found:
        raise UsageError(f"no opening judge {name!r} is installed (entry point group "
                         f"{JUDGE_GROUP}); reinstall cxarena (make, or pip install -e .)")
    judge: Judge = found[0].load()
    return judge
