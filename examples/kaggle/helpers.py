"""Board helpers of the example Kaggle agent (main.py imports them: the submission's folder is
importable under cxarena, as on Kaggle when the helpers are bundled)."""


def drop(board, columns, rows, col, mark):
    """A new flat board with `mark` dropped into `col` (row 0 is the top row)."""
    new = list(board)
    for row in range(rows - 1, -1, -1):
        if new[row * columns + col] == 0:
            new[row * columns + col] = mark
            return new
    raise ValueError(f"column {col} is full")


def wins(board, columns, rows, inarow, mark):
    """True if `mark` has `inarow` in a line anywhere on the flat board."""
    for r in range(rows):
        for c in range(columns):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                rr, cc, n = r, c, 0
                while 0 <= rr < rows and 0 <= cc < columns and board[rr * columns + cc] == mark:
                    n += 1
                    if n == inarow:
                        return True
                    rr, cc = rr + dr, cc + dc
    return False
