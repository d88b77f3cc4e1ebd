"""An independent, deliberately naive Connect-X referee used to check `arena.board`."""

from __future__ import annotations


def brute_winner(grid: list[list[int]], K: int) -> int:
    """Scan the whole grid (rows of 0/1/2); return 1 or 2 if that player has K in a row, else 0.
    Both players having a run cannot happen in a legal game; the first found is returned."""
    M, N = len(grid), len(grid[0])
    for i in range(M):
        for j in range(N):
            v = grid[i][j]
            if v == 0:
                continue
            for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
                n = 0
                r, c = i, j
                while 0 <= r < M and 0 <= c < N and grid[r][c] == v:
                    n += 1
                    r += di
                    c += dj
                if n >= K:
                    return v
    return 0


def brute_play(M: int, N: int, K: int, cols: list[int]) -> tuple[list[list[int]], str]:
    """Replay `cols` naively; return the grid and 'open', 'draw', 'win1' or 'win2'."""
    grid = [[0] * N for _ in range(M)]
    state = "open"
    for n, c in enumerate(cols):
        assert state == "open"
        r = max(i for i in range(M) if grid[i][c] == 0)
        grid[r][c] = 1 + n % 2
        w = brute_winner(grid, K)
        if w:
            state = f"win{w}"
        elif n + 1 == M * N:
            state = "draw"
    return grid, state
