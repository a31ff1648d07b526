//! How fast the ladder finds the true order: Kendall τ between the leaderboard and the order
//! of a long round robin, by games per bot.
//!
//! `taskset -c 0 cargo run --release -p arbiter-ladder --example convergence [RUNS]`
//!
//! 1. A round robin of Quoridor robots of known strength order, played in process: every pair
//!    of robots plays `OPENINGS` pairs of games, each pair from one opening (a few random plies
//!    from the start, which is what makes the deterministic robots' games differ) with the
//!    seats swapped. Its table (wins, shared points, losses of each pairing) is cached in
//!    `target/ladder-convergence-table.json`.
//! 2. `RUNS` ladders of these robots (default 1000): `pick_match` chooses each game, its result
//!    is drawn from the round robin's table for that pairing, `rate` rates it; after 5, 10, …
//!    games per bot the leaderboard (by μ − 3σ) is compared with the round robin's order.
//!    Beside it, a yardstick: as many games between random pairs, ordered by points share.
//!
//! `CONVERGENCE_PLAYERS`, `CONVERGENCE_OPENINGS` and `CONVERGENCE_TAILS` (window tails α to
//! compare, comma-separated) change the setup. `CONVERGENCE_SEATS=4` measures 4-player games
//! instead, every game played live (see [`four_players`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use arbiter_games::quoridor::{Action, Quoridor, Settings};
use arbiter_games::{Game, Robot};
use arbiter_ladder::{Candidate, Rating, WINDOW_TAIL, pick_match_with_tail, rate};
use arbiter_robots::Robots;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The players, by name: a robot `Quoridor::robot` knows, or `NAME~P`, that robot distracted:
/// with chance P it steps its pawn at random instead (see [`Distracted`]). Another list may be
/// given, comma-separated, in `CONVERGENCE_PLAYERS`.
///
/// Why not `strong` at several node budgets: in these games (random openings) the budgets do
/// not order. `strong/nodes=3` and `=10` play the same games, and from 100 to 10,000 nodes
/// they score 42 to 58 % against each other, with no trend; `aiarena-hard` and `runner` share
/// their games 50–50. A known order needs players that differ: `strong` distracted more or
/// less often gives them, and the round robin confirms the order (every neighbour beats the
/// one below it, 62 to 100 %).
const PLAYERS: &[&str] = &[
    "random",
    "strong/nodes=300~0.7",
    "strong/nodes=300~0.5",
    "runner",
    "strong/nodes=300~0.25",
    "blocker",
    "strong/nodes=300~0.1",
    "strong/nodes=300",
];

/// Pairs of games (one opening, seats swapped) each pairing plays in the round robin, unless
/// `CONVERGENCE_OPENINGS` says otherwise.
const OPENINGS: u64 = 40;

fn openings() -> u64 {
    std::env::var("CONVERGENCE_OPENINGS").map_or(OPENINGS, |n| n.parse().expect("OPENINGS"))
}

/// Random plies played from the start before the robots take over.
const OPENING_PLIES: usize = 4;

/// Games per bot at which the leaderboard is compared with the true order.
const CHECKPOINTS: &[u64] = &[5, 10, 20, 30, 40, 60];

/// One pairing's results, for the first player: wins, shared first places, losses.
type Cell = [u64; 3];

/// The players: `CONVERGENCE_PLAYERS` if set, else [`PLAYERS`].
fn players() -> Vec<String> {
    match std::env::var("CONVERGENCE_PLAYERS") {
        Ok(list) => list.split(',').map(str::to_string).collect(),
        Err(_) => PLAYERS.iter().map(|p| p.to_string()).collect(),
    }
}

