//! The table: points, wins, draws and losses, ratings, faults and thinking time per player,
//! computed from the matches played, and its exports (text, JSON, CSV, cross-table).

use std::collections::HashMap;
use std::fmt::Write;

use serde::Serialize;

use crate::play::CANNOT_START;
use crate::players::Contestant;
use crate::ratings::{
    Duel, conservative, elo_error95, elo_ratings, likelihood_of_superiority, weng_lin_ratings,
};
use arbiter_store::{MatchRow, MatchState, RatingRow, Tournament};
use arbiter_text::for_terminal;

/// Points a bye is worth in a Swiss tournament: a pairing's full score (two games, one point
/// each), as a Swiss system gives the player left over a won round.
pub const BYE_POINTS: f64 = 2.0;

/// One player's row of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The player's id.
    pub player: String,
    /// The player's display name.
    pub alias: String,
    /// Games played.
    pub games: u32,
    /// Points scored, byes included.
    pub points: f64,
    /// Games won outright (the best score, not shared).
    pub wins: u32,
    /// Wins because the opponent timed out: the Polish judge's leaderboard counts these
    /// (its "knockouts").
    pub knockouts: u32,
    /// Games where the best score was shared with another player.
    pub draws: u32,
    /// Games without the best score.
    pub losses: u32,
    /// Elo for 2-player games; μ−3σ of Weng-Lin for more players.
    pub rating: f64,
    /// Half the 95% interval: of the Elo (cutechess's margin), or 1.96σ of Weng-Lin.
    pub error95: Option<f64>,
    /// All faults: malformed and illegal answers, timeouts, crashes.
    pub faults: u32,
    /// Malformed and illegal answers.
    pub errors: u32,
    /// Answers too late.
    pub timeouts: u32,
    /// Games in which the program died or closed its output.
    pub crashes: u32,
    /// Of those, games in which the sandbox ended it for going over a limit (memory,
    /// processes).
    pub killed: u32,
    /// Average time per answer, in milliseconds.
    pub ms_per_move: Option<f64>,
    /// Likelihood that this player is stronger than the next one in the table (2-player games,
    /// from their games against each other), as a fraction.
    pub los: Option<f64>,
    /// Weng-Lin's μ and σ (games of more than 2 players).
    pub mu: Option<f64>,
    /// Weng-Lin's σ: how uncertain `mu` is.
    pub sigma: Option<f64>,
    /// Swiss rounds sat out, each worth [`BYE_POINTS`].
    pub byes: u32,
}

/// The standings of a tournament, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Whether the game is for 2 players (Elo, cross-table, likelihood of superiority).
    pub two_player: bool,
    /// The rows, best first.
    pub rows: Vec<Standing>,
    /// For 2-player games: `cross[i][j]` is what row `i` scored against row `j`: points and games.
    pub cross: Vec<Vec<(f64, u32)>>,
}

#[derive(Default, Clone)]
struct Tally {
    games: u32,
    points: f64,
    wins: u32,
    knockouts: u32,
    draws: u32,
    losses: u32,
    errors: u32,
    timeouts: u32,
    crashes: u32,
    killed: u32,
    time_ms: f64,
    turns: u32,
    byes: u32,
}

