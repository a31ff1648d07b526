// A Quoridor starter bot for Arbiter: reads the whole protocol, keeps the board, and walks a
// shortest path to its goal. Copy it and make it smarter.
//
// Build: g++ -O2 -std=c++17 -o starter starter.cpp
//
// Protocol (docs/games/quoridor.md): a start message (N, your id, M, then N lines "x y walls_left"),
// then before each of your turns: tick, N lines "x y walls_left" (-1 -1 for an eliminated
// player), F, and F lines "x y is_vertical who". Answer one line: "x y" to move your pawn there,
// or "x y v" to place a wall (v=1 vertical, v=0 horizontal). "-1" ends the match for you: exit.
// Anything written to stderr is shown in the replay viewer for that turn (2000 characters).
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <vector>

struct Wall {
    int x, y, vertical, who;
};

struct Board {
    int players = 2, me = 0, size = 9;
    std::vector<int> px, py, wallsLeft;
    std::vector<Wall> walls;

    bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < size && y < size; }

    bool goal(int player, int x, int y) const {
        int m = size - 1;
        if (players == 2) return player == 0 ? y == m : y == 0;
        switch (player) {
            case 0: return y == m;
            case 1: return x == 0;
            case 2: return y == 0;
            default: return x == m;
        }
    }

    // Whether a wall stands between (x, y) and (x+dx, y+dy).
    static bool blocked(const std::vector<Wall>& ws, int x, int y, int dx, int dy) {
        for (const Wall& w : ws) {
            if (w.vertical && dy == 0 && w.x == std::min(x, x + dx) && w.y <= y && y <= w.y + 1) return true;
            if (!w.vertical && dx == 0 && w.y == std::min(y, y + dy) && w.x <= x && x <= w.x + 1) return true;
        }
        return false;
    }

    // Distance from every cell to the player's goal, ignoring pawns; -1 where unreachable.
    std::vector<int> distances(int player, const std::vector<Wall>& ws) const {
        static const int DX[4] = {1, -1, 0, 0}, DY[4] = {0, 0, 1, -1};
        std::vector<int> dist(size * size, -1);
        std::deque<int> queue;
        for (int y = 0; y < size; ++y)
            for (int x = 0; x < size; ++x)
                if (goal(player, x, y)) {
                    dist[y * size + x] = 0;
                    queue.push_back(y * size + x);
                }
        while (!queue.empty()) {
            int c = queue.front();
            queue.pop_front();
            int x = c % size, y = c / size;
            for (int d = 0; d < 4; ++d) {
                int nx = x + DX[d], ny = y + DY[d];
                if (inside(nx, ny) && dist[ny * size + nx] < 0 && !blocked(ws, x, y, DX[d], DY[d])) {
                    dist[ny * size + nx] = dist[c] + 1;
                    queue.push_back(ny * size + nx);
                }
            }
        }
        return dist;
    }

    bool occupied(int x, int y) const {
        for (int p = 0; p < players; ++p)
            if (px[p] == x && py[p] == y) return true;
        return false;
    }

    std::vector<std::pair<int, int>> pawnMoves(int player) const {
        static const int DX[4] = {1, -1, 0, 0}, DY[4] = {0, 0, 1, -1};
        std::vector<std::pair<int, int>> moves;
        int x = px[player], y = py[player];
        for (int d = 0; d < 4; ++d) {
            int dx = DX[d], dy = DY[d], nx = x + dx, ny = y + dy;
            if (!inside(nx, ny) || blocked(walls, x, y, dx, dy)) continue;
            if (!occupied(nx, ny)) {
                moves.push_back({nx, ny});
                continue;
            }
            int bx = nx + dx, by = ny + dy;
            if (inside(bx, by) && !blocked(walls, nx, ny, dx, dy)) {
                if (!occupied(bx, by)) moves.push_back({bx, by});
                continue;  // two pawns in a row: no jump, no side-step
            }
            for (int s = -1; s <= 1; s += 2) {
                int sx = dy * s, sy = dx * s, cx = nx + sx, cy = ny + sy;
                if (inside(cx, cy) && !blocked(walls, nx, ny, sx, sy) && !occupied(cx, cy))
                    moves.push_back({cx, cy});
            }
        }
        return moves;
    }

    bool wallAllowed(int x, int y, int vertical) const {
        if (x < 0 || y < 0 || x > size - 2 || y > size - 2) return false;
        for (const Wall& w : walls) {
            if (w.vertical != vertical) {
                if (w.x == x && w.y == y) return false;
            } else if (vertical ? (w.x == x && std::abs(w.y - y) <= 1) : (w.y == y && std::abs(w.x - x) <= 1)) {
                return false;
            }
        }
        std::vector<Wall> after = walls;
        after.push_back({x, y, vertical, me});
        for (int p = 0; p < players; ++p) {
            if (px[p] < 0) continue;
            if (distances(p, after)[py[p] * size + px[p]] < 0) return false;
        }
        return true;
    }
};

int main() {
    Board b;
    std::cin >> b.players >> b.me >> b.size;
    b.px.assign(b.players, 0);
    b.py.assign(b.players, 0);
    b.wallsLeft.assign(b.players, 0);
    for (int p = 0; p < b.players; ++p) std::cin >> b.px[p] >> b.py[p] >> b.wallsLeft[p];
    int tick;
    while (std::cin >> tick && tick != -1) {
        for (int p = 0; p < b.players; ++p) std::cin >> b.px[p] >> b.py[p] >> b.wallsLeft[p];
        int count;
        std::cin >> count;
        b.walls.assign(count, Wall{});
        for (Wall& w : b.walls) std::cin >> w.x >> w.y >> w.vertical >> w.who;

        std::vector<int> dist = b.distances(b.me, b.walls);
        int bestX = -1, bestY = -1, best = INT_MAX;
        for (auto [x, y] : b.pawnMoves(b.me)) {
            int d = dist[y * b.size + x];
            if (d >= 0 && d < best) best = d, bestX = x, bestY = y;
        }
        if (bestX >= 0) {
            std::cerr << "tick " << tick << ": " << best << " steps to go\n";
            std::cout << bestX << " " << bestY << std::endl;
            continue;
        }
        // Boxed in by pawns: a wall is the only legal action left.
        bool placed = false;
        for (int x = 0; x + 1 < b.size && !placed; ++x)
            for (int y = 0; y + 1 < b.size && !placed; ++y)
                for (int v = 0; v <= 1 && !placed; ++v)
                    if (b.wallAllowed(x, y, v)) {
                        std::cout << x << " " << y << " " << v << std::endl;
                        placed = true;
                    }
        if (!placed) std::cout << "0 0" << std::endl;
    }
    return 0;
}