fn main() {
    let players = players();
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(1000, |a| a.parse().expect("RUNS"));
    if std::env::var("CONVERGENCE_SEATS").is_ok_and(|s| s == "4") {
        four_players(&players, runs);
        return;
    }
    let table = round_robin_table(&players);
    let points = print_round_robin(&players, &table);
    for tail in tails() {
        println!(
            "\n{runs} ladders of {} robots, 2 seats, window tail α = {tail}:\n",
            players.len()
        );
        println!(
            "| games per bot | τ by score μ−3σ, mean | τ by μ, mean | runs with τ ≥ 0.9 | runs in the exact order | τ of random pairings by points share, mean |"
        );
        println!("|---|---|---|---|---|---|");
        for row in ladders(&table, &points, runs, tail) {
            println!(
                "| {} | {:.3} | {:.3} | {:.0} % | {:.0} % | {:.3} |",
                row.games_per_bot,
                row.tau_score,
                row.tau_mu,
                100.0 * row.share_90,
                100.0 * row.share_exact,
                row.tau_random_pairings
            );
        }
    }
}

/// The window tails to try: `CONVERGENCE_TAILS` (comma-separated) if set, else the ladder's.
fn tails() -> Vec<f64> {
    match std::env::var("CONVERGENCE_TAILS") {
        Ok(list) => list
            .split(',')
            .map(|t| t.parse().expect("a tail"))
            .collect(),
        Err(_) => vec![WINDOW_TAIL],
    }
}

/// The round robin's table, `table[i][j]` from player i's side, from the cache when it holds
/// these players and openings.
fn round_robin_table(players: &[String]) -> Vec<Vec<Cell>> {
    let path = cache_path();
    let key = format!("{players:?} {} {OPENING_PLIES}", openings());
    if let Some(table) = read_cache(&path, &key) {
        println!("round robin read from {}", path.display());
        return table;
    }
    let started = Instant::now();
    let n = players.len();
    let mut table = vec![vec![[0u64; 3]; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            for opening in 0..openings() {
                for (a, b) in [(i, j), (j, i)] {
                    let places = play(&[&players[a], &players[b]], opening);
                    count(&mut table, a, b, [places[0], places[1]]);
                }
            }
        }
    }
    println!(
        "round robin: {} games in {:.1} s",
        n * (n - 1) * openings() as usize,
        started.elapsed().as_secs_f64()
    );
    write_cache(&path, &key, &table);
    table
}

/// Counts a game of `a` (seat 0) against `b` with these places in both players' cells.
fn count(table: &mut [Vec<Cell>], a: usize, b: usize, places: [u32; 2]) {
    let result = match places[0].cmp(&places[1]) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 2,
    };
    table[a][b][result] += 1;
    table[b][a][2 - result] += 1;
}

/// One game of standard Quoridor (2 or 4 players, as many as `names`) from opening
/// `opening`: the place of each seat.
fn play(names: &[&str], opening: u64) -> Vec<u32> {
    let settings = Settings::standard(names.len() as u8, 9).expect("standard Quoridor");
    let mut game = Quoridor::new(settings).expect("standard Quoridor");
    play_opening(&mut game, opening);
    let mut robots: Vec<Box<dyn Robot<Quoridor>>> = names
        .iter()
        .enumerate()
        .map(|(seat, name)| robot(name, opening * names.len() as u64 + seat as u64))
        .collect();
    while let Some(p) = game.to_move() {
        if game.is_stuck() {
            game.apply_stuck();
            continue;
        }
        let action = robots[p].choose(&game);
        game.apply(action).expect("robots play legal actions");
    }
    game.outcome().expect("the game is over").placement
}

/// The robot a player's name stands for, seeded.
fn robot(name: &str, seed: u64) -> Box<dyn Robot<Quoridor>> {
    match name.split_once('~') {
        None => Quoridor::robot(name, seed).expect("a robot of Quoridor"),
        Some((base, chance)) => Box::new(Distracted {
            inner: Quoridor::robot(base, seed).expect("a robot of Quoridor"),
            chance: chance.parse().expect("a chance from 0 to 1"),
            rng: SmallRng::seed_from_u64(seed ^ 0xd157_4ac7),
            actions: Vec::new(),
        }),
    }
}

/// A robot that, with some chance each turn, steps its pawn at random instead of playing its
/// choice: a weaker player by a known amount, which budgets of `strong` are not (past about a
/// hundred nodes a move, more search does not win more of these games).
struct Distracted {
    inner: Box<dyn Robot<Quoridor>>,
    chance: f64,
    rng: SmallRng,
    actions: Vec<Action>,
}

