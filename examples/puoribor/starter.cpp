// A Puoribor starter bot for Arbiter: reads the whole protocol, keeps the board, and walks a
// shortest path to its goal row. Copy it and make it smarter (walls, rotations).
//
// Build: g++ -O2 -std=c++17 -o starter starter.cpp
//
// Protocol (docs/games/puoribor.md, "Protocol"): the referee sends your id (0 or 1) and the board size (9),
// then before each of your turns: the tick (actions played so far), two lines "x y walls_left"
// (player 0, then player 1), K, and K wall lines "kind x y owner". Kinds: H (whole horizontal
// wall: segments h(x,y) and h(x+1,y)), V (whole vertical wall: v(x,y) and v(x,y+1)), h and v
// (one segment, left over from a wall split by a rotation). h(x,y) lies between cells (x,y) and
// (x,y+1); v(x,y) between (x,y) and (x+1,y). x is the column, y the row; row 0 is the top.
// Player 0 starts at (4,0) and must reach row 8; player 1 starts at (4,8) and must reach row 0.
//
// Answer one line "type x y": 0 = move your pawn to (x,y), 1 = horizontal wall at (x,y),
// 2 = vertical wall at (x,y), 3 = rotate the 4x4 sub-board whose top-left cell is (x,y) (costs
// two walls). A malformed or illegal answer, a crash, or more than 1 second (3 for the first
// answer) loses the match at once. "-1" means the match is over: exit.
// Anything written to stderr is shown in the replay viewer for that turn.
#include <climits>
#include <deque>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

const int N = 9;
const int DX[4] = {0, 0, 1, -1}, DY[4] = {1, -1, 0, 0};

struct Board {
    int me = 0, tick = 0;
    int px[2] = {4, 4}, py[2] = {0, 8}, wallsLeft[2] = {10, 10};
    // h[x][y]: a segment between (x, y) and (x, y+1); v[x][y]: between (x, y) and (x+1, y).
    bool h[N][N] = {}, v[N][N] = {};

    static bool inside(int x, int y) { return x >= 0 && y >= 0 && x < N && y < N; }

    void clearWalls() {
        for (int x = 0; x < N; ++x)
            for (int y = 0; y < N; ++y) h[x][y] = v[x][y] = false;
    }

    // Marks the segments of one wall line; false for a kind the protocol does not have.
    bool addWall(const std::string& kind, int x, int y) {
        if (!inside(x, y)) return false;
        if (kind == "H" && x + 1 < N) {
            h[x][y] = h[x + 1][y] = true;
        } else if (kind == "V" && y + 1 < N) {
            v[x][y] = v[x][y + 1] = true;
        } else if (kind == "h") {
            h[x][y] = true;
        } else if (kind == "v") {
            v[x][y] = true;
        } else {
            return false;
        }
        return true;
    }

    // Whether one step from (x, y) by (dx, dy) stays on the board and meets no wall.
    bool open(int x, int y, int dx, int dy) const {
        int nx = x + dx, ny = y + dy;
        if (!inside(nx, ny)) return false;
        if (dx != 0) return !v[dx > 0 ? x : nx][y];
        return !h[x][dy > 0 ? y : ny];
    }

    // Steps from every cell to the player's goal row, ignoring pawns; -1 where unreachable.
    std::vector<int> distances(int player) const {
        std::vector<int> dist(N * N, -1);
        std::deque<std::pair<int, int>> queue;
        int row = player == 0 ? N - 1 : 0;
        for (int x = 0; x < N; ++x) {
            dist[x * N + row] = 0;
            queue.push_back({x, row});
        }
        while (!queue.empty()) {
            auto [x, y] = queue.front();
            queue.pop_front();
            for (int d = 0; d < 4; ++d) {
                int nx = x + DX[d], ny = y + DY[d];
                if (open(x, y, DX[d], DY[d]) && dist[nx * N + ny] < 0) {
                    dist[nx * N + ny] = dist[x * N + y] + 1;
                    queue.push_back({nx, ny});
                }
            }
        }
        return dist;
    }

    // Steps, straight jumps over the opponent, and diagonal jumps when the straight one is
    // walled or off the board.
    std::vector<std::pair<int, int>> pawnMoves(int player) const {
        std::vector<std::pair<int, int>> moves;
        int x = px[player], y = py[player], ox = px[1 - player], oy = py[1 - player];
        for (int d = 0; d < 4; ++d) {
            int dx = DX[d], dy = DY[d];
            if (!open(x, y, dx, dy)) continue;
            int nx = x + dx, ny = y + dy;
            if (nx != ox || ny != oy) {
                moves.push_back({nx, ny});
            } else if (open(nx, ny, dx, dy)) {
                moves.push_back({nx + dx, ny + dy});
            } else {
                for (int s = -1; s <= 1; s += 2) {
                    int sx = dy * s, sy = dx * s;
                    if (open(nx, ny, sx, sy)) moves.push_back({nx + sx, ny + sy});
                }
            }
        }
        return moves;
    }
};

int main() {
    Board b;
    int size = 0;
    if (!(std::cin >> b.me >> size)) return 0;
    if (size != N) std::cerr << "unexpected board size " << size << "\n";
    while (std::cin >> b.tick && b.tick != -1) {
        for (int p = 0; p < 2; ++p) std::cin >> b.px[p] >> b.py[p] >> b.wallsLeft[p];
        int count = 0;
        std::cin >> count;
        b.clearWalls();
        for (int i = 0; i < count; ++i) {
            std::string kind;
            int x, y, owner;
            std::cin >> kind >> x >> y >> owner;
            if (!b.addWall(kind, x, y)) std::cerr << "unknown wall line " << kind << "\n";
        }
        std::vector<int> dist = b.distances(b.me);
        int bestX = -1, bestY = -1, best = INT_MAX;
        for (auto [x, y] : b.pawnMoves(b.me)) {
            int d = dist[x * N + y];
            if (d >= 0 && d < best) best = d, bestX = x, bestY = y;
        }
        std::cerr << "tick " << b.tick << ": " << best << " steps to go\n";
        // The rules always leave a pawn move; (bestX, bestY) is set.
        std::cout << "0 " << bestX << " " << bestY << std::endl;
    }
    return 0;
}
