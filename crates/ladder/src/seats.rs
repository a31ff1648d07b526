//! How many seats ladder games have: one count, or a weighted mix of counts.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

/// The largest seat count a mix may name: no game of the catalog seats more, and a typo such
/// as "40" should be an error, not a ladder that never finds a match.
pub const MAX_SEATS: usize = 16;

/// The seat counts of ladder games and how often each is chosen: "2" (every game 2 seats) or
/// "2:3,4:1" (2 seats three times in four, 4 seats once). Kept as written, so that
/// [`Display`](fmt::Display) gives back what was parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatMix(Vec<(usize, u32)>);

/// Why a seat mix does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeatMixError {
    /// Nothing was given.
    #[error("the seat mix is empty: give a seat count such as 2, or a mix such as 2:3,4:1")]
    Empty,
    /// A seat count is not a whole number from 1 to [`MAX_SEATS`].
    #[error("{0:?} is not a seat count from 1 to {MAX_SEATS} (as in 2:3,4:1)")]
    Seats(String),
    /// A weight is not a whole number of at least 1.
    #[error("{0:?} is not a weight of at least 1 (as in 2:3,4:1)")]
    Weight(String),
    /// A seat count appears twice.
    #[error("the seat count {0} appears twice in the mix")]
    Repeated(usize),
}

impl SeatMix {
    /// Every game with `seats` seats.
    pub fn single(seats: usize) -> SeatMix {
        SeatMix(vec![(seats, 1)])
    }

    /// The (seat count, weight) pairs, as written.
    pub fn counts(&self) -> &[(usize, u32)] {
        &self.0
    }

    /// The seat counts of the mix, as written: what a game must accept (Quoridor: 2 and 4).
    pub fn seats(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().map(|&(seats, _)| seats)
    }

    /// A seat count drawn with the mix's weights.
    pub fn choose(&self, rng: &mut impl Rng) -> usize {
        let mut left = rng.random_range(0..self.total_weight());
        for &(seats, weight) in &self.0 {
            if left < u64::from(weight) {
                return seats;
            }
            left -= u64::from(weight);
        }
        unreachable!("a draw below the total weight falls in some seat count")
    }

    /// The mean seat count of a game: how many versions a game rates, on average, which the
    /// pace needs to turn games per version into games.
    pub fn mean(&self) -> f64 {
        let seated: u64 = self.0.iter().map(|&(s, w)| s as u64 * u64::from(w)).sum();
        seated as f64 / self.total_weight() as f64
    }

    /// The largest seat count: a ladder needs that many bots for every game of the mix.
    pub fn max(&self) -> usize {
        self.0.iter().map(|&(s, _)| s).max().unwrap_or(0)
    }

    fn total_weight(&self) -> u64 {
        self.0.iter().map(|&(_, w)| u64::from(w)).sum()
    }
}

impl FromStr for SeatMix {
    type Err = SeatMixError;

    fn from_str(text: &str) -> Result<SeatMix, SeatMixError> {
        if text.trim().is_empty() {
            return Err(SeatMixError::Empty);
        }
        let mut mix: Vec<(usize, u32)> = Vec::new();
        for part in text.split(',') {
            let (seats, weight) = parse_part(part.trim())?;
            if mix.iter().any(|&(s, _)| s == seats) {
                return Err(SeatMixError::Repeated(seats));
            }
            mix.push((seats, weight));
        }
        Ok(SeatMix(mix))
    }
}

/// One "SEATS" or "SEATS:WEIGHT" of a mix (weight 1 when left out).
fn parse_part(part: &str) -> Result<(usize, u32), SeatMixError> {
    let (seats, weight) = match part.split_once(':') {
        Some((s, w)) => (s.trim(), Some(w.trim())),
        None => (part, None),
    };
    let seats = seats
        .parse::<usize>()
        .ok()
        .filter(|s| (1..=MAX_SEATS).contains(s))
        .ok_or_else(|| SeatMixError::Seats(seats.to_string()))?;
    let weight = match weight {
        None => 1,
        Some(w) => w
            .parse::<u32>()
            .ok()
            .filter(|&w| w >= 1)
            .ok_or_else(|| SeatMixError::Weight(w.to_string()))?,
    };
    Ok((seats, weight))
}

impl fmt::Display for SeatMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [(seats, 1)] = self.0[..] {
            return write!(f, "{seats}");
        }
        let parts: Vec<String> = self.0.iter().map(|(s, w)| format!("{s}:{w}")).collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn mix(text: &str) -> SeatMix {
        text.parse().unwrap()
    }

    #[test]
    fn one_count_and_a_weighted_mix_parse_and_print_back() {
        assert_eq!(mix("2"), SeatMix::single(2));
        assert_eq!(mix("2:3,4:1").counts(), &[(2, 3), (4, 1)]);
        assert_eq!(mix(" 2 : 3 , 4 ").counts(), &[(2, 3), (4, 1)]);
        for text in ["2", "2:3,4:1", "4:2", "1:1,3:5"] {
            assert_eq!(mix(text).to_string(), text);
        }
        // A weight left out is 1, written out when the mix has more than one count.
        assert_eq!(mix("1,3:5").to_string(), "1:1,3:5");
    }

    #[test]
    fn bad_mixes_say_what_is_wrong() {
        let error = |text: &str| text.parse::<SeatMix>().unwrap_err();
        assert_eq!(error(""), SeatMixError::Empty);
        assert_eq!(error("0"), SeatMixError::Seats("0".into()));
        assert_eq!(error("two"), SeatMixError::Seats("two".into()));
        assert_eq!(error("99"), SeatMixError::Seats("99".into()));
        assert_eq!(error("2:0"), SeatMixError::Weight("0".into()));
        assert_eq!(error("2:-1"), SeatMixError::Weight("-1".into()));
        assert_eq!(error("2:3,"), SeatMixError::Seats("".into()));
        assert_eq!(error("2,4,2:5"), SeatMixError::Repeated(2));
        assert!(error("2:x").to_string().contains("\"x\" is not a weight"));
    }

    #[test]
    fn the_mean_weighs_the_counts() {
        assert_eq!(mix("2").mean(), 2.0);
        assert_eq!(mix("2:3,4:1").mean(), 2.5);
        assert_eq!(mix("2:3,4:1").max(), 4);
        assert_eq!(mix("2:3,4:1").seats().collect::<Vec<_>>(), [2, 4]);
    }

    #[test]
    fn choices_follow_the_weights() {
        let mut rng = StdRng::seed_from_u64(7);
        let mix = mix("2:3,4:1");
        let fours = (0..4000).filter(|_| mix.choose(&mut rng) == 4).count();
        assert!((900..1100).contains(&fours), "{fours} of 4000");
        assert!((0..100).all(|_| SeatMix::single(3).choose(&mut rng) == 3));
    }
}