impl Robot<Quoridor> for Distracted {
    fn choose(&mut self, game: &Quoridor) -> Action {
        if self.rng.random::<f64>() < self.chance {
            game.legal_actions(&mut self.actions);
            self.actions.retain(|a| matches!(a, Action::Move(_)));
            if !self.actions.is_empty() {
                return self.actions[self.rng.random_range(0..self.actions.len())];
            }
        }
        self.inner.choose(game)
    }
}

/// Plays `OPENING_PLIES` uniformly random legal actions, drawn from `opening`.
fn play_opening(game: &mut Quoridor, opening: u64) {
    let mut rng = SmallRng::seed_from_u64(opening);
    let mut actions = Vec::new();
    for _ in 0..OPENING_PLIES {
        game.legal_actions(&mut actions);
        let action = actions[rng.random_range(0..actions.len())];
        game.apply(action).expect("a legal action");
    }
}

/// Prints the table (row's points against column, in %) and returns each player's points.
fn print_round_robin(players: &[String], table: &[Vec<Cell>]) -> Vec<f64> {
    let n = players.len();
    let points: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| table[i][j][0] as f64 + table[i][j][1] as f64 / 2.0)
                .sum()
        })
        .collect();
    let games_each = (2 * openings() * (n as u64 - 1)) as f64;
    println!(
        "\nRound robin, {} pairs of games a pairing (row's points against column, %):\n",
        openings()
    );

    let header: Vec<String> = (0..n).map(|j| format!("{j}")).collect();
    println!("| # | robot | {} | points |", header.join(" | "));
    println!("|---|---|{}---|", "---|".repeat(n));
    for i in 0..n {
        let cells: Vec<String> = (0..n)
            .map(|j| {
                if i == j {
                    "–".to_string()
                } else {
                    format!("{:.0}", 100.0 * share(table[i][j]))
                }
            })
            .collect();
        println!(
            "| {i} | {} | {} | {:.1} % |",
            players[i],
            cells.join(" | "),
            100.0 * points[i] / games_each
        );
    }
    points
}

/// The points share of a cell.
fn share(cell: Cell) -> f64 {
    let games = cell.iter().sum::<u64>() as f64;
    (cell[0] as f64 + cell[1] as f64 / 2.0) / games
}

/// What the ladders measured at one checkpoint.
struct Row {
    games_per_bot: u64,
    tau_score: f64,
    tau_mu: f64,
    share_90: f64,
    share_exact: f64,
    tau_random_pairings: f64,
}

/// Runs `runs` ladders and averages Kendall τ at every checkpoint.
fn ladders(table: &[Vec<Cell>], points: &[f64], runs: usize, tail: f64) -> Vec<Row> {
    let mut sums: BTreeMap<u64, [f64; 5]> = BTreeMap::new();
    for run in 0..runs {
        let mut rng = SmallRng::seed_from_u64(run as u64);
        for (games_per_bot, ladder) in one_ladder(table, tail, &mut rng) {
            let score: Vec<f64> = ladder.iter().map(|c| c.rating.score()).collect();
            let mu: Vec<f64> = ladder.iter().map(|c| c.rating.mu).collect();
            let tau = kendall_tau(&score, points);
            let sum = sums.entry(games_per_bot).or_default();
            sum[0] += tau;
            sum[1] += kendall_tau(&mu, points);
            sum[2] += f64::from(u8::from(tau >= 0.9));
            sum[3] += f64::from(u8::from(tau >= 1.0 - 1e-9));
        }
        for (games_per_bot, shares) in random_pairings(table, &mut rng) {
            sums.entry(games_per_bot).or_default()[4] += kendall_tau(&shares, points);
        }
    }
    sums.into_iter()
        .map(|(games_per_bot, s)| Row {
            games_per_bot,
            tau_score: s[0] / runs as f64,
            tau_mu: s[1] / runs as f64,
            share_90: s[2] / runs as f64,
            share_exact: s[3] / runs as f64,
            tau_random_pairings: s[4] / runs as f64,
        })
        .collect()
}

