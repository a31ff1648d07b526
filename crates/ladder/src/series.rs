//! "Is v7 better than v6?": the SPRT series of a new version against the team's previous
//! active version, in pairs of games (one seed, seats swapped), with the very test that
//! `arbiter sprt` runs by default.

use arbiter_sprt::{Estimate, Model, Pentanomial, Sprt, Verdict};

/// The test of a series: `arbiter sprt`'s defaults, H0 0 against H1 10 normalized Elo, α and
/// β 5%. A series answers the author's question the way the author would ask it on their own
/// machine, so that the two answers can be compared.
pub fn series_test() -> Sprt {
    Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
        model: Model::Normalized,
    }
}

/// Where a series stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesResult {
    /// Neither hypothesis yet, and games left to play.
    Running,
    /// H1 accepted: the new version is stronger.
    Stronger,
    /// H0 accepted: the new version is not `elo1` stronger.
    NotStronger,
    /// The series reached its games without accepting either.
    Inconclusive,
}

impl SeriesResult {
    /// The name stored and shown by the API: "running", "stronger", "not_stronger",
    /// "inconclusive" (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            SeriesResult::Running => "running",
            SeriesResult::Stronger => "stronger",
            SeriesResult::NotStronger => "not_stronger",
            SeriesResult::Inconclusive => "inconclusive",
        }
    }

    /// The result a name of [`as_str`](SeriesResult::as_str) stands for.
    pub fn parse(name: &str) -> Option<SeriesResult> {
        [
            SeriesResult::Running,
            SeriesResult::Stronger,
            SeriesResult::NotStronger,
            SeriesResult::Inconclusive,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }

    /// Whether the series is over: no more games are queued for it.
    pub fn is_final(self) -> bool {
        self != SeriesResult::Running
    }
}

/// A series' state, as a bot's page and `arbiter submit --json` show it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeriesSummary {
    /// Where the test stands.
    pub result: SeriesResult,
    /// The new version's logistic Elo over the old one.
    pub elo: f64,
    /// Half the width of the Elo's 95% confidence interval.
    pub elo_error95: f64,
    /// Games played (two a pair).
    pub games: u64,
}

/// The state of a series after the pairs in `counts` (the new version is A), stopped undecided
/// at `max_games`.
pub fn summarize(counts: &Pentanomial, max_games: u64) -> SeriesSummary {
    let test = series_test();
    let games = counts.games();
    let result = match test.verdict(test.llr(counts)) {
        Verdict::H1 => SeriesResult::Stronger,
        Verdict::H0 => SeriesResult::NotStronger,
        Verdict::Continue if games >= max_games => SeriesResult::Inconclusive,
        Verdict::Continue => SeriesResult::Running,
    };
    let Estimate {
        elo, elo_error95, ..
    } = Estimate::of(counts);
    SeriesSummary {
        result,
        elo,
        elo_error95,
        games,
    }
}

impl SeriesSummary {
    /// The sentence a page shows, for versions numbered `new` and `old`, e.g.
    /// "v7 against v6: +34 ± 12 Elo, stronger (H1 accepted after 212 games)".
    pub fn sentence(&self, new: i64, old: i64) -> String {
        let versions = format!("v{new} against v{old}");
        if self.games == 0 {
            return format!("{versions}: no games yet, running");
        }
        let estimate = format!("{} ± {} Elo", signed(self.elo), whole(self.elo_error95));
        let games = plural(self.games);
        let verdict = match self.result {
            SeriesResult::Running => format!("running ({games} so far)"),
            SeriesResult::Stronger => format!("stronger (H1 accepted after {games})"),
            SeriesResult::NotStronger => format!("not stronger (H0 accepted after {games})"),
            SeriesResult::Inconclusive => {
                format!("inconclusive (neither hypothesis accepted after {games})")
            }
        };
        format!("{versions}: {estimate}, {verdict}")
    }
}

/// An Elo rounded to a whole number with its sign: "+34", "-3", "0".
fn signed(elo: f64) -> String {
    let rounded = elo.round() + 0.0;
    if rounded > 0.0 {
        format!("+{rounded}")
    } else {
        whole(rounded)
    }
}

/// A whole number, or "?" when there is none (an error bar the games cannot bound).
fn whole(value: f64) -> String {
    if value.is_finite() {
        format!("{}", value.round() + 0.0)
    } else {
        "?".to_string()
    }
}

