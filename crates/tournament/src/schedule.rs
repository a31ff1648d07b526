//! Who plays whom, in which seat, with which seed: the formats that are known in advance
//! (round-robin, gauntlet, groups). Swiss rounds depend on results and live in [`crate::swiss`].
//!
//! Players are indexes into the tournament's list of playing players; a schedule is a list of
//! matches, each a seat order. Everything random comes from the tournament seed, so the same
//! seed gives the same schedule and the same match seeds.

pub use arbiter_store::Format;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::TournamentError;

/// One match of a schedule: its round (from 1) and its players, by index, in seat order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The round, from 1.
    pub round: u32,
    /// The players, by index into the playing players, in seat order.
    pub seats: Vec<usize>,
}

/// The seed of match `id` of a tournament seeded `seed`. Kept below 2^53 so that it survives
/// JSON readers that hold numbers as doubles.
pub fn match_seed(seed: u64, id: u64) -> u64 {
    splitmix64(seed ^ splitmix64(id.wrapping_add(0x5eed))) >> 11
}

/// A random generator for the draws of round `round` (groups, Swiss tie-breaks).
pub fn round_rng(seed: u64, round: u32) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(splitmix64(seed.wrapping_add(u64::from(round) << 32)))
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The most matches a tournament schedules: a million matches of a few seconds each is already
/// weeks of play, and each scheduled match is a row of the store and of memory.
pub const MAX_MATCHES: usize = 1_000_000;

/// The whole schedule of a format known in advance; more than [`MAX_MATCHES`] matches is an
/// error, found from the first round before the others are made.
pub fn schedule(
    format: Format,
    players: usize,
    per_match: usize,
    rounds: u32,
    challenger: Option<usize>,
    seed: u64,
) -> Result<Vec<Pairing>, TournamentError> {
    if players < per_match {
        return Err(TournamentError::Schedule(format!(
            "a match needs {per_match} players but only {players} can play"
        )));
    }
    let mut out = Vec::new();
    for round in 1..=rounds {
        let seats: Vec<Vec<usize>> = match format {
            Format::RoundRobin if per_match == 2 => round_robin_pairs(players),
            Format::RoundRobin => rotations_of_combinations(players, per_match),
            Format::Gauntlet => {
                if per_match != 2 {
                    return Err(TournamentError::Schedule(format!(
                        "a gauntlet pits one challenger against each player: it needs 2-player \
                         matches, not {per_match}"
                    )));
                }
                let c = challenger.ok_or_else(|| {
                    TournamentError::Schedule("a gauntlet needs --challenger PLAYER".into())
                })?;
                (0..players)
                    .filter(|&q| q != c)
                    .flat_map(|q| [vec![c, q], vec![q, c]])
                    .collect()
            }
            Format::Groups => {
                let mut rng = round_rng(seed, round);
                groups(players, per_match, round, &mut rng)
            }
            Format::Swiss => {
                return Err(TournamentError::Schedule(
                    "Swiss rounds are paired one at a time, from the results".into(),
                ));
            }
            Format::Sprt => {
                return Err(TournamentError::Schedule(
                    "an SPRT queues its pairs of games a round at a time (`arbiter sprt`)".into(),
                ));
            }
        };
        if round == 1 && seats.len().saturating_mul(rounds as usize) > MAX_MATCHES {
            return Err(TournamentError::Schedule(format!(
                "{rounds} round(s) of {} matches between {players} players make more than the \
                 {MAX_MATCHES} matches a tournament can have: fewer --rounds",
                seats.len()
            )));
        }
        out.extend(seats.into_iter().map(|seats| Pairing { round, seats }));
    }
    Ok(out)
}

/// Every ordered pair once, in the rounds of the circle method (so that a tournament stopped
/// early has played everyone about equally): the first leg, then the second with seats swapped.
pub fn round_robin_pairs(players: usize) -> Vec<Vec<usize>> {
    let n = players + players % 2;
    let mut ring: Vec<usize> = (0..n).collect();
    let mut first_leg = Vec::new();
    for turn in 0..n - 1 {
        for i in 0..n / 2 {
            let (a, b) = (ring[i], ring[n - 1 - i]);
            if a >= players || b >= players {
                continue;
            }
            // Alternate who sits first, so that neither leg favours the low indexes.
            if (turn + i) % 2 == 0 {
                first_leg.push(vec![a, b]);
            } else {
                first_leg.push(vec![b, a]);
            }
        }
        ring[1..].rotate_right(1);
    }
    let second_leg: Vec<Vec<usize>> = first_leg.iter().map(|p| vec![p[1], p[0]]).collect();
    first_leg.into_iter().chain(second_leg).collect()
}

/// Every group of `k` players, each played `k` times with the seats rotated, so that every
/// player of the group sits in every seat once.
fn rotations_of_combinations(players: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut combo: Vec<usize> = (0..k).collect();
    loop {
        out.extend(rotations(&combo));
        // The next combination in lexicographic order.
        let Some(i) = (0..k).rev().find(|&i| combo[i] < players - k + i) else {
            break;
        };
        combo[i] += 1;
        for j in i + 1..k {
            combo[j] = combo[j - 1] + 1;
        }
    }
    out
}

