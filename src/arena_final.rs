//! `arbiter arena final`: the arena's final, a tournament of the top N active versions of a
//! game's ladder (by the leaderboard's score, μ − 3σ), its robots as built-in players. It is
//! stored in the arena's own database as any tournament, so that `arbiter tournament resume`
//! or `arbiter worker` plays it and the tournament pages show it: the final is a tournament,
//! not a second way to play one. The versions play the very programs the arena built, from
//! the store, and are not checked again (the arena's check played them from every seat).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter_builds::{Languages, showing};
use arbiter_catalog::{Catalog, CatalogGame, SandboxFlags, TimeLimits, Visit};
use arbiter_referee::Commands;
use arbiter_store::LadderEntry;
use arbiter_store::blocking::Store;
use arbiter_store::{ArenaStore, Presence};
use arbiter_tournament::setup::{self, NewTournament};
use arbiter_tournament::{Contestant, Format, programs};
use clap::{Args, ValueEnum};
use serde_json::Value;

use crate::out::{errln, outln};
use arbiter_text::for_terminal as shown;

/// The flags of `arbiter arena final`.
#[derive(Args)]
pub struct FinalArgs {
    /// The game whose ladder the finalists come from.
    #[arg(long)]
    game: String,
    /// How many of the ladder's best play, 2 to 1000 (all of them if the ladder has fewer).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=1000))]
    top: u32,
    /// round-robin (every pair meets, both seat orders) or swiss (2-player games).
    #[arg(long, value_enum, default_value = "round-robin")]
    format: FinalFormat,
    /// Rounds, 1 to 10000: the whole schedule played this many times with new seeds (Swiss:
    /// rounds paired; default log2 of the players, rounded up).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=crate::cli::MAX_ROUNDS))]
    rounds: Option<u32>,
    /// The arena's store: a SQLite file, or a postgres:// URL.
    #[arg(long)]
    db: String,
    /// The tournament's name, shown on its pages (default: "GAME final, top N").
    #[arg(long, value_parser = crate::tournament::tournament_name)]
    name: Option<String>,
    /// The tournament seed, from which every match seed is derived (random if not given).
    #[arg(long)]
    seed: Option<u64>,
    /// Where replays go (default: a folder next to the database, DB-replays/).
    #[arg(long)]
    replays: Option<PathBuf>,
    /// The arena's games file (`arbiter arena serve --games-file`): the final is played with
    /// the settings the ladder plays. Without it, the game's default settings.
    #[arg(long, value_name = "TOML")]
    games_file: Option<PathBuf>,
    /// The arena's languages file (`arbiter arena serve --languages`): the sandbox shows each
    /// finalist its language's toolchains, as the ladder does.
    #[arg(long, value_name = "TOML")]
    languages: Option<PathBuf>,
    #[command(flatten)]
    time: TimeLimits,
    #[command(flatten)]
    sandbox: SandboxFlags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FinalFormat {
    RoundRobin,
    Swiss,
}

impl From<FinalFormat> for Format {
    fn from(format: FinalFormat) -> Format {
        match format {
            FinalFormat::RoundRobin => Format::RoundRobin,
            FinalFormat::Swiss => Format::Swiss,
        }
    }
}

/// One of the ladder's best, as it plays in the final.
#[derive(Clone, Debug, PartialEq)]
enum Finalist {
    /// A built-in robot enrolled in the ladder: it plays as `builtin:NAME`.
    Robot {
        /// Its place on the ladder.
        entry: LadderEntry,
        /// The robot's name (`strong/nodes=2000`).
        robot: String,
    },
    /// A version a team handed in: it plays the program the arena built.
    Version {
        /// Its place on the ladder.
        entry: LadderEntry,
        /// The hash of its program in the store.
        program: String,
        /// The language it was built as, for the toolchains the sandbox shows it.
        language: String,
    },
}

impl Finalist {
    fn entry(&self) -> &LadderEntry {
        match self {
            Finalist::Robot { entry, .. } | Finalist::Version { entry, .. } => entry,
        }
    }

    /// Its player id and alias in the tournament: the robot's `builtin:NAME`, a version's bot
    /// and number (`walker v3`), each its own on a ladder of distinct bot names.
    fn player_id(&self) -> String {
        match self {
            Finalist::Robot { robot, .. } => format!("builtin:{robot}"),
            Finalist::Version { entry, .. } => format!("{} v{}", entry.bot, entry.version),
        }
    }
}

pub fn run<C: Catalog>(args: FinalArgs) -> Result<()> {
    // An unknown game is refused before the store is opened.
    crate::visit::<C, _>(&args.game, KnownGame)?;
    let finalists = crate::arena::runtime()?.block_on(finalists(&args))?;
    let settings = game_settings::<C>(&args.game, args.games_file.as_deref())?;
    crate::visit::<C, _>(
        &args.game.clone(),
        MakeFinal {
            args,
            finalists,
            settings,
        },
    )?
}

/// Answers whether the catalog knows a game (visiting it is the question).
struct KnownGame;

impl Visit for KnownGame {
    type Output = ();

