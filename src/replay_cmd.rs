//! `arbiter replay`: converts replays to and from the formats of other tools.
//!
//! Each format is a value of [`Format`] and a module with an `export` and an `import`; adding a
//! format is a variant, two match arms and a module.

mod fights_msgpack;
mod graphisoft;
mod judge_log;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};

#[derive(Args)]
pub struct ReplayArgs {
    #[command(subcommand)]
    pub command: ReplayCommand,
}

#[derive(Subcommand)]
pub enum ReplayCommand {
    /// Write a replay in another tool's format.
    Export(ExportArgs),
    /// Read another tool's log into a replay, checking every action with the rules.
    Import(ImportArgs),
}

/// The formats `arbiter replay` converts to and from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The msgpack history of the `fights` Python environment (Puoribor): a list of
    /// `{state, action, agent_id, timestamp}`.
    FightsMsgpack,
    /// The `.log` of the Java Domino judge ("Sędzia"), for its replay viewer: export only.
    JudgeLog,
    /// A client log of the GRAPHISOFT 2017 final (Labyrinth): every turn block one team's
    /// client received; import only.
    GraphisoftLog,
}

#[derive(Args)]
pub struct ExportArgs {
    #[arg(long, value_enum)]
    format: Format,
    /// The replay to export (plain or gzip-compressed).
    replay: PathBuf,
    /// Where to write the log.
    #[arg(short, long)]
    output: PathBuf,
    /// When the match started, in seconds since the Unix epoch. Replays record times from the
    /// start of the match; by default the start is the replay file's modification time (the
    /// end of the match) minus the last recorded time.
    #[arg(long, value_name = "UNIX_SECONDS")]
    start: Option<f64>,
}

#[derive(Args)]
pub struct ImportArgs {
    #[arg(long, value_enum)]
    format: Format,
    /// The log to import.
    log: PathBuf,
    /// Where to write the replay (gzip-compressed if the name ends in .gz).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: ReplayArgs) -> Result<()> {
    match args.command {
        ReplayCommand::Export(args) => match args.format {
            Format::FightsMsgpack => {
                let bytes = fights_msgpack::export(&args.replay, args.start)?;
                std::fs::write(&args.output, bytes)
                    .with_context(|| format!("writing {}", args.output.display()))
            }
            Format::JudgeLog => {
                let log = judge_log::export(&args.replay)?;
                std::fs::write(&args.output, log)
                    .with_context(|| format!("writing {}", args.output.display()))
            }
            Format::GraphisoftLog => anyhow::bail!(
                "graphisoft-log is import only: a client's log holds the blocks one seat \
                 received, which a replay of all seats does not single out"
            ),
        },
        ReplayCommand::Import(args) => match args.format {
            Format::FightsMsgpack => fights_msgpack::import(&args.log, &args.output),
            Format::JudgeLog => judge_log::import(&args.log, &args.output),
            Format::GraphisoftLog => graphisoft::import(&args.log, &args.output),
        },
    }
}
