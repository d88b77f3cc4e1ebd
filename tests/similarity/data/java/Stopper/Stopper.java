package connectx.Stopper;

import java.util.List;
import java.util.Random;
import java.util.ArrayList;
import java.util.Arrays;

import connectx.CXPlayer;
import connectx.CXBoard;
import connectx.CXGameState;

// My own bot for the course: it stops the other player's threats.
public class Stopper implements CXPlayer
{
    private Random generator;
    private CXGameState ourVictory;
    private CXGameState theirVictory;

    public String playerName() { return "Stopper"; }

    public int selectColumn(CXBoard board)
    {
        Integer[] options = board.getAvailableColumns();
        int immediate = findWin(board, ourVictory);
        if (immediate >= 0) { return immediate; }
        // columns that leave the other side without a winning reply
        List<Integer> good = new ArrayList<Integer>();
        for (int col : options)
        {
            board.markColumn(col);
            int answer = board.gameState() == CXGameState.OPEN ? findWin(board, theirVictory) : -1;
            board.unmarkColumn();
            if (answer < 0) { good.add(col); }
        }
        List<Integer> candidates = good.isEmpty() ? Arrays.asList(options) : good;
        int choice = candidates.get(0);
        double lowest = Double.MAX_VALUE;
        for (int col : candidates)
        {
            double value = Math.abs(col - (board.N - 1) / 2.0) + 0.1 * generator.nextDouble();
            if (value < lowest) { lowest = value; choice = col; }
        }
        return choice;
    }

    // returns -1 when nothing wins right away
    private static int findWin(CXBoard board, CXGameState target)
    {
        for (int col : board.getAvailableColumns())
        {
            CXGameState after = board.markColumn(col);
            board.unmarkColumn();
            if (after == target) { return col; }
        }
        return -1;
    }

    public void initPlayer(int rows, int cols, int k, boolean amFirst, int secs)
    {
        ourVictory = amFirst ? CXGameState.WINP1 : CXGameState.WINP2;
        theirVictory = amFirst ? CXGameState.WINP2 : CXGameState.WINP1;
        generator = new Random(Long.getLong("cxarena.seed", System.currentTimeMillis()));
    }

    public Stopper() { }
}