    fn visit<G: CatalogGame>(self) {}
}

/// The top `args.top` of the ladder of `args.game`, best first.
async fn finalists(args: &FinalArgs) -> Result<Vec<Finalist>> {
    let store = ArenaStore::open(&args.db, Presence::MustExist)
        .await
        .with_context(|| format!("opening the arena's store {}", args.db))?;
    let board = store.leaderboard(&args.game).await?;
    if board.len() < 2 {
        bail!(
            "the ladder of {} has {} active version(s): a final needs at least 2 (bots handed \
             in and passed, or robots enrolled with `arbiter arena robot add`)",
            args.game,
            board.len()
        );
    }
    let mut finalists = Vec::new();
    for entry in board.into_iter().take(args.top as usize) {
        finalists.push(finalist(&store, entry).await?);
    }
    Ok(finalists)
}

/// What ladder entry `entry` plays as: its version's robot, or its version's program.
async fn finalist(store: &ArenaStore, entry: LadderEntry) -> Result<Finalist> {
    let version = store
        .version_by_id(entry.version_id)
        .await?
        .with_context(|| format!("the store has no version {}", entry.version_id))?;
    if entry.robot {
        return Ok(Finalist::Robot {
            robot: version.file_name,
            entry,
        });
    }
    let program = version.program.with_context(|| {
        format!(
            "{} v{} is on the ladder but has no program",
            entry.bot, entry.version
        )
    })?;
    Ok(Finalist::Version {
        entry,
        program,
        language: version.language.unwrap_or_default(),
    })
}

/// The settings of `game` as the arena offers it: its games file's, or the defaults (`{}`).
fn game_settings<C: Catalog>(game: &str, games_file: Option<&Path>) -> Result<Value> {
    let offered = crate::arena::offered_games::<C>(&[game.to_owned()], games_file)?;
    Ok(offered
        .into_iter()
        .find(|g| g.name == game)
        .map(|g| g.settings)
        .unwrap_or_else(|| Value::Object(Default::default())))
}

/// Makes the final of one game: the tournament, stored.
struct MakeFinal {
    args: FinalArgs,
    finalists: Vec<Finalist>,
    settings: Value,
}

impl Visit for MakeFinal {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let MakeFinal {
            args,
            finalists,
            settings,
        } = self;
        let settings: G::Settings = serde_json::from_value(settings)
            .with_context(|| format!("the settings of {}", args.game))?;
        let store = Store::open(&args.db, Presence::MustExist)
            .with_context(|| format!("--db {}", args.db))?;
        let languages = crate::arena::languages(args.languages.as_deref())?;
        let seed = args.seed.unwrap_or_else(crate::play::fresh_seed);
        let top = finalists.len();
        let new = NewTournament {
            name: Some(
                args.name
                    .clone()
                    .unwrap_or_else(|| format!("{} final, top {top}", args.game)),
            ),
            dir: None,
            add: robots(&finalists),
            stored: versions(&store, &finalists)?,
            format: Some(args.format.into()),
            rounds: args.rounds,
            challenger: None,
            seed,
            replays: args.replays.clone(),
            keep_failing: false,
            attempts: 3,
            jobs: 1,
            settings,
            time: args.time.clone(),
            sandbox: showing(&args.sandbox.policy(), &toolchains(&languages, &finalists)),
            max_program_mb: programs::DEFAULT_MAX_MB,
            sprt: None,
            commands: Commands::AsWritten,
        };
        let created =
            setup::create::<G>(&store, &args.db, new, &mut crate::tournament::print_note)?;
        let t = &created.tournament;
        errln!(
            "the final of {}: tournament {} in {}, {}, {} round(s), seed {seed}",
            args.game,
            t.id,
            shown(&args.db),
            t.format.as_str(),
            t.rounds
        );
        for finalist in &finalists {
            let e = finalist.entry();
            errln!(
                "{:>4}. {} ({}) score {:.2}, {} game(s)",
                e.rank,
                shown(&finalist.player_id()),
                shown(&e.team),
                e.score,
                e.games
            );
        }
        errln!(
            "play it with `arbiter tournament resume --db {} --tournament {}`, or workers \
             (`arbiter worker --db {}`)",
            shown(&args.db),
            t.id,
            shown(&args.db)
        );
        outln!("tournament {}", t.id)?;
        Ok(())
    }
}

/// The robots among the finalists, as `--add builtin:NAME` names them.
fn robots(finalists: &[Finalist]) -> Vec<String> {
    finalists
        .iter()
        .filter(|f| matches!(f, Finalist::Robot { .. }))
        .map(Finalist::player_id)
        .collect()
}

/// The versions among the finalists, each the player of its stored program: named for its bot
/// and number, its team as its author.
fn versions(store: &Store, finalists: &[Finalist]) -> Result<Vec<Contestant>> {
    let cache = arbiter_tournament::cache_dir().join("programs");
    let mut players = Vec::new();
    for finalist in finalists {
        if let Finalist::Version { entry, program, .. } = finalist {
            let id = finalist.player_id();
            let player = programs::stored_player(store, &id, program, &cache)?;
            players.push(Contestant {
                alias: id,
                full_name: entry.team.clone(),
                ..player
            });
        }
    }
    Ok(players)
}

/// The toolchain folders of the finalists' languages, each once.
fn toolchains(languages: &Languages, finalists: &[Finalist]) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for finalist in finalists {
        if let Finalist::Version { language, .. } = finalist {
            for folder in languages.toolchains_for(language) {
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
    }
    folders
}
