// A Quoridor bot for the builds' tests: walks a shortest path to its goal (walls counted,
// pawns jumped as the rules say).
import java.io.*;
import java.util.*;

public class Bot {
    static int n, me, m;
    static int[] px, py;
    static int[][] walls = new int[0][];
    static StreamTokenizer in =
        new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));

    static int next() throws IOException {
        if (in.nextToken() == StreamTokenizer.TT_EOF) System.exit(0);
        return (int) in.nval;
    }

    static boolean goal(int p, int x, int y) {
        if (n == 2) return p == 0 ? y == m - 1 : y == 0;
        return new boolean[] {y == m - 1, x == 0, y == 0, x == m - 1}[p];
    }

    static boolean inside(int x, int y) { return x >= 0 && y >= 0 && x < m && y < m; }

    static boolean blocked(int x, int y, int dx, int dy) {
        for (int[] w : walls) {
            if (w[2] == 1 && dy == 0 && w[0] == Math.min(x, x + dx) && w[1] <= y && y <= w[1] + 1) return true;
            if (w[2] == 0 && dx == 0 && w[1] == Math.min(y, y + dy) && w[0] <= x && x <= w[0] + 1) return true;
        }
        return false;
    }

    static boolean occupied(int x, int y) {
        for (int p = 0; p < n; p++) if (px[p] == x && py[p] == y) return true;
        return false;
    }

    static final int[] DX = {1, -1, 0, 0}, DY = {0, 0, 1, -1};

    static int[] distances() {
        int[] dist = new int[m * m];
        Arrays.fill(dist, -1);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++)
                if (goal(me, x, y)) { dist[y * m + x] = 0; queue.add(y * m + x); }
        while (!queue.isEmpty()) {
            int c = queue.poll(), x = c % m, y = c / m;
            for (int d = 0; d < 4; d++) {
                int nx = x + DX[d], ny = y + DY[d];
                if (inside(nx, ny) && dist[ny * m + nx] < 0 && !blocked(x, y, DX[d], DY[d])) {
                    dist[ny * m + nx] = dist[c] + 1;
                    queue.add(ny * m + nx);
                }
            }
        }
        return dist;
    }

    static List<int[]> moves() {
        List<int[]> moves = new ArrayList<>();
        int x = px[me], y = py[me];
        for (int d = 0; d < 4; d++) {
            int dx = DX[d], dy = DY[d], nx = x + dx, ny = y + dy;
            if (!inside(nx, ny) || blocked(x, y, dx, dy)) continue;
            if (!occupied(nx, ny)) { moves.add(new int[] {nx, ny}); continue; }
            int bx = nx + dx, by = ny + dy;
            if (inside(bx, by) && !blocked(nx, ny, dx, dy)) {
                if (!occupied(bx, by)) moves.add(new int[] {bx, by});
                continue;
            }
            for (int s = -1; s <= 1; s += 2) {
                int sx = dy * s, sy = dx * s, cx = nx + sx, cy = ny + sy;
                if (inside(cx, cy) && !blocked(nx, ny, sx, sy) && !occupied(cx, cy)) moves.add(new int[] {cx, cy});
            }
        }
        return moves;
    }

    public static void main(String[] args) throws IOException {
        n = next(); me = next(); m = next();
        px = new int[n]; py = new int[n];
        for (int p = 0; p < n; p++) { px[p] = next(); py[p] = next(); next(); }
        while (true) {
            int tick = next();
            if (tick == -1) return;
            for (int p = 0; p < n; p++) { px[p] = next(); py[p] = next(); next(); }
            walls = new int[next()][];
            for (int i = 0; i < walls.length; i++) walls[i] = new int[] {next(), next(), next(), next()};
            int[] dist = distances();
            int[] best = null;
            for (int[] c : moves())
                if (dist[c[1] * m + c[0]] >= 0 && (best == null || dist[c[1] * m + c[0]] < dist[best[1] * m + best[0]])) best = c;
            System.out.println(best == null ? "0 0" : best[0] + " " + best[1]);
            System.out.flush();
        }
    }
}
