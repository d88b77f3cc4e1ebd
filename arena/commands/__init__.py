"""One module per `cxarena` subcommand. Each defines `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit code); `arena.cli` wires them together.

The commands are the top of the import order (commands -> play, report, onboarding ->
tournament -> results -> referee, entrants -> wire -> rules, records) and the one place that
hands the project's search to the harness (`opening_judge`, through an entry point). Each
command imports its dependencies inside `run` (and the helpers `run` calls), so that
`cxarena --help` and the other commands do not load them: this paragraph is the comment those
imports inside functions carry (tests/test_architecture.py asks every other module for one).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.analysis.engine import Oracle
from arena.board import CXBoard
from arena.competition.openings import Judge
from arena.errors import UsageError
from arena.records import DEFAULT_GAME

if TYPE_CHECKING:
    from arena.records import StoredGame


def checked_board(board: list[int]) -> tuple[int, int, int]:
    """The `--board M N K` of a command as a tuple; UsageError naming the flag if no such board."""
    M, N, K = board
    try:
        CXBoard(M, N, K)
    except ValueError as e:
        raise UsageError(f"--board {M} {N} {K}: {e}") from None
    return M, N, K


#: the entry-point group of the judges of generated openings: one entry per game name
JUDGE_GROUP = "cxarena.opening_judges"
#: the judge names of older configs and installs, and the game each stands for
JUDGE_ALIASES = {"search": "connectx"}


def game_judge(config: Any) -> Judge | None:
    """The judge of the openings of a game of parameter sets for a tournament config that has
    openings (None for a game played on boards, whose openings `opening_judge()` judges, or
    without openings)."""
    if not config.param_sets or config.openings is None:
        return None
    return opening_judge(config.game)


def opening_judge(game: str = DEFAULT_GAME) -> Judge:
    """The judge of `game`'s generated openings (`arena.competition.openings`), found by its
    entry point in `JUDGE_GROUP` under the game's name (pyproject.toml registers each game's
    judge, from the search of its built-in bots; ``search`` is Connect-X's older name): the
    bots offer it, so nothing in `arena/` imports `players`."""
    from importlib.metadata import entry_points  # only when asked

    name = JUDGE_ALIASES.get(game, game)
    # the game's own name first, then an older name (an install made before the one group)
    names = [name] + [old for old, new in JUDGE_ALIASES.items() if new == name]
    found = sorted((ep for ep in entry_points(group=JUDGE_GROUP) if ep.name in names),
                   key=lambda ep: names.index(ep.name))
    if not found:
        raise UsageError(f"no opening judge for {game!r} is installed (entry point group "
                         f"{JUDGE_GROUP}); reinstall cxarena (make, or pip install -e .)")
    judge: Judge = found[0].load()
    return judge


#: the entry-point group where a package offers the game analysis' search
SOLVER_GROUP = "cxarena.solvers"


def analysis_oracle(M: int, N: int, K: int, name: str = "search") -> Oracle:
    """The search the game analysis uses for an M x N x K board, found by its entry point
    (pyproject.toml registers `players._shared.oracle:oracle_for` as ``search``): the exact
    solver, the opening book and estimates of the built-in bots' search."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=SOLVER_GROUP) if ep.name == name]
    if not found:
        raise UsageError(f"no analysis solver {name!r} is installed (entry point group "
                         f"{SOLVER_GROUP}); reinstall cxarena (make, or pip install -e .)")
    oracle: Oracle = found[0].load()(M, N, K)
    return oracle


def stored_game(results: str, game_id: str) -> tuple[StoredGame, Path]:
    """The stored game `game_id` of a results folder, and the folder; UsageError with the
    closest ids if there is no such game."""
    from arena.report.data import find_db  # (commands import inside functions)
    from arena.results.store import ResultStore

    db = find_db(results)
    with ResultStore(db, create=False) as store:
        game = store.game(game_id)
        if game is None:
            ids = sorted(store.done_ids())
            close = difflib.get_close_matches(game_id, ids, n=3, cutoff=0.6)
            hint = (f"did you mean {', '.join(close)}?" if close else
                    f"{len(ids)} games are stored; list their ids with "
                    f"`cxarena report {results} --json`")
            raise UsageError(f"{results}: no game {game_id!r}; {hint}")
    return game, db.parent


def analyse_results(results_dir: Path, budget_s: float, workers: int | None = None,
                    redo: bool = False, quiet: bool = False) -> str:
    """`--analyze` of `report` and `tournament`: analyse every covered game of a results
    folder not analysed yet (arena.analysis.batch, a process pool after the games) and return
    the blunders table (markdown)."""
    import sys  # (commands import inside functions)

    from arena.analysis.batch import analyse_folder, blunder_rows, blunders_markdown
    from arena.analysis.store import AnalysisStore
    from arena.report.data import find_db
    from arena.results.store import ResultStore

    if not budget_s > 0:
        raise UsageError(f"--time-per-position {budget_s}: must be a positive number of seconds")
    db = find_db(results_dir)
    with ResultStore(db, create=False) as store:
        games = list(store.games())

    def progress(done: int, total: int) -> None:
        if not quiet:
            print(f"\ranalysed {done}/{total} games", end="", file=sys.stderr, flush=True)

    count, skipped = analyse_folder(db.parent, games, analysis_oracle, budget_s, workers, redo,
                                    progress)
    if count and not quiet:
        print(file=sys.stderr)
    rows = blunder_rows(games, AnalysisStore(db.parent).all())
    note = (f"Analysed {count} game(s) now"
            + (f"; {skipped} on boards larger than the exact solver covers were skipped"
               if skipped else "") + ".\n\n")
    return note + "### Blunders per bot per game, per board\n\n" + blunders_markdown(rows)