/// Computes the table from the matches that are done (in id order, so ratings do not depend on
/// which of parallel matches finished first), counting only players that `plays()`.
pub fn compute(
    players: &[Contestant],
    matches: &[MatchRow],
    byes: &[(u32, String)],
    per_match: usize,
) -> Table {
    let ranked: Vec<&Contestant> = players.iter().filter(|p| p.status.plays()).collect();
    let index: HashMap<&str, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    let n = ranked.len();
    let mut tally = vec![Tally::default(); n];
    let mut duels = Vec::new();
    let mut places = Vec::new();
    let mut cross = vec![vec![(0.0, 0u32); n]; n];
    let mut done: Vec<&MatchRow> = matches
        .iter()
        .filter(|m| m.state == MatchState::Done && m.result.is_some())
        .collect();
    done.sort_by_key(|m| m.id);
    for m in done {
        let result = m.result.as_ref().expect("filtered");
        let Some(seats) = m
            .seats
            .iter()
            .map(|s| index.get(s.as_str()).copied())
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        let best = result.scores.iter().copied().fold(f64::MIN, f64::max);
        let sharing = result.scores.iter().filter(|&&s| s == best).count();
        for (seat, &p) in seats.iter().enumerate() {
            let t = &mut tally[p];
            let score = result.scores.get(seat).copied().unwrap_or(0.0);
            t.games += 1;
            t.points += score;
            if score == best && sharing == 1 {
                t.wins += 1;
                t.knockouts += u32::from(is_knockout(&result.reason));
            } else if score == best {
                t.draws += 1;
            } else {
                t.losses += 1;
            }
            t.time_ms += result.time_ms.get(seat).copied().unwrap_or(0.0);
            t.turns += result.turns.get(seat).copied().unwrap_or(0);
        }
        for f in &result.faults {
            if let Some(&p) = seats.get(f.seat) {
                tally[p].errors += f.errors;
                tally[p].timeouts += f.timeouts;
                tally[p].crashes += u32::from(f.crashed);
                tally[p].killed += u32::from(f.killed_for.is_some());
            }
        }
        if seats.len() == 2 {
            let score = result.scores[0];
            let other = result.scores.get(1).copied().unwrap_or(0.0);
            let first = if score > other {
                1.0
            } else if score < other {
                0.0
            } else {
                0.5
            };
            duels.push(Duel {
                first: seats[0],
                second: seats[1],
                score: first,
            });
            cross[seats[0]][seats[1]].0 += score;
            cross[seats[0]][seats[1]].1 += 1;
            cross[seats[1]][seats[0]].0 += other;
            cross[seats[1]][seats[0]].1 += 1;
        } else {
            places.push(
                seats
                    .iter()
                    .zip(&result.placement)
                    .map(|(&p, &place)| (p, place))
                    .collect::<Vec<_>>(),
            );
        }
    }
    for (_, player) in byes {
        if let Some(&p) = index.get(player.as_str()) {
            tally[p].byes += 1;
            tally[p].points += BYE_POINTS;
        }
    }

    let two_player = per_match == 2;
    let mut rows: Vec<Standing> = ranked
        .iter()
        .zip(&tally)
        .map(|(p, t)| Standing {
            player: p.id.clone(),
            alias: p.alias.clone(),
            games: t.games,
            points: t.points,
            wins: t.wins,
            knockouts: t.knockouts,
            draws: t.draws,
            losses: t.losses,
            rating: 0.0,
            error95: None,
            faults: t.errors + t.timeouts + t.crashes,
            errors: t.errors,
            timeouts: t.timeouts,
            crashes: t.crashes,
            killed: t.killed,
            ms_per_move: (t.turns > 0).then(|| t.time_ms / f64::from(t.turns)),
            los: None,
            mu: None,
            sigma: None,
            byes: t.byes,
        })
        .collect();
    if two_player {
        let elo = elo_ratings(n, &duels);
        for (row, (rating, t)) in rows.iter_mut().zip(elo.iter().zip(&tally)) {
            row.rating = *rating;
            // Against the field, as cutechess reports a player's Elo in a tournament.
            row.error95 = elo_error95(t.wins, t.draws, t.losses);
        }
    } else {
        let wl = weng_lin_ratings(n, &places);
        for (row, &(mu, sigma)) in rows.iter_mut().zip(&wl) {
            row.rating = conservative(mu, sigma);
            row.error95 = Some(1.959_963_984_540_054 * sigma);
            row.mu = Some(mu);
            row.sigma = Some(sigma);
        }
    }

    // 2-player games: by points, then Elo; more players: by μ−3σ, as TrueSkill-like systems
    // rank, then points.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&rows[a], &rows[b]);
        let by_points = rb.points.total_cmp(&ra.points);
        let by_rating = rb.rating.total_cmp(&ra.rating);
        let first = if two_player {
            by_points.then(by_rating)
        } else {
            by_rating.then(by_points)
        };
        first.then_with(|| ra.player.cmp(&rb.player))
    });
    let cross: Vec<Vec<(f64, u32)>> = order
        .iter()
        .map(|&i| order.iter().map(|&j| cross[i][j]).collect())
        .collect();
    let mut sorted: Vec<Standing> = order.iter().map(|&i| rows[i].clone()).collect();
    if two_player {
        for k in 0..sorted.len().saturating_sub(1) {
            // Wins and losses of row k against row k+1, from the cross-table's games.
            let (a, b) = (order[k], order[k + 1]);
            let (w, l) = head_to_head(&duels, a, b);
            sorted[k].los = likelihood_of_superiority(w, l);
        }
    }
    Table {
        two_player,
        rows: sorted,
        cross: if two_player { cross } else { Vec::new() },
    }
}

