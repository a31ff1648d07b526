//! The command line of the Arbiter referee. Thin: it parses flags and calls the crates.
//!
//! [`run`] is the whole command line over a list of games: the binary runs it over
//! [`arbiter_catalog::Games`], and tests over a list with a game of their own.
// Every command prints through `out::outln!`, whose broken pipe ends the command quietly.
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod arena;
mod arena_final;
mod arena_ops;
mod bench;
mod bot;
mod cli;
mod game_server;
mod out;
mod perft;
mod play;
mod replay_cmd;
mod sprt;
mod submit;
mod tournament;
mod web;
mod worker;

use std::ffi::OsString;
use std::process::ExitCode;

use arbiter_catalog::Catalog;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "arbiter",
    version,
    about = "Referee, tournament runner and game server for bot-programming contests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
// Parsed once per run: the size of its largest variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Play one match between bots (commands, player folders or builtin:NAME robots).
    Play(play::PlayArgs),
    /// Run a built-in robot as a bot process speaking the game's protocol on stdin/stdout.
    Bot(bot::BotArgs),
    /// Count the sequences of legal actions of a given length from the start position.
    Perft(perft::PerftArgs),
    /// Measure engine speed: uniformly random playouts per second and plies per second.
    Bench(bench::BenchArgs),
    /// Replays: show one in the web viewer, write one as an HTML file, convert to and from
    /// other tools' formats.
    Replay(ReplayArgs),
    /// Run tournaments between player folders and robots; show standings and matches.
    Tournament(tournament::TournamentArgs),
    /// Test whether bot A is stronger than bot B: pairs of games until a sequential
    /// probability ratio test (SPRT) decides.
    Sprt(sprt::SprtCommand),
    /// Play the matches of a store's open tournaments, beside other workers on this machine
    /// or others.
    Worker(worker::WorkerArgs),
    /// The HTTP viewer: tournaments of a store, replays of a folder, matches played live.
    #[command(alias = "serve")]
    Web(web::WebArgs),
    /// The TCP game server: teams log in, games every interval, robots in empty seats.
    #[command(alias = "server")]
    GameServer(game_server::GameServerArgs),
    /// Manage the game server's team accounts (argon2-hashed passwords).
    Accounts(game_server::AccountsArgs),
    /// The arena: bot authors sign in, hand in source code, and see it built and checked.
    Arena(arena::ArenaArgs),
    /// Hand in a version of a bot to an arena and wait until it is built and checked (exit
    /// status 0 active, 1 its build or check failed, 2 a usage or connection error).
    Submit(submit::SubmitArgs),
    /// Older name of `arbiter replay view`.
    #[command(hide = true)]
    View(web::ViewArgs),
    /// Older name of `arbiter replay html`.
    #[command(hide = true)]
    Export(web::HtmlArgs),
}

#[derive(clap::Args)]
struct ReplayArgs {
    #[command(subcommand)]
    command: ReplayCommand,
}

#[derive(Subcommand)]
enum ReplayCommand {
    /// Serve one replay in the web viewer and print its URL.
    View(web::ViewArgs),
    /// Write one HTML file that plays a replay offline.
    Html(web::HtmlArgs),
    #[command(flatten)]
    Formats(replay_cmd::ReplayCommand),
}

/// The whole command: every command that plays a game takes one of `C` as a subcommand.
fn command<C: Catalog>() -> clap::Command {
    use cli::with_games;
    let names: Vec<&'static str> = C::games().iter().map(|g| g.name).collect();
    Cli::command()
        .mut_subcommand("play", with_games::<C, play::PlayCommon>)
        .mut_subcommand("bench", |c| {
            with_games::<C, bench::BenchCommon>(c).subcommand_required(true)
        })
        .mut_subcommand("perft", |c| {
            with_games::<C, perft::PerftCommon>(c).subcommand_required(true)
        })
        .mut_subcommand("tournament", |t| {
            t.mut_subcommand("run", |c| {
                with_games::<C, tournament::RunArgs>(c).subcommand_required(true)
            })
        })
        .mut_subcommand("sprt", |c| {
            with_games::<C, sprt::SprtArgs>(c).subcommand_required(true)
        })
        .mut_subcommand("game-server", |c| {
            with_games::<C, game_server::ServerCommon>(c).subcommand_required(true)
        })
        .mut_subcommand("bot", |c| {
            c.mut_arg("game", |a| {
                a.value_parser(clap::builder::PossibleValuesParser::new(names))
            })
        })
}

/// Runs the command line `argv` (the program name first) over the games of `C`.
pub fn run<C: Catalog>(argv: impl IntoIterator<Item = impl Into<OsString>>) -> ExitCode {
    let argv = cli::modernize(argv.into_iter().map(Into::into).collect());
    let matches = match command::<C>().try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(error) => {
            if let Some(message) = cli::foreign_flag::<C>(&error, &argv) {
                out::errln!("arbiter: {message}");
                return ExitCode::from(2);
            }
            let _ = error.print();
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    let result = match cli.command {
        Command::Play(args) => play::run::<C>(args),
        Command::Bot(args) => bot::run::<C>(args),
        Command::Perft(args) => perft::run::<C>(args),
        Command::Bench(args) => bench::run::<C>(args),
        Command::Replay(args) => match args.command {
            ReplayCommand::View(args) => web::view(args),
            ReplayCommand::Html(args) => web::html(args),
            ReplayCommand::Formats(command) => replay_cmd::run(replay_cmd::ReplayArgs { command }),
        },
        Command::Tournament(args) => tournament::run::<C>(args),
        Command::Sprt(args) => sprt::run::<C>(args),
        Command::Worker(args) => worker::run::<C>(args),
        Command::Web(args) => web::serve(args),
        Command::GameServer(args) => game_server::run::<C>(args),
        Command::Accounts(args) => game_server::accounts(args),
        Command::Arena(args) => arena::run::<C>(args),
        Command::Submit(args) => return submit::run(args),
        Command::View(args) => web::view(args),
        Command::Export(args) => web::html(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `arbiter … | head`: what was wanted was read.
        Err(error) if out::is_reader_gone(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // Errors quote bots' answers and player folders: shown escaped.
            let message = format!("{error:#}");
            out::errln!("arbiter: {}", arbiter_text::for_terminal(&message));
            ExitCode::FAILURE
        }
    }
}

/// The game `name` of `C`, visited; an error if `C` has no such game.
fn visit<C: Catalog, V: arbiter_catalog::Visit>(
    name: &str,
    visitor: V,
) -> anyhow::Result<V::Output> {
    C::visit(name, visitor)
        .map_err(|_| anyhow::anyhow!("this Arbiter does not know the game {name:?}"))
}
