/*
 * cxarena's own implementation of the course's public Connect-X API (package connectx),
 * written from its documented interface so that course bots compile and run unchanged.
 */
package connectx;

/**
 * A Connect-X bot. cxarena creates a new instance (public constructor without arguments) for
 * every game, calls {@link #initPlayer} once, then {@link #selectColumn} on each of its turns
 * with its own copy of the board, which it may change freely.
 */
public interface CXPlayer {
    /**
     * Prepares for a game on an M x N board with X pieces in a row to win.
     *
     * @param first true if this player moves first
     * @param timeout_in_secs the time limit of every call, initPlayer included, in seconds
     */
    void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs);

    /** Returns the column to play in position B (a copy the bot may change). */
    int selectColumn(CXBoard B);

    /** A short human-readable name. */
    String playerName();

    /**
     * Called when the game is over, with the player's last view of the board (the opponent's
     * final move may be missing). Course years without Exit need not define it.
     */
    default void Exit(CXBoard B) {
    }
}
