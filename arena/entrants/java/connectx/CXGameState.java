/*
 * cxarena's own implementation of the course's public Connect-X API (package connectx),
 * written from its documented interface so that course bots compile and run unchanged.
 */
package connectx;

/** Whether a game goes on, and how it ended. */
public enum CXGameState {
    OPEN, DRAW, WINP1, WINP2
}
