//! `arbiter game-server GAME`: the TCP game server, and `arbiter accounts add`: its team
//! accounts.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use arbiter_catalog::{Catalog, CatalogGame, Hosting, TableSetup, TimeLimits, Visit};
use arbiter_gameserver::{Accounts, ServerConfig};
use clap::{Args, FromArgMatches, Subcommand};

use crate::cli::{GameArgs, GameChoice};
use crate::out::{errln, outln};
use arbiter_text::for_terminal as shown;

#[derive(Args)]
pub struct GameServerArgs {
    #[command(flatten)]
    game: GameArgs<ServerCommon>,
}

/// What the game server takes for every game.
#[derive(Args)]
pub struct ServerCommon {
    /// The address to listen on (port 0: any free port, printed).
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:42500")]
    listen: String,
    /// Older form of --listen: its host part.
    #[arg(long, hide = true, conflicts_with = "listen")]
    host: Option<String>,
    /// Older form of --listen: its port.
    #[arg(long, hide = true, conflicts_with = "listen")]
    port: Option<u16>,
    /// The accounts file (`arbiter accounts add` writes it).
    #[arg(long, required_unless_present = "standings")]
    accounts: Option<PathBuf>,
    /// The database keeping every team's totals: a SQLite file, or a PostgreSQL URL.
    #[arg(long)]
    db: String,
    /// Seconds between games, up to a week.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    interval: u64,
    /// Robots fill every game up to this many seats (Labyrinth; other games have a fixed number
    /// of players, --players).
    #[arg(long, default_value_t = 4)]
    min_players: usize,
    /// Stop after this many games.
    #[arg(long)]
    games: Option<u32>,
    /// Play the 15 games of the final (3 rounds × levels 1 to 5) with its seat order.
    #[arg(long, conflicts_with = "games")]
    live: bool,
    /// Start a game as soon as this many clients are idle, without waiting for the interval.
    #[arg(long)]
    start_when_idle: Option<usize>,
    /// Seconds a client has to log in, 1 to 3600.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    login_timeout: u64,
    #[command(flatten)]
    time: TimeLimits,
    /// The robot in empty seats (default: greedy where the game has one).
    #[arg(long)]
    robot: Option<String>,
    /// Where replays are written (default: replays/ next to a SQLite file; for PostgreSQL, which
    /// keeps them too, this machine's cache).
    #[arg(long)]
    replays: Option<PathBuf>,
    /// Serve the viewer on this address too (port 0: any free port, printed on stderr): the
    /// server's page shows its teams, scoreboard, games and next start as they change, and
    /// stays up after the session until Ctrl-C.
    #[arg(long, value_name = "ADDR")]
    web: Option<SocketAddr>,
    /// Print the standings kept in the database and exit.
    #[arg(long)]
    standings: bool,
    /// No log lines on stderr.
    #[arg(long)]
    quiet: bool,
}

impl ServerCommon {
    /// The address to listen on: --listen, or the older --host and --port.
    fn address(&self) -> String {
        if self.host.is_none() && self.port.is_none() {
            return self.listen.clone();
        }
        let host = self.host.as_deref().unwrap_or("0.0.0.0");
        let port = self.port.unwrap_or(42500);
        match host.parse::<std::net::IpAddr>() {
            Ok(ip) => SocketAddr::new(ip, port).to_string(),
            Err(_) => format!("{host}:{port}"),
        }
    }
}

#[derive(Args)]
pub struct AccountsArgs {
    #[command(subcommand)]
    command: AccountsCommand,
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// Adds a team, or sets its password: given, read from standard input, or generated and
    /// printed (with --generate).
    Add {
        /// The accounts file; created if missing.
        #[arg(long)]
        file: PathBuf,
        team: String,
        /// The password (visible to other users of the machine: prefer standard input).
        #[arg(long, conflicts_with = "generate")]
        password: Option<String>,
        /// Generate a password and print it.
        #[arg(long)]
        generate: bool,
    },
}

