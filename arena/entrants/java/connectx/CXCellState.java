/*
 * cxarena's own implementation of the course's public Connect-X API (package connectx),
 * written from its documented interface so that course bots compile and run unchanged.
 */
package connectx;

/** What a cell of the board holds: a piece of the first player, of the second, or nothing. */
public enum CXCellState {
    P1, P2, FREE
}
