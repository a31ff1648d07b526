//! `arbiter`: the command line of the Arbiter referee. Thin: it parses flags and calls the crates.

mod bench;
mod bot;
mod games;
mod perft;
mod play;
mod replay_cmd;
mod serve;
mod server_cmd;
mod tournament;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
enum Command {
    /// Play one match between bots (commands, player folders or builtin:NAME robots).
    Play(play::PlayArgs),
    /// Run a built-in robot as a bot process speaking the game's protocol on stdin/stdout.
    Bot(bot::BotArgs),
    /// Count the sequences of legal actions of a given length from the start position.
    Perft(perft::PerftArgs),
    /// Measure engine speed: uniformly random playouts per second and plies per second.
    Bench(bench::BenchArgs),
    /// Convert replays to and from other tools' formats (the fights msgpack log of Puoribor).
    Replay(replay_cmd::ReplayArgs),
    /// Run tournaments between player folders and robots; show standings and matches.
    Tournament(tournament::TournamentArgs),
    /// Serve the web viewer: tournaments of a store, replays of a folder, matches played live.
    Serve(serve::ServeArgs),
    /// Serve one replay in the web viewer and print its URL.
    View(serve::ViewArgs),
    /// Write one HTML file that plays a replay offline.
    Export(serve::ExportArgs),
    /// Run the TCP game server: teams log in, games every interval, robots in empty seats.
    Server(server_cmd::ServerArgs),
    /// Manage the game server's team accounts (argon2-hashed passwords).
    Accounts(server_cmd::AccountsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(args) => play::run(args),
        Command::Bot(args) => bot::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Serve(args) => serve::serve(args),
        Command::View(args) => serve::view(args),
        Command::Export(args) => serve::export(args),
        Command::Server(args) => server_cmd::run(args),
        Command::Accounts(args) => server_cmd::accounts(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arbiter: {error:#}");
            ExitCode::FAILURE
        }
    }
}
