/*
 * cxarena's headless stand-in for the course's board panel (package connectx), written from
 * its documented interface so that a bot whose files name it (say, a debug field) compiles
 * unchanged. It draws nothing and listens to nothing.
 */
package connectx;

import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.border.Border;

/** The course's drawing of a board, reduced to its names; every method does nothing. */
public class CXBoardPanel extends JPanel {
    private static final long serialVersionUID = 1L;

    /** The first player's index. */
    public static final int PLAYER1 = 0;
    /** The second player's index. */
    public static final int PLAYER2 = 1;

    /** The board's top margin, in pixels. */
    public int Board_Top_Border;

    /** The board drawn (as given). */
    protected final CXBoard board;

    /** A panel showing `board` (nothing is shown here). */
    public CXBoardPanel(CXBoard board, CXGame.CXGameType type, Border bord, int cell_size,
                        CXPlayer[] ComPlayer, CXGame.CXPlayerType[] Player, JLabel statusBar) {
        this.board = board;
    }

    /** Does nothing. */
    public void initScore() {
    }

    /** Does nothing. */
    public void initiateAnimationState() {
    }

    /** Does nothing. */
    public void setAnimationState(boolean animating, int col, int rowBegin, int row) {
    }

    /** The words for a game's outcome. */
    public String getMoveResultText(CXGameState state) {
        switch (state) {
            case WINP1:
                return "Yellow player wins";
            case WINP2:
                return "Red player wins";
            case DRAW:
                return "DRAW!";
            default:
                return "Error";
        }
    }
}
