//! Who plays the next ladder game, and in which seats.
//!
//! The seed is the version that most needs games; its opponents are near it in μ. Why μ and
//! not the score μ − 3σ: the score of a version with few games is low because its rating is
//! uncertain, not because it is weak; matching by score would send every newcomer to the
//! bottom of the ladder, where its games say little. By μ, a new version of a strong bot
//! (which inherits its predecessor's μ) plays where its predecessor stood, and a brand-new bot
//! (μ 25) plays mid-ladder, where a result moves it fastest towards its place.
//!
//! "Near" is a heavy-tailed window, as Halite's: the rank distance to the seed is drawn from a
//! discrete Pareto law, so most games are against the nearest few (the games that best sort
//! neighbours) and now and then one reaches far (so that a misplaced version, or two clusters
//! that never met, are corrected).

use std::collections::BinaryHeap;

use rand::Rng;
use rand::seq::SliceRandom;

use crate::Rating;

/// The tail exponent α of the window: the chance that an opponent is `k` or more ranks away
/// from the seed's nearest is about 1 / (k + 1)^α. With 1, half the opponents are the
/// nearest, one in ten is 9 or more ranks away, one in a hundred 99 or more.
pub const WINDOW_TAIL: f64 = 1.0;

/// Games a version needs before it waits its turn like the others: below this, the version
/// with the fewest games is the seed of the next game; from this on, games no longer count and
/// the least recently played goes first. Why a cap: a new version should settle fast (30
/// games against its peers take σ from 8.3 to about 4), but by fewest games alone a version
/// arriving on a ladder whose members have played thousands would be the seed of every game
/// for hours.
pub const PRIORITY_GAMES: u64 = 30;

/// A version on the ladder as matchmaking sees it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The version's id.
    pub version: i64,
    /// Its bot: a game never seats two versions of one bot.
    pub bot: i64,
    /// Its bot's team.
    pub team: i64,
    /// Its current rating.
    pub rating: Rating,
    /// Ladder games it played (or has queued; see [`note_queued`]).
    pub games: u64,
    /// When it last played (or was queued), in ms since the epoch; `None` if never.
    pub last_played: Option<i64>,
    /// When the version was created, in ms since the epoch.
    pub created: i64,
    /// Whether it is a built-in robot. Robots are members like any other: they are the
    /// ladder's baseline, and their ratings need games as much as anyone's.
    pub robot: bool,
    /// How many of its games it played in seat 0.
    pub first_seats: u64,
}

impl Candidate {
    /// The share of its games it played in seat 0; 0 before its first game.
    fn first_seat_share(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.first_seats as f64 / self.games as f64
        }
    }
}

/// The versions of the next ladder game, in seat order, or `None` if fewer than `seats` bots
/// are on the ladder (or `seats` is 0).
///
/// The seed is the version that most needs games: the fewest games (counted up to
/// [`PRIORITY_GAMES`]), then the least recently played (never first), then the newest. Then
/// `seats − 1` opponents, one at a time, each of a bot not yet seated, at a rank distance from
/// the seed (by |Δμ|, ties in random order) drawn from the window (see [`WINDOW_TAIL`]). Seat 0 goes to the one with the smallest share of
/// games in seat 0, the others sit in random order: over many games each version moves first
/// in its fair share of them. Deterministic for a given `rng`. O(n) per seat in the number of
/// candidates.
pub fn pick_match(candidates: &[Candidate], seats: usize, rng: &mut impl Rng) -> Option<Vec<i64>> {
    pick_match_with_tail(candidates, seats, WINDOW_TAIL, rng)
}

/// [`pick_match`] with another tail exponent α of the window (larger: nearer opponents; near
/// 0: any rank about as likely as any other), to measure what the window does.
pub fn pick_match_with_tail(
    candidates: &[Candidate],
    seats: usize,
    tail: f64,
    rng: &mut impl Rng,
) -> Option<Vec<i64>> {
    if seats == 0 || !has_bots(candidates, seats) {
        return None;
    }
    let seed = seed(candidates)?;
    let mut chosen = vec![seed];
    while chosen.len() < seats {
        chosen.push(opponent(candidates, &chosen, tail, rng));
    }
    Some(seat_order(candidates, chosen, rng))
}

