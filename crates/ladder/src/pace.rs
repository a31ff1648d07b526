//! How fast the ladder queues games.

use std::fmt;
use std::str::FromStr;

/// How often the ladder queues a game: as fast as the workers go, or a number of games per
/// version per hour, so that a small machine is not saturated by a large ladder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// Keep the queue topped up: the workers set the pace.
    Unlimited,
    /// This many games per ladder version per hour (any positive number, fractions too).
    PerHour(f64),
}

/// Why a pace does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a ladder pace: give \"unlimited\" or a positive number of games per version per hour (default 20)"
)]
pub struct PaceError(pub String);

impl Pace {
    /// The default: 20 games per version per hour, a game every 3 minutes for each version,
    /// which settles a new version's rating (σ down to a third) within about two hours.
    pub const DEFAULT: Pace = Pace::PerHour(20.0);

    /// Whether a new ladder match may be queued now, given when the last one was queued and
    /// how many versions are on the ladder: `N` games per version per hour are
    /// `N · members / mean_seats` games per hour, spaced evenly. An empty ladder allows none.
    pub fn allows(
        &self,
        now_ms: i64,
        last_queued_ms: Option<i64>,
        members: usize,
        mean_seats: f64,
    ) -> bool {
        match self {
            Pace::Unlimited => true,
            Pace::PerHour(_) if members == 0 => false,
            Pace::PerHour(_) => {
                let Some(last) = last_queued_ms else {
                    return true;
                };
                (now_ms - last) as f64 >= self.interval_ms(members, mean_seats)
            }
        }
    }

    /// Milliseconds between two games at this pace with `members` versions on the ladder and
    /// `mean_seats` seats a game; 0 when unlimited.
    pub fn interval_ms(&self, members: usize, mean_seats: f64) -> f64 {
        match *self {
            Pace::Unlimited => 0.0,
            Pace::PerHour(per_version) => {
                let games_per_hour = per_version * members as f64 / mean_seats;
                3_600_000.0 / games_per_hour
            }
        }
    }
}

impl Default for Pace {
    fn default() -> Pace {
        Pace::DEFAULT
    }
}

impl FromStr for Pace {
    type Err = PaceError;

    fn from_str(text: &str) -> Result<Pace, PaceError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("unlimited") {
            return Ok(Pace::Unlimited);
        }
        text.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n > 0.0)
            .map(Pace::PerHour)
            .ok_or_else(|| PaceError(text.to_string()))
    }
}

impl fmt::Display for Pace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pace::Unlimited => f.write_str("unlimited"),
            Pace::PerHour(n) => write!(f, "{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paces_parse_and_print_back() {
        assert_eq!("unlimited".parse(), Ok(Pace::Unlimited));
        assert_eq!("Unlimited".parse(), Ok(Pace::Unlimited));
        assert_eq!("20".parse(), Ok(Pace::PerHour(20.0)));
        assert_eq!(" 0.5 ".parse(), Ok(Pace::PerHour(0.5)));
        for text in ["unlimited", "20", "0.5", "120"] {
            assert_eq!(text.parse::<Pace>().unwrap().to_string(), text);
        }
        assert_eq!(Pace::default(), Pace::PerHour(20.0));
    }

    #[test]
    fn bad_paces_say_what_is_accepted() {
        for text in ["", "0", "-3", "fast", "inf", "NaN", "1e999"] {
            let error = text.parse::<Pace>().unwrap_err();
            assert!(error.to_string().contains("\"unlimited\""), "{error}");
        }
    }

    #[test]
    fn a_pace_spaces_games_evenly_over_the_members() {
        // 20 games per version per hour, 30 versions, 2 seats: 300 games an hour, one every 12 s.
        let pace = Pace::PerHour(20.0);
        assert_eq!(pace.interval_ms(30, 2.0), 12_000.0);
        assert!(pace.allows(0, None, 30, 2.0));
        assert!(!pace.allows(111_999, Some(100_000), 30, 2.0));
        assert!(pace.allows(112_000, Some(100_000), 30, 2.0));
        // Bigger games rate more versions at once: fewer games are needed.
        assert_eq!(pace.interval_ms(30, 2.5), 15_000.0);
    }

    #[test]
    fn unlimited_always_allows_and_an_empty_ladder_never_does() {
        assert!(Pace::Unlimited.allows(0, Some(0), 10, 2.0));
        assert!(!Pace::PerHour(20.0).allows(10_000_000, None, 0, 2.0));
    }
}
