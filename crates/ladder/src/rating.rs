//! Weng-Lin ratings, as skillratings computes them.
//!
//! Why Weng-Lin and not TrueSkill: both keep a Gaussian belief (μ, σ) per player, so μ − 3σ
//! means the same on the leaderboard; but Weng-Lin's update is closed-form over the pairs of
//! places (no factor graph to iterate, no draw margin to tune), so a 4-player game with ties
//! costs a few dozen floating-point operations, and replaying the stored results gives the very
//! same numbers. The tournament crate already rates multi-player tables with it.

use std::collections::BTreeMap;

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// A version's rating: the mean μ of its skill and the uncertainty σ about it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rating {
    /// The estimated skill.
    pub mu: f64,
    /// The standard deviation of that estimate.
    pub sigma: f64,
}

impl Rating {
    /// Where a version without a predecessor starts: Weng-Lin's defaults, μ 25 and σ 25/3.
    pub const INITIAL: Rating = Rating {
        mu: 25.0,
        sigma: 25.0 / 3.0,
    };

    /// The leaderboard's score, μ − 3σ: a skill the version has with about 99.9% confidence,
    /// so that a lucky newcomer with few games does not top the ladder.
    pub fn score(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// Where a new version of the same bot starts: the predecessor's μ (a new version is most
    /// likely about as strong) with σ reset to the initial one (it may not be).
    pub fn inherited(&self) -> Rating {
        Rating {
            mu: self.mu,
            sigma: Rating::INITIAL.sigma,
        }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::INITIAL
    }
}

/// The ratings of one game's seats after it: Weng-Lin, each seat its own team; `places[i]` is
/// seat i's place, 1 the best, equal places a tie. Same length in and out.
///
/// # Panics
/// If `seats` and `places` differ in length: the caller mixed up two games.
pub fn rate(seats: &[Rating], places: &[u32]) -> Vec<Rating> {
    assert_eq!(
        seats.len(),
        places.len(),
        "a game's ratings and places differ in length"
    );
    let teams: Vec<[WengLinRating; 1]> = seats
        .iter()
        .map(|r| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(places)
        .map(|(team, &place)| (&team[..], MultiTeamOutcome::new(place as usize)))
        .collect();
    weng_lin_multi_team(&ranked, &WengLinConfig::new())
        .into_iter()
        .map(|team| Rating {
            mu: team[0].rating,
            sigma: team[0].uncertainty,
        })
        .collect()
}

/// One step of a game's rating history, in the order the store applied them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RatingEvent {
    /// A version joined the ladder, inheriting (see [`Rating::inherited`]) the rating that
    /// `inherits` had at that moment, or starting at [`Rating::INITIAL`].
    Start {
        /// The version that joined.
        version: i64,
        /// Its predecessor, if it has one.
        inherits: Option<i64>,
    },
    /// A rated game: the versions in seat order and their places (1 the best).
    Result {
        /// Version ids, in seat order.
        seats: Vec<i64>,
        /// Each seat's place, 1 the best, equal places tied.
        places: Vec<u32>,
    },
}

/// The ratings after replaying `events` in order: what the store must hold if every live update
/// was applied once, in result order. A version seen in a result before any `Start` starts at
/// [`Rating::INITIAL`]; a predecessor never seen counts as initial too; a second `Start` of the
/// same version starts it again.
pub fn recompute(events: impl IntoIterator<Item = RatingEvent>) -> BTreeMap<i64, Rating> {
    let mut ratings = BTreeMap::new();
    for event in events {
        apply(&mut ratings, &event);
    }
    ratings
}

/// Applies one event to `ratings`.
fn apply(ratings: &mut BTreeMap<i64, Rating>, event: &RatingEvent) {
    let current = |ratings: &BTreeMap<i64, Rating>, v: &i64| {
        ratings.get(v).copied().unwrap_or(Rating::INITIAL)
    };
    match event {
        RatingEvent::Start { version, inherits } => {
            let start = inherits.map_or(Rating::INITIAL, |old| current(ratings, &old).inherited());
            ratings.insert(*version, start);
        }
        RatingEvent::Result { seats, places } => {
            let before: Vec<Rating> = seats.iter().map(|v| current(ratings, v)).collect();
            for (version, after) in seats.iter().zip(rate(&before, places)) {
                ratings.insert(*version, after);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_win_raises_mu_and_lowers_sigma_a_loss_lowers_mu() {
        let after = rate(&[Rating::INITIAL, Rating::INITIAL], &[1, 2]);
        assert!(after[0].mu > 25.0 && after[1].mu < 25.0);
        assert!(after[0].sigma < Rating::INITIAL.sigma);
        assert!(after[1].sigma < Rating::INITIAL.sigma);
        assert!(close(after[0].mu - 25.0, 25.0 - after[1].mu), "{after:?}");
    }

    #[test]
    fn a_tie_between_equals_moves_no_mu_but_lowers_sigma() {
        let after = rate(&[Rating::INITIAL, Rating::INITIAL], &[1, 1]);
        for r in &after {
            assert!(close(r.mu, 25.0));
            assert!(r.sigma < Rating::INITIAL.sigma);
        }
    }

    #[test]
    fn a_tie_with_a_stronger_player_raises_the_weaker() {
        let strong = Rating {
            mu: 35.0,
            sigma: 3.0,
        };
        let after = rate(&[strong, Rating::INITIAL], &[1, 1]);
        assert!(after[0].mu < 35.0 && after[1].mu > 25.0);
    }

    #[test]
    fn four_places_order_the_new_mus_and_tied_seats_stay_equal() {
        let after = rate(&[Rating::INITIAL; 4], &[3, 1, 4, 1]);
        assert!(close(after[1].mu, after[3].mu));
        assert!(after[1].mu > after[0].mu && after[0].mu > after[2].mu);
        assert!(after[0].mu < 25.0 && after[1].mu > 25.0);
        assert_eq!(after.len(), 4);
    }

    #[test]
    fn the_seat_order_does_not_matter_only_the_places() {
        let (a, b, c) = (
            Rating {
                mu: 30.0,
                sigma: 4.0,
            },
            Rating {
                mu: 20.0,
                sigma: 6.0,
            },
            Rating::INITIAL,
        );
        let one = rate(&[a, b, c], &[2, 1, 3]);
        let other = rate(&[c, a, b], &[3, 2, 1]);
        assert_eq!((one[0], one[1], one[2]), (other[1], other[2], other[0]));
    }

    #[test]
    fn score_is_mu_minus_three_sigma_and_inheriting_resets_only_sigma() {
        let r = Rating {
            mu: 31.0,
            sigma: 2.0,
        };
        assert!(close(r.score(), 25.0));
        assert!(close(Rating::INITIAL.score(), 0.0));
        assert_eq!(
            r.inherited(),
            Rating {
                mu: 31.0,
                sigma: 25.0 / 3.0
            }
        );
    }

    fn game(seats: &[i64], places: &[u32]) -> RatingEvent {
        RatingEvent::Result {
            seats: seats.to_vec(),
            places: places.to_vec(),
        }
    }

    fn start_event(version: i64, inherits: Option<i64>) -> RatingEvent {
        RatingEvent::Start { version, inherits }
    }

    #[test]
    fn recompute_equals_applying_each_game_by_hand() {
        let events = vec![
            start_event(1, None),
            start_event(2, None),
            start_event(3, None),
            game(&[1, 2], &[1, 2]),
            game(&[3, 2, 1], &[1, 1, 3]),
            game(&[2, 3], &[2, 1]),
        ];
        let mut by_hand = [Rating::INITIAL; 4];
        let step = rate(&[by_hand[1], by_hand[2]], &[1, 2]);
        (by_hand[1], by_hand[2]) = (step[0], step[1]);
        let step = rate(&[by_hand[3], by_hand[2], by_hand[1]], &[1, 1, 3]);
        (by_hand[3], by_hand[2], by_hand[1]) = (step[0], step[1], step[2]);
        let step = rate(&[by_hand[2], by_hand[3]], &[2, 1]);
        (by_hand[2], by_hand[3]) = (step[0], step[1]);
        let ratings = recompute(events);
        assert_eq!(ratings.len(), 3);
        for v in 1..=3 {
            assert_eq!(ratings[&v], by_hand[v as usize], "version {v}");
        }
    }

    #[test]
    fn a_new_version_inherits_the_predecessors_mu_at_its_start_with_sigma_reset() {
        let ratings = recompute(vec![
            start_event(1, None),
            start_event(2, None),
            game(&[1, 2], &[1, 2]),
            game(&[1, 2], &[1, 2]),
            start_event(3, Some(1)),
            game(&[1, 2], &[2, 1]),
        ]);
        let old_at_start = recompute(vec![
            start_event(1, None),
            start_event(2, None),
            game(&[1, 2], &[1, 2]),
            game(&[1, 2], &[1, 2]),
        ])[&1];
        assert!(old_at_start.mu > 25.0);
        assert_eq!(ratings[&3], old_at_start.inherited());
        assert_ne!(
            ratings[&1], old_at_start,
            "the old version's later games count for it"
        );
    }

    #[test]
    fn a_version_without_a_start_or_with_an_unknown_predecessor_starts_initial() {
        let ratings = recompute(vec![start_event(5, Some(99)), game(&[5, 6], &[1, 1])]);
        let expected = rate(&[Rating::INITIAL, Rating::INITIAL], &[1, 1]);
        assert_eq!(ratings[&5], expected[0]);
        assert_eq!(ratings[&6], expected[1]);
        assert!(!ratings.contains_key(&99));
    }

    #[test]
    fn recompute_of_a_long_random_history_equals_the_live_updates() {
        use rand::rngs::StdRng;
        use rand::seq::IndexedRandom;
        use rand::{Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(29);
        let (mut live, mut events) = (BTreeMap::<i64, Rating>::new(), Vec::new());
        let mut versions: Vec<i64> = Vec::new();
        for step in 0..2000 {
            if versions.len() < 4 || rng.random_range(0..20) == 0 {
                let inherits = versions.choose(&mut rng).copied();
                let start = inherits.map_or(Rating::INITIAL, |v| live[&v].inherited());
                live.insert(step, start);
                versions.push(step);
                events.push(start_event(step, inherits));
                continue;
            }
            let count = rng.random_range(2..=4);
            let seats: Vec<i64> = versions.choose_multiple(&mut rng, count).copied().collect();
            let places: Vec<u32> = seats.iter().map(|_| rng.random_range(1..=3)).collect();
            let before: Vec<Rating> = seats.iter().map(|v| live[v]).collect();
            for (v, after) in seats.iter().zip(rate(&before, &places)) {
                live.insert(*v, after);
            }
            events.push(game(&seats, &places));
        }
        assert_eq!(recompute(events), live);
    }

    #[test]
    fn a_rating_is_stored_as_mu_and_sigma() {
        let json = serde_json::to_value(Rating::INITIAL).unwrap();
        assert_eq!(json, serde_json::json!({"mu": 25.0, "sigma": 25.0 / 3.0}));
    }

    #[test]
    #[should_panic(expected = "differ in length")]
    fn places_of_another_length_are_a_bug() {
        let _ = rate(&[Rating::INITIAL, Rating::INITIAL], &[1]);
    }
}
