//! `arbiter replay`: converts replays to and from the formats of other tools.
//!
//! Each format is a value of [`LogFormat`] and a module of `arbiter-formats`; this command reads
//! and writes the files and leaves the formats to the library.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter_formats::fights_msgpack::{self, MatchStart};
use arbiter_formats::{graphisoft, judge_log};
use arbiter_replay::{ReplayWriter, read_replay};
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
pub enum LogFormat {
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
    format: LogFormat,
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
    format: LogFormat,
    /// The log to import.
    log: PathBuf,
    /// Where to write the replay (gzip-compressed if the name ends in .gz).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: ReplayArgs) -> Result<()> {
    match args.command {
        ReplayCommand::Export(args) => export(&args),
        ReplayCommand::Import(args) => import(&args),
    }
}

fn export(args: &ExportArgs) -> Result<()> {
    let path = &args.replay;
    let replay = read_replay(path).with_context(|| format!("reading {}", path.display()))?;
    let bytes = match args.format {
        LogFormat::FightsMsgpack => {
            let start = match args.start {
                Some(seconds) => MatchStart::UnixSeconds(seconds),
                None => MatchStart::EndedAt(modified(path)?),
            };
            fights_msgpack::export(&replay, start).with_context(|| path.display().to_string())?
        }
        LogFormat::JudgeLog => judge_log::export(&replay)
            .with_context(|| path.display().to_string())?
            .to_string()
            .into_bytes(),
        LogFormat::GraphisoftLog => bail!(
            "graphisoft-log is import only: a client's log holds the blocks one seat \
             received, which a replay of all seats does not single out"
        ),
    };
    std::fs::write(&args.output, bytes)
        .with_context(|| format!("writing {}", args.output.display()))
}

/// The largest log imported: the logs of a whole contest's final are a few megabytes.
const MAX_LOG: u64 = 256 << 20;

fn import(args: &ImportArgs) -> Result<()> {
    let path = &args.log;
    let read = || {
        arbiter_text::read_capped(path, MAX_LOG)
            .with_context(|| format!("reading {}", path.display()))
    };
    let in_log = || path.display().to_string();
    match args.format {
        LogFormat::FightsMsgpack => {
            let imported = fights_msgpack::import(&read()?).with_context(in_log)?;
            write_replay(&args.output, imported.replay.records())?;
            if let Some(ended) = imported.ended {
                set_modified(&args.output, ended)?;
            }
            Ok(())
        }
        LogFormat::JudgeLog => bail!(
            "the judge's .log cannot be read back into a replay: it does not say how the match \
             ended, nor the coordinate order the bots were sent; only `replay export` writes it"
        ),
        LogFormat::GraphisoftLog => {
            let text = String::from_utf8(read()?)
                .with_context(|| format!("{} is not UTF-8 text", path.display()))?;
            let source = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let records =
                graphisoft::import(&text, &source.unwrap_or_default()).with_context(in_log)?;
            write_replay(&args.output, records)
        }
    }
}

/// When the file was last modified: for a replay, when its match ended.
fn modified(path: &Path) -> Result<std::time::SystemTime> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .with_context(|| format!("reading the modification time of {}", path.display()))
}

fn set_modified(path: &Path, time: std::time::SystemTime) -> Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(time))
        .with_context(|| format!("setting the modification time of {}", path.display()))
}

fn write_replay(
    path: &Path,
    records: impl IntoIterator<Item = arbiter_replay::Record>,
) -> Result<()> {
    let mut writer = ReplayWriter::create(path)?;
    for record in records {
        writer.write(&record)?;
    }
    writer.finish()?;
    Ok(())
}