/// Whether the candidates come from at least `seats` different bots: stops as soon as they
/// do, which on a real ladder is after the first few (a set of every bot would cost more than
/// the whole pick).
fn has_bots(candidates: &[Candidate], seats: usize) -> bool {
    let mut bots: Vec<i64> = Vec::with_capacity(seats);
    for c in candidates {
        if !bots.contains(&c.bot) {
            bots.push(c.bot);
            if bots.len() == seats {
                return true;
            }
        }
    }
    false
}

/// The index of the version that most needs a game.
fn seed(candidates: &[Candidate]) -> Option<usize> {
    (0..candidates.len()).min_by_key(|&i| {
        let c = &candidates[i];
        (
            c.games.min(PRIORITY_GAMES),
            c.last_played.unwrap_or(i64::MIN),
            std::cmp::Reverse(c.created),
            c.version,
        )
    })
}

/// The index of one more opponent for the seed `chosen[0]`, of a bot not in `chosen`: the
/// candidate at the drawn rank in the order of (|Δμ|, a shuffle). Only the nearest `rank + 1`
/// are kept while scanning, in a heap: the rank is usually small, so a pick costs one pass
/// over the ladder and no sort.
fn opponent(candidates: &[Candidate], chosen: &[usize], tail: f64, rng: &mut impl Rng) -> usize {
    let free = |c: &Candidate| chosen.iter().all(|&i| candidates[i].bot != c.bot);
    // As many free candidates as there are others when each bot has one version on the
    // ladder, as it should; if some have more, a rank beyond them takes the farthest.
    let rank = window_rank(candidates.len() - chosen.len(), tail, rng);
    let mu = candidates[chosen[0]].rating.mu;
    // Ties (every newcomer has μ 25) go in an order drawn once per pick: one draw, not n.
    let salt: u64 = rng.random();
    let mut nearest: BinaryHeap<(u64, u64, usize)> = BinaryHeap::with_capacity(rank + 1);
    for (i, c) in candidates.iter().enumerate().filter(|(_, c)| free(c)) {
        // The bits of a non-negative float order as the float does.
        let key = (
            (c.rating.mu - mu).abs().to_bits(),
            mix(c.version as u64 ^ salt),
            i,
        );
        if nearest.len() <= rank {
            nearest.push(key);
        } else if let Some(mut farthest) = nearest.peek_mut()
            && key < *farthest
        {
            *farthest = key;
        }
    }
    nearest
        .peek()
        .expect("pick_match checked there are enough bots")
        .2
}

/// SplitMix64's finalizer: a bijection of u64 that scatters neighbouring inputs, so that the
/// order of `mix(version ^ salt)` is a fresh shuffle for every salt.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A rank from 0 to `n − 1` (`n` ≥ 1) from a discrete Pareto law truncated at `n`:
/// P(rank ≥ k) ∝ (k + 1)^−α − (n + 1)^−α, by inverting its distribution function.
fn window_rank(n: usize, alpha: f64, rng: &mut impl Rng) -> usize {
    let floor = ((n + 1) as f64).powf(-alpha);
    let t = floor + rng.random::<f64>() * (1.0 - floor);
    let rank = t.powf(-1.0 / alpha).floor() as usize - 1;
    rank.min(n - 1)
}

/// The chosen versions in seat order: seat 0 to the smallest first-seat share (ties in random
/// order), the others shuffled.
fn seat_order(candidates: &[Candidate], mut chosen: Vec<usize>, rng: &mut impl Rng) -> Vec<i64> {
    chosen.shuffle(rng);
    let first = (0..chosen.len())
        .min_by(|&a, &b| {
            let share = |i: usize| candidates[chosen[i]].first_seat_share();
            share(a).total_cmp(&share(b))
        })
        .unwrap_or(0);
    chosen.swap(0, first);
    chosen.iter().map(|&i| candidates[i].version).collect()
}