pub fn accounts(args: AccountsArgs) -> Result<()> {
    let AccountsCommand::Add {
        file,
        team,
        password,
        generate,
    } = args.command;
    let mut accounts = if file.exists() {
        Accounts::load(&file)?
    } else {
        Accounts::default()
    };
    let (password, print) = match (password, generate) {
        (Some(p), _) => (p, false),
        (None, true) => (arbiter_gameserver::accounts::generate_password(), true),
        (None, false) => {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .context("reading the password from standard input")?;
            (line.trim_end_matches(['\r', '\n']).to_owned(), false)
        }
    };
    accounts.set_password(&team, &password)?;
    accounts.save(&file)?;
    if let Some(warning) = arbiter_gameserver::accounts::permissions_warning(&file) {
        errln!("{warning}");
    }
    if print {
        outln!("{team} {password}")?;
    }
    errln!(
        "{}: {team} added ({} team{})",
        file.display(),
        accounts.len(),
        if accounts.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

pub fn run<C: Catalog>(args: GameServerArgs) -> Result<()> {
    let choice = args.game.required();
    if choice.args.standings {
        let standings = arbiter_gameserver::stored_standings(&choice.args.db, &choice.game)?;
        return print_standings(&standings);
    }
    crate::visit::<C, _>(&choice.game.clone(), Serve(choice))?
}

/// Serves the game named.
struct Serve(GameChoice<ServerCommon>);

impl Visit for Serve {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let GameChoice { args, matches, .. } = self.0;
        serve::<G>(&args, G::Settings::from_arg_matches(&matches)?)
    }
}

/// The seats of a game: robots fill a session game (Labyrinth) up to `--min-players`; the
/// other games have the number their settings say.
fn seat_range<G: CatalogGame>(
    args: &ServerCommon,
    settings: &G::Settings,
) -> Result<(usize, usize)> {
    if G::HOSTING == Hosting::Session {
        if !(1..=10).contains(&args.min_players) {
            bail!("--min-players must be 1 to 10");
        }
        return Ok((args.min_players, 10));
    }
    let players = G::seats(settings, 0);
    Ok((players, players))
}

/// The robot in empty seats: the one asked for, else greedy, else the game's own choice
/// ([`arbiter_robots::Robots::EMPTY_SEAT`]).
fn robot<G: CatalogGame>(asked: Option<&str>) -> Result<String> {
    Ok(match asked {
        Some(name) if !G::is_robot(name) => bail!(
            "there is no robot {name} for {}; there are: {}",
            G::NAME,
            G::ROBOTS.join(", ")
        ),
        Some(name) => name.to_owned(),
        None if G::ROBOTS.contains(&"greedy") => "greedy".into(),
        None => G::EMPTY_SEAT.into(),
    })
}

fn serve<G: CatalogGame>(args: &ServerCommon, settings: G::Settings) -> Result<()> {
    let path = args.accounts.as_ref().expect("clap requires --accounts");
    let accounts = Accounts::load(path)?;
    if let Some(warning) = arbiter_gameserver::accounts::permissions_warning(path) {
        errln!("{warning}");
    }
    if accounts.is_empty() {
        bail!(
            "{}: no teams (add some with `arbiter accounts add`)",
            path.display()
        );
    }
    let (min, max) = seat_range::<G>(args, &settings)?;
    // Fail at once on settings that make no game, not at the first game.
    G::build(&settings, &TableSetup::numbered(min))?;
    let robot = robot::<G>(args.robot.as_deref())?;
    let limit = arbiter_fdlimit::raise_fd_limit();
    let address = args.address();
    let listener = std::net::TcpListener::bind(&address)
        .with_context(|| format!("cannot listen on {address}"))?;
    let addr = listener.local_addr()?;
    outln!("listening on {addr}")?;
    crate::out::Stdout.flush()?;
    if !args.quiet {
        errln!(
            "server: {} {} mode, {} teams, open files up to {limit}",
            G::NAME,
            if args.live { "live" } else { "test" },
            accounts.len()
        );
    }
    let config = ServerConfig {
        interval: Duration::from_secs(args.interval),
        min_players: min,
        max_players: max,
        games: args.games,
        live: args.live,
        login_timeout: Duration::from_secs(args.login_timeout),
        start_when_idle: args.start_when_idle,
        replays: replays_dir(args),
        time: args.time.time_control(G::PROTOCOL.time)?,
        robot,
        quiet: args.quiet,
        accounts_file: Some(path.to_owned()),
        status: match args.web {
            Some(addr) => Some(start_web::<G>(addr, &args.db, replays_dir(args))?),
            None => None,
        },
    };
    let summary = arbiter_gameserver::run::<G>(
        listener,
        accounts,
        &args.db,
        config,
        settings,
        Default::default(),
    )?;
    outln!("{} games played", summary.games)?;
    print_standings(&summary.standings)?;
    if args.web.is_some() && !summary.interrupted {
        // The final scoreboard stays on the screens until the organiser stops the server.
        crate::out::Stdout.flush()?;
        errln!("server: the session is over; the viewer stays up until Ctrl-C");
        arbiter_gameserver::wait_for_interrupt()?;
    }
    Ok(())
}

/// Where the replays go: --replays, else `replays/` next to a SQLite database, else for a
/// PostgreSQL database (which keeps them too, for viewers elsewhere) this machine's cache.
fn replays_dir(args: &ServerCommon) -> Option<PathBuf> {
    if args.replays.is_some() {
        return args.replays.clone();
    }
    if arbiter_store::blocking::is_postgres(&args.db) {
        return Some(arbiter_tournament::replays_cache(&args.db).join("servers"));
    }
    if args.db.starts_with("sqlite:") {
        return None;
    }
    let db = std::path::absolute(&args.db).ok()?;
    Some(db.parent()?.join("replays"))
}

/// Serves the viewer on `addr` on a thread of its own, showing this server as it publishes
/// itself; the address bound is printed on stderr (as `web viewer on http://…`).
fn start_web<G: CatalogGame>(
    addr: SocketAddr,
    db: &str,
    replays: Option<PathBuf>,
) -> Result<arbiter_gameserver::StatusFeed> {
    let (feed, watch) = arbiter_gameserver::board::feed();
    let server = arbiter_web::Server::new().context("starting the viewer's runtime")?;
    let servers = server
        .open_game_servers(db, arbiter_store::Presence::MayCreate)
        .with_context(|| format!("--db {db}"))?;
    let source = match replays {
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            arbiter_web::ReplaySource::Dir(dir)
        }
        None => arbiter_web::ReplaySource::None,
    };
    let limits = arbiter_web::Limits::default();
    let view = arbiter_web::ServerView::new(servers, Some(watch));
    let state = arbiter_web::AppState::with_game_servers(
        source,
        None,
        None,
        Some(view),
        limits.max_replay_bytes,
    );
    let (bound_tx, bound_rx) = std::sync::mpsc::channel();
    let failed_tx = bound_tx.clone();
    std::thread::spawn(move || {
        let ready = move |bound| {
            let _ = bound_tx.send(Ok(bound));
        };
        if let Err(e) = server.serve(addr, state, limits, ready) {
            let _ = failed_tx.send(Err(e));
        }
    });
    match bound_rx.recv() {
        Ok(Ok(bound)) => errln!("web viewer on http://{bound}/server.html?game={}", G::NAME),
        Ok(Err(e)) => bail!("cannot serve the viewer on {addr}: {e}"),
        Err(_) => bail!("the viewer on {addr} stopped before it started"),
    }
    Ok(feed)
}

fn print_standings(rows: &[(String, f64, f64)]) -> Result<()> {
    let width = rows
        .iter()
        .map(|r| shown(&r.0).len())
        .max()
        .unwrap_or(4)
        .max(4);
    outln!("rank  {:width$}  live  test", "team")?;
    for (i, (team, test, live)) in rows.iter().enumerate() {
        let team = shown(team);
        outln!("{:>4}  {team:width$}  {live:>4}  {test:>4}", i + 1)?;
    }
    Ok(())
}
