//! Ratings. The rating systems are skillratings' (Elo for 2-player games, Weng-Lin for more);
//! what that crate does not have — the 95% error bar of an Elo and the likelihood of
//! superiority, statistics over wins, draws and losses — follows cutechess-cli's `elo.cpp`.

use skillratings::MultiTeamOutcome;
use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// A 2-player game's result: the players and the first one's score (1 win, ½ draw, 0 loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duel {
    /// The first player, by index.
    pub first: usize,
    /// The second player, by index.
    pub second: usize,
    /// The first player's score: 1 win, 0.5 draw, 0 loss.
    pub score: f64,
}

/// Elo ratings of `players` after `games` in order, each rated as skillratings' `elo` does
/// (every player starts at its default, 1000, with its default K of 32).
pub fn elo_ratings(players: usize, games: &[Duel]) -> Vec<f64> {
    let config = EloConfig::new();
    let mut ratings = vec![EloRating::new(); players];
    for game in games {
        let outcome = if game.score > 0.5 {
            Outcomes::WIN
        } else if game.score < 0.5 {
            Outcomes::LOSS
        } else {
            Outcomes::DRAW
        };
        let (a, b) = elo(
            &ratings[game.first],
            &ratings[game.second],
            &outcome,
            &config,
        );
        ratings[game.first] = a;
        ratings[game.second] = b;
    }
    ratings.into_iter().map(|r| r.rating).collect()
}

