// A protocol bot in Java (docs/protocol.md): plays the lowest column that is not full.
// With the option {"hog": true} it allocates without end at its first move instead.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int rows = 0;
        int[] heights = new int[0];
        boolean hog = false;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "hello":
                    System.out.println("ready 1");
                    break;
                case "newgame":
                    rows = Integer.parseInt(f[1]);
                    heights = new int[Integer.parseInt(f[2])];
                    hog = line.contains("\"hog\":true");
                    System.out.println("ok JavaBot");
                    break;
                case "opponent":
                    heights[Integer.parseInt(f[1])]++;
                    break;
                case "go":
                    if (hog) {
                        List<long[]> hoard = new ArrayList<>();
                        while (true) {
                            hoard.add(new long[8 * 1024 * 1024]);  // 64 MB at a time
                        }
                    }
                    int col = 0;
                    while (heights[col] >= rows) {
                        col++;
                    }
                    heights[col]++;
                    System.out.println("play " + col);
                    break;
                case "quit":
                    return;
                default:
                    break;
            }
            System.out.flush();
        }
    }
}
