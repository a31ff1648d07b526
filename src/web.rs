//! `arbiter web`, `arbiter replay view` and `arbiter replay html`: the web viewer from the
//! command line.
//! The server is the `arbiter-web` crate's; this module reads flags and opens what it shows.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::out::outln;
use arbiter_store::{Presence, TournamentStore};
use arbiter_web::{AppState, Limits, ReplaySource, Server, ServerView};
use clap::Args;

#[derive(Args)]
pub struct WebArgs {
    /// The tournament store (a SQLite file or a postgres:// URL): its tournaments, standings
    /// and matches are shown.
    #[arg(long)]
    db: Option<String>,
    /// A folder of replays to list and play (default: the replays folder next to a SQLite
    /// store, if there is one).
    #[arg(long)]
    replays: Option<PathBuf>,
    /// The address to listen on.
    #[arg(
        long,
        value_name = "ADDR",
        alias = "addr",
        default_value = "127.0.0.1:8080"
    )]
    listen: SocketAddr,
    #[command(flatten)]
    limits: LimitArgs,
}

/// The server's limits (docs/organisers.md, "The web server's limits").
#[derive(Args)]
pub struct LimitArgs {
    /// Connections open at once; one more is answered 503 and closed (lowered to fit the
    /// open-files limit).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Seconds a connection may take to send a request, new or kept alive between requests,
    /// before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().idle_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    idle_timeout: u64,
    /// The most text one replay file may hold once decompressed, in MiB: a larger file (a
    /// gzip bomb among them) is refused with a message naming it.
    #[arg(long, value_name = "MIB", default_value_t = Limits::default().max_replay_bytes >> 20,
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    max_replay_mb: u64,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_connections: self.max_connections as usize,
            idle_timeout: std::time::Duration::from_secs(self.idle_timeout),
            max_replay_bytes: self.max_replay_mb << 20,
        }
    }
}

#[derive(Args)]
pub struct ViewArgs {
    /// The replay (.jsonl or .jsonl.gz); one still being written is followed live.
    replay: PathBuf,
    /// The address to listen on (port 0: any free port).
    #[arg(
        long,
        value_name = "ADDR",
        alias = "addr",
        default_value = "127.0.0.1:0"
    )]
    listen: SocketAddr,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(Args)]
pub struct HtmlArgs {
    /// The replay (.jsonl or .jsonl.gz).
    replay: PathBuf,
    /// The HTML file to write.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn serve(args: WebArgs) -> Result<()> {
    if args.db.is_none() && args.replays.is_none() {
        bail!("say what to show: --db STORE, --replays DIR, or both");
    }
    let server = start()?;
    let store = match &args.db {
        Some(db) => Some(open_store(&server, db)?),
        None => None,
    };
    let replays = match &args.replays {
        Some(dir) if dir.is_dir() => ReplaySource::Dir(dir.clone()),
        Some(dir) => bail!("--replays {}: not a folder", dir.display()),
        None => match store.as_ref().and_then(|s| s.file()).map(default_replays) {
            Some(dir) if dir.is_dir() => ReplaySource::Dir(dir),
            _ => ReplaySource::None,
        },
    };
    // The replays workers keep in the store (with PostgreSQL, from any machine).
    let stored = match &args.db {
        Some(db) => Some(
            server
                .open_replays(db)
                .with_context(|| format!("--db {db}"))?,
        ),
        None => None,
    };
    // The game servers of the store (`arbiter server --db`), as they publish themselves.
    let servers = match &args.db {
        Some(db) => Some(ServerView::new(
            server
                .open_game_servers(db, Presence::ReadOnly)
                .with_context(|| format!("--db {db}"))?,
            None,
        )),
        None => None,
    };
    let limits = args.limits.limits();
    let state =
        AppState::with_game_servers(replays, store, stored, servers, limits.max_replay_bytes);
    run(server, args.listen, state, limits, "")
}

/// Opens the store to read: one that does not exist is said so, not created. A tournament
/// creating its tables at the same moment holds the migration lock, which the open waits for.
fn open_store(server: &Server, db: &str) -> Result<TournamentStore> {
    server.open_store(db).with_context(|| format!("--db {db}"))
}

/// Where `arbiter tournament run` puts the replays of a SQLite store by default.
fn default_replays(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tournament".into());
    db.with_file_name(format!("{stem}-replays"))
}

pub fn view(args: ViewArgs) -> Result<()> {
    if !args.replay.is_file() {
        bail!("{}: no such replay file", args.replay.display());
    }
    let name = args
        .replay
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let page = format!("replay.html?id={}", encode_query(&name));
    let limits = args.limits.limits();
    let state = AppState::with_replay_cap(
        ReplaySource::File(args.replay),
        None,
        limits.max_replay_bytes,
    );
    run(start()?, args.listen, state, limits, &page)
}

pub fn html(args: HtmlArgs) -> Result<()> {
    let loaded = arbiter_web::load(&args.replay)
        .map_err(|e| anyhow::anyhow!("{}: {}", args.replay.display(), e.public_message()))?;
    std::fs::write(&args.output, arbiter_web::export::page(&loaded))
        .with_context(|| format!("writing {}", args.output.display()))?;
    outln!("wrote {}", args.output.display())?;
    Ok(())
}

fn start() -> Result<Server> {
    Server::new().context("starting the server's runtime")
}

/// Serves until the process is stopped, printing the URL of `page` once listening.
fn run(
    server: Server,
    addr: SocketAddr,
    state: AppState,
    limits: Limits,
    page: &str,
) -> Result<()> {
    server
        .serve(addr, state, limits, |bound| {
            // Scripts read the URL from a pipe, which would otherwise hold it back. Nobody
            // reading it is no reason to stop serving.
            let _ = outln!("http://{bound}/{page}").and_then(|()| crate::out::Stdout.flush());
        })
        .with_context(|| format!("serving on {addr}"))
}

/// Percent-encodes a query value (everything but unreserved characters).
fn encode_query(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
