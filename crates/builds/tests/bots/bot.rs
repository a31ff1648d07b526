// A Quoridor bot for the builds' tests: walks a shortest path to its goal (walls counted,
// pawns jumped as the rules say).
use std::collections::VecDeque;
use std::io::{BufRead, Write};

struct Board {
    n: i32,
    me: i32,
    m: i32,
    px: Vec<i32>,
    py: Vec<i32>,
    walls: Vec<[i32; 4]>,
}

const DX: [i32; 4] = [1, -1, 0, 0];
const DY: [i32; 4] = [0, 0, 1, -1];

impl Board {
    fn goal(&self, x: i32, y: i32) -> bool {
        if self.n == 2 {
            return if self.me == 0 { y == self.m - 1 } else { y == 0 };
        }
        [y == self.m - 1, x == 0, y == 0, x == self.m - 1][self.me as usize]
    }
    fn inside(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.m && y < self.m
    }
    fn blocked(&self, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        self.walls.iter().any(|w| {
            (w[2] == 1 && dy == 0 && w[0] == x.min(x + dx) && w[1] <= y && y <= w[1] + 1)
                || (w[2] == 0 && dx == 0 && w[1] == y.min(y + dy) && w[0] <= x && x <= w[0] + 1)
        })
    }
    fn occupied(&self, x: i32, y: i32) -> bool {
        (0..self.n as usize).any(|p| self.px[p] == x && self.py[p] == y)
    }
    fn distances(&self) -> Vec<i32> {
        let m = self.m;
        let mut dist = vec![-1; (m * m) as usize];
        let mut queue = VecDeque::new();
        for y in 0..m {
            for x in 0..m {
                if self.goal(x, y) {
                    dist[(y * m + x) as usize] = 0;
                    queue.push_back((x, y));
                }
            }
        }
        while let Some((x, y)) = queue.pop_front() {
            for d in 0..4 {
                let (nx, ny) = (x + DX[d], y + DY[d]);
                if self.inside(nx, ny) && dist[(ny * m + nx) as usize] < 0 && !self.blocked(x, y, DX[d], DY[d]) {
                    dist[(ny * m + nx) as usize] = dist[(y * m + x) as usize] + 1;
                    queue.push_back((nx, ny));
                }
            }
        }
        dist
    }
    fn moves(&self) -> Vec<(i32, i32)> {
        let (x, y) = (self.px[self.me as usize], self.py[self.me as usize]);
        let mut moves = Vec::new();
        for d in 0..4 {
            let (dx, dy) = (DX[d], DY[d]);
            let (nx, ny) = (x + dx, y + dy);
            if !self.inside(nx, ny) || self.blocked(x, y, dx, dy) {
                continue;
            }
            if !self.occupied(nx, ny) {
                moves.push((nx, ny));
                continue;
            }
            let (bx, by) = (nx + dx, ny + dy);
            if self.inside(bx, by) && !self.blocked(nx, ny, dx, dy) {
                if !self.occupied(bx, by) {
                    moves.push((bx, by));
                }
                continue;
            }
            for s in [-1, 1] {
                let (sx, sy) = (dy * s, dx * s);
                let (cx, cy) = (nx + sx, ny + sy);
                if self.inside(cx, cy) && !self.blocked(nx, ny, sx, sy) && !self.occupied(cx, cy) {
                    moves.push((cx, cy));
                }
            }
        }
        moves
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut tokens = stdin
        .lock()
        .lines()
        .map_while(Result::ok)
        .flat_map(|l| l.split_whitespace().map(|t| t.parse::<i32>().unwrap()).collect::<Vec<_>>());
    let mut next = move || tokens.next().unwrap_or_else(|| std::process::exit(0));
    let (n, me, m) = (next(), next(), next());
    let mut b = Board { n, me, m, px: vec![0; n as usize], py: vec![0; n as usize], walls: vec![] };
    for p in 0..n as usize {
        b.px[p] = next();
        b.py[p] = next();
        next();
    }
    loop {
        if next() == -1 {
            return;
        }
        for p in 0..n as usize {
            b.px[p] = next();
            b.py[p] = next();
            next();
        }
        let count = next();
        b.walls = (0..count).map(|_| [next(), next(), next(), next()]).collect();
        let dist = b.distances();
        let best = b
            .moves()
            .into_iter()
            .filter(|&(x, y)| dist[(y * m + x) as usize] >= 0)
            .min_by_key(|&(x, y)| dist[(y * m + x) as usize]);
        let answer = best.map_or("0 0".to_string(), |(x, y)| format!("{x} {y}"));
        let mut out = std::io::stdout().lock();
        writeln!(out, "{answer}").unwrap();
        out.flush().unwrap();
    }
}