fn rotations(group: &[usize]) -> Vec<Vec<usize>> {
    let k = group.len();
    (0..k)
        .map(|shift| (0..k).map(|seat| group[(seat + shift) % k]).collect())
        .collect()
}

/// One round of random groups of `k`. When the players do not divide into groups, those who
/// sat out least so far sit out (chosen in turn by round, so the rounds share it out), and every
/// group plays all its seat rotations.
fn groups(players: usize, k: usize, round: u32, rng: &mut ChaCha8Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..players).collect();
    let sit_out = players % k;
    if sit_out > 0 {
        // Rotate the sitting-out places through the player list round after round.
        let start = ((round as usize - 1) * sit_out) % players;
        order.rotate_left(start);
        order.truncate(players - sit_out);
    }
    order.shuffle(rng);
    let _ = rng.random::<u32>();
    order.chunks(k).flat_map(rotations).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    #[test]
    fn round_robin_plays_every_ordered_pair_once_per_round() {
        for n in 2..=9 {
            let pairs = round_robin_pairs(n);
            assert_eq!(pairs.len(), n * (n - 1), "{n} players");
            let set: HashSet<(usize, usize)> = pairs.iter().map(|p| (p[0], p[1])).collect();
            assert_eq!(set.len(), n * (n - 1));
            assert!(set.iter().all(|&(a, b)| a != b && a < n && b < n));
        }
        let two = schedule(Format::RoundRobin, 4, 2, 2, None, 1).unwrap();
        assert_eq!(two.len(), 24);
        assert_eq!(two.iter().filter(|p| p.round == 2).count(), 12);
    }

    #[test]
    fn the_first_leg_has_every_pair_once() {
        let pairs = round_robin_pairs(6);
        let first: HashSet<(usize, usize)> = pairs[..15]
            .iter()
            .map(|p| (p[0].min(p[1]), p[0].max(p[1])))
            .collect();
        assert_eq!(first.len(), 15);
    }

    #[test]
    fn absurd_rounds_are_refused_before_any_match_is_made() {
        let error = schedule(Format::RoundRobin, 2, 2, u32::MAX, None, 1).unwrap_err();
        assert!(error.to_string().contains("fewer --rounds"), "{error}");
        let most = (MAX_MATCHES / 2) as u32;
        assert!(schedule(Format::RoundRobin, 100, 2, most, None, 1).is_err());
        assert_eq!(
            schedule(Format::RoundRobin, 2, 2, 10, None, 1)
                .unwrap()
                .len(),
            20
        );
    }

    #[test]
    fn four_player_round_robin_rotates_every_group() {
        let s = schedule(Format::RoundRobin, 5, 4, 1, None, 1).unwrap();
        assert_eq!(s.len(), 5 * 4);
        let mut seats: HashMap<(usize, usize), usize> = HashMap::new();
        for p in &s {
            for (seat, &player) in p.seats.iter().enumerate() {
                *seats.entry((player, seat)).or_default() += 1;
            }
        }
        assert!(seats.values().all(|&c| c == 4), "{seats:?}");
    }

    #[test]
    fn gauntlet_plays_the_challenger_against_all_in_both_seats() {
        let s = schedule(Format::Gauntlet, 4, 2, 1, Some(2), 1).unwrap();
        let set: HashSet<Vec<usize>> = s.iter().map(|p| p.seats.clone()).collect();
        let expected: HashSet<Vec<usize>> = [0, 1, 3]
            .into_iter()
            .flat_map(|q| [vec![2, q], vec![q, 2]])
            .collect();
        assert_eq!(set, expected);
        assert!(schedule(Format::Gauntlet, 4, 2, 1, None, 1).is_err());
    }

    #[test]
    fn groups_give_every_player_every_seat_equally_often() {
        for players in [4, 6, 8, 9] {
            let rounds = 4;
            let s = schedule(Format::Groups, players, 4, rounds, None, 7).unwrap();
            let mut seats: HashMap<usize, Vec<usize>> = HashMap::new();
            for p in &s {
                for (seat, &player) in p.seats.iter().enumerate() {
                    seats.entry(player).or_insert_with(|| vec![0; 4])[seat] += 1;
                }
            }
            for (player, counts) in &seats {
                assert!(
                    counts.iter().all(|&c| c == counts[0]),
                    "{players} players: player {player} sat {counts:?}"
                );
            }
            if players % 4 == 0 {
                assert_eq!(seats.len(), players);
                assert!(seats.values().all(|c| c[0] == rounds as usize));
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule_and_seeds() {
        let a = schedule(Format::Groups, 9, 4, 3, None, 42).unwrap();
        let b = schedule(Format::Groups, 9, 4, 3, None, 42).unwrap();
        let c = schedule(Format::Groups, 9, 4, 3, None, 43).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(match_seed(42, 7), match_seed(42, 7));
        assert_ne!(match_seed(42, 7), match_seed(42, 8));
        assert_ne!(match_seed(42, 7), match_seed(43, 7));
        assert!(match_seed(u64::MAX, u64::MAX) < 1 << 53);
    }
}
