//! Maximum matching in a general graph (Edmonds' blossom algorithm), the test Swiss pairing
//! uses to know whether the players left can still all be paired without a repeat.

use std::collections::VecDeque;

/// The size of a maximum matching of the graph on `n` vertices whose edges are `edge(a, b)`.
pub fn maximum_matching(n: usize, edge: impl Fn(usize, usize) -> bool) -> usize {
    let adj: Vec<Vec<usize>> = (0..n)
        .map(|a| (0..n).filter(|&b| a != b && edge(a, b)).collect())
        .collect();
    let mut m = Blossom {
        adj,
        mate: vec![NONE; n],
        parent: vec![NONE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        blossom: vec![false; n],
        queue: VecDeque::new(),
    };
    let mut size = 0;
    for v in 0..n {
        if m.mate[v] == NONE && m.augment_from(v) {
            size += 1;
        }
    }
    size
}

/// Whether `vertices` can all be paired using `edge`.
pub fn has_perfect_matching(vertices: &[usize], edge: impl Fn(usize, usize) -> bool) -> bool {
    vertices.len().is_multiple_of(2)
        && maximum_matching(vertices.len(), |a, b| edge(vertices[a], vertices[b]))
            == vertices.len() / 2
}

const NONE: usize = usize::MAX;

struct Blossom {
    adj: Vec<Vec<usize>>,
    mate: Vec<usize>,
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    queue: VecDeque<usize>,
}

impl Blossom {
    fn lca(&self, mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; self.mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[self.mate[v]]] = true;
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    /// Searches an augmenting path from the free vertex `root` and flips it if found.
    fn augment_from(&mut self, root: usize) -> bool {
        let n = self.mate.len();
        self.used.fill(false);
        self.parent.fill(NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.used[root] = true;
        self.queue.clear();
        self.queue.push_back(root);
        while let Some(v) = self.queue.pop_front() {
            for i in 0..self.adj[v].len() {
                let to = self.adj[v][i];
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    let current = self.lca(v, to);
                    self.blossom.fill(false);
                    self.mark_path(v, current, to);
                    self.mark_path(to, current, v);
                    for u in 0..n {
                        if self.blossom[self.base[u]] {
                            self.base[u] = current;
                            if !self.used[u] {
                                self.used[u] = true;
                                self.queue.push_back(u);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        let mut u = to;
                        while u != NONE {
                            let pv = self.parent[u];
                            let next = self.mate[pv];
                            self.mate[u] = pv;
                            self.mate[pv] = u;
                            u = next;
                        }
                        return true;
                    }
                    let m = self.mate[to];
                    self.used[m] = true;
                    self.queue.push_back(m);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cycles_and_blossoms() {
        // A path of 4: 2 edges.
        assert_eq!(maximum_matching(4, |a, b| a.abs_diff(b) == 1), 2);
        // A triangle: 1 edge.
        assert_eq!(maximum_matching(3, |_, _| true), 1);
        // Two triangles joined by an edge: a perfect matching that needs a blossom.
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3)];
        let edge = |a: usize, b: usize| edges.contains(&(a, b)) || edges.contains(&(b, a));
        assert_eq!(maximum_matching(6, edge), 3);
        // A star: 1 edge.
        assert_eq!(maximum_matching(5, |a, b| a == 0 || b == 0), 1);
        assert!(has_perfect_matching(&[3, 4, 5, 2], edge));
        assert!(!has_perfect_matching(&[0, 1, 2, 4], edge));
    }

    #[test]
    fn agrees_with_brute_force_on_small_random_graphs() {
        fn brute(n: usize, e: &[Vec<bool>], used: &mut Vec<bool>) -> usize {
            let Some(a) = (0..n).find(|&v| !used[v]) else {
                return 0;
            };
            used[a] = true;
            let mut best = brute(n, e, used);
            for b in 0..n {
                if !used[b] && e[a][b] {
                    used[b] = true;
                    best = best.max(1 + brute(n, e, used));
                    used[b] = false;
                }
            }
            used[a] = false;
            best
        }
        let mut state = 12345u64;
        for _ in 0..300 {
            let n = 1 + (state % 9) as usize;
            let mut e = vec![vec![false; n]; n];
            let pairs: Vec<(usize, usize)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect();
            for (a, b) in pairs {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let on = (state >> 33).is_multiple_of(3);
                e[a][b] = on;
                e[b][a] = on;
            }
            let fast = maximum_matching(n, |a, b| e[a][b]);
            assert_eq!(fast, brute(n, &e, &mut vec![false; n]), "{e:?}");
            state = state.wrapping_add(7);
        }
    }
}
