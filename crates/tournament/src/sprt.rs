//! SPRT tournaments (`arbiter sprt`): two players, A and B, in pairs of games — one seed a
//! pair, seats swapped, and so for Domino one board — queued a round of pairs at a time until a
//! sequential probability ratio test accepts a hypothesis or the pairs run out.
//!
//! Everything is a function of what the store holds, so a test resumes after a kill and any
//! worker moves it on: the test looks at the complete rounds in order (a round is complete when
//! none of its matches is queued or running), counts each pair whose two games were played,
//! and stops at the first round after which its ratio leaves the bounds. A pair with a game
//! that failed for good (Arbiter's or the machine's trouble, after its last attempt) is dropped:
//! neither game counts. Matches still running when the test decides are played out but not
//! counted; those still queued are removed.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use arbiter_sprt::{Pentanomial, Sprt, Status, Verdict};
use arbiter_store::{Advance, MatchRow, MatchState, NewMatch, Round, Standing, Tournament};
use serde::{Deserialize, Serialize};

use crate::players::Contestant;
use crate::schedule::match_seed;
use crate::standings::round_ratings;

/// Rounds of pairs queued beyond the complete ones: enough that workers do not wait for the
/// slowest match of a round, few enough that little is played after the test decides.
pub const ROUNDS_AHEAD: u32 = 3;

/// What an SPRT tournament plays and tests, stored with its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtPlan {
    /// The hypotheses, error rates and model.
    pub test: Sprt,
    /// The players as given on the command line: A, then B.
    pub specs: [String; 2],
    /// Their ids in the tournament: A, then B (B's is A's with `#2` when both are the same).
    pub players: [String; 2],
    /// Pairs in a round: the test is checked after each complete round.
    pub pairs_a_round: u32,
    /// The most pairs played before the test stops undecided.
    pub max_pairs: u64,
}

impl SprtPlan {
    /// Rounds in all, the last one perhaps short.
    pub fn rounds(&self) -> u32 {
        let per = u64::from(self.pairs_a_round.max(1));
        self.max_pairs.div_ceil(per).min(u64::from(u32::MAX)) as u32
    }

    /// The matches of `rounds`: for each pair, A then B in seat 0, both with the pair's seed.
    pub fn matches(&self, seed: u64, rounds: RangeInclusive<u32>) -> Vec<NewMatch> {
        let per = u64::from(self.pairs_a_round.max(1));
        let mut out = Vec::new();
        for round in rounds {
            let first = u64::from(round - 1) * per + 1;
            let last = (u64::from(round) * per).min(self.max_pairs);
            for pair in first..=last {
                let [a, b] = &self.players;
                for (k, seats) in [[a, b], [b, a]].into_iter().enumerate() {
                    out.push(NewMatch {
                        id: (2 * pair - 1 + k as u64) as i64,
                        round,
                        seats: seats.map(String::clone).to_vec(),
                        seed: match_seed(seed, pair),
                    });
                }
            }
        }
        out
    }

    /// The test over the complete rounds of `matches`, in order: its state after the first
    /// round that decides, or after the last complete one.
    pub fn tally(&self, matches: &[MatchRow]) -> Tally {
        let rounds = self.rounds_counted(matches);
        let complete = complete_rounds(matches);
        let mut counted = 0;
        let status = self.test.run(
            rounds
                .into_iter()
                .take_while(|(round, _)| *round <= complete)
                .inspect(|(round, _)| counted = *round)
                .map(|(_, counts)| counts),
        );
        Tally {
            status,
            rounds: counted,
        }
    }

