// A Domino player written as the course's students wrote theirs: Java, run by the judge with
// `java -jar`. It keeps the board and places the first domino that fits, scanning rows.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class ProxyPlayer {
    static int n;
    static boolean[][] taken;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        n = Integer.parseInt(in.readLine().trim());
        taken = new boolean[n][n];
        System.out.println("ok");
        for (int[] cell : cells(in.readLine())) {
            taken[cell[0]][cell[1]] = true;
        }
        System.out.println("ok");
        String line;
        while ((line = in.readLine()) != null) {
            if (!line.trim().equalsIgnoreCase("start")) {
                for (int[] cell : cells(line)) {
                    taken[cell[0]][cell[1]] = true;
                }
            }
            System.out.println(move());
        }
    }

    static int[][] cells(String line) {
        String[] parts = line.replaceAll("[{}]", "").split(",");
        if (line.trim().isEmpty()) {
            return new int[0][];
        }
        int[][] cells = new int[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            String[] xy = parts[i].split(";");
            cells[i] = new int[] {Integer.parseInt(xy[0].trim()), Integer.parseInt(xy[1].trim())};
        }
        return cells;
    }

    static String move() {
        for (int y = 0; y < n; y++) {
            for (int x = 0; x < n; x++) {
                int[][] others = {{(x + 1) % n, y}, {x, (y + 1) % n}};
                for (int[] other : others) {
                    if (!taken[x][y] && !taken[other[0]][other[1]]) {
                        taken[x][y] = true;
                        taken[other[0]][other[1]] = true;
                        return "{" + x + ";" + y + "},{" + other[0] + ";" + other[1] + "}";
                    }
                }
            }
        }
        return "{0;0},{0;1}";
    }
}
