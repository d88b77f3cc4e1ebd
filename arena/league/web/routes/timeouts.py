"""The final's games decided by a timeout, and their replay (issue 49).

``/admin/final/timeouts``: every game of the league's final decided by a timeout charged to a
bot, with its late move's account (what the bot computed, waited for a CPU and was off the CPU,
the replays the machine's load caused, and the referee's words with the kernel's evidence),
those charged on a busy machine marked. ``POST /admin/final/timeouts/replay`` (``game_id``):
plays one of them again. Its stored result is removed and the final is resumed in a process of
its own (`arena.league.final.start_final`), which plays the missing game and writes the
standings again: the replay's result replaces the old one (the grades read the final's games).
Refused while the final is running. Kept in the audit log with the old result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.league import League, LeagueError
from arena.league.final import final_results, final_status, final_tournament, start_final
from arena.league.web.common import admin_only, db, form, page, site
from arena.league.web.routes.admin import audit
from arena.records import GameRecord
from arena.results.fairness import (
    game_account,
    late_move_figures,
    on_a_busy_machine,
    timeout_games,
)
from arena.results.store import DB_FILE, ResultStore

__all__ = ["TimeoutGame", "final_timeouts", "routes"]

#: the longest game id taken from a form (the final's ids are far shorter)
MAX_GAME_ID = 200


@dataclass(frozen=True)
class TimeoutGame:
    """One game of the final decided by a timeout, as the page lists it."""

    game_id: str
    player1: str
    player2: str
    charged: str
    move: str
    computed_ms: str
    cpu_wait_ms: str
    off_cpu_ms: str
    replays: int
    busy: bool
    account: str
    detail: str


def _row(game_id: str, player1: str, player2: str, r: GameRecord,
         limit_s: float | None) -> TimeoutGame:
    cpu, wait, off = late_move_figures(r)
    charged = (player1, player2)[r.offender - 1] if r.offender in (1, 2) else "?"
    return TimeoutGame(game_id, player1, player2, charged, str(r.extra.get("fault_ply", "-")),
                       cpu, wait, off, len(r.extra.get("overload") or []),
                       on_a_busy_machine(r, limit_s), game_account(r, limit_s), r.detail)


def final_timeouts(lg: League) -> tuple[Path | None, list[TimeoutGame]]:
    """The final's results folder (None before it started) and its games decided by a timeout,
    in the order they were stored."""
    results = final_results(lg)
    if results is None or not (results / DB_FILE).is_file():
        return results, []
    rows = []
    with ResultStore(results / DB_FILE, create=False) as store:
        games = list(store.games())
    by_id = {g.record.game_id: g for g in games}
    for r in timeout_games(g.record for g in games):
        g = by_id[r.game_id]
        rows.append(_row(g.game_id, g.player1, g.player2, r, r.timeout_s))
    return results, rows


def _view(lg: League) -> dict[str, Any]:
    results, rows = final_timeouts(lg)
    return {"results": results, "games": rows, "final": final_status(lg)}


async def timeouts_page(request: Request, **extra: Any) -> Response:
    view = await db(request, _view)
    return page(request, "timeouts.html", **view, **extra)


def _replay(lg: League, game_id: str, results_root: Path) -> tuple[str, str]:
    """Remove the stored result of the final's timeout-decided game `game_id` and resume the
    final to play it again: (the old result's detail, the final's results folder). LeagueError
    when the final is running, or the game is not one of its timeout-decided games."""
    if final_status(lg).state == "running":
        raise LeagueError("the final round robin is running: replay its games once it ends")
    results, rows = final_timeouts(lg)
    row = next((r for r in rows if r.game_id == game_id), None)
    if results is None or row is None:
        raise LeagueError("no such game of the final decided by a timeout")
    final_tournament(lg)  # a final that cannot be built refuses before the game is deleted
    with ResultStore(results / DB_FILE, create=False) as store:
        store.delete_game(game_id)
    return row.detail, start_final(lg, results_root)


@admin_only
async def replay_game(request: Request) -> Response:
    data = await form(request)
    game_id = str(data.get("game_id", ""))[:MAX_GAME_ID]
    results_root = site(request).results_root
    try:
        old, folder = await db(request, lambda lg: _replay(lg, game_id, results_root))
    except (LeagueError, ValueError) as exc:
        raise HTTPException(409, f"The game cannot be played again: {exc}") from exc
    await audit(request, "replay final game", game_id, f"was: {old[:500]}")
    return await timeouts_page(request, notice=(
        f"Game {game_id} is being played again (the final resumed in {folder}); its new "
        "result replaces the old one in the standings and the grades."))


routes = [
    Route("/admin/final/timeouts", admin_only(timeouts_page)),
    Route("/admin/final/timeouts/replay", replay_game, methods=["POST"]),
]
