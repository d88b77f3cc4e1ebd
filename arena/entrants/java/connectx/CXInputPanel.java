/*
 * cxarena's headless stand-in for the course's side panel of the game window (package
 * connectx), so that a bot whose files name it compiles unchanged. It shows nothing.
 */
package connectx;

import javax.swing.JPanel;
import javax.swing.border.Border;

/** The course's side panel (its buttons), reduced to its constructor. */
public class CXInputPanel extends JPanel {
    private static final long serialVersionUID = 1L;

    /** A side panel for `boardPanel` (nothing is shown here). */
    public CXInputPanel(Border bord, CXBoardPanel boardPanel) {
    }
}
