"""Board helpers of the example Kaggle agent (main.py imports them: the submission's folder is
importable under cxarena, as on Kaggle when the helpers are bundled)."""


def drop(board, columns, rows, col, mark):
    """(a new flat board with `mark` dropped into `col`, the row it landed in); row 0 is the
    top row."""
    for row in range(rows - 1, -1, -1):
        if board[row * columns + col] == 0:
            new = list(board)
            new[row * columns + col] = mark
            return new, row
    raise ValueError(f"column {col} is full")


def connects(board, columns, rows, inarow, row, col):
    """True if the piece at (row, col) is part of `inarow` in a line."""
    mark = board[row * columns + col]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < columns and board[r * columns + c] == mark:
                n += 1
                r, c = r + sign * dr, c + sign * dc
        if n >= inarow:
            return True
    return False