/// "1 game", "212 games".
fn plural(games: u64) -> String {
    if games == 1 {
        "1 game".to_string()
    } else {
        format!("{games} games")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_test_is_a_valid_sprt_with_arbiter_sprts_defaults() {
        let test = series_test();
        assert_eq!(
            Sprt::new(0.0, 10.0, 0.05, 0.05, Model::Normalized),
            Ok(test)
        );
    }

    #[test]
    fn a_clearly_stronger_new_version_is_stronger_with_its_elo() {
        // 300 pairs: 180 won both games, 90 split, 30 lost both. (Far from both hypotheses,
        // the ratio grows slowly: 100 such pairs are not yet enough.)
        let counts = Pentanomial([30, 0, 90, 0, 180]);
        let summary = summarize(&counts, 1000);
        assert_eq!(summary.result, SeriesResult::Stronger);
        assert_eq!(summary.games, 600);
        let estimate = Estimate::of(&counts);
        assert_eq!(
            (summary.elo, summary.elo_error95),
            (estimate.elo, estimate.elo_error95)
        );
        assert!(summary.elo > 100.0);
        let sentence = summary.sentence(7, 6);
        assert!(
            sentence.starts_with("v7 against v6: +")
                && sentence.ends_with(", stronger (H1 accepted after 600 games)"),
            "{sentence}"
        );
    }

    #[test]
    fn a_weaker_new_version_is_not_stronger() {
        // 600 pairs: 120 lost both, 405 split, 75 won both.
        let summary = summarize(&Pentanomial([120, 0, 405, 0, 75]), 5000);
        assert_eq!(summary.result, SeriesResult::NotStronger);
        assert!(summary.elo < 0.0);
        let sentence = summary.sentence(3, 2);
        assert_eq!(
            sentence,
            format!(
                "v3 against v2: {} ± {} Elo, not stronger (H0 accepted after 1200 games)",
                signed(summary.elo),
                whole(summary.elo_error95)
            )
        );
        assert!(sentence.starts_with("v3 against v2: -"), "{sentence}");
    }

    #[test]
    fn an_undecided_series_runs_until_its_games_then_is_inconclusive() {
        let counts = Pentanomial([3, 0, 4, 0, 4]);
        assert_eq!(summarize(&counts, 100).result, SeriesResult::Running);
        let summary = summarize(&counts, 22);
        assert_eq!(summary.result, SeriesResult::Inconclusive);
        let sentence = summary.sentence(2, 1);
        assert!(
            sentence.ends_with("Elo, inconclusive (neither hypothesis accepted after 22 games)"),
            "{sentence}"
        );
        let running = summarize(&counts, 100).sentence(2, 1);
        assert!(
            running.ends_with(", running (22 games so far)"),
            "{running}"
        );
    }

    #[test]
    fn a_series_without_games_is_running_and_says_so() {
        let summary = summarize(&Pentanomial::default(), 100);
        assert_eq!(summary.result, SeriesResult::Running);
        assert_eq!(summary.games, 0);
        assert_eq!(
            summary.sentence(2, 1),
            "v2 against v1: no games yet, running"
        );
    }

    #[test]
    fn signs_and_roundings_read_well() {
        assert_eq!(signed(33.6), "+34");
        assert_eq!(signed(-2.6), "-3");
        assert_eq!(signed(-0.2), "0");
        assert_eq!(whole(f64::INFINITY), "?");
        assert_eq!(plural(1), "1 game");
    }

    #[test]
    fn results_have_snake_case_names_in_serde_and_as_str() {
        for result in [
            SeriesResult::Running,
            SeriesResult::Stronger,
            SeriesResult::NotStronger,
            SeriesResult::Inconclusive,
        ] {
            let json = serde_json::to_string(&result).unwrap();
            assert_eq!(json, format!("\"{}\"", result.as_str()));
            assert_eq!(SeriesResult::parse(result.as_str()), Some(result));
            assert_eq!(result.is_final(), result != SeriesResult::Running);
        }
        assert_eq!(SeriesResult::parse("won"), None);
        let summary = summarize(&Pentanomial([0, 0, 1, 0, 0]), 10);
        let json = serde_json::to_value(summary).unwrap();
        assert_eq!(json["result"], "running");
        assert_eq!(json["games"], 2);
    }
}
