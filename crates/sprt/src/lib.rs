//! The sequential probability ratio test (SPRT) that chess-engine testing uses to tell whether a
//! change made a program stronger, as fishtest and fastchess compute it.
//!
//! Games are played in pairs on the same start (one seed, seats swapped), and a pair is counted
//! by the points program A took in it: 0, ½, 1, 1½ or 2 — the five cells of a
//! [`Pentanomial`]. From those counts:
//!
//! - [`Sprt::llr`]: the generalized log-likelihood ratio of H1 (A is `elo1` stronger) against H0
//!   (A is `elo0` stronger). Each hypothesis's distribution is the maximum-likelihood estimate of
//!   the pentanomial distribution under its constraint: a normalized-Elo t-value
//!   ([`Model::Normalized`]), or an expected score ([`Model::Logistic`]).
//! - [`Sprt::bounds`]: the test stops when the ratio leaves `(ln(β/(1−α)), ln((1−β)/α))`.
//! - [`Estimate`]: the logistic Elo difference, its 95 % error and the likelihood of
//!   superiority.
//!
//! Empty cells are counted as 0.001 pair, as fishtest does, so that every number is finite
//! from the first pair (and with none).
//!
//! `tests/reference.py` computes the same numbers independently from the published formulas;
//! the tests compare the two.

#![warn(missing_docs)]

use std::fmt;

/// What an empty cell counts as: a small prior that keeps every logarithm finite.
const EMPTY_CELL: f64 = 1e-3;

/// Normalized Elo per unit of t-value: 800 / ln 10.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The z-score of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// How close to 0 or 1 a score's interval may come before its Elo is taken: a score of 0 or 1
/// is an infinite Elo difference.
const SCORE_CLAMP: f64 = 1e-6;

/// Counts of game pairs by the points A took in the pair: 0, ½, 1, 1½, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Counts one more pair in which A scored `a` and `b` points in its two games (each 0, ½ or
    /// 1). Points outside are clamped into [0, 1].
    pub fn add_pair(&mut self, a: f64, b: f64) {
        let half_points = ((a.clamp(0.0, 1.0) + b.clamp(0.0, 1.0)) * 2.0).round();
        self.0[half_points as usize] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Games counted: two a pair.
    pub fn games(&self) -> u64 {
        self.pairs() * 2
    }

    /// The counts as a distribution: (A's score a game in the pair, probability), empty cells
    /// regularised; and the number of pairs it stands for.
    fn distribution(&self) -> (f64, [(f64, f64); 5]) {
        let counts = self.0.map(|c| if c == 0 { EMPTY_CELL } else { c as f64 });
        let n: f64 = counts.iter().sum();
        let mut pdf = [(0.0, 0.0); 5];
        for (i, cell) in pdf.iter_mut().enumerate() {
            *cell = (i as f64 / 4.0, counts[i] / n);
        }
        (n, pdf)
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// Which Elo the hypotheses are stated in, and so which statistic is constrained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Normalized Elo: the t-value of the score, independent of the draw rate (fishtest's and
    /// fastchess's default).
    #[default]
    Normalized,
    /// Logistic Elo: the expected score, as rating lists state Elo.
    Logistic,
}

impl Model {
    /// The name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Normalized => "normalized",
            Model::Logistic => "logistic",
        }
    }
}

/// Why a test cannot be set up.
#[derive(Clone, Debug, PartialEq)]
pub enum SprtError {
    /// `elo0` is not below `elo1`.
    Hypotheses {
        /// H0's Elo.
        elo0: f64,
        /// H1's Elo.
        elo1: f64,
    },
    /// An error rate outside (0, 1), or one that is not a number.
    Rate {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// An Elo that is not finite or outside ±[`MAX_ELO`].
    Elo {
        /// `elo0` or `elo1`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::Hypotheses { elo0, elo1 } => write!(
                f,
                "--elo0 {elo0} must be below --elo1 {elo1}: H1 says A is elo1 stronger, H0 elo0"
            ),
            SprtError::Rate { name, value } => write!(
                f,
                "--{name} {value} must be a probability strictly between 0 and 1 (e.g. 0.05)"
            ),
            SprtError::Elo { name, value } => {
                write!(
                    f,
                    "--{name} {value} must be between -{MAX_ELO} and {MAX_ELO}"
                )
            }
        }
    }
}

impl std::error::Error for SprtError {}

/// The largest Elo difference a hypothesis may state: beyond it one side wins every game, and
/// no test is needed.
pub const MAX_ELO: f64 = 1000.0;