    /// The pentanomial counts of the complete pairs of each round.
    fn rounds_counted(&self, matches: &[MatchRow]) -> BTreeMap<u32, Pentanomial> {
        let mut games: BTreeMap<i64, (u32, Option<f64>, Option<f64>)> = BTreeMap::new();
        let mut rounds: BTreeMap<u32, Pentanomial> = BTreeMap::new();
        for m in matches {
            rounds.entry(m.round).or_default();
            let pair = (m.id + 1) / 2;
            let entry = games.entry(pair).or_insert((m.round, None, None));
            let points = self.points_of_a(m);
            if m.id % 2 == 1 {
                entry.1 = points;
            } else {
                entry.2 = points;
            }
        }
        for (round, first, second) in games.into_values() {
            if let (Some(first), Some(second)) = (first, second) {
                rounds.entry(round).or_default().add_pair(first, second);
            }
        }
        rounds
    }

    /// A's points in a played match: 1 for the best score alone, ½ for a shared best, 0
    /// otherwise (as the standings count wins and draws).
    fn points_of_a(&self, m: &MatchRow) -> Option<f64> {
        let result = m.result.as_ref().filter(|_| m.state == MatchState::Done)?;
        let seat = m.seats.iter().position(|s| *s == self.players[0])?;
        let mine = *result.scores.get(seat)?;
        let best = result.scores.iter().copied().fold(f64::MIN, f64::max);
        let sharing = result.scores.iter().filter(|&&s| s == best).count();
        Some(match (mine == best, sharing) {
            (true, 1) => 1.0,
            (true, _) => 0.5,
            (false, _) => 0.0,
        })
    }

    /// What the tournament needs now (see [`crate::plan::advance`]): the ratings of the rounds
    /// just completed; then either the end — the test decided (the queued matches go), or every
    /// round is over — or more rounds, to keep [`ROUNDS_AHEAD`] beyond the complete ones.
    pub fn advance(&self, t: &Tournament, players: &[Contestant], standing: &Standing) -> Advance {
        let complete = complete_rounds(&standing.matches);
        let ratings = round_ratings(t, players, standing, complete);
        let last = standing.matches.iter().map(|m| m.round).max().unwrap_or(0);
        let decided = self.tally(&standing.matches).status.verdict != Verdict::Continue;
        if decided || complete >= self.rounds() {
            return Advance {
                ratings,
                finished: true,
                drop_queued: true,
                ..Advance::default()
            };
        }
        let wanted = complete.saturating_add(ROUNDS_AHEAD).min(self.rounds());
        let round = (wanted > last).then(|| Round {
            matches: self.matches(t.seed, last + 1..=wanted),
            bye: None,
        });
        Advance {
            ratings,
            round,
            ..Advance::default()
        }
    }
}

/// The last round such that it and every round before it has nothing queued or running.
fn complete_rounds(matches: &[MatchRow]) -> u32 {
    let open = |m: &&MatchRow| matches!(m.state, MatchState::Queued | MatchState::Running);
    let last = matches.iter().map(|m| m.round).max().unwrap_or(0);
    match matches.iter().filter(open).map(|m| m.round).min() {
        Some(first_open) => first_open - 1,
        None => last,
    }
}

