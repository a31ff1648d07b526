//! The ladder on paper: 10,000 active versions with hidden strengths, a simulated day at the
//! default pace, results drawn from the strengths (no game is played). Prints what a pick and a
//! rating update cost, and how evenly the games spread over the versions.
//!
//! `taskset -c 0 cargo run --release -p arbiter-ladder --example simulate [VERSIONS] [HOURS]`
//! (defaults 10000 and 24).
//!
//! The model: each version has a hidden skill drawn from N(25, (25/3)²), the spread Weng-Lin
//! assumes of a population; in a game each seat performs its skill plus N(0, β²) noise with
//! Weng-Lin's β = 25/6, and places follow the performances. Each version is its own bot.

use std::time::Instant;

use arbiter_ladder::{Candidate, Pace, Rating, SeatMix, pick_match, rate};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Weng-Lin's β: the performance noise of one game.
const BETA: f64 = 25.0 / 6.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let versions: usize = args
        .first()
        .map_or(10_000, |a| a.parse().expect("VERSIONS"));
    let hours: f64 = args.get(1).map_or(24.0, |a| a.parse().expect("HOURS"));
    println!(
        "{versions} versions, {hours} hours at the default pace ({} games per version per hour)\n",
        Pace::DEFAULT
    );
    println!(
        "| seats | games | pick, median | pick, p99 | rating, median | games per version: min / median / max / std | Spearman ρ(μ, skill) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for mix in ["2", "2:3,4:1"] {
        let day = simulate(versions, hours, &mix.parse().expect("a seat mix"));
        println!("{}", day.row(mix));
    }
}

/// What one simulated day measured.
struct Day {
    games: usize,
    pick_ns: Vec<u64>,
    rate_ns: Vec<u64>,
    games_per_version: Vec<u64>,
    spearman: f64,
}

/// Plays `hours` of the ladder with `versions` versions and the seat `mix`.
fn simulate(versions: usize, hours: f64, mix: &SeatMix) -> Day {
    let mut rng = SmallRng::seed_from_u64(29);
    let skills: Vec<f64> = (0..versions)
        .map(|_| 25.0 + 25.0 / 3.0 * normal(&mut rng))
        .collect();
    let mut ladder: Vec<Candidate> = (0..versions).map(|v| newcomer(v as i64)).collect();
    let interval = Pace::DEFAULT.interval_ms(versions, mix.mean());
    let games = (hours * 3_600_000.0 / interval) as usize;
    let (mut pick_ns, mut rate_ns) = (Vec::with_capacity(games), Vec::with_capacity(games));
    for game in 0..games {
        let now = (game as f64 * interval) as i64;
        let seats = mix.choose(&mut rng);
        let started = Instant::now();
        let picked = pick_match(&ladder, seats, &mut rng).expect("enough versions");
        pick_ns.push(started.elapsed().as_nanos() as u64);
        let places = draw_places(&picked, &skills, &mut rng);
        let before: Vec<Rating> = picked.iter().map(|&v| ladder[v as usize].rating).collect();
        let started = Instant::now();
        let after = rate(&before, &places);
        rate_ns.push(started.elapsed().as_nanos() as u64);
        record(&mut ladder, &picked, &after, now);
    }
    let mus: Vec<f64> = ladder.iter().map(|c| c.rating.mu).collect();
    Day {
        games,
        pick_ns,
        rate_ns,
        games_per_version: ladder.iter().map(|c| c.games).collect(),
        spearman: spearman(&mus, &skills),
    }
}

/// Version `v`, its own bot, not yet played, created in order.
fn newcomer(v: i64) -> Candidate {
    Candidate {
        version: v,
        bot: v,
        team: v,
        rating: Rating::INITIAL,
        games: 0,
        last_played: None,
        created: v,
        robot: false,
        first_seats: 0,
    }
}

/// Places of one game: each seat performs its skill plus noise, the best performance first.
fn draw_places(seats: &[i64], skills: &[f64], rng: &mut impl Rng) -> Vec<u32> {
    let performances: Vec<f64> = seats
        .iter()
        .map(|&v| skills[v as usize] + BETA * normal(rng))
        .collect();
    performances
        .iter()
        .map(|p| 1 + performances.iter().filter(|q| *q > p).count() as u32)
        .collect()
}

/// What the store does with a finished game: new ratings, one more game, a first seat.
fn record(ladder: &mut [Candidate], seats: &[i64], after: &[Rating], now: i64) {
    for (seat, (&v, &rating)) in seats.iter().zip(after).enumerate() {
        let c = &mut ladder[v as usize];
        c.rating = rating;
        c.games += 1;
        c.last_played = Some(now);
        c.first_seats += u64::from(seat == 0);
    }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut impl Rng) -> f64 {
    let (u, v): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Spearman's rank correlation of two lists (no ties expected: continuous values).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = rank as f64;
    }
    ranks
}

impl Day {
    fn row(&self, mix: &str) -> String {
        let spread = Spread::of(&self.games_per_version);
        format!(
            "| {mix} | {} | {} | {} | {} | {} / {} / {} / {:.1} | {:.3} |",
            self.games,
            duration(percentile(&self.pick_ns, 0.5)),
            duration(percentile(&self.pick_ns, 0.99)),
            duration(percentile(&self.rate_ns, 0.5)),
            spread.min,
            spread.median,
            spread.max,
            spread.std,
            self.spearman,
        )
    }
}

/// Min, median, max and standard deviation of games per version.
struct Spread {
    min: u64,
    median: u64,
    max: u64,
    std: f64,
}

impl Spread {
    fn of(games: &[u64]) -> Spread {
        let mut sorted = games.to_vec();
        sorted.sort_unstable();
        let n = sorted.len() as f64;
        let mean = sorted.iter().sum::<u64>() as f64 / n;
        let var = sorted
            .iter()
            .map(|&g| (g as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        Spread {
            min: sorted[0],
            median: sorted[sorted.len() / 2],
            max: sorted[sorted.len() - 1],
            std: var.sqrt(),
        }
    }
}

fn percentile(values: &[u64], q: f64) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[((sorted.len() - 1) as f64 * q) as usize]
}

fn duration(ns: u64) -> String {
    if ns >= 10_000 {
        format!("{:.1} µs", ns as f64 / 1000.0)
    } else {
        format!("{ns} ns")
    }
}
