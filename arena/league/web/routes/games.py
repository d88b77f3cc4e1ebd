"""The leaderboard, a student's games, a game's replay (with the analysis for a side's author)
and its stderr. A bot's own words (exception text, stderr) are its author's and the admins' to
read; everyone else sees how the game ended ("crash", "timeout")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import arena.report
from arena.analysis.render import viewer_data
from arena.games import drawer_paths
from arena.games.connectx.record import board_and_columns
from arena.league import League, Submission
from arena.league.analysis import (
    analysable,
    cached_analysis,
    first_blunder,
    losing_students,
    student_games,
)
from arena.league.entries import EntryKey, is_submission, submission_key, submission_of
from arena.league.final import final_status
from arena.league.standings import game_log, game_record, game_sides, leaderboard, standings_csv
from arena.league.web.common import admin_only, csv_file, db, logged_in, page, side_label
from arena.records import GameRecord
from arena.report.viewer_json import viewer_game

__all__ = ["routes", "viewer_game"]  # viewer_game: arena.report.viewer_json's

#: the most rows the "My games" page lists (the newest of those the filters match)
MY_GAMES_SHOWN = 500


@logged_in
async def leaderboard_page(request: Request) -> Response:
    # the ranked entries and the reference bots, on the anchored scale
    rows, frozen, final, anchor_elo = await db(request, lambda lg: (
        leaderboard(lg), lg.frozen, bool(final_status(lg).report), lg.config.file.anchor_elo))
    anchor = next((r for r in rows if r.anchor), None)
    return page(request, "leaderboard.html", rows=rows, frozen=frozen, final=final,
                anchor=anchor, anchor_elo=anchor_elo,
                references=any(r.kind == "reference" for r in rows))


def _own_analysis(lg: League, gid: int, record: GameRecord, sides: tuple[EntryKey, EntryKey],
                  own: set[EntryKey], labels: list[str], game: dict[str, Any]
                  ) -> tuple[dict[str, Any] | None, str | None]:
    """For a viewer who wrote a side of the game (or an admin): the cached analysis into the
    viewer's game object, and the first blunder of the viewer's side (the side that lost when
    the viewer has both; none when the viewer's side won); ("pending") when a student lost it
    on a covered board and the workers have not analysed it yet; (None, None) when there is
    none to come."""
    analysis = cached_analysis(lg, gid)
    cx = board_and_columns(record)
    if analysis is None or cx is None or analysis.moves != cx[3]:
        lost = losing_students(sides, record.winner)
        pending = bool(lost) and (sides[lost[0] - 1] in own and lg.config.file.analysis_budget_s > 0
                   and analysable(record))
        return None, "pending" if pending else None
    game["analysis"] = viewer_data(analysis)
    mine = [p for p in (1, 2) if sides[p - 1] in own]
    loser = 3 - record.winner if record.winner in (1, 2) else None
    player = loser if loser in mine else mine[0]
    if record.winner == player:  # the viewer's side won: no "first blunder" to show
        return None, "ready"
    first = first_blunder(analysis, player)
    sid = submission_of(sides[player - 1])
    sub = lg.submission(sid) if sid is not None else None
    return {"player": player, "label": labels[player - 1] if player <= len(labels) else "",
            "author": sub.user if sub else "",
            "ply": None if first is None else first.ply,
            "move": None if first is None else first.ply + 1,
            "col": None if first is None else first.col,
            "reason": "" if first is None else first.reason,
            "better": [] if first is None else list(first.better)}, "ready"


@logged_in
async def game(request: Request) -> Response:
    gid = int(request.path_params["gid"])

    def read(lg: League) -> tuple[tuple[EntryKey, EntryKey] | None, GameRecord | None,
                                  list[str], list[Submission]]:
        sides = game_sides(lg, gid)
        subs = [lg.submission(sid) for sid in map(submission_of, sides or ()) if sid is not None]
        return (sides, game_record(lg, gid), [side_label(lg, s) for s in sides or ()],
                [s for s in subs if s is not None])

    sides, record, labels, subs = await db(request, read)
    if sides is None and record is None:
        raise HTTPException(404, f"No game {gid}.")
    me = request.state.user
    own = {submission_key(s.id) for s in subs if s.user == me.name or me.admin}
    logs = [(s.id, f"{s.user} v{s.version}") for s in subs if submission_key(s.id) in own]
    game = None
    if record is not None:
        offender = record.offender
        side = sides[offender - 1] if sides and offender in (1, 2) else ""
        # the faulting bot's own words (its exception text): its author and admins only; the
        # sides as every page names them (a stored record may name a reference bot by its SPEC)
        game = viewer_game(record, gid, labels if len(labels) == 2 else None,
                           own_words=me.admin or side in own or not is_submission(side))
    blunder, analysis_state = None, None
    if game is not None and record is not None and sides is not None and own:
        blunder, analysis_state = await db(
            request, lambda lg: _own_analysis(lg, gid, record, sides, own, labels, game))
    return page(request, "game.html", gid=gid, sides=labels, game=game, logs=logs,
                blunder=blunder, analysis_state=analysis_state)


def _board_order(board: str) -> tuple[int, ...]:
    """'6x7x4' as (6, 7, 4), so that boards sort by size."""
    try:
        return tuple(int(x) for x in board.split("x"))
    except ValueError:
        return (1 << 30,)


@logged_in
async def my_games(request: Request) -> Response:
    """The logged-in student's games (every version's), newest first, filtered by the GET
    parameters version, board, opponent and result (a value not offered is ignored)."""
    me = request.state.user
    games, versions = await db(request, lambda lg: (
        student_games(lg, me.name), [s.version for s in lg.submissions(me.name)]))
    options = {
        "version": [str(v) for v in versions],
        "board": sorted({g.board for g in games}, key=_board_order),
        "opponent": sorted({g.opponent_key for g in games}),
        "result": ["win", "draw", "loss"],
    }
    chosen = {k: str(request.query_params.get(k, "")) for k in options}
    chosen = {k: v if v in options[k] else "" for k, v in chosen.items()}
    rows = [g for g in games
            if (not chosen["version"] or str(g.version) == chosen["version"])
            and (not chosen["board"] or g.board == chosen["board"])
            and (not chosen["opponent"] or g.opponent_key == chosen["opponent"])
            and (not chosen["result"] or g.result == chosen["result"])]
    return page(request, "mygames.html", rows=rows[:MY_GAMES_SHOWN], matching=len(rows),
                total=len(games), options=options, chosen=chosen, shown=MY_GAMES_SHOWN)


@logged_in
async def game_stderr(request: Request) -> Response:
    gid = int(request.path_params["gid"])
    sid = int(request.path_params["sid"])
    sub, sides = await db(request, lambda lg: (lg.submission(sid), game_sides(lg, gid)))
    if sub is None or sides is None or submission_key(sid) not in sides:
        raise HTTPException(404, f"No log of submission {sid} in game {gid}.")
    me = request.state.user
    if sub.user != me.name and not me.admin:
        raise HTTPException(403, "That log belongs to another user's bot.")
    text = await db(request, lambda lg: game_log(lg, gid, sid))
    return PlainTextResponse(text or "(the bot wrote nothing to stderr)")


@admin_only
async def standings_csv_file(request: Request) -> Response:
    return csv_file(await db(request, standings_csv), "standings.csv")


async def game_drawer(request: Request) -> Response:
    """A game's board drawer for the replay viewer (the draw.js of the game's folder)."""
    path = drawer_paths().get(str(request.path_params["name"]))
    if path is None:
        raise HTTPException(404, "No such game drawer.")
    return FileResponse(path, media_type="text/javascript")


routes = [
    Route("/", leaderboard_page),
    Route("/my-games", my_games),
    Route("/games/{gid:int}", game),
    Route("/games/{gid:int}/log/{sid:int}", game_stderr),
    Route("/standings.csv", standings_csv_file),
    Route("/viewer/games/{name}/draw.js", game_drawer),  # viewer.js loads a game's own
    Mount("/viewer", StaticFiles(directory=Path(arena.report.__file__).resolve().parent
                                 / "static"), name="viewer"),
]
