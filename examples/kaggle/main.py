"""An example Kaggle ConnectX submission (kaggle:examples/kaggle/main.py): win at once if it
can, else play a column after which the opponent cannot win at once, nearest the centre."""

from helpers import connects, drop


def my_agent(observation, configuration):
    board, me = observation.board, observation.mark
    columns, rows, inarow = configuration.columns, configuration.rows, configuration.inarow

    def wins(b, col, mark):
        after, row = drop(b, columns, rows, col, mark)
        return connects(after, columns, rows, inarow, row, col)

    free = [c for c in range(columns) if board[c] == 0]
    for c in free:
        if wins(board, c, me):
            return c
    safe = []
    for c in free:
        after, _ = drop(board, columns, rows, c, me)
        if not any(wins(after, r, 3 - me) for r in range(columns) if after[r] == 0):
            safe.append(c)
    return min(safe or free, key=lambda c: abs(c - (columns - 1) / 2))
