//! Which matches a tournament has: the schedule written when it is created, and for Swiss the
//! next round, paired from the results once the previous one is over.

use std::collections::HashMap;

use crate::TournamentError;
use crate::players::Contestant;
use crate::schedule::{Format, Pairing, match_seed, round_rng, schedule};
use crate::standings::BYE_POINTS;
use crate::swiss::{SwissRecord, pair_round};
use arbiter_store::blocking::Store;
use arbiter_store::{MatchRow, MatchState, NewMatch, Tournament};

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
        return Ok(swiss_round(t, &playing, &[], &[], 1));
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

/// Pairs the next Swiss round if the tournament is Swiss, the rounds so far are all over and
/// rounds are left. Returns whether a round was added.
pub fn next_swiss_round(
    store: &Store,
    t: &Tournament,
    players: &[Contestant],
    matches: &[MatchRow],
) -> Result<Option<u32>, TournamentError> {
    if t.format != Format::Swiss {
        return Ok(None);
    }
    if matches
        .iter()
        .any(|m| matches!(m.state, MatchState::Queued | MatchState::Running))
    {
        return Ok(None);
    }
    let byes = store.byes(t.id)?;
    let last = matches
        .iter()
        .map(|m| m.round)
        .chain(byes.iter().map(|b| b.0))
        .max()
        .unwrap_or(0);
    if last >= t.rounds {
        return Ok(None);
    }
    let playing = playing(players);
    let round = last + 1;
    let (new, bye) = swiss_round(t, &playing, matches, &byes, round);
    let first_id = matches.iter().map(|m| m.id).max().unwrap_or(0) + 1;
    let new: Vec<NewMatch> = new
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
    store.add_round(t.id, &new, bye.as_ref().map(|(r, p)| (*r, p.as_str())))?;
    Ok(Some(round))
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
    let first_id = 1;
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
