//! Swiss pairing for 2-player games: each round pairs players of similar points who have not
//! met, and every pairing plays both seat orders.
//!
//! "Never repeat a pairing while another is possible" is kept exactly: the top player left is
//! paired with the closest-scored opponent for whom the players still left can all be paired
//! without a repeat (checked with a maximum matching), so the greedy choice never paints itself
//! into a corner. Only when no repeat-free pairing of the whole round exists are pairings that
//! met once allowed, then twice, and so on.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::matching::has_perfect_matching;

/// What a player has done so far, as Swiss pairing sees it.
#[derive(Clone, Debug, Default)]
pub struct SwissRecord {
    /// Points so far, byes included.
    pub points: f64,
    /// Rounds sat out so far.
    pub byes: u32,
}

/// One round: the pairs (each plays both seat orders) and the player who sits out, if the
/// number of players is odd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The pairs, by player index.
    pub pairs: Vec<(usize, usize)>,
    /// The player who sits out, by index, if any.
    pub bye: Option<usize>,
}

/// Pairs a round. `met(a, b)` counts the earlier pairings of `a` and `b`; ties of points are
/// broken by `rng`, so the same seed pairs the same way.
pub fn pair_round(
    records: &[SwissRecord],
    met: impl Fn(usize, usize) -> u32,
    rng: &mut ChaCha8Rng,
) -> Round {
    let n = records.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    order.sort_by(|&a, &b| records[b].points.total_cmp(&records[a].points));
    if n < 2 {
        return Round {
            pairs: Vec::new(),
            bye: order.first().copied(),
        };
    }
    let most = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| a != b)
        .map(|(a, b)| met(a, b))
        .max()
        .unwrap_or(0);
    for repeats in 0..=most {
        let allowed = |a: usize, b: usize| met(a, b) <= repeats;
        if let Some(round) = pair_with(&order, records, &allowed) {
            return round;
        }
    }
    unreachable!("with every repeat allowed, any players pair")
}

fn pair_with(
    order: &[usize],
    records: &[SwissRecord],
    allowed: &dyn Fn(usize, usize) -> bool,
) -> Option<Round> {
    let mut left: Vec<usize> = order.to_vec();
    let mut bye = None;
    if left.len() % 2 == 1 {
        // The lowest-placed player among those with the fewest byes sits out.
        let fewest = left.iter().map(|&p| records[p].byes).min()?;
        let candidate = left
            .iter()
            .rev()
            .copied()
            .filter(|&p| records[p].byes == fewest)
            .chain(
                left.iter()
                    .rev()
                    .copied()
                    .filter(|&p| records[p].byes != fewest),
            )
            .find(|&p| {
                let rest: Vec<usize> = left.iter().copied().filter(|&q| q != p).collect();
                has_perfect_matching(&rest, allowed)
            })?;
        left.retain(|&p| p != candidate);
        bye = Some(candidate);
    } else if !has_perfect_matching(&left, allowed) {
        return None;
    }
    let mut pairs = Vec::new();
    while let Some((&top, rest)) = left.split_first() {
        let partner = rest.iter().copied().find(|&c| {
            allowed(top, c) && {
                let others: Vec<usize> = rest.iter().copied().filter(|&q| q != c).collect();
                has_perfect_matching(&others, allowed)
            }
        })?;
        pairs.push((top, partner));
        left.retain(|&p| p != top && p != partner);
    }
    Some(Round { pairs, bye })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::SeedableRng;

    use super::*;

    /// Plays `rounds` Swiss rounds where the lower index always wins, checking each round.
    fn simulate(n: usize, rounds: usize, seed: u64) {
        let mut records = vec![SwissRecord::default(); n];
        let mut met: HashMap<(usize, usize), u32> = HashMap::new();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for round in 0..rounds {
            let count = |a: usize, b: usize| *met.get(&(a.min(b), a.max(b))).unwrap_or(&0);
            let r = pair_round(&records, count, &mut rng);
            let mut seen = vec![false; n];
            for &(a, b) in &r.pairs {
                assert!(!seen[a] && !seen[b] && a != b);
                seen[a] = true;
                seen[b] = true;
            }
            if let Some(b) = r.bye {
                assert!(!seen[b]);
                seen[b] = true;
            }
            assert!(
                seen.iter().all(|&s| s),
                "round {round}: everyone plays or sits out"
            );
            // A repeat only when no repeat-free pairing of the round exists.
            let repeats = r.pairs.iter().filter(|&&(a, b)| count(a, b) > 0).count();
            if repeats > 0 {
                let all: Vec<usize> = (0..n).collect();
                let free = |a: usize, b: usize| count(a, b) == 0;
                let possible = if n.is_multiple_of(2) {
                    has_perfect_matching(&all, free)
                } else {
                    (0..n).any(|bye| {
                        let rest: Vec<usize> = all.iter().copied().filter(|&q| q != bye).collect();
                        has_perfect_matching(&rest, free)
                    })
                };
                assert!(
                    !possible,
                    "round {round} repeats a pairing needlessly: {r:?}"
                );
            }
            for &(a, b) in &r.pairs {
                *met.entry((a.min(b), a.max(b))).or_default() += 1;
                records[a.min(b)].points += 2.0;
                records[a.max(b)].points += 0.0;
            }
            if let Some(b) = r.bye {
                records[b].points += 2.0;
                records[b].byes += 1;
            }
        }
    }

    #[test]
    fn never_repeats_a_pairing_while_another_is_possible() {
        for n in 2..=12 {
            for seed in 0..5 {
                simulate(n, n + 2, seed);
            }
        }
    }

    #[test]
    fn a_round_robin_worth_of_rounds_meets_everyone_once() {
        let n = 8;
        let mut records = vec![SwissRecord::default(); n];
        let mut met: HashMap<(usize, usize), u32> = HashMap::new();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..n - 1 {
            let count = |a: usize, b: usize| *met.get(&(a.min(b), a.max(b))).unwrap_or(&0);
            let r = pair_round(&records, count, &mut rng);
            for &(a, b) in &r.pairs {
                *met.entry((a.min(b), a.max(b))).or_default() += 1;
                records[a.min(b)].points += 1.0;
            }
        }
        assert_eq!(met.len(), n * (n - 1) / 2);
        assert!(met.values().all(|&c| c == 1));
    }

    #[test]
    fn byes_go_to_different_players() {
        let mut records = vec![SwissRecord::default(); 5];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut byes = Vec::new();
        for _ in 0..5 {
            let r = pair_round(&records, |_, _| 0, &mut rng);
            let b = r.bye.unwrap();
            records[b].byes += 1;
            byes.push(b);
        }
        byes.sort();
        assert_eq!(byes, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_leaders_meet() {
        let mut records = vec![SwissRecord::default(); 4];
        records[2].points = 3.0;
        records[3].points = 2.0;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let r = pair_round(&records, |_, _| 0, &mut rng);
        assert_eq!(r.pairs[0], (2, 3));
    }
}
