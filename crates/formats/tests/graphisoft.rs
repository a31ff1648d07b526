//! The GRAPHISOFT log importer called as a library: the example session of the Labyrinth docs as
//! alice's client logged it, the same log with one thing changed, and damaged logs, which are
//! errors and never panics.

use arbiter_formats::graphisoft::{ImportError, Place, import};
use arbiter_replay::Record;

/// The example session as alice's client received it (the engine's tests check that the
/// server sends exactly this).
const EXAMPLE: &str = include_str!("../../games/tests/data/labyrinth_session.txt");

#[test]
fn the_example_session_is_rebuilt_turn_by_turn() {
    let records = import(EXAMPLE, "alice.log").unwrap();
    let Record::Header(header) = &records[0] else {
        panic!("no header first")
    };
    assert_eq!(header.game, "labyrinth");
    assert_eq!(header.settings["import"]["source"], "alice.log");
    assert_eq!(
        header.settings["targets"],
        serde_json::json!([[0, 1], [1, 0]])
    );
    let ticks = records
        .iter()
        .filter(|r| matches!(r, Record::Tick(_)))
        .count();
    assert_eq!(ticks, 4, "the start and three turns");
    let Some(Record::Result(result)) = records.last() else {
        panic!("no result last")
    };
    assert_eq!(result.scores, [2.0, 0.0]);
    assert_eq!(result.reason, "all_displays");
}

#[test]
fn a_changed_tile_stops_the_import_at_its_turn() {
    let tile = EXAMPLE.replacen(
        "FIELDS 12 10 14 4 5 15 5 5 15 9 10 11",
        "FIELDS 12 10 14 4 5 15 5 5 15 9 10 7",
        1,
    );
    let error = import(&tile, "tile.log").unwrap_err();
    let ImportError::Turn { place, problem } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        *place,
        Place {
            turn: 1,
            tick: 0,
            seat: 0,
            line: 11
        }
    );
    assert!(
        problem.contains("FIELDS differs at (3, 2): ours 11 log 7"),
        "{problem}"
    );
    assert!(
        error
            .to_string()
            .starts_with("turn 1 (tick 0, seat 0, log line 11): "),
        "{error}"
    );
}

#[test]
fn a_score_one_short_is_a_difference_of_blocks() {
    let score = EXAMPLE.replacen("GAMESCORE 1", "GAMESCORE 0", 1);
    let error = import(&score, "score.log").unwrap_err();
    assert!(matches!(error, ImportError::Differs { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("GAMESCORE differs: ours `GAMESCORE 1` log `GAMESCORE 0`"),
        "{error}"
    );
}

#[test]
fn the_final_score_is_checked() {
    let score = EXAMPLE.replacen("SCORE 2", "SCORE 5", 1);
    assert!(score != EXAMPLE, "the example ends with SCORE 2");
    let error = import(&score, "score.log").unwrap_err();
    assert!(matches!(error, ImportError::Score { .. }), "{error:?}");
}

#[test]
fn every_truncation_and_every_changed_number_is_an_answer_not_a_panic() {
    let lines: Vec<&str> = EXAMPLE.lines().collect();
    for end in 0..lines.len() {
        let _ = import(&lines[..end].join("\n"), "cut.log");
    }
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (j, _) in words.iter().enumerate().skip(1) {
            for new in ["0", "9", "99", "255", "-1", "x"] {
                let mut changed = words.clone();
                changed[j] = new;
                let mut log = lines.clone();
                let joined = changed.join(" ");
                log[i] = &joined;
                let _ = import(&log.join("\n"), "changed.log");
            }
        }
    }
}