/// A test: the two hypotheses, the error rates, the model.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sprt {
    /// H0: A is this much stronger than B (usually 0).
    pub elo0: f64,
    /// H1: A is this much stronger than B.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// The Elo `elo0` and `elo1` are stated in.
    pub model: Model,
}

/// What the test says after the pairs so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ratio fell to the lower bound: A is not `elo1` stronger.
    H0,
    /// The ratio rose to the upper bound: A is at least about `elo1` stronger.
    H1,
    /// Neither yet: play on.
    Continue,
}

impl Verdict {
    /// "H0", "H1", or "inconclusive" when the test stopped without either.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
            Verdict::Continue => "inconclusive",
        }
    }
}

impl Sprt {
    /// A test of H0 (`elo0`) against H1 (`elo1`) with error rates `alpha` and `beta`.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: Model,
    ) -> Result<Sprt, SprtError> {
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtError::Rate { name, value });
            }
        }
        for (name, value) in [("elo0", elo0), ("elo1", elo1)] {
            if !(value.is_finite() && value.abs() <= MAX_ELO) {
                return Err(SprtError::Elo { name, value });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtError::Hypotheses { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// The ratio's bounds: (ln(β/(1−α)), ln((1−β)/α)).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalized log-likelihood ratio of H1 against H0 after `counts`.
    pub fn llr(&self, counts: &Pentanomial) -> f64 {
        let (n, pdf) = counts.distribution();
        let (h0, h1) = match self.model {
            Model::Logistic => {
                let score = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
                (
                    mle_expected(&pdf, score(self.elo0)),
                    mle_expected(&pdf, score(self.elo1)),
                )
            }
            Model::Normalized => {
                // A pair's t-value is √2 that of a game.
                let t = |nelo: f64| nelo / NELO_PER_T * std::f64::consts::SQRT_2;
                match (
                    mle_t_value(&pdf, 0.5, t(self.elo0)),
                    mle_t_value(&pdf, 0.5, t(self.elo1)),
                ) {
                    (Some(h0), Some(h1)) => (h0, h1),
                    _ => return self.llr_normalized_approx(n, &pdf),
                }
            }
        };
        n * pdf
            .iter()
            .zip(h0.iter().zip(&h1))
            .map(|(&(_, p), (p0, p1))| p * (p1.ln() - p0.ln()))
            .sum::<f64>()
    }

    /// The approximation of the normalized ratio (fishtest's `LLR_normalized_alt`), for
    /// hypotheses so far out that the exact estimate has no solution.
    fn llr_normalized_approx(&self, n: f64, pdf: &[(f64, f64); 5]) -> f64 {
        let (mu, var) = moments(pdf);
        let sigma_game = (2.0 * var).sqrt();
        let nt = (mu - 0.5) / sigma_game;
        let (nt0, nt1) = (self.elo0 / NELO_PER_T, self.elo1 / NELO_PER_T);
        n * ((1.0 + (nt - nt0).powi(2)) / (1.0 + (nt - nt1).powi(2))).ln()
    }

    /// What the ratio says: H1 at or above the upper bound, H0 at or below the lower.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }

    /// The state of the test after `counts`.
    pub fn status(&self, counts: &Pentanomial) -> Status {
        let llr = self.llr(counts);
        let (lower_bound, upper_bound) = self.bounds();
        Status {
            verdict: self.verdict(llr),
            llr,
            lower_bound,
            upper_bound,
            counts: *counts,
            estimate: Estimate::of(counts),
        }
    }

    /// Runs the test over batches of pairs in order: the state after the first batch at which
    /// it accepts a hypothesis, or after them all.
    pub fn run(&self, batches: impl IntoIterator<Item = Pentanomial>) -> Status {
        let mut counts = Pentanomial::default();
        let mut last = self.status(&counts);
        for batch in batches {
            for (total, more) in counts.0.iter_mut().zip(batch.0) {
                *total += more;
            }
            last = self.status(&counts);
            if last.verdict != Verdict::Continue {
                break;
            }
        }
        last
    }
}

/// The state of a test: the ratio, its bounds, the counts and the estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// What the ratio says.
    pub verdict: Verdict,
    /// The generalized log-likelihood ratio.
    pub llr: f64,
    /// H0 is accepted at or below this.
    pub lower_bound: f64,
    /// H1 is accepted at or above this.
    pub upper_bound: f64,
    /// The pairs counted.
    pub counts: Pentanomial,
    /// Elo, error, LOS.
    pub estimate: Estimate,
}

/// How much stronger A looks: logistic Elo, its 95 % error, and the likelihood of
/// superiority, from the pairs' scores (a pair's two games are not independent: the pair is
/// the unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The logistic Elo difference of A over B.
    pub elo: f64,
    /// Half the width of its 95 % confidence interval.
    pub elo_error95: f64,
    /// The probability that A is stronger than B, from 0 to 1.
    pub los: f64,
}

