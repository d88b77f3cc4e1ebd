"""`cxarena show RESULTS GAME_ID [--step]`: print one stored game (see arena.report.show),
every line within the terminal's width (`fit_width`: a 50x50 board is 300 columns wide)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import textwrap

HELP = ("print one stored game: the final board with move numbers (or every position with "
        "--step), who won and why, the times")

#: the narrowest width the output is fitted to (a board band shows a few columns at least)
MIN_WIDTH = 40
#: one move of the move list: '  12. X c3       4.02 ms' (or 'opening' in place of the time)
_MOVE_ITEM = re.compile(r" *\d+\. .*?(?= +\d+\. |$)")
_MOVE_LINE = re.compile(r"(?: *\d+\. \S+ \S+ +(?:[\d.]+ ms|opening)?)+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="RESULTS",
                        help="a tournament's results directory (results/<name>)")
    parser.add_argument("game_id", metavar="GAME_ID",
                        help="the game's id, e.g. 6x7x4-r1-L0-L1 (listed by "
                             "`cxarena report RESULTS --json` and in report.html)")
    parser.add_argument("--step", action="store_true",
                        help="print the position after every move instead of the final board")
    parser.add_argument("--analyze", action="store_true",
                        help="also analyse the game with the exact solver (as `cxarena "
                             "analyze`): each position's value, each move's verdict")
    parser.add_argument("--width", type=int, default=None, metavar="COLUMNS",
                        help="the widest line printed (default: $COLUMNS, else the "
                             "terminal's width; output to a file or pipe is not fitted); a "
                             "wider board is printed in bands of whole columns")
    from arena.commands.analyze import add_budget

    add_budget(parser)


def run(args: argparse.Namespace) -> int:
    from arena.commands import stored_game
    from arena.report.show import render_game

    width = _width(args.width)
    game, _ = stored_game(args.results, args.game_id)
    text = render_game(game, step=args.step)
    sys.stdout.write(text if width is None else fit_width(text, width))
    if args.analyze:
        from arena.commands.analyze import analyse_stored

        text = analyse_stored(args.results, args.game_id, args.time_per_position)
        sys.stdout.write("\n" + (text if width is None else fit_width(text, width)))
    return 0


def _width(given: int | None) -> int | None:
    """The width to fit the output to: --width, else $COLUMNS, else the terminal's; None for
    output to a file or a pipe without either (a file has no width: its board stays whole)."""
    if given is None and os.environ.get("COLUMNS", "").strip().isdigit():
        given = int(os.environ["COLUMNS"])
    if given is None and sys.stdout.isatty():
        given = shutil.get_terminal_size().columns
    return None if given is None else max(MIN_WIDTH, given)


def fit_width(text: str, width: int) -> str:
    """`text` with every line at most `width` characters, its content unchanged: a drawn board
    (consecutive lines too wide, of one length) is cut into bands of whole columns, printed one
    under the other; the move list holds as many moves per line as fit; any other line wraps
    at its spaces, its continuation indented. Text that fits is returned as it is."""
    lines = text.split("\n")
    if all(len(line) <= width for line in lines):
        return text
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _MOVE_LINE.fullmatch(line):  # the move list: all its lines at once
            j = i
            while j < len(lines) and _MOVE_LINE.fullmatch(lines[j]):
                j += 1
            out += _reflow_moves(lines[i:j], width)
            i = j
            continue
        if len(line) > width:
            j = i + 1  # a board: the lines of the same (too wide) length that follow
            while j < len(lines) and len(lines[j]) == len(line):
                j += 1
            if j - i >= 2:
                out += _bands(lines[i:j], width)
                i = j
                continue
            indent = " " * (len(line) - len(line.lstrip()))
            out += textwrap.wrap(line, width, subsequent_indent=indent + "  ",
                                 break_on_hyphens=False) or [line[:width]]
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _bands(block: list[str], width: int) -> list[str]:
    """The lines of a drawn board cut into bands at most `width` wide, each band the same
    columns of every line, cut only where every line has a space (so no cell, and no column
    number, is ever cut); a blank line between bands."""
    length = max(len(line) for line in block)
    padded = [line.ljust(length) for line in block]
    blank = [all(line[c] == " " for line in padded) for c in range(length)]
    out: list[str] = []
    start = 0
    while start < length:
        end = length if length - start <= width else next(
            (c for c in range(start + width, start, -1) if blank[c]), start + width)
        if out:
            out.append("")
        out += [line[start:end].rstrip() for line in padded]
        start = end + 1 if end < length and blank[end] else end
    return out


def _reflow_moves(block: list[str], width: int) -> list[str]:
    """The move list's items (all of one width) again, as many per line as fit in `width`."""
    items = [m.group(0) for line in block for m in _MOVE_ITEM.finditer(line) if m.group(0)]
    if not items:
        return block
    item_w = max(len(item) for item in items)
    per_line = max(1, width // item_w)
    return ["".join(item.ljust(item_w) for item in items[k:k + per_line]).rstrip()
            for k in range(0, len(items), per_line)]