/// Weng-Lin ratings (μ, σ) after `matches` in order; a match is its players with their places
/// (1 is best, equal places are ties).
pub fn weng_lin_ratings(players: usize, matches: &[Vec<(usize, u32)>]) -> Vec<(f64, f64)> {
    let config = WengLinConfig::new();
    let mut ratings = vec![WengLinRating::new(); players];
    for places in matches {
        let teams: Vec<[WengLinRating; 1]> = places.iter().map(|&(p, _)| [ratings[p]]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(places)
            .map(|(team, &(_, place))| (&team[..], MultiTeamOutcome::new(place as usize)))
            .collect();
        let new = weng_lin_multi_team(&ranked, &config);
        for (team, &(p, _)) in new.iter().zip(places) {
            ratings[p] = team[0];
        }
    }
    ratings
        .into_iter()
        .map(|r| (r.rating, r.uncertainty))
        .collect()
}

/// The conservative Weng-Lin estimate a table is ranked by.
pub fn conservative(mu: f64, sigma: f64) -> f64 {
    mu - 3.0 * sigma
}

/// The half-width of the 95% confidence interval of the Elo difference that a score of
/// `wins`, `draws`, `losses` shows, as cutechess-cli's `Elo::errorMargin` computes it:
///
/// ```text
/// n = w + d + l;  μ = (w + d/2) / n
/// σ = sqrt( (w/n)(1−μ)² + (d/n)(½−μ)² + (l/n)(0−μ)² ) / sqrt(n)
/// margin = (diff(μ + 1.96σ) − diff(μ − 1.96σ)) / 2,  diff(p) = −400·log10(1/p − 1)
/// ```
///
/// `None` when it is undefined: no games, or a score of 0% or 100%.
pub fn elo_error95(wins: u32, draws: u32, losses: u32) -> Option<f64> {
    let n = f64::from(wins + draws + losses);
    if n == 0.0 {
        return None;
    }
    let (w, d, l) = (
        f64::from(wins) / n,
        f64::from(draws) / n,
        f64::from(losses) / n,
    );
    let mu = w + d / 2.0;
    let dev = w * (1.0 - mu).powi(2) + d * (0.5 - mu).powi(2) + l * (0.0 - mu).powi(2);
    let stdev = dev.sqrt() / n.sqrt();
    // Φ⁻¹(0.975).
    const Z95: f64 = 1.959_963_984_540_054;
    let (low, high) = (mu - Z95 * stdev, mu + Z95 * stdev);
    if low <= 0.0 || high >= 1.0 {
        return None;
    }
    Some((elo_diff(high) - elo_diff(low)) / 2.0)
}

/// The Elo difference a score fraction `p` corresponds to (cutechess-cli's `Elo::diff`).
pub fn elo_diff(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The likelihood that a player who won `wins` and lost `losses` against another is the
/// stronger, as cutechess-cli's `Elo::LOS`: `½ + ½·erf((w − l) / sqrt(2(w + l)))`, a fraction
/// in 0..=1. Draws say nothing about it. `None` without a decisive game.
pub fn likelihood_of_superiority(wins: u32, losses: u32) -> Option<f64> {
    if wins + losses == 0 {
        return None;
    }
    let (w, l) = (f64::from(wins), f64::from(losses));
    Some(0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt()))
}

/// The error function, to 1.5·10⁻⁷ (Abramowitz and Stegun 7.1.26): the standard library's is
/// not stable, and the precision is far below what a percentage shows.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_a_known_sequence_is_what_skillratings_gives() {
        let games = [
            Duel {
                first: 0,
                second: 1,
                score: 1.0,
            },
            Duel {
                first: 1,
                second: 2,
                score: 0.5,
            },
            Duel {
                first: 2,
                second: 0,
                score: 1.0,
            },
            Duel {
                first: 0,
                second: 1,
                score: 0.0,
            },
        ];
        let ratings = elo_ratings(3, &games);
        let config = EloConfig::new();
        let mut r = [EloRating::new(); 3];
        (r[0], r[1]) = elo(&r[0], &r[1], &Outcomes::WIN, &config);
        (r[1], r[2]) = elo(&r[1], &r[2], &Outcomes::DRAW, &config);
        (r[2], r[0]) = elo(&r[2], &r[0], &Outcomes::WIN, &config);
        (r[0], r[1]) = elo(&r[0], &r[1], &Outcomes::LOSS, &config);
        for p in 0..3 {
            assert_eq!(ratings[p], r[p].rating);
        }
        // The first game by hand: equal ratings expect ½, K = 32.
        assert_eq!(elo_ratings(2, &games[..1]), [1016.0, 984.0]);
    }

    #[test]
    fn weng_lin_of_a_known_sequence_is_what_skillratings_gives() {
        let matches = vec![
            vec![(0, 1), (1, 2), (2, 3), (3, 4)],
            vec![(3, 1), (2, 1), (1, 3), (0, 4)],
        ];
        let ratings = weng_lin_ratings(4, &matches);
        let config = WengLinConfig::new();
        let mut r = [WengLinRating::new(); 4];
        for m in &matches {
            let teams: Vec<[WengLinRating; 1]> = m.iter().map(|&(p, _)| [r[p]]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(m)
                .map(|(t, &(_, place))| (&t[..], MultiTeamOutcome::new(place as usize)))
                .collect();
            let new = weng_lin_multi_team(&ranked, &config);
            for (t, &(p, _)) in new.iter().zip(m) {
                r[p] = t[0];
            }
        }
        for p in 0..4 {
            assert_eq!(ratings[p], (r[p].rating, r[p].uncertainty));
        }
        let first = weng_lin_ratings(4, &matches[..1]);
        assert!(first[0].0 > first[1].0 && first[1].0 > first[2].0);
    }

    #[test]
    fn error_bars_and_los_match_cutechess() {
        // 60 wins, 10 draws, 30 losses by hand: μ = 0.65, σ = sqrt(0.2025)/10 = 0.045,
        // the interval 0.5618..0.7382 is 43.2..180.1 Elo, a margin of 68.4.
        assert_eq!(elo_diff(0.65).round(), 108.0);
        let margin = elo_error95(60, 10, 30).unwrap();
        assert!((margin - 68.45).abs() < 0.1, "{margin}");
        let los = likelihood_of_superiority(60, 30).unwrap();
        assert!((los - 0.99922).abs() < 1e-4, "{los}");
        assert!((likelihood_of_superiority(5, 5).unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(likelihood_of_superiority(0, 0), None);
        assert_eq!(elo_error95(3, 0, 0), None);
        assert_eq!(elo_error95(0, 0, 0), None);
        assert!((erf(0.5) - 0.520_499_877_8).abs() < 2e-7);
    }
}
