//! Which matches a tournament has: the schedule written when it is created, and for Swiss the
//! next round, paired from the results once the previous one is over.

use std::collections::HashMap;

use crate::TournamentError;
use crate::players::Contestant;
use crate::schedule::{Format, Pairing, match_seed, round_rng, schedule};
use crate::settings::StoredSettings;
use crate::standings::{BYE_POINTS, round_ratings};
use crate::swiss::{SwissRecord, pair_round};
use arbiter_store::{Advance, MatchRow, MatchState, NewMatch, Round, Standing, Tournament};

/// The players who play, in the order schedules index them (by id).
pub fn playing(players: &[Contestant]) -> Vec<&Contestant> {
    let mut out: Vec<&Contestant> = players.iter().filter(|p| p.status.plays()).collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The player who sits out a Swiss round: (round, player id).
pub type Bye = Option<(u32, String)>;

/// The first matches of a new tournament: all of them, or Swiss's first round and its bye.
pub fn initial_matches(
    t: &Tournament,
    players: &[Contestant],
    challenger: Option<&str>,
) -> Result<(Vec<NewMatch>, Bye), TournamentError> {
    let playing = playing(players);
    if t.format == Format::Swiss {
        if t.players_per_match != 2 {
            return Err(TournamentError::Schedule(format!(
                "Swiss pairs two players; this game has {} players a match (use --format groups \
                 or round-robin)",
                t.players_per_match
            )));
        }
        if playing.len() < 2 {
            return Err(TournamentError::Schedule(format!(
                "a match needs 2 players but only {} can play",
                playing.len()
            )));
        }
        return Ok(swiss_round(t, &playing, &[], &[], 1, 1));
    }
    let challenger = match challenger {
        Some(c) => Some(playing.iter().position(|p| p.id == c).ok_or_else(|| {
            TournamentError::Schedule(format!("the challenger {c} does not play"))
        })?),
        None => None,
    };
    let pairings = schedule(
        t.format,
        playing.len(),
        t.players_per_match,
        t.rounds,
        challenger,
        t.seed,
    )?;
    Ok((numbered(t.seed, &playing, 1, pairings), None))
}

fn numbered(
    seed: u64,
    playing: &[&Contestant],
    first_id: i64,
    pairings: Vec<Pairing>,
) -> Vec<NewMatch> {
    pairings
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let id = first_id + i as i64;
            NewMatch {
                id,
                round: p.round,
                seats: p.seats.iter().map(|&s| playing[s].id.clone()).collect(),
                seed: match_seed(seed, id as u64),
            }
        })
        .collect()
}

/// What a tournament needs now that results came in: the ratings of the rounds they completed,
/// the next Swiss round once every round so far is over, and whether it is over. A function of
/// what the store holds (the caller runs it under the store's lock), so whichever worker
/// finishes a round's last match, the round is paired once and the same way.
pub fn advance(t: &Tournament, players: &[Contestant], standing: &Standing) -> Advance {
    if t.format == Format::Sprt {
        return match StoredSettings::<serde::de::IgnoredAny>::of(t).map(|s| s.sprt) {
            Ok(Some(plan)) => plan.advance(t, players, standing),
            // Settings this Arbiter cannot read: nothing is decided (the arena, made from the
            // same settings, tells why).
            _ => Advance::default(),
        };
    }
    let matches = &standing.matches;
    let open = |m: &&MatchRow| matches!(m.state, MatchState::Queued | MatchState::Running);
    let first_open = matches.iter().filter(open).map(|m| m.round).min();
    let last = matches.iter().map(|m| m.round).max().unwrap_or(0);
    let complete = first_open.map_or(last, |open| open - 1);
    let ratings = round_ratings(t, players, standing, complete);
    if first_open.is_some() {
        return Advance {
            ratings,
            ..Advance::default()
        };
    }
    let paired = last.max(standing.byes.iter().map(|b| b.0).max().unwrap_or(0));
    let round = (t.format == Format::Swiss && paired < t.rounds)
        .then(|| next_swiss_round(t, players, matches, &standing.byes, paired + 1))
        .filter(|(new, _)| !new.is_empty())
        .map(|(matches, bye)| Round { matches, bye });
    Advance {
        ratings,
        finished: round.is_none(),
        round,
        ..Advance::default()
    }
}

/// Swiss round `round`, numbered after the matches so far.
fn next_swiss_round(
    t: &Tournament,
    players: &[Contestant],
    matches: &[MatchRow],
    byes: &[(u32, String)],
    round: u32,
) -> (Vec<NewMatch>, Bye) {
    let first_id = matches.iter().map(|m| m.id).max().unwrap_or(0) + 1;
    swiss_round(t, &playing(players), matches, byes, round, first_id)
}

/// How many matches a Swiss round has: every pair plays both seat orders.
pub fn swiss_round_size(players: usize) -> usize {
    players / 2 * 2
}

fn swiss_round(
    t: &Tournament,
    playing: &[&Contestant],
    matches: &[MatchRow],
    byes: &[(u32, String)],
    round: u32,
    first_id: i64,
) -> (Vec<NewMatch>, Bye) {
    let index: HashMap<&str, usize> = playing
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    let n = playing.len();
    let mut records = vec![SwissRecord::default(); n];
    let mut met = vec![vec![0u32; n]; n];
    for m in matches {
        let seats: Option<Vec<usize>> = m
            .seats
            .iter()
            .map(|s| index.get(s.as_str()).copied())
            .collect();
        let Some(seats) = seats else { continue };
        if let [a, b] = seats[..] {
            // Both seat orders of a pairing are one meeting.
            if m.seats[0] < m.seats[1] {
                met[a][b] += 1;
                met[b][a] += 1;
            }
        }
        if let Some(result) = &m.result {
            for (seat, &p) in seats.iter().enumerate() {
                records[p].points += result.scores.get(seat).copied().unwrap_or(0.0);
            }
        }
    }
    for (_, player) in byes {
        if let Some(&p) = index.get(player.as_str()) {
            records[p].points += BYE_POINTS;
            records[p].byes += 1;
        }
    }
    let mut rng = round_rng(t.seed, round);
    let paired = pair_round(&records, |a, b| met[a][b], &mut rng);
    let mut out = Vec::new();
    for (a, b) in paired.pairs {
        for seats in [[a, b], [b, a]] {
            out.push(NewMatch {
                id: 0,
                round,
                seats: seats.iter().map(|&s| playing[s].id.clone()).collect(),
                seed: 0,
            });
        }
    }
    let out = out
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let id = first_id + i as i64;
            NewMatch {
                id,
                seed: match_seed(t.seed, id as u64),
                ..m
            }
        })
        .collect();
    (out, paired.bye.map(|b| (round, playing[b].id.clone())))
}