/// A yardstick for the ladder: as many games between uniformly random pairs, no rating, the
/// players ordered by their share of points; each player's share at each checkpoint.
fn random_pairings(table: &[Vec<Cell>], rng: &mut SmallRng) -> Vec<(u64, Vec<f64>)> {
    let n = table.len();
    let (mut points, mut games) = (vec![0.0; n], vec![0u64; n]);
    let mut snapshots = Vec::new();
    let mut seat_games = 0u64;
    for &checkpoint in CHECKPOINTS {
        while seat_games < checkpoint * n as u64 {
            let a = rng.random_range(0..n);
            let b = (a + rng.random_range(1..n)) % n;
            let places = draw(table[a][b], rng);
            for (v, place, other) in [(a, places[0], places[1]), (b, places[1], places[0])] {
                points[v] += match place.cmp(&other) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                games[v] += 1;
            }
            seat_games += 2;
        }
        let shares = (0..n).map(|v| points[v] / games[v].max(1) as f64).collect();
        snapshots.push((checkpoint, shares));
    }
    snapshots
}

/// One ladder from scratch: the candidates at each checkpoint of games per bot.
fn one_ladder(table: &[Vec<Cell>], tail: f64, rng: &mut SmallRng) -> Vec<(u64, Vec<Candidate>)> {
    let n = table.len();
    let mut ladder: Vec<Candidate> = (0..n as i64).map(newcomer).collect();
    let mut snapshots = Vec::new();
    let mut seat_games = 0u64;
    for (now, &checkpoint) in (0..).zip(CHECKPOINTS) {
        while seat_games < checkpoint * n as u64 {
            let seats = pick_match_with_tail(&ladder, 2, tail, rng).expect("enough robots");
            let (a, b) = (seats[0] as usize, seats[1] as usize);
            let places = draw(table[a][b], rng);
            let before = [ladder[a].rating, ladder[b].rating];
            let after = rate(&before, &places);
            for (seat, (&v, rating)) in [a, b].iter().zip(after).enumerate() {
                let c = &mut ladder[v];
                c.rating = rating;
                c.games += 1;
                c.last_played = Some(now * 1_000_000 + seat_games as i64);
                c.first_seats += u64::from(seat == 0);
            }
            seat_games += 2;
        }
        snapshots.push((checkpoint, ladder.clone()));
    }
    snapshots
}

/// A game's places drawn from the first player's cell of the table.
fn draw(cell: Cell, rng: &mut impl Rng) -> [u32; 2] {
    let roll = rng.random_range(0..cell.iter().sum::<u64>());
    if roll < cell[0] {
        [1, 2]
    } else if roll < cell[0] + cell[1] {
        [1, 1]
    } else {
        [2, 1]
    }
}

/// Robot `v`: its own bot, not yet played.
fn newcomer(v: i64) -> Candidate {
    Candidate {
        version: v,
        bot: v,
        team: 0,
        rating: Rating::INITIAL,
        games: 0,
        last_played: None,
        created: 0,
        robot: true,
        first_seats: 0,
    }
}

/// Kendall's τ-b between two lists of values (pairs tied in either list count in neither
/// direction, and the denominator corrects for them).
fn kendall_tau(a: &[f64], b: &[f64]) -> f64 {
    let (mut concordant, mut discordant, mut tied_a, mut tied_b, mut pairs) = (0, 0, 0, 0, 0);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            pairs += 1;
            let (da, db) = (a[i] - a[j], b[i] - b[j]);
            if da == 0.0 {
                tied_a += 1;
            }
            if db == 0.0 {
                tied_b += 1;
            }
            match da * db {
                p if p > 0.0 => concordant += 1,
                p if p < 0.0 => discordant += 1,
                _ => {}
            }
        }
    }
    let denominator = (f64::from(pairs - tied_a) * f64::from(pairs - tied_b)).sqrt();
    f64::from(concordant - discordant) / denominator
}

fn cache_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ladder-convergence-table.json")
}

fn read_cache(path: &PathBuf, key: &str) -> Option<Vec<Vec<Cell>>> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    if value["key"] != key {
        return None;
    }
    serde_json::from_value(value["table"].clone()).ok()
}

fn write_cache(path: &PathBuf, key: &str, table: &[Vec<Cell>]) {
    let value = serde_json::json!({ "key": key, "table": table });
    if let Err(error) = std::fs::write(path, value.to_string()) {
        eprintln!("the table was not cached in {}: {error}", path.display());
    }
}

