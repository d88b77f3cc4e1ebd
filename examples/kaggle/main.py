"""An example Kaggle ConnectX submission (kaggle:examples/kaggle/main.py): win at once if it
can, else play a column after which the opponent cannot win at once, nearest the centre."""

from helpers import drop, wins


def my_agent(observation, configuration):
    board, me = observation.board, observation.mark
    columns, rows, inarow = configuration.columns, configuration.rows, configuration.inarow
    free = [c for c in range(columns) if board[c] == 0]
    for c in free:
        if wins(drop(board, columns, rows, c, me), columns, rows, inarow, me):
            return c
    safe = []
    for c in free:
        after = drop(board, columns, rows, c, me)
        replies = [r for r in range(columns) if after[r] == 0]
        if not any(wins(drop(after, columns, rows, r, 3 - me), columns, rows, inarow, 3 - me)
                   for r in replies):
            safe.append(c)
    return min(safe or free, key=lambda c: abs(c - (columns - 1) / 2))