/// The test as the store shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tally {
    /// The ratio, its bounds, the counts and the estimate.
    pub status: Status,
    /// The rounds counted.
    pub rounds: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::tests::done;
    use arbiter_sprt::Model;

    fn plan(max_pairs: u64) -> SprtPlan {
        SprtPlan {
            test: Sprt::new(0.0, 10.0, 0.05, 0.05, Model::Normalized).unwrap(),
            specs: ["builtin:random".into(), "builtin:random".into()],
            players: ["builtin:random".into(), "builtin:random#2".into()],
            pairs_a_round: 2,
            max_pairs,
        }
    }

    fn played(m: &NewMatch, scores: [f64; 2]) -> MatchRow {
        let seats: Vec<&str> = m.seats.iter().map(String::as_str).collect();
        MatchRow {
            round: m.round,
            seed: m.seed,
            ..done(m.id, &seats, &scores, vec![])
        }
    }

    #[test]
    fn a_pair_shares_its_seed_and_swaps_seats() {
        let matches = plan(5).matches(7, 1..=3);
        assert_eq!(matches.len(), 10, "the last round is short");
        assert_eq!(matches[0].seats, ["builtin:random", "builtin:random#2"]);
        assert_eq!(matches[1].seats, ["builtin:random#2", "builtin:random"]);
        assert_eq!(matches[0].seed, matches[1].seed);
        assert_ne!(matches[0].seed, matches[2].seed);
        let ids: Vec<i64> = matches.iter().map(|m| m.id).collect();
        assert_eq!(ids, (1..=10).collect::<Vec<_>>());
        assert_eq!(matches[9].round, 3);
        assert_eq!(plan(5).rounds(), 3);
    }

    fn standing(matches: Vec<MatchRow>) -> Standing {
        Standing {
            matches,
            byes: vec![],
            rated: 0,
        }
    }

    fn queued(m: &NewMatch) -> MatchRow {
        MatchRow {
            state: MatchState::Queued,
            result: None,
            ..played(m, [0.0, 0.0])
        }
    }

    #[test]
    fn rounds_are_queued_ahead_until_the_test_decides() {
        let p = plan(1000);
        let t = Tournament {
            id: 1,
            game: "quoridor".into(),
            format: arbiter_store::Format::Sprt,
            seed: 4,
            rounds: p.rounds(),
            players_per_match: 2,
            settings: serde_json::Value::Null,
            created: 0,
            finished: None,
            max_attempts: 3,
            name: None,
        };
        let players: Vec<Contestant> = ["random", "random#2"].map(Contestant::builtin).to_vec();
        // Round 1 of 3 played, A losing everything: one more round queued behind round 3.
        let new = p.matches(t.seed, 1..=ROUNDS_AHEAD);
        let mut rows: Vec<MatchRow> = new.iter().map(queued).collect();
        for (i, m) in new.iter().enumerate().take(4) {
            rows[i] = played(m, if i % 2 == 0 { [0.0, 1.0] } else { [1.0, 0.0] });
        }
        let advance = p.advance(&t, &players, &standing(rows.clone()));
        assert!(!advance.finished && !advance.drop_queued);
        let round = advance.round.expect("a round queued");
        assert_eq!(round.matches, p.matches(t.seed, 4..=4));
        assert_eq!(advance.ratings.len(), 1, "round 1's ratings");
        // Enough lost pairs: H0, the end, the queued pairs dropped.
        let many = p.matches(t.seed, 1..=40);
        let lost: Vec<MatchRow> = many
            .iter()
            .enumerate()
            .map(|(i, m)| played(m, if i % 2 == 0 { [0.0, 1.0] } else { [1.0, 0.0] }))
            .collect();
        let advance = p.advance(&t, &players, &standing(lost.clone()));
        assert!(advance.finished && advance.drop_queued && advance.round.is_none());
        let tally = p.tally(&lost);
        assert_eq!(tally.status.verdict, Verdict::H0);
        assert!(tally.rounds < 40, "stopped at the first round that decided");
    }

    #[test]
    fn only_complete_pairs_of_complete_rounds_count() {
        let p = plan(100);
        let new = p.matches(1, 1..=2);
        let mut rows: Vec<MatchRow> = new.iter().map(|m| played(m, [1.0, 0.0])).collect();
        // Pair 2 lost a game for good: dropped. Pair 3 (round 2) still plays: not counted.
        rows[3].state = MatchState::Failed;
        rows[3].result = None;
        rows[5].state = MatchState::Running;
        rows[5].result = None;
        let tally = p.tally(&rows);
        assert_eq!(tally.rounds, 1);
        // Pair 1: A won as seat 0 and lost as seat 1 (seat 0 always wins): 1 point of 2.
        assert_eq!(tally.status.counts.0, [0, 0, 1, 0, 0]);
        rows[5] = played(&new[5], [0.0, 1.0]);
        let tally = p.tally(&rows);
        assert_eq!(tally.rounds, 2);
        assert_eq!(tally.status.counts.0, [0, 0, 2, 0, 1]);
    }
}
