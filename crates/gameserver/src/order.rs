//! Who sits where (docs/games/labyrinth.md#sessions-on-the-game-server): pure functions, so the ordering of the final can be checked by hand.

use std::cmp::Ordering;
use std::ops::Range;

/// A logged-in team as the scheduler sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// Team name.
    pub team: String,
    /// Total points of the team's test games.
    pub test: f64,
    /// Total points of the team's live games (the final).
    pub live: f64,
    /// Order of login: earlier logins win ties.
    pub login: u64,
}

/// Test mode and live round 1: ascending test score, ties by earlier login.
pub fn ascending_test(entrants: &mut [Entrant]) {
    entrants.sort_by(|a, b| cmp_f(a.test, b.test).then(a.login.cmp(&b.login)));
}

/// Live round 2: descending test score, ties by earlier login.
pub fn descending_test(entrants: &mut [Entrant]) {
    entrants.sort_by(|a, b| cmp_f(b.test, a.test).then(a.login.cmp(&b.login)));
}

/// Live round 3: sorted ascending by (live, test) into `s_0..s_(n-1)`, seat `j` gets
/// `s_perm[j]` with [`round3_permutation`]. Done again before every game of the round.
pub fn live_round3(entrants: &mut Vec<Entrant>) {
    entrants.sort_by(|a, b| {
        cmp_f(a.live, b.live)
            .then(cmp_f(a.test, b.test))
            .then(a.login.cmp(&b.login))
    });
    let sorted = std::mem::take(entrants);
    *entrants = round3_permutation(sorted.len())
        .into_iter()
        .map(|i| sorted[i].clone())
        .collect();
}

/// n-1, n-3, … down to 1 or 0, then the indices left out, ascending (n = 10: 9 7 5 3 1 0 2 4
/// 6 8).
pub fn round3_permutation(n: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).rev().step_by(2).collect();
    perm.extend((0..n).filter(|i| (n - 1 - i) % 2 == 1));
    perm
}

/// Orders the entrants of live game `game` (0..15: round game / 5, level game % 5 + 1).
pub fn live_order(entrants: &mut Vec<Entrant>, game: u32) {
    match game / 5 {
        0 => ascending_test(entrants),
        1 => descending_test(entrants),
        _ => live_round3(entrants),
    }
}

/// The rule [`live_order`] (live) or [`ascending_test`] (test) seats live game or test round
/// `game` by, for people.
pub fn rule(live: bool, game: u32) -> &'static str {
    match (live, game / 5) {
        (false, _) => "ascending test score, ties by earlier login",
        (true, 0) => "round 1 of the final: ascending test score, ties by earlier login",
        (true, 1) => "round 2 of the final: descending test score, ties by earlier login",
        (true, _) => {
            "round 3 of the final: ascending live then test score, seated n-1, n-3, …, \
             then the others ascending"
        }
    }
}

/// Splits `n` entrants in seat order into ⌈n/max⌉ tables of near-equal size, consecutive in
/// that order, larger tables first.
pub fn split_tables(n: usize, max: usize) -> Vec<Range<usize>> {
    if n == 0 {
        return Vec::new();
    }
    let tables = n.div_ceil(max.max(1));
    let (base, extra) = (n / tables, n % tables);
    let mut start = 0;
    (0..tables)
        .map(|t| {
            let len = base + usize::from(t < extra);
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// Final ranking: live score descending, ties by test score descending, then by name.
pub fn ranking(rows: &mut [(String, f64, f64)]) {
    rows.sort_by(|a, b| cmp_f(b.2, a.2).then(cmp_f(b.1, a.1)).then(a.0.cmp(&b.0)));
}

fn cmp_f(a: f64, b: f64) -> Ordering {
    a.total_cmp(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrants(scores: &[(f64, f64)]) -> Vec<Entrant> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &(test, live))| Entrant {
                team: format!("t{i}"),
                test,
                live,
                login: i as u64,
            })
            .collect()
    }

    fn teams(e: &[Entrant]) -> Vec<&str> {
        e.iter().map(|e| e.team.as_str()).collect()
    }

    #[test]
    fn the_spec_permutation_for_ten() {
        assert_eq!(round3_permutation(10), vec![9, 7, 5, 3, 1, 0, 2, 4, 6, 8]);
        assert_eq!(round3_permutation(5), vec![4, 2, 0, 1, 3]);
        assert_eq!(round3_permutation(1), vec![0]);
        assert!(round3_permutation(0).is_empty());
        for n in 1..=12 {
            let mut p = round3_permutation(n);
            p.sort();
            assert_eq!(p, (0..n).collect::<Vec<_>>(), "a permutation of 0..{n}");
        }
    }

    #[test]
    fn test_order_is_ascending_with_ties_by_login() {
        let mut e = entrants(&[(5.0, 0.0), (1.0, 0.0), (5.0, 0.0), (0.0, 0.0)]);
        ascending_test(&mut e);
        assert_eq!(teams(&e), ["t3", "t1", "t0", "t2"]);
        descending_test(&mut e);
        assert_eq!(teams(&e), ["t0", "t2", "t1", "t3"]);
    }

    #[test]
    fn round_three_sorts_by_live_then_test_and_permutes() {
        // Ascending by (live, test): t2 (0,0) t0 (1,9) t1 (1,10) t3 (2,0).
        let mut e = entrants(&[(9.0, 1.0), (10.0, 1.0), (0.0, 0.0), (0.0, 2.0)]);
        live_order(&mut e, 10);
        // n = 4: perm 3 1 0 2.
        assert_eq!(teams(&e), ["t3", "t0", "t2", "t1"]);
        let mut e = entrants(&[(9.0, 1.0), (10.0, 1.0), (0.0, 0.0), (0.0, 2.0)]);
        live_order(&mut e, 4);
        assert_eq!(teams(&e), ["t2", "t3", "t0", "t1"]);
        live_order(&mut e, 5);
        assert_eq!(teams(&e), ["t1", "t0", "t2", "t3"]);
    }

    #[test]
    fn tables_are_near_equal_and_consecutive() {
        assert!(split_tables(0, 10).is_empty());
        assert_eq!(split_tables(7, 10), vec![0..7]);
        assert_eq!(split_tables(10, 10), vec![0..10]);
        assert_eq!(split_tables(11, 10), vec![0..6, 6..11]);
        assert_eq!(split_tables(25, 10), vec![0..9, 9..17, 17..25]);
        assert_eq!(split_tables(100, 10).len(), 10);
        assert_eq!(split_tables(3, 2), vec![0..2, 2..3]);
    }

    #[test]
    fn ranking_is_live_then_test() {
        let mut rows = vec![
            ("a".to_owned(), 10.0, 3.0),
            ("b".to_owned(), 12.0, 3.0),
            ("c".to_owned(), 0.0, 4.0),
        ];
        ranking(&mut rows);
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(names, ["c", "b", "a"]);
    }
}