/// Counts a queued game in the candidates it seats, as the store counts a finished one:
/// a game more for each, played `now_ms`, and a first seat for seat 0. The scheduler calls it
/// when it queues several games from one candidate list, so that the seed of the next is not
/// the seed of this one again.
pub fn note_queued(candidates: &mut [Candidate], seats: &[i64], now_ms: i64) {
    for c in candidates.iter_mut() {
        if let Some(seat) = seats.iter().position(|&v| v == c.version) {
            c.games += 1;
            c.last_played = Some(now_ms);
            c.first_seats += u64::from(seat == 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use std::collections::BTreeSet;

    /// Version `v` of bot `v`, μ `mu`, with `games` games, created at time `v`.
    fn candidate(v: i64, mu: f64, games: u64) -> Candidate {
        Candidate {
            version: v,
            bot: v,
            team: v,
            rating: Rating { mu, sigma: 2.0 },
            games,
            last_played: (games > 0).then_some(1_000),
            created: v,
            robot: false,
            first_seats: 0,
        }
    }

    fn rng() -> StdRng {
        StdRng::seed_from_u64(29)
    }

    #[test]
    fn the_seed_has_the_fewest_games() {
        let ladder = vec![
            candidate(1, 25.0, 5),
            candidate(2, 25.0, 3),
            candidate(3, 25.0, 4),
        ];
        for _ in 0..20 {
            assert!(pick_match(&ladder, 2, &mut rng()).unwrap().contains(&2));
        }
        assert_eq!(seed(&ladder), Some(1));
    }

    #[test]
    fn past_the_priority_games_the_least_recently_played_is_the_seed() {
        let mut ladder = vec![
            candidate(1, 25.0, PRIORITY_GAMES),
            candidate(2, 25.0, 5000),
            candidate(3, 25.0, PRIORITY_GAMES - 1),
        ];
        ladder[0].last_played = Some(900);
        ladder[1].last_played = Some(800);
        assert_eq!(seed(&ladder), Some(2), "below the cap, fewest games first");
        ladder[2].games = PRIORITY_GAMES + 3;
        ladder[2].last_played = Some(950);
        assert_eq!(seed(&ladder), Some(1), "then the least recently played");
    }

    #[test]
    fn among_equal_games_the_seed_is_the_least_recently_played_never_played_first() {
        let mut ladder = vec![
            candidate(1, 25.0, 3),
            candidate(2, 25.0, 3),
            candidate(3, 25.0, 3),
        ];
        ladder[0].last_played = Some(500);
        ladder[1].last_played = Some(100);
        assert_eq!(seed(&ladder), Some(1));
        ladder[2].last_played = None;
        assert_eq!(seed(&ladder), Some(2));
    }

    #[test]
    fn among_equal_games_and_times_the_newest_version_is_the_seed() {
        let mut ladder = vec![
            candidate(1, 25.0, 0),
            candidate(2, 25.0, 0),
            candidate(3, 25.0, 0),
        ];
        ladder[1].created = 9_000;
        assert_eq!(seed(&ladder), Some(1));
    }

    #[test]
    fn every_seat_is_a_different_bot() {
        // Bots 1..=3, two versions each (an old and a new one, say).
        let ladder: Vec<Candidate> = (1..=6)
            .map(|v| Candidate {
                bot: (v + 1) / 2,
                ..candidate(v, 20.0 + v as f64, 0)
            })
            .collect();
        let mut rng = rng();
        for _ in 0..200 {
            let game = pick_match(&ladder, 3, &mut rng).unwrap();
            let bots: BTreeSet<i64> = game.iter().map(|v| (v + 1) / 2).collect();
            assert_eq!(bots.len(), 3, "{game:?}");
        }
        assert_eq!(pick_match(&ladder, 4, &mut rng), None);
    }

    #[test]
    fn too_few_bots_give_no_game() {
        let mut rng = rng();
        assert_eq!(pick_match(&[], 2, &mut rng), None);
        assert_eq!(pick_match(&[candidate(1, 25.0, 0)], 2, &mut rng), None);
        let two = [candidate(1, 25.0, 0), candidate(2, 25.0, 0)];
        assert_eq!(pick_match(&two, 0, &mut rng), None);
        assert_eq!(pick_match(&two, 3, &mut rng), None);
        assert_eq!(pick_match(&two, 1, &mut rng).map(|g| g.len()), Some(1));
        assert_eq!(pick_match(&two, 2, &mut rng).map(|g| g.len()), Some(2));
    }

    #[test]
    fn the_window_prefers_near_ratings_but_sometimes_reaches_far() {
        // The seed (no games) at μ 50; the others one apart from 0 to 100, so rank distance
        // k is the pair of versions at 50 ± (k/2 + 1).
        let mut ladder: Vec<Candidate> = (0..=100).map(|v| candidate(v, v as f64, 5)).collect();
        ladder[50].games = 0;
        let mut rng = rng();
        let distances: Vec<f64> = (0..4000)
            .map(|_| {
                let game = pick_match(&ladder, 2, &mut rng).unwrap();
                let other = game.iter().find(|&&v| v != 50).unwrap();
                (*other as f64 - 50.0).abs()
            })
            .collect();
        let nearest = distances.iter().filter(|&&d| d == 1.0).count();
        let far = distances.iter().filter(|&&d| d >= 20.0).count();
        // P(rank ≤ 1) ≈ 2/3, P(rank ≥ 38) ≈ 1/39 − 1/101 ≈ 1.6%.
        assert!(nearest > 2400, "{nearest} of 4000 at distance 1");
        assert!(
            (20..150).contains(&far),
            "{far} of 4000 at distance 20 or more"
        );
    }

    #[test]
    fn window_ranks_follow_the_truncated_pareto_law() {
        let mut rng = rng();
        let mut counts = [0u32; 7];
        for _ in 0..7000 {
            counts[window_rank(7, 1.0, &mut rng)] += 1;
        }
        // P(0) = (1 − 1/2) / (1 − 1/8) ≈ 0.571, P(6) = (1/7 − 1/8) / (7/8) ≈ 0.020.
        assert!((3800..4200).contains(&counts[0]), "{counts:?}");
        assert!((90..200).contains(&counts[6]), "{counts:?}");
        assert!(counts.windows(2).all(|w| w[0] > w[1]), "{counts:?}");
        assert!((0..100).all(|_| window_rank(1, 1.0, &mut rng) == 0));
    }

    #[test]
    fn seat_zero_goes_to_the_smallest_first_seat_share() {
        let mut ladder = vec![candidate(1, 25.0, 10), candidate(2, 25.0, 10)];
        ladder[0].first_seats = 6;
        ladder[1].first_seats = 4;
        for seed in 0..20 {
            let game = pick_match(&ladder, 2, &mut StdRng::seed_from_u64(seed)).unwrap();
            assert_eq!(game, vec![2, 1]);
        }
    }

    #[test]
    fn over_many_games_everyone_moves_first_in_its_fair_share() {
        for (versions, seats) in [(5, 2), (8, 4)] {
            let mut ladder: Vec<Candidate> =
                (1..=versions).map(|v| candidate(v, v as f64, 0)).collect();
            let mut rng = rng();
            for now in 0..3000 {
                let game = pick_match(&ladder, seats, &mut rng).unwrap();
                note_queued(&mut ladder, &game, now);
            }
            for c in &ladder {
                let share = c.first_seats as f64 / c.games as f64;
                assert!((share - 1.0 / seats as f64).abs() < 0.01, "{c:?}");
            }
        }
    }

    #[test]
    fn nobody_is_starved_of_games() {
        // The middle of a ladder is near more seeds, so it plays more as an opponent; seeding
        // the least recently played keeps the edges within reach of the mean.
        let mut ladder: Vec<Candidate> = (1..=9).map(|v| candidate(v, v as f64, 0)).collect();
        let mut rng = rng();
        for now in 0..4500 {
            let game = pick_match(&ladder, 2, &mut rng).unwrap();
            note_queued(&mut ladder, &game, now);
        }
        let games: Vec<u64> = ladder.iter().map(|c| c.games).collect();
        assert!(games.iter().all(|g| (750..=1250).contains(g)), "{games:?}");
    }

    #[test]
    fn the_same_rng_seed_gives_the_same_games() {
        let ladder: Vec<Candidate> = (1..=30).map(|v| candidate(v, v as f64, 0)).collect();
        let games = |seed: u64| {
            let (mut ladder, mut rng) = (ladder.clone(), StdRng::seed_from_u64(seed));
            (0..100)
                .map(|now| {
                    let game = pick_match(&ladder, 4, &mut rng).unwrap();
                    note_queued(&mut ladder, &game, now);
                    game
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(games(5), games(5));
        assert_ne!(games(5), games(6));
    }

    #[test]
    fn noting_a_queued_game_counts_it_for_its_seats_only() {
        let mut ladder = vec![
            candidate(1, 25.0, 0),
            candidate(2, 25.0, 0),
            candidate(3, 25.0, 0),
        ];
        note_queued(&mut ladder, &[3, 1], 77);
        assert_eq!((ladder[2].games, ladder[2].first_seats), (1, 1));
        assert_eq!((ladder[0].games, ladder[0].first_seats), (1, 0));
        assert_eq!(ladder[0].last_played, Some(77));
        assert_eq!((ladder[1].games, ladder[1].last_played), (0, None));
    }
}
