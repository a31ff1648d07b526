//! What bots and servers send is untrusted: every game's answer parser (the referee reading a
//! bot) and client (`arbiter bot` reading a referee or a game server) take arbitrary text, and
//! near-valid text with one token changed, without panicking.

use arbiter_catalog::{Catalog, CatalogGame, Games, TableSetup, Visit};
use arbiter_games::ClientEvent;
use arbiter_games::playout::random_plies;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Text made of the words of every game's protocol, numbers of every size and punctuation:
/// closer to an answer than arbitrary text, so that the parsers' inner branches are reached.
fn protocol_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("PUSH".to_owned()),
        Just("GOTO".to_owned()),
        Just("MESSAGE".to_owned()),
        Just("TICK".to_owned()),
        Just(".".to_owned()),
        Just("-1".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u8>().prop_map(|n| n.to_string()),
        "[0-9]{1,40}",
        "[{};,()\\-+ \t\r\n]",
        "[A-Za-z_]{1,8}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(token, 0..40).prop_map(|tokens| tokens.join(" "))
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![protocol_text(), any::<String>()]
}

/// One game's parsers, fed from a position `plies` random turns into a match.
struct Feed {
    seed: u64,
    plies: u32,
    answers: Vec<String>,
    /// Which line of a valid conversation to replace, and by what.
    damage: (prop::sample::Index, String),
    /// Which token of a valid conversation to replace by a number.
    number: (prop::sample::Index, String),
}

impl Visit for Feed {
    type Output = Result<(), TestCaseError>;

    fn visit<G: CatalogGame>(self) -> Result<(), TestCaseError> {
        let settings = G::Settings::default();
        let seats = G::seats(&settings, 0);
        let mut game = G::build(&settings, &TableSetup::numbered(seats)).unwrap();
        let mut rng = SmallRng::seed_from_u64(self.seed);
        random_plies(&mut game, &mut rng, &mut Vec::new(), self.plies);
        for answer in &self.answers {
            if let Ok(action) = game.parse_action(answer) {
                // A parsed action is checked by the rules: legal or not, never a panic.
                let _ = game.clone().apply(action);
            }
        }
        let player = game.to_move().unwrap_or(0);
        let mut conversation = String::new();
        for round in 0..G::PROTOCOL.start.rounds {
            game.start_message(round, player, &mut conversation);
        }
        game.turn_message(player, &mut conversation);
        let lines: Vec<String> = conversation.lines().map(str::to_owned).collect();
        feed_client::<G>(&lines);
        if !lines.is_empty() {
            let mut damaged = lines.clone();
            damaged[self.damage.0.index(lines.len())] = self.damage.1.clone();
            feed_client::<G>(&damaged);
        }
        let mut words: Vec<String> = conversation
            .split_inclusive(char::is_whitespace)
            .map(str::to_owned)
            .collect();
        if !words.is_empty() {
            let at = self.number.0.index(words.len());
            let end = if words[at].ends_with('\n') { "\n" } else { " " };
            words[at] = format!("{}{end}", self.number.1);
            let text = words.concat();
            feed_client::<G>(&text.lines().map(str::to_owned).collect::<Vec<_>>());
        }
        Ok(())
    }
}

/// Feeds `lines` to a new client of `G`, as `arbiter bot` does; a position it rebuilds is
/// asked for its legal actions, as a robot would.
fn feed_client<G: CatalogGame>(lines: &[String]) {
    let mut client = G::Client::default();
    let mut actions = Vec::new();
    for line in lines {
        match G::client_feed(&mut client, line) {
            Ok(ClientEvent::YourTurn(game)) => {
                if game.to_move().is_some() {
                    game.legal_actions(&mut actions);
                }
            }
            Ok(ClientEvent::End) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u16>().prop_map(|n| n.to_string()),
        (0u8..20).prop_map(|n| n.to_string()),
        "[0-9]{20,40}",
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_game_takes_any_answer_and_any_referee_line(
        game in prop::sample::select(Games::games().iter().map(|g| g.name).collect::<Vec<_>>()),
        seed in any::<u64>(),
        plies in 0u32..30,
        answers in prop::collection::vec(any_text(), 0..8),
        damage in (any::<prop::sample::Index>(), any_text()),
        number in (any::<prop::sample::Index>(), number()),
    ) {
        let feed = Feed { seed, plies, answers, damage, number };
        Games::visit(game, feed).ok().expect("a game of the catalog")?;
    }
}
