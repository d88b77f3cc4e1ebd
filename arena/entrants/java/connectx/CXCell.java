/*
 * cxarena's own implementation of the course's public Connect-X API (package connectx),
 * written from its documented interface so that course bots compile and run unchanged.
 */
package connectx;

/** A cell of the board: row {@code i} (0 is the top row), column {@code j}, and its state. */
public class CXCell {
    public final int i;
    public final int j;
    public final CXCellState state;

    public CXCell(int i, int j, CXCellState state) {
        this.i = i;
        this.j = j;
        this.state = state;
    }

    @Override
    public String toString() {
        return "(" + i + ", " + j + ", " + state + ")";
    }
}
