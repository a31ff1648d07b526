//! The command line's shape: commands that play a game take it as a subcommand generated from
//! the catalog, each with the command's own arguments and that game's settings only.

use std::ffi::OsString;

use arbiter_catalog::{Catalog, GameInfo};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgMatches, Args, Command, FromArgMatches};

/// The game a command plays, chosen as a subcommand: the command's arguments `A` and the
/// matches the game's settings are read from (by the game, which alone knows their type).
pub struct GameChoice<A> {
    pub game: String,
    pub args: A,
    pub matches: ArgMatches,
}

/// An optional [`GameChoice`] for derived commands: the games themselves are added by
/// [`with_games`] once the catalog is known.
pub struct GameArgs<A>(pub Option<GameChoice<A>>);

impl<A: FromArgMatches> FromArgMatches for GameArgs<A> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((game, sub)) = matches.subcommand() else {
            return Ok(GameArgs(None));
        };
        Ok(GameArgs(Some(GameChoice {
            game: game.to_owned(),
            args: A::from_arg_matches(sub)?,
            matches: sub.clone(),
        })))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<A: Args> Args for GameArgs<A> {
    fn augment_args(command: Command) -> Command {
        command
    }

    fn augment_args_for_update(command: Command) -> Command {
        command
    }
}

impl<A> GameArgs<A> {
    /// The choice of a command whose game is required (clap has checked it is there).
    pub fn required(self) -> GameChoice<A> {
        self.0.expect("clap requires a game")
    }
}

/// Adds one subcommand per game of `C` to `command`: the arguments `A`, then the game's
/// settings under a heading of their own.
pub fn with_games<C: Catalog, A: Args>(command: Command) -> Command {
    command.subcommands(C::games().into_iter().map(|game| {
        let sub = A::augment_args(Command::new(game.name).about(game.about));
        (game.settings)(sub.next_help_heading("Game settings"))
    }))
}

/// The error of a flag that belongs to another game than the one named, as clap's
/// "unexpected argument" would not say: which game has it, and what this game has.
pub fn foreign_flag<C: Catalog>(error: &clap::Error, argv: &[OsString]) -> Option<String> {
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = given.strip_prefix("--")?.split('=').next()?;
    let games = C::games();
    let game = argv
        .iter()
        .filter_map(|a| a.to_str())
        .find_map(|a| games.iter().find(|g| g.name == a))?;
    let owners: Vec<&str> = games
        .iter()
        .filter(|g| g.name != game.name && g.flags().iter().any(|f| f == flag))
        .map(|g| g.name)
        .collect();
    if owners.is_empty() {
        return None;
    }
    Some(format!(
        "--{flag} is a setting of {}, not {}; {}",
        owners.join(" and "),
        game.name,
        settings_list(game)
    ))
}

/// "quoridor's settings are: --players, --board, ..." (or that it has none).
fn settings_list(game: &GameInfo) -> String {
    let flags = game.flags();
    if flags.is_empty() {
        return format!("{} has no settings", game.name);
    }
    let flags: Vec<String> = flags.iter().map(|f| format!("--{f}")).collect();
    format!("{}'s settings are: {}", game.name, flags.join(", "))
}

/// The most matches a tournament plays at once (`--jobs`): each is a thread and a few processes,
/// and a thousand already exceeds what any one machine runs well.
pub const MAX_JOBS: u64 = 1024;

/// `--jobs`: 1 to [`MAX_JOBS`], refused with the flag and the range when parsed.
pub fn jobs() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=MAX_JOBS)
}

/// The largest player folder a tournament stores (`--max-program-mb`, MiB once compressed): the
/// store holds each as one value, and both SQLite's and PostgreSQL's values stop short of 1 GB.
pub const MAX_PROGRAM_MB: u64 = 512;

/// `--max-program-mb`: 1 to [`MAX_PROGRAM_MB`].
pub fn max_program_mb() -> clap::builder::RangedU64ValueParser<u64> {
    clap::builder::RangedU64ValueParser::new().range(1..=MAX_PROGRAM_MB)
}

/// The most rounds of a tournament (`--rounds`); the tournament crate also caps the matches.
pub const MAX_ROUNDS: i64 = 10_000;

/// The command line as older scripts wrote it, in today's shape: `tournament run --game GAME`
/// becomes `tournament run GAME`.
pub fn modernize(mut argv: Vec<OsString>) -> Vec<OsString> {
    let is = |a: &OsString, s: &str| a.to_str() == Some(s);
    let Some(run) = argv
        .windows(2)
        .position(|w| is(&w[0], "tournament") && is(&w[1], "run"))
    else {
        return argv;
    };
    let at = run + 2;
    let Some(flag) = argv[at..]
        .iter()
        .position(|a| is(a, "--game") || a.to_str().is_some_and(|s| s.starts_with("--game=")))
    else {
        return argv;
    };
    let flag = at + flag;
    let game = match argv[flag].to_str().and_then(|s| s.strip_prefix("--game=")) {
        Some(game) => {
            let game = OsString::from(game);
            argv.remove(flag);
            game
        }
        None if flag + 1 < argv.len() => {
            let game = argv.remove(flag + 1);
            argv.remove(flag);
            game
        }
        None => return argv,
    };
    argv.insert(at, game);
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn the_old_game_flag_of_tournament_run_names_the_subcommand() {
        assert_eq!(
            modernize(args("arbiter tournament run dir --game domino --seed 5")),
            args("arbiter tournament run domino dir --seed 5")
        );
        assert_eq!(
            modernize(args("arbiter tournament run --game=quoridor")),
            args("arbiter tournament run quoridor")
        );
        assert_eq!(
            modernize(args("arbiter play quoridor")),
            args("arbiter play quoridor")
        );
    }
}
