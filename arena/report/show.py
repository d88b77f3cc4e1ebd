"""One stored game as text, for `cxarena show`: the board (with move numbers where the game
writes them) or every position with `step=True`, who won and why, the move times and the list
of moves. Pure: returns strings.

One path for every game: what differs is asked of the game's presentation
(`arena.games.base.Presentation`): its heading (`show_heading`), its sides (`SIDES`), its moves
in words (`move_words`, `move_short`, `MOVE_NOUN`), its drawing (`show_board`, `show_notes`,
`winning_cells`); and of its rules (`arena.games.base.Game`) the name of its bots' first call
(`CALLS`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from arena.games import Game, GameError, Presentation, presentation_of
from arena.records import GameRecord, StoredGame
from arena.report.explain import describe_end
from arena.results.fairness import game_account

__all__ = ["peak_memory_text", "render_game"]

#: how many moves one line of the move list holds
_PER_LINE = 4


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def _times(rec: GameRecord, who: tuple[str, str], limit_ms: float | None) -> str:
    """Each side's moves, mean and max time: the moves it chose (an opening's are nobody's)."""
    lines = []
    for seat, t in enumerate(rec.played_times_ms):
        if t:
            mean, mx = sum(t) / len(t), max(t)
            share = f" ({100 * mx / limit_ms:.0f} % of the {limit_ms:g} ms limit)" if (
                limit_ms) else ""
            lines.append(f"  {who[seat]}: {len(t)} "
                         f"move{'s' if len(t) != 1 else ''}, mean "
                         f"{_ms(mean)} ms, max {_ms(mx)} ms{share}")
        else:
            lines.append(f"  {who[seat]}: no moves")
    return "\n".join(lines)


def _opening_line(opening: Sequence[object]) -> str:
    """The head's line on an opening: its plies are nobody's choice."""
    k = len(opening)
    return (f"opening: {' '.join(map(str, opening))} ({k} pl{'y' if k == 1 else 'ies'} played "
            f"for both sides, not chosen by the bots; not counted in the times below)")


def _opening_ply(n: int, text: str) -> str:
    """The --step line of an opening's ply `n` (1-based)."""
    return f"opening ply {n}: {text} (not chosen by the bots)"


def _move_list(sides: Sequence[str], shorts: Sequence[str], times_ms: Sequence[float],
               book: int) -> str:
    """Moves with times, several per line: '  12. O c3       4.02 ms' (an opening's:
    'opening')."""
    side_w = max(len(s) for s in sides)
    move_w = max([4] + [len(s) for s in shorts])
    items = []
    for n, short in enumerate(shorts):
        t = "opening" if n < book else f"{times_ms[n]:.2f} ms" if n < len(times_ms) else ""
        items.append(f"{n + 1:>4}. {sides[n % 2]:<{side_w}} {short:<{move_w}} {t:>10}")
    return "\n".join("".join(items[k:k + _PER_LINE]) for k in range(0, len(items), _PER_LINE))


def _positions(view: Presentation[Any, Any], texts: Sequence[str], book: int,
               who: tuple[str, str], first: str, times_ms: Sequence[float],
               step: bool) -> list[str]:
    """The final position (with its heading), or with `step` every position, each with the
    line that says how it came about."""
    rules = view.game
    state = rules.initial_state()
    out = [f"start: {first} moves first", view.show_board(state, False), ""] if step else []
    for n, text in enumerate(texts, start=1):
        side = rules.to_move(state)
        try:
            state = rules.apply(state, rules.parse_move(state, text))
        except GameError as e:
            out += [f"move {n} ({text}) does not replay: {e}", ""]
            break
        if step:
            if n <= book:
                line = _opening_ply(n, view.move_words(text))
            else:
                t = f" in {times_ms[n - 1]:.2f} ms" if n - 1 < len(times_ms) else ""
                line = f"move {n}: {who[side]} plays {view.move_words(text)}{t}"
            out += [line, view.show_board(state, False, _win(view, state, n == len(texts))),
                    ""]
    if not step:
        win = _win(view, state, True)
        notes = view.show_notes(True, bool(win))
        k = len(texts)
        out += [f"final position after {k} move{'' if k == 1 else 's'}"
                + (f" ({notes})" if notes else "") + ":", view.show_board(state, True, win), ""]
    return out


def _win(view: Presentation[Any, Any], state: Any, final: bool) -> tuple[Any, ...]:
    """The cells of the line that won, on the final position of a game over."""
    if not final or view.game.outcome(state) is None:
        return ()
    return tuple(view.winning_cells(state))


def render_game(game: StoredGame, step: bool = False) -> str:
    """The text of `cxarena show` for one stored game."""
    rec = game.record
    names = (game.player1, game.player2)
    view: Presentation[Any, Any] | None
    try:
        view = presentation_of(rec.rules())
    except GameError as e:
        view, problem = None, str(e)
    looks = type(view) if view is not None else Presentation  # an unknown game: the shared words
    sides = looks.SIDES
    who = (f"{sides[0]} {names[0]}", f"{sides[1]} {names[1]}")
    if view is not None:
        heading = view.show_heading()
    else:  # a game this cxarena does not know: its name and parameters
        heading = rec.game_label
    texts, opening = rec.texts, rec.opening_moves
    head = [f"game {game.game_id}: {heading}, round {game.round}, seed {rec.seed}",
            f"{sides[0]} = {names[0]} (first player), {sides[1]} = {names[1]} "
            f"(second player)"]
    if opening:
        head.append(_opening_line(opening))
    if rec.pair_id:
        head.append(f"pair_id: {rec.pair_id}")
    out = ["\n".join(head), ""]
    if view is None:
        out += [f"(cannot draw the board: {problem})", ""]
    else:
        out += _positions(view, texts, len(opening), who, names[0], rec.times_ms, step)
    out.append(f"result: {describe_end(rec, *names)}")
    load = game_account(rec)
    if load:
        out.append(load)
    if rec.stderr_tail:
        out.append("stderr of the offender (last lines):")
        out.extend("  | " + ln for ln in rec.stderr_tail.rstrip("\n").splitlines())
    out.append("")
    out.append("times:")
    out.append(_times(rec, who, None if rec.timeout_s is None else rec.timeout_s * 1000.0))
    if any(rec.init_ms):
        calls = type(view.game).CALLS if view is not None else Game.CALLS
        out.append(f"  {calls[0]}: {who[0]} {rec.init_ms[0]:.2f} ms, "
                   f"{who[1]} {rec.init_ms[1]:.2f} ms")
    peaks = peak_memory_text(rec.extra)
    if peaks:
        out.append(f"  peak memory: {who[0]} {peaks[0]}, {who[1]} {peaks[1]}")
    if texts and not step:
        shorts = [view.move_short(t) if view is not None else t for t in texts]
        out.append("")
        out.append(f"moves (player, {looks.MOVE_NOUN}, time):")
        out.append(_move_list(sides, shorts, rec.times_ms, len(opening)))
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
