/*
 * cxarena's headless stand-in for the course's game window (package connectx), written from
 * its documented interface so that a bot whose files name it compiles unchanged. It shows
 * nothing: cxarena's games have no window, and the bot's JVM runs headless (constructing a
 * window there throws java.awt.HeadlessException, a fault of the game that tried).
 */
package connectx;

import javax.swing.JFrame;

/** The course's game window, reduced to its names: types, constants, constructor. */
public class CXGame extends JFrame {
    private static final long serialVersionUID = 1L;

    /** Who plays a game of the window. */
    public enum CXGameType {
        HUMANvsHUMAN, HUMANvsCOMPUTER, COMPUTERvsCOMPUTER
    }

    /** Whether a side is a person or a CXPlayer. */
    public enum CXPlayerType {
        HUMAN, COMPUTER
    }

    /** The window's extra height (its top bar and status bar), in pixels. */
    public static final int EXTRA_ORIZONTAL_BORDER = 150;

    /** The window of the running game (always null here). */
    public static CXGame game;

    /** The game's board. */
    protected final CXBoard B;

    /** A game window (here: throws java.awt.HeadlessException, the JVM has no screen). */
    public CXGame(int M, int N, int X, CXGameType type) {
        super();
        B = new CXBoard(M, N, X);
    }

    /** Does nothing: there is no game to start. */
    public void initGame() {
    }
}
