"""One stored game as text, for `cxarena show`: the board with move numbers (or every position
with `step=True`), who won and why, and the move times. Pure: returns strings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from arena.games import GameError, make_game
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


def _opening_line(opening: Sequence[object]) -> str:
    """The head's line on an opening: its plies are nobody's choice."""
    k = len(opening)
    return (f"opening: {' '.join(map(str, opening))} ({k} pl{'y' if k == 1 else 'ies'} played "
            f"for both sides, not chosen by the bots; not counted in the times below)")


def _opening_ply(n: int, text: str) -> str:
    """The --step line of an opening's ply `n` (1-based)."""
    return f"opening ply {n}: {text} (not chosen by the bots)"


def _move_list(moves: Sequence[int], times_ms: Sequence[float], book: int = 0) -> str:
    """Moves with times, several per line: '  12. O c3  4.02 ms' (an opening's: 'opening')."""
    items = []
    for n, c in enumerate(moves):
        t = "opening" if n < book else f"{times_ms[n]:.2f} ms" if n < len(times_ms) else ""
        items.append(f"{n + 1:>4}. {_SYMBOLS[n % 2]} c{c:<3} {t:>10}")
    per_line = 4
    return "\n".join("".join(items[k:k + per_line])
                     for k in range(0, len(items), per_line))


def _render_other(game: StoredGame, step: bool) -> list[str]:
    """The positions of another game than Connect-X (its own text rendering, `arena.games`)."""
    rec = game.record
    names = (game.player1, game.player2)
    out = [f"game {game.game_id}: {rec.game_label}, round {game.round}, seed {rec.seed}",
           f"{names[0]} moves first, {names[1]} second"]
    if rec.opening_texts:
        out.append(_opening_line(rec.opening_texts))
    if rec.pair_id:
        out.append(f"pair_id: {rec.pair_id}")
    out.append("")
    try:
        rules = make_game(rec.game, rec.game_params)
    except GameError as e:
        return out + [f"(cannot draw the board: {e})", ""]
    state = rules.initial_state()
    if step:
        out += [f"start: {names[0]} moves first", rules.render(state), ""]
    for n, text in enumerate(rec.move_texts, start=1):
        try:
            state = rules.apply(state, rules.parse_move(state, text))
        except GameError as e:
            out += [f"move {n} ({text}) does not replay: {e}", ""]
            break
        if step and n <= len(rec.opening_texts):
            out += [_opening_ply(n, text), rules.render(state), ""]
        elif step:
            t = f" in {rec.times_ms[n - 1]:.2f} ms" if n - 1 < len(rec.times_ms) else ""
            out += [f"move {n}: {names[(n - 1) % 2]} plays {text}{t}", rules.render(state), ""]
    if not step:
        k = len(rec.move_texts)
        out += [f"final position after {k} move{'' if k == 1 else 's'}:", rules.render(state),
                ""]
    return out


def _other_moves(rec: GameRecord) -> str:
    book = len(rec.opening_texts)
    items = [f"{n + 1:>4}. {text:<10} {'opening':>12}" if n < book else
             f"{n + 1:>4}. {text:<10} {rec.times_ms[n]:>9.2f} ms"
             if n < len(rec.times_ms) else f"{n + 1:>4}. {text}"
             for n, text in enumerate(rec.move_texts)]
    return "\n".join("".join(items[k:k + 4]) for k in range(0, len(items), 4))


def render_game(game: StoredGame, step: bool = False) -> str:
    """The text of `cxarena show` for one stored game."""
    rec = game.record
    if not rec.is_connectx:
        names = (game.player1, game.player2)
        out = _render_other(game, step)
        out.append(f"result: {describe_end(rec, *names)}")
        if rec.stderr_tail:
            out.append("stderr of the offender (last lines):")
            out.extend("  | " + ln for ln in rec.stderr_tail.rstrip("\n").splitlines())
        out += ["", "times:",
                _times(rec, names, None if rec.timeout_s is None else rec.timeout_s * 1000)]
        if rec.move_texts and not step:
            out += ["", "moves (number, move, time):", _other_moves(rec)]
        return "\n".join(out) + "\n"
    names = (game.player1, game.player2)
    limit_ms = None if rec.timeout_s is None else rec.timeout_s * 1000.0
    head = [f"game {game.game_id}: {rec.M}x{rec.N} board (rows x columns), K={rec.K}, "
            f"round {game.round}, seed {rec.seed}",
            f"{_SYMBOLS[0]} = {names[0]} (first player), {_SYMBOLS[1]} = {names[1]} "
            f"(second player)"]
    if rec.opening:
        head.append(_opening_line(rec.opening))
    if rec.pair_id:
        head.append(f"pair_id: {rec.pair_id}")
    out = ["\n".join(head), ""]
    win = (set(winning_line(rec.M, rec.N, rec.K, rec.moves)) if rec.reason is Reason.CONNECT
           else set())
    if step:
        for n in range(len(rec.moves) + 1):
            if n == 0:
                out.append(f"start: {names[0]} moves first")
            elif n <= len(rec.opening):
                out.append(_opening_ply(n, f"column {rec.moves[n - 1]}"))
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
        out.append(f"  initPlayer: {_SYMBOLS[0]} {names[0]} {rec.init_ms[0]:.2f} ms, "
                   f"{_SYMBOLS[1]} {names[1]} {rec.init_ms[1]:.2f} ms")
    peaks = peak_memory_text(rec.extra)
    if peaks:
        out.append(f"  peak memory: {_SYMBOLS[0]} {names[0]} {peaks[0]}, "
                   f"{_SYMBOLS[1]} {names[1]} {peaks[1]}")
    if rec.moves and not step:
        out.append("")
        out.append("moves (player, column, time):")
        out.append(_move_list(rec.moves, rec.times_ms, len(rec.opening)))
    return "\n".join(out) + "\n"


def peak_memory_text(extra: dict[str, Any]) -> tuple[str, str] | None:
    """Each bot's peak memory in the game, as a record measured it in its cgroup
    (`extra["peak_memory_mb"]`), for people ("81.0 MiB", "not measured"); None without it."""
    peaks = extra.get("peak_memory_mb")
    if not isinstance(peaks, (list, tuple)) or len(peaks) != 2:
        return None
    shown = tuple(f"{float(p):.1f} MiB" if isinstance(p, (int, float)) else "not measured"
                  for p in peaks)
    return shown[0], shown[1]
