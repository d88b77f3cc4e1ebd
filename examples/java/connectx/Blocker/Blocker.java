/*
 * Blocker: a course-style Java bot for cxarena's examples (java:examples/java).
 *
 * Win at once if it can; else play a column after which the opponent cannot win at once (so
 * it blocks an immediate threat), preferring the centre, ties broken by a generator seeded
 * from the game's seed (the system property cxarena.seed); else the centre-most column.
 *
 *     cxarena check-bot java:examples/java --time 1
 *     cxarena match java:examples/java L1 --board 6 7 4 --time 1
 */
package connectx.Blocker;

import connectx.CXBoard;
import connectx.CXGameState;
import connectx.CXPlayer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

public class Blocker implements CXPlayer {
    private CXGameState myWin;
    private CXGameState yourWin;
    private Random rand;

    public Blocker() {
    }

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
        myWin = first ? CXGameState.WINP1 : CXGameState.WINP2;
        yourWin = first ? CXGameState.WINP2 : CXGameState.WINP1;
        rand = new Random(Long.getLong("cxarena.seed", System.currentTimeMillis()));
    }

    /** A column where the player to move wins at once (state `win`), or -1. */
    private static int winningColumn(CXBoard B, CXGameState win) {
        for (int c : B.getAvailableColumns()) {
            CXGameState s = B.markColumn(c);
            B.unmarkColumn();
            if (s == win) {
                return c;
            }
        }
        return -1;
    }

    public int selectColumn(CXBoard B) {
        Integer[] cols = B.getAvailableColumns();
        int win = winningColumn(B, myWin);
        if (win >= 0) {
            return win;
        }
        List<Integer> safe = new ArrayList<Integer>(); // the opponent cannot win right after
        for (int c : cols) {
            B.markColumn(c);
            int reply = B.gameState() == CXGameState.OPEN ? winningColumn(B, yourWin) : -1;
            B.unmarkColumn();
            if (reply < 0) {
                safe.add(c);
            }
        }
        List<Integer> pool = safe.isEmpty() ? Arrays.asList(cols) : safe;
        int best = pool.get(0);
        double bestScore = Double.MAX_VALUE;
        for (int c : pool) {
            double score = Math.abs(c - (B.N - 1) / 2.0) + 0.1 * rand.nextDouble();
            if (score < bestScore) {
                bestScore = score;
                best = c;
            }
        }
        return best;
    }

    public String playerName() {
        return "Blocker";
    }
}
