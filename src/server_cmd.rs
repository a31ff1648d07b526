//! `arbiter server GAME`: the TCP game server, and `arbiter accounts add`: its team accounts.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use arbiter_games::{Seating, TimeControl};
use arbiter_gameserver::{Accounts, Factory, GameSetup, LobbyGame, ServerConfig};
use clap::{Args, Subcommand};

use crate::games::{CliGame, GameFlags, GameName, dispatch};

#[derive(Args)]
pub struct ServerArgs {
    game: GameName,
    /// The TCP port (0: any free port, printed).
    #[arg(long, default_value_t = 42500)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    host: String,
    /// The accounts file (`arbiter accounts add` writes it).
    #[arg(long, required_unless_present = "standings")]
    accounts: Option<PathBuf>,
    /// The database keeping every team's totals: a SQLite file, or a PostgreSQL URL.
    #[arg(long)]
    db: String,
    /// Seconds between games.
    #[arg(long, default_value_t = 60)]
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
    /// Seconds a client has to log in.
    #[arg(long, default_value_t = 10)]
    login_timeout: u64,
    /// Milliseconds a client has for each reply (the game's own limit if not given).
    #[arg(long)]
    reply_ms: Option<u64>,
    /// The robot in empty seats (default: greedy where the game has one).
    #[arg(long)]
    robot: Option<String>,
    /// Where replays are written (default: replays/ next to the database file).
    #[arg(long)]
    replays: Option<PathBuf>,
    /// Print the standings kept in the database and exit.
    #[arg(long)]
    standings: bool,
    /// No log lines on stderr.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    flags: GameFlags,
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
    if print {
        println!("{team} {password}");
    }
    eprintln!(
        "{}: {team} added ({} team{})",
        file.display(),
        accounts.len(),
        if accounts.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// The start position of a server game: the flags, with the players and level the session
/// decides.
fn factory<G: CliGame + LobbyGame>(flags: &GameFlags) -> Factory<G> {
    let flags = flags.clone();
    Arc::new(move |setup: &GameSetup, seating: &Seating| {
        let mut flags = flags.clone();
        flags.players = Some(setup.players as u8);
        if G::SESSIONS {
            flags.level = Some(u64::from(setup.level));
        }
        G::from_flags(&flags, seating).map_err(|e| format!("{e:#}"))
    })
}

pub fn run(args: ServerArgs) -> Result<()> {
    if args.standings {
        let game = dispatch!(args.game, G => <G as arbiter_games::Game>::NAME);
        print_standings(&arbiter_gameserver::stored_standings(&args.db, game)?);
        return Ok(());
    }
    dispatch!(args.game, G => serve::<G>(&args))
}

fn serve<G: CliGame + LobbyGame>(args: &ServerArgs) -> Result<()> {
    let path = args.accounts.as_ref().expect("clap requires --accounts");
    let accounts = Accounts::load(path)?;
    if accounts.is_empty() {
        bail!(
            "{}: no teams (add some with `arbiter accounts add`)",
            path.display()
        );
    }
    // Fail at once on flags the game refuses, not at the first game.
    let probe = factory::<G>(&args.flags);
    let (min, max) = if G::SESSIONS {
        if !(1..=10).contains(&args.min_players) {
            bail!("--min-players must be 1 to 10");
        }
        (args.min_players, 10)
    } else {
        let players = usize::from(args.flags.players.unwrap_or(2));
        (players, players)
    };
    probe(
        &GameSetup {
            id: 1,
            level: 1,
            mode: arbiter_tournament::lobby::Mode::Test,
            players: min,
        },
        &Seating::default(),
    )
    .map_err(anyhow::Error::msg)?;
    let robot = match &args.robot {
        Some(name) if !G::ROBOTS.contains(&name.as_str()) => bail!(
            "there is no robot {name} for {}; there are: {}",
            G::NAME,
            G::ROBOTS.join(", ")
        ),
        Some(name) => name.clone(),
        None if G::ROBOTS.contains(&"greedy") => "greedy".into(),
        None => G::ROBOTS.last().copied().unwrap_or("random").into(),
    };
    let limit = arbiter_gameserver::raise_fd_limit();
    let listener = std::net::TcpListener::bind((args.host.as_str(), args.port))
        .with_context(|| format!("cannot listen on {}:{}", args.host, args.port))?;
    let addr = listener.local_addr()?;
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    if !args.quiet {
        eprintln!(
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
        replays: args.replays.clone(),
        time: args.reply_ms.map(|ms| TimeControl::PerReply {
            limit: Duration::from_millis(ms),
            first_extra: Duration::ZERO,
        }),
        robot,
        quiet: args.quiet,
        accounts_file: Some(path.to_owned()),
    };
    let summary = arbiter_gameserver::run(
        listener,
        accounts,
        &args.db,
        config,
        factory::<G>(&args.flags),
        Default::default(),
    )?;
    println!("{} games played", summary.games);
    print_standings(&summary.standings);
    Ok(())
}

fn print_standings(rows: &[(String, f64, f64)]) {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    println!("rank  {:width$}  live  test", "team");
    for (i, (team, test, live)) in rows.iter().enumerate() {
        println!("{:>4}  {team:width$}  {live:>4}  {test:>4}", i + 1);
    }
}