fn head_to_head(duels: &[Duel], a: usize, b: usize) -> (u32, u32) {
    let (mut wins, mut losses) = (0, 0);
    for d in duels {
        let score_a = if (d.first, d.second) == (a, b) {
            d.score
        } else if (d.first, d.second) == (b, a) {
            1.0 - d.score
        } else {
            continue;
        };
        if score_a > 0.5 {
            wins += 1;
        } else if score_a < 0.5 {
            losses += 1;
        }
    }
    (wins, losses)
}

/// The ratings to keep in the history, from a table.
pub fn rating_rows(table: &Table) -> Vec<RatingRow> {
    table
        .rows
        .iter()
        .map(|r| RatingRow {
            player: r.player.clone(),
            rating: r.rating,
            deviation: r.error95,
            games: r.games,
        })
        .collect()
}

/// The JSON of `standings --json`: one array, best first.
pub fn to_json(table: &Table) -> serde_json::Value {
    serde_json::Value::Array(
        table
            .rows
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).expect("standings serialize");
                let object = v.as_object_mut().expect("a struct is an object");
                if !table.two_player {
                    object.remove("los");
                } else {
                    object.remove("mu");
                    object.remove("sigma");
                }
                v
            })
            .collect(),
    )
}

/// The CSV of `standings --csv`, with a header line.
pub fn to_csv(table: &Table) -> String {
    let mut out = String::from(
        "rank,player,alias,games,points,wins,draws,losses,rating,error95,los,faults,errors,\
         timeouts,crashes,ms_per_move,knockouts\n",
    );
    for (i, r) in table.rows.iter().enumerate() {
        let opt =
            |v: Option<f64>, digits: usize| v.map(|v| format!("{v:.digits$}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.1},{},{},{},{},{},{},{},{}",
            i + 1,
            csv_field(&r.player),
            csv_field(&r.alias),
            r.games,
            r.points,
            r.wins,
            r.draws,
            r.losses,
            r.rating,
            opt(r.error95, 1),
            opt(r.los, 3),
            r.faults,
            r.errors,
            r.timeouts,
            r.crashes,
            opt(r.ms_per_move, 2),
            r.knockouts,
        );
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The table for a terminal (names with control characters escaped).
pub fn to_text(table: &Table) -> String {
    let mut out = String::new();
    let names: Vec<String> = table
        .rows
        .iter()
        .map(|r| {
            if r.alias == r.player {
                for_terminal(&r.alias).into_owned()
            } else {
                format!("{} ({})", for_terminal(&r.alias), for_terminal(&r.player))
            }
        })
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let rating_head = if table.two_player { "Elo" } else { "μ−3σ" };
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>5} {:>7} {:>5} {:>5} {:>5} {:>8} {:>6} {:>6} {:>6} {:>9}",
        "rank",
        "player",
        "games",
        "points",
        "wins",
        "draws",
        "loss",
        rating_head,
        "±95%",
        if table.two_player { "LOS" } else { "" },
        "faults",
        "ms/move",
    );
    for (i, r) in table.rows.iter().enumerate() {
        let name = &names[i];
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>5} {:>7} {:>5} {:>5} {:>5} {:>8.1} {:>6} {:>6} {:>6} {:>9}",
            i + 1,
            name,
            r.games,
            format!("{}", r.points),
            r.wins,
            r.draws,
            r.losses,
            r.rating,
            r.error95
                .map(|e| format!("{e:.0}"))
                .unwrap_or_else(|| "-".into()),
            r.los
                .map(|l| format!("{:.0}%", l * 100.0))
                .unwrap_or_default(),
            r.faults,
            r.ms_per_move
                .map(|m| format!("{m:.2}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
    for (r, name) in table.rows.iter().zip(&names).filter(|(r, _)| r.killed > 0) {
        let _ = writeln!(
            out,
            "      {name}: killed by the sandbox for going over a limit (memory or processes) in {} game{}",
            r.killed,
            if r.killed == 1 { "" } else { "s" }
        );
    }
    out
}

/// The cross-table of a 2-player tournament: what each row scored against each column (for a
/// terminal, names with control characters escaped).
pub fn cross_table(table: &Table) -> String {
    let mut out = String::new();
    if !table.two_player || table.rows.is_empty() {
        return out;
    }
    let names: Vec<_> = table.rows.iter().map(|r| for_terminal(&r.alias)).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(6);
    let cells: Vec<Vec<String>> = table
        .cross
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, &(points, games))| {
                    if i == j {
                        "·".to_owned()
                    } else if games == 0 {
                        String::new()
                    } else {
                        format!("{points}/{games}")
                    }
                })
                .collect()
        })
        .collect();
    let cell = cells
        .iter()
        .flatten()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1)
        .max(table.rows.len().to_string().len())
        .max(3);
    let _ = write!(out, "{:>4}  {:<width$}", "", "");
    for j in 0..table.rows.len() {
        let _ = write!(out, " {:>cell$}", j + 1);
    }
    out.push('\n');
    for (i, name) in names.iter().enumerate() {
        let _ = write!(out, "{:>4}  {:<width$}", i + 1, name);
        for c in &cells[i] {
            let _ = write!(out, " {c:>cell$}");
        }
        out.push('\n');
    }
    out
}

