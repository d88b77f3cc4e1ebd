/*
 * cxarena's own implementation of the course's public Connect-X API (package connectx),
 * written from its documented interface so that course bots compile and run unchanged.
 */
package connectx;

import java.util.LinkedList;
import java.util.TreeSet;

/**
 * A Connect-X board: M rows, N columns, X pieces in a row (horizontally, vertically or
 * diagonally) to win. Row 0 is the top row: pieces fill a column from row M-1 upward. The first
 * player (P1, {@code currentPlayer() == 0}) moves first.
 *
 * <p>Subclasses may use the protected fields, which are kept up to date by every move:
 * {@code B[i][j]} the cells, {@code MC} the marked cells in the order they were played,
 * {@code RP[j]} the row of the next free cell of column j (M-1 for an empty column, -1 for a
 * full one), {@code AC} the columns that are not full, {@code currentPlayer} (0 or 1) and
 * {@code gameState}.
 */
public class CXBoard {
    /** Rows. */
    public final int M;
    /** Columns. */
    public final int N;
    /** Pieces in a row needed to win. */
    public final int X;

    protected CXCellState[][] B;
    protected LinkedList<CXCell> MC;
    protected int[] RP;
    protected TreeSet<Integer> AC;
    protected int currentPlayer;
    protected CXGameState gameState;

    /**
     * An empty board.
     *
     * @throws IllegalArgumentException if M or N is below 1, or X is not in 1..max(M, N)
     */
    public CXBoard(int M, int N, int X) throws IllegalArgumentException {
        if (M < 1 || N < 1) {
            throw new IllegalArgumentException("a board needs at least 1 row and 1 column, got M="
                    + M + " N=" + N);
        }
        if (X < 1 || X > Math.max(M, N)) {
            throw new IllegalArgumentException("X must be between 1 and max(M, N)="
                    + Math.max(M, N) + ", got X=" + X);
        }
        this.M = M;
        this.N = N;
        this.X = X;
        B = new CXCellState[M][N];
        MC = new LinkedList<CXCell>();
        RP = new int[N];
        AC = new TreeSet<Integer>();
        clear();
    }

    private void clear() {
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) {
                B[i][j] = CXCellState.FREE;
            }
        }
        MC.clear();
        AC.clear();
        for (int j = 0; j < N; j++) {
            RP[j] = M - 1;
            AC.add(j);
        }
        currentPlayer = 0;
        gameState = CXGameState.OPEN;
    }

    private void checkColumn(int col) {
        if (col < 0 || col >= N) {
            throw new IndexOutOfBoundsException("column " + col + " is out of range 0.." + (N - 1));
        }
    }

    /**
     * Drops the current player's piece in column col.
     *
     * @return the game state after the move
     * @throws IndexOutOfBoundsException if col is not in 0..N-1
     * @throws IllegalStateException if the game is over or the column is full
     */
    public CXGameState markColumn(int col) throws IndexOutOfBoundsException,
            IllegalStateException {
        if (gameState != CXGameState.OPEN) {
            throw new IllegalStateException("the game is over (" + gameState + ")");
        }
        checkColumn(col);
        if (RP[col] < 0) {
            throw new IllegalStateException("column " + col + " is full");
        }
        int i = RP[col]--;
        CXCellState piece = currentPlayer == 0 ? CXCellState.P1 : CXCellState.P2;
        B[i][col] = piece;
        MC.add(new CXCell(i, col, piece));
        if (RP[col] < 0) {
            AC.remove(col);
        }
        if (wins(i, col, piece)) {
            gameState = currentPlayer == 0 ? CXGameState.WINP1 : CXGameState.WINP2;
        } else if (MC.size() == M * N) {
            gameState = CXGameState.DRAW;
        }
        currentPlayer = 1 - currentPlayer;
        return gameState;
    }

    /**
     * Takes back the last move (the game is open again).
     *
     * @throws IllegalStateException if no piece is on the board
     */
    public void unmarkColumn() throws IllegalStateException {
        if (MC.isEmpty()) {
            throw new IllegalStateException("there is no move to undo");
        }
        CXCell last = MC.removeLast();
        B[last.i][last.j] = CXCellState.FREE;
        RP[last.j] = last.i;
        AC.add(last.j);
        currentPlayer = 1 - currentPlayer;
        gameState = CXGameState.OPEN;
    }

    private int run(int i, int j, int di, int dj, CXCellState piece) {
        int n = 0;
        i += di;
        j += dj;
        while (i >= 0 && i < M && j >= 0 && j < N && B[i][j] == piece) {
            n++;
            i += di;
            j += dj;
        }
        return n;
    }

    private boolean wins(int i, int j, CXCellState piece) {
        return 1 + run(i, j, 0, -1, piece) + run(i, j, 0, 1, piece) >= X
                || 1 + run(i, j, 1, 0, piece) + run(i, j, -1, 0, piece) >= X
                || 1 + run(i, j, 1, 1, piece) + run(i, j, -1, -1, piece) >= X
                || 1 + run(i, j, 1, -1, piece) + run(i, j, -1, 1, piece) >= X;
    }

    /**
     * True if column col has no free cell.
     *
     * @throws IndexOutOfBoundsException if col is not in 0..N-1
     */
    public boolean fullColumn(int col) throws IndexOutOfBoundsException {
        checkColumn(col);
        return RP[col] < 0;
    }

    /**
     * What cell (i, j) holds (row 0 is the top row).
     *
     * @throws IndexOutOfBoundsException if (i, j) is outside the board
     */
    public CXCellState cellState(int i, int j) throws IndexOutOfBoundsException {
        if (i < 0 || i >= M || j < 0 || j >= N) {
            throw new IndexOutOfBoundsException("cell (" + i + ", " + j + ") is outside the "
                    + M + "x" + N + " board");
        }
        return B[i][j];
    }

    /** The last marked cell, or null on an empty board. */
    public CXCell getLastMove() {
        return MC.isEmpty() ? null : MC.getLast();
    }

    /** The marked cells in the order they were played. */
    public CXCell[] getMarkedCells() {
        return MC.toArray(new CXCell[0]);
    }

    /** The columns that are not full, in increasing order. */
    public Integer[] getAvailableColumns() {
        return AC.toArray(new Integer[0]);
    }

    /** A copy of the cells, B[i][j] for row i (0 at the top) and column j. */
    public CXCellState[][] getBoard() {
        CXCellState[][] out = new CXCellState[M][];
        for (int i = 0; i < M; i++) {
            out[i] = B[i].clone();
        }
        return out;
    }

    /** An independent copy of this board (a plain CXBoard). */
    public CXBoard copy() {
        CXBoard c = new CXBoard(M, N, X);
        for (int i = 0; i < M; i++) {
            System.arraycopy(B[i], 0, c.B[i], 0, N);
        }
        c.MC.addAll(MC);
        System.arraycopy(RP, 0, c.RP, 0, N);
        c.AC.clear();
        c.AC.addAll(AC);
        c.currentPlayer = currentPlayer;
        c.gameState = gameState;
        return c;
    }

    /** OPEN, DRAW, WINP1 or WINP2. */
    public CXGameState gameState() {
        return gameState;
    }

    /** 0 if the first player is to move, 1 if the second. */
    public int currentPlayer() {
        return currentPlayer;
    }

    /** How many cells are free. */
    public int numOfFreeCells() {
        return M * N - MC.size();
    }

    /** How many pieces are on the board. */
    public int numOfMarkedCells() {
        return MC.size();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) {
                sb.append(B[i][j] == CXCellState.P1 ? 'X' : B[i][j] == CXCellState.P2 ? 'O' : '.');
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
