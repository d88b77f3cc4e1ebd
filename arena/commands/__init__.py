"""One module per `cxarena` subcommand. Each defines `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit code); `arena.cli` wires them together."""

from __future__ import annotations


def checked_board(board: list[int]) -> tuple[int, int, int]:
    """The `--board M N K` of a command as a tuple; UsageError naming the flag if no such board."""
    from arena.board import CXBoard
    from arena.errors import UsageError

    M, N, K = board
    try:
        CXBoard(M, N, K)
    except ValueError as e:
        raise UsageError(f"--board {M} {N} {K}: {e}") from None
    return M, N, K