/// Random 4-player tables the 4-player order is measured on.
const TABLES: u64 = 1200;

/// The 4-player measure, played live (no table can hold 4-player results): the true order is
/// each robot's mean Borda share, (4 − place) / 3, over `TABLES` random tables from random
/// openings; then `runs` ladders of 4-seat games, every game played.
fn four_players(players: &[String], runs: usize) {
    let started = Instant::now();
    let truth = borda_shares(players);
    println!(
        "4-player truth: {TABLES} random tables in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for (name, share) in players.iter().zip(&truth) {
        println!("| {name} | {:.1} % |", 100.0 * share);
    }
    let started = Instant::now();
    let mut sums: BTreeMap<u64, [f64; 3]> = BTreeMap::new();
    for run in 0..runs {
        for (games_per_bot, ladder) in live_ladder(players, run as u64) {
            let score: Vec<f64> = ladder.iter().map(|c| c.rating.score()).collect();
            let mu: Vec<f64> = ladder.iter().map(|c| c.rating.mu).collect();
            let tau = kendall_tau(&score, &truth);
            let sum = sums.entry(games_per_bot).or_default();
            sum[0] += tau;
            sum[1] += kendall_tau(&mu, &truth);
            sum[2] += f64::from(u8::from(tau >= 0.9));
        }
    }
    println!(
        "\n{runs} ladders of 4-seat games, played live in {:.1} s:\n",
        started.elapsed().as_secs_f64()
    );
    println!("| games per bot | τ by score μ−3σ, mean | τ by μ, mean | runs with τ ≥ 0.9 |");
    println!("|---|---|---|---|");
    for (games_per_bot, s) in sums {
        let n = runs as f64;
        println!(
            "| {games_per_bot} | {:.3} | {:.3} | {:.0} % |",
            s[0] / n,
            s[1] / n,
            100.0 * s[2] / n
        );
    }
}

/// Each player's mean (4 − place) / 3 over random 4-player tables.
fn borda_shares(players: &[String]) -> Vec<f64> {
    let mut rng = SmallRng::seed_from_u64(4);
    let (mut points, mut games) = (vec![0.0; players.len()], vec![0u32; players.len()]);
    for table in 0..TABLES {
        let seats: Vec<usize> = rand::seq::index::sample(&mut rng, players.len(), 4).into_vec();
        let names: Vec<&str> = seats.iter().map(|&p| players[p].as_str()).collect();
        for (&p, place) in seats.iter().zip(play(&names, table)) {
            points[p] += f64::from(4 - place) / 3.0;
            games[p] += 1;
        }
    }
    points
        .iter()
        .zip(&games)
        .map(|(p, &g)| p / f64::from(g))
        .collect()
}

/// One 4-seat ladder with every game played: the candidates at each checkpoint.
fn live_ladder(players: &[String], run: u64) -> Vec<(u64, Vec<Candidate>)> {
    let mut rng = SmallRng::seed_from_u64(run);
    let n = players.len();
    let mut ladder: Vec<Candidate> = (0..n as i64).map(newcomer).collect();
    let (mut snapshots, mut seat_games) = (Vec::new(), 0u64);
    for &checkpoint in CHECKPOINTS {
        while seat_games < checkpoint * n as u64 {
            let seats = pick_match_with_tail(&ladder, 4, WINDOW_TAIL, &mut rng).expect("8 robots");
            let names: Vec<&str> = seats
                .iter()
                .map(|&v| players[v as usize].as_str())
                .collect();
            let places = play(&names, 1_000_000 + rng.random_range(0..1_000_000));
            let before: Vec<Rating> = seats.iter().map(|&v| ladder[v as usize].rating).collect();
            for (seat, (&v, rating)) in seats.iter().zip(rate(&before, &places)).enumerate() {
                let c = &mut ladder[v as usize];
                c.rating = rating;
                c.games += 1;
                c.last_played = Some(seat_games as i64);
                c.first_seats += u64::from(seat == 0);
            }
            seat_games += 4;
        }
        snapshots.push((checkpoint, ladder.clone()));
    }
    snapshots
}