impl Estimate {
    /// The estimate after `counts` (empty cells regularised as for the ratio).
    pub fn of(counts: &Pentanomial) -> Estimate {
        let (n, pdf) = counts.distribution();
        let (score, var) = moments(&pdf);
        let sigma = (var / n).sqrt();
        let elo = |score: f64| {
            let score = score.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
            // + 0.0 turns the −0 of an even score into 0.
            -400.0 * (1.0 / score - 1.0).log10() + 0.0
        };
        Estimate {
            elo: elo(score),
            elo_error95: (elo(score + Z95 * sigma) - elo(score - Z95 * sigma)) / 2.0,
            los: 0.5 * (1.0 + erf((score - 0.5) / (std::f64::consts::SQRT_2 * sigma))),
        }
    }
}

/// Mean and variance of a distribution of (value, probability).
fn moments(pdf: &[(f64, f64)]) -> (f64, f64) {
    let mean: f64 = pdf.iter().map(|(a, p)| a * p).sum();
    let var = pdf.iter().map(|(a, p)| p * (a - mean).powi(2)).sum();
    (mean, var)
}

/// The x that solves Σ pᵢ·aᵢ/(1 + x·aᵢ) = 0 between the poles −1/max(a) and −1/min(a), where the
/// sum falls from +∞ to −∞; `None` when the aᵢ do not have both signs.
fn secular(a: &[f64; 5], p: &[f64; 5]) -> Option<f64> {
    let (min, max) = a
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |x: f64| (0..5).map(|i| p[i] * a[i] / (1.0 + x * a[i])).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    // Bisection to the last bit: the sum is monotone, and 200 halvings exhaust a double.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The distribution closest to `pdf` (maximum likelihood) whose expected score is `s`.
fn mle_expected(pdf: &[(f64, f64); 5], s: f64) -> [f64; 5] {
    let a = pdf.map(|(v, _)| v - s);
    let p = pdf.map(|(_, p)| p);
    // Every score lies in (0, 1) and the cells at 0 and 1 are never empty: a has both signs.
    let x = secular(&a, &p).unwrap_or(0.0);
    std::array::from_fn(|i| p[i] / (1.0 + x * a[i]))
}

/// The distribution closest to `pdf` (maximum likelihood) whose t-value (μ − `reference`)/σ
/// is `t`, by the fixed-point iteration of fishtest's `MLE_t_value`; `None` when a step has no
/// solution (hypotheses far outside what the games can show).
fn mle_t_value(pdf: &[(f64, f64); 5], reference: f64, t: f64) -> Option<[f64; 5]> {
    let p = pdf.map(|(_, p)| p);
    let mut mle = [0.2; 5];
    for _ in 0..10 {
        let previous = mle;
        let current: Vec<(f64, f64)> = (0..5).map(|i| (pdf[i].0, mle[i])).collect();
        let (mu, var) = moments(&current);
        let sigma = var.sqrt();
        let a: [f64; 5] = std::array::from_fn(|i| {
            let v = pdf[i].0;
            v - reference - t * sigma * (1.0 + ((mu - v) / sigma).powi(2)) / 2.0
        });
        let x = secular(&a, &p)?;
        mle = std::array::from_fn(|i| p[i] / (1.0 + x * a[i]));
        if mle.iter().any(|q| !(q.is_finite() && *q > 0.0)) {
            return None;
        }
        let change = (0..5)
            .map(|i| (previous[i] - mle[i]).abs())
            .fold(0.0, f64::max);
        if change < 1e-9 {
            break;
        }
    }
    Some(mle)
}

/// The error function, to about 1e-15: its Taylor series near 0, the continued fraction of
/// its complement further out.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 3.0 {
        // erf x = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1))
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        return sum * std::f64::consts::FRAC_2_SQRT_PI;
    }
    if x > 6.0 {
        return 1.0;
    }
    // erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), summed from the tail.
    let mut tail = x;
    for k in (1..=60).rev() {
        tail = x + (k as f64 / 2.0) / tail;
    }
    1.0 - (-x * x).exp() / (std::f64::consts::PI.sqrt() * tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(model: Model) -> Sprt {
        Sprt::new(0.0, 10.0, 0.05, 0.05, model).unwrap()
    }

    fn finite(status: &Status) -> bool {
        let e = status.estimate;
        [status.llr, e.elo, e.elo_error95, e.los]
            .iter()
            .all(|x| x.is_finite())
    }

    #[test]
    fn bounds_come_from_the_error_rates() {
        let (lower, upper) = test(Model::Normalized).bounds();
        assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((upper - 2.944_438_979_166_44).abs() < 1e-12);
    }

    #[test]
    fn zero_games_one_cell_and_all_draws_give_numbers_not_nan() {
        for model in [Model::Normalized, Model::Logistic] {
            for counts in [
                [0, 0, 0, 0, 0],
                [0, 0, 7, 0, 0],
                [0, 0, 0, 0, 3],
                [5, 0, 0, 0, 0],
                [0, 1, 0, 0, 0],
                [1000, 0, 0, 0, 1000],
            ] {
                let status = test(model).status(&Pentanomial(counts));
                assert!(finite(&status), "{model:?} {counts:?}: {status:?}");
            }
        }
        let none = test(Model::Normalized).status(&Pentanomial::default());
        assert_eq!(none.verdict, Verdict::Continue);
        assert!(none.llr.abs() < 0.1);
        assert_eq!(none.estimate.elo, 0.0);
        assert!((none.estimate.los - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_clear_winner_accepts_h1_and_a_clear_loser_h0() {
        for model in [Model::Normalized, Model::Logistic] {
            let win = test(model).status(&Pentanomial([0, 4, 20, 80, 120]));
            assert_eq!(win.verdict, Verdict::H1, "{model:?} {win:?}");
            assert!(win.estimate.elo > 100.0 && win.estimate.los > 0.999);
            let lose = test(model).status(&Pentanomial([120, 80, 20, 4, 0]));
            assert_eq!(lose.verdict, Verdict::H0, "{model:?} {lose:?}");
            assert!(lose.estimate.los < 0.001);
        }
    }

    #[test]
    fn equal_players_drift_to_h0() {
        let status = test(Model::Normalized).status(&Pentanomial([300, 1200, 2000, 1200, 300]));
        assert!(status.llr < 0.0, "{status:?}");
        assert!((status.estimate.elo).abs() < 1e-9);
    }

    #[test]
    fn a_run_stops_at_the_first_batch_that_decides() {
        let batch = Pentanomial([0, 0, 0, 1, 3]);
        let status = test(Model::Normalized).run(std::iter::repeat_n(batch, 100));
        assert_eq!(status.verdict, Verdict::H1);
        assert!(status.counts.pairs() < 100, "{status:?}");
        let before: [u64; 5] = std::array::from_fn(|i| status.counts.0[i] - batch.0[i]);
        let before = test(Model::Normalized).status(&Pentanomial(before));
        assert_eq!(before.verdict, Verdict::Continue);
    }

    #[test]
    fn pairs_are_counted_by_points() {
        let mut counts = Pentanomial::default();
        counts.add_pair(1.0, 1.0);
        counts.add_pair(0.5, 1.0);
        counts.add_pair(0.0, 1.0);
        counts.add_pair(0.5, 0.5);
        counts.add_pair(0.0, 0.0);
        assert_eq!(counts.0, [1, 0, 2, 1, 1]);
        assert_eq!(counts.games(), 10);
        assert_eq!(counts.to_string(), "[1, 0, 2, 1, 1]");
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(matches!(
            Sprt::new(10.0, 0.0, 0.05, 0.05, Model::Normalized),
            Err(SprtError::Hypotheses { .. })
        ));
        assert!(Sprt::new(5.0, 5.0, 0.05, 0.05, Model::Normalized).is_err());
        for rate in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(Sprt::new(0.0, 5.0, rate, 0.05, Model::Normalized).is_err());
            assert!(Sprt::new(0.0, 5.0, 0.05, rate, Model::Logistic).is_err());
        }
        let error = Sprt::new(0.0, 5.0, 1.5, 0.05, Model::Normalized).unwrap_err();
        assert!(error.to_string().contains("--alpha 1.5"), "{error}");
        assert!(Sprt::new(0.0, f64::INFINITY, 0.05, 0.05, Model::Normalized).is_err());
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.5, 0.999_999_256_901_627_7),
            (-1.0, -0.842_700_792_949_714_9),
        ] {
            assert!((erf(x) - want).abs() < 1e-14, "erf({x}) = {}", erf(x));
        }
    }
}