/// The ratings snapshots of the rounds completed since the last one stored, up to `complete`.
pub fn round_ratings(
    t: &Tournament,
    players: &[Contestant],
    standing: &arbiter_store::Standing,
    complete: u32,
) -> Vec<(u32, Vec<RatingRow>)> {
    let matches = &standing.matches;
    (standing.rated + 1..=complete)
        .map(|round| {
            let matches: Vec<MatchRow> = matches
                .iter()
                .filter(|m| m.round <= round)
                .cloned()
                .collect();
            let byes: Vec<(u32, String)> = standing
                .byes
                .iter()
                .filter(|b| b.0 <= round)
                .cloned()
                .collect();
            let table = compute(players, &matches, &byes, t.players_per_match);
            (round, rating_rows(&table))
        })
        .collect()
}

/// Whether a win for this reason is a knockout, as the Domino course's judge counted them: the
/// loser timed out, or its program could not be started (the judge scored both as a timeout).
fn is_knockout(reason: &str) -> bool {
    reason == "timeout" || reason == CANNOT_START
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::players::Status;
    use arbiter_store::{SeatFaults, StoredResult};

    fn player(id: &str) -> Contestant {
        Contestant {
            id: id.into(),
            alias: id.to_uppercase(),
            full_name: String::new(),
            command: None,
            folder: None,
            status: Status::Ok,
            reason: None,
            program: None,
        }
    }

    /// A match played between `seats`, ending with `scores` (places follow the scores).
    pub(crate) fn done(
        id: i64,
        seats: &[&str],
        scores: &[f64],
        faults: Vec<SeatFaults>,
    ) -> MatchRow {
        let placement = scores
            .iter()
            .map(|s| 1 + scores.iter().filter(|&&o| o > *s).count() as u32)
            .collect();
        MatchRow {
            id,
            round: 1,
            seats: seats.iter().map(|s| s.to_string()).collect(),
            state: MatchState::Done,
            seed: 0,
            attempts: 0,
            result: Some(StoredResult {
                scores: scores.to_vec(),
                placement,
                reason: "goal".into(),
                faults,
                replay: None,
                ticks: 10,
                time_ms: vec![10.0; seats.len()],
                turns: vec![5; seats.len()],
            }),
            error: None,
            claim: 1,
            worker: None,
            started: None,
            finished: None,
        }
    }

    #[test]
    fn knockouts_count_wins_by_the_opponents_timeout_or_failed_start() {
        let players = [player("a"), player("b")];
        let mut knockout = done(1, &["a", "b"], &[1.0, 0.0], vec![]);
        knockout.result.as_mut().unwrap().reason = "timeout".into();
        let mut no_start = done(3, &["a", "b"], &[1.0, 0.0], vec![]);
        no_start.result.as_mut().unwrap().reason = CANNOT_START.into();
        let matches = [
            knockout,
            done(2, &["b", "a"], &[0.0, 1.0], vec![]),
            no_start,
        ];
        let table = compute(&players, &matches, &[], 2);
        let a = &table.rows[0];
        assert_eq!((a.player.as_str(), a.wins, a.knockouts), ("a", 3, 2));
        assert_eq!(table.rows[1].knockouts, 0);
        assert_eq!(to_json(&table)[0]["knockouts"], 2);
        assert!(to_csv(&table).lines().nth(1).unwrap().ends_with(",2"));
    }

    #[test]
    fn two_player_table() {
        let players = [player("a"), player("b"), player("c")];
        let fault = SeatFaults {
            seat: 1,
            player: "c".into(),
            errors: 2,
            timeouts: 1,
            crashed: true,
            killed_for: Some(arbiter_sandbox::Limit::Memory),
            note: None,
        };
        let matches = [
            done(1, &["a", "b"], &[1.0, 0.0], vec![]),
            done(2, &["b", "a"], &[0.0, 1.0], vec![]),
            done(3, &["b", "c"], &[1.0, 0.0], vec![]),
            done(4, &["a", "c"], &[1.0, 0.0], vec![fault]),
        ];
        let table = compute(&players, &matches, &[], 2);
        let ids: Vec<&str> = table.rows.iter().map(|r| r.player.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        let a = &table.rows[0];
        assert_eq!(
            (a.games, a.points, a.wins, a.draws, a.losses),
            (3, 3.0, 3, 0, 0)
        );
        assert_eq!(a.ms_per_move, Some(2.0));
        assert_eq!(a.error95, None, "a 100% score has no finite error bar");
        let c = &table.rows[2];
        assert_eq!((c.faults, c.errors, c.timeouts, c.crashes), (4, 2, 1, 1));
        assert_eq!(c.killed, 1);
        assert!(
            to_text(&table).contains(
                "C (c): killed by the sandbox for going over a limit (memory or processes) in 1 game"
            ),
            "{}",
            to_text(&table)
        );
        // a beat b twice: LOS Φ(2/√4·√2)…
        assert_eq!(a.los, likelihood_of_superiority(2, 0));
        assert_eq!(table.rows[1].los, likelihood_of_superiority(1, 0));
        let expected = elo_ratings(
            3,
            &[
                Duel {
                    first: 0,
                    second: 1,
                    score: 1.0,
                },
                Duel {
                    first: 1,
                    second: 0,
                    score: 0.0,
                },
                Duel {
                    first: 1,
                    second: 2,
                    score: 1.0,
                },
                Duel {
                    first: 0,
                    second: 2,
                    score: 1.0,
                },
            ],
        );
        assert_eq!(a.rating, expected[0]);
        assert_eq!(table.cross[0][1], (2.0, 2));
        assert_eq!(table.cross[1][0], (0.0, 2));
        assert_eq!(table.cross[2][1], (0.0, 1));
        let draw = [done(1, &["a", "b"], &[0.5, 0.5], vec![])];
        let drawn = compute(&players[..2], &draw, &[], 2);
        assert_eq!((drawn.rows[0].draws, drawn.rows[0].los), (1, None));
        let json = to_json(&table);
        assert_eq!(json[0]["player"], "a");
        assert_eq!(json[0]["error95"], serde_json::Value::Null);
        for key in [
            "alias", "games", "points", "wins", "draws", "losses", "rating", "faults",
        ] {
            assert!(json[2].get(key).is_some(), "{key}");
        }
        let csv = to_csv(&table);
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.lines().nth(1).unwrap().starts_with("1,a,A,3,3,3,0,0,"));
        let cross = cross_table(&table);
        assert!(cross.contains("2/2"), "{cross}");
    }

    #[test]
    fn multiplayer_table_ranks_by_conservative_rating() {
        let players = [player("a"), player("b"), player("c"), player("d")];
        let matches: Vec<MatchRow> = (0..4)
            .map(|i| done(i, &["a", "b", "c", "d"], &[1.0, 0.0, 0.0, 0.0], vec![]))
            .collect();
        let table = compute(&players, &matches, &[], 4);
        assert!(!table.two_player);
        assert_eq!(table.rows[0].player, "a");
        let r = &table.rows[0];
        assert_eq!(r.rating, conservative(r.mu.unwrap(), r.sigma.unwrap()));
        assert!(table.cross.is_empty());
    }

    #[test]
    fn byes_count_as_points() {
        let players = [player("a"), player("b"), player("c")];
        let table = compute(&players, &[], &[(1, "c".into())], 2);
        assert_eq!(table.rows[0].player, "c");
        assert_eq!(table.rows[0].points, BYE_POINTS);
        assert_eq!(table.rows[0].games, 0);
    }
}
