"""One stored game as text, for `cxarena show`: the board with move numbers (or every position
with `step=True`), who won and why, and the move times. Pure: returns strings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.records import GameRecord, Reason, StoredGame
from arena.report.explain import describe_end, winning_line

__all__ = ["render_game"]

_SYMBOLS = ("X", "O")


def _cells(M: int, N: int, moves: Sequence[int]) -> list[list[int]]:
    """Move number (1-based) filling each cell, 0 if free; stops at an impossible move."""
    grid = [[0] * N for _ in range(M)]
    heights = [0] * N
    for n, c in enumerate(moves):
        if not 0 <= c < N or heights[c] >= M:
            break
        grid[M - 1 - heights[c]][c] = n + 1
        heights[c] += 1
    return grid


def _board(M: int, N: int, moves: Sequence[int], numbers: bool,
           marked: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
           last: bool = False) -> str:
    """The position after `moves`: 'X12' (the first player's piece, move 12) or 'X'."""
    grid = _cells(M, N, moves)
    n_moves = len(moves)
    width = (len(str(n_moves)) + 1 if numbers else 1) + 1  # + 1 for a '*' or '<' mark
    width = max(width, len(str(N - 1)))
    lines = [" ".join(f"{j:>{width}}" for j in range(N))]
    for i in range(M):
        row = []
        for j in range(N):
            n = grid[i][j]
            if n == 0:
                text = "."
            else:
                text = _SYMBOLS[(n - 1) % 2] + (str(n) if numbers else "")
                if (i, j) in marked:
                    text += "*"
                elif last and n == n_moves:
                    text += "<"
            row.append(f"{text:>{width}}")
        lines.append(" ".join(row))
    return "\n".join(lines)


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def _times(rec: GameRecord, names: tuple[str, str], limit_ms: float | None) -> str:
    """Each side's moves, mean and max time: the moves it chose (an opening's are nobody's)."""
    lines = []
    for seat, t in enumerate(rec.played_times_ms):
        if t:
            mean, mx = sum(t) / len(t), max(t)
            share = f" ({100 * mx / limit_ms:.0f} % of the {limit_ms:g} ms limit)" if (
                limit_ms) else ""
            lines.append(f"  {_SYMBOLS[seat]} {names[seat]}: {len(t)} "
                         f"move{'s' if len(t) != 1 else ''}, mean "
                         f"{_ms(mean)} ms, max {_ms(mx)} ms{share}")
        else:
            lines.append(f"  {_SYMBOLS[seat]} {names[seat]}: no moves")
    return "\n".join(lines)


def _move_list(moves: Sequence[int], times_ms: Sequence[float]) -> str:
    """Moves with times, several per line: '  12. O c3  4.02 ms'."""
    items = []
    for n, c in enumerate(moves):
        t = f"{times_ms[n]:.2f} ms" if n < len(times_ms) else ""
        items.append(f"{n + 1:>4}. {_SYMBOLS[n % 2]} c{c:<3} {t:>10}")
    per_line = 4
    return "\n".join("".join(items[k:k + per_line])
                     for k in range(0, len(items), per_line))


def render_game(game: StoredGame, step: bool = False) -> str:
    """The text of `cxarena show` for one stored game."""
    rec = game.record
    names = (game.player1, game.player2)
    limit_ms = None if rec.timeout_s is None else rec.timeout_s * 1000.0
    head = [f"game {game.game_id}: {rec.M}x{rec.N} board (rows x columns), K={rec.K}, "
            f"round {game.round}, seed {rec.seed}",
            f"{_SYMBOLS[0]} = {names[0]} (first player), {_SYMBOLS[1]} = {names[1]} "
            f"(second player)"]
    if rec.opening:
        head.append(f"opening: {' '.join(map(str, rec.opening))} (played for both sides; "
                    f"not counted in the times below)")
    if rec.pair_id:
        head.append(f"pair_id: {rec.pair_id}")
    out = ["\n".join(head), ""]
    win = (set(winning_line(rec.M, rec.N, rec.K, rec.moves)) if rec.reason is Reason.CONNECT
           else set())
    if step:
        for n in range(len(rec.moves) + 1):
            if n == 0:
                out.append(f"start: {names[0]} moves first")
            else:
                t = f" in {rec.times_ms[n - 1]:.2f} ms" if n - 1 < len(rec.times_ms) else ""
                out.append(f"move {n}: {_SYMBOLS[(n - 1) % 2]} {names[(n - 1) % 2]} plays "
                           f"column {rec.moves[n - 1]}{t}")
            final = n == len(rec.moves)
            out.append(_board(rec.M, rec.N, rec.moves[:n], numbers=False,
                              marked=win if final else frozenset(), last=True))
            out.append("")
    else:
        n = len(rec.moves)
        out.append(f"final position after {n} move{'' if n == 1 else 's'} (numbers: the move "
                   f"that filled the cell" + ("; * the winning line" if win else "") + "):")
        out.append(_board(rec.M, rec.N, rec.moves, numbers=True, marked=win))
        out.append("")
    out.append(f"result: {describe_end(rec, *names)}")
    if rec.stderr_tail:
        out.append("stderr of the offender (last lines):")
        out.extend("  | " + ln for ln in rec.stderr_tail.rstrip("\n").splitlines())
    out.append("")
    out.append("times:")
    out.append(_times(rec, names, limit_ms))
    if any(rec.init_ms):
        out.append(f"  initPlayer: {rec.init_ms[0]:.2f} ms / {rec.init_ms[1]:.2f} ms")
    if rec.moves and not step:
        out.append("")
        out.append("moves (player, column, time):")
        out.append(_move_list(rec.moves, rec.times_ms))
    return "\n".join(out) + "\n"
