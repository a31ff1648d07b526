//! `arbiter arena`: the operator's commands of the arena — users, API tokens, invite codes —
//! and the site itself (`serve`), which also builds and checks what is handed in unless
//! `--no-work`. The crates do the work (the store, `arbiter-arena`, `arbiter-builds`); this
//! only reads flags and prints.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use arbiter_arena::ladder::{LadderOptions, run_scheduler, settings_for_seats};
use arbiter_arena::work::{WorkOptions, work};
use arbiter_arena::{ArenaConfig, ArenaState, OfferedGame};
use arbiter_builds::Languages;
use arbiter_catalog::{Catalog, CatalogGame, TableSetup, Visit};
use arbiter_ladder::{Pace, SeatMix};
use arbiter_programs::upload::UploadLimits;
use arbiter_store::{ArenaStore, Presence};
use arbiter_tournament::WorkerName;
use clap::{Args, Subcommand};
use serde_json::Value;

use crate::arena_ops;
use crate::out::outln;

#[derive(Args)]
pub struct ArenaArgs {
    #[command(subcommand)]
    command: ArenaCommand,
}

#[derive(Subcommand)]
enum ArenaCommand {
    /// Users of the arena.
    User(UserArgs),
    /// Print a new API token of a user, for scripts (`arbiter submit` reads it from
    /// ARBITER_TOKEN). The store keeps only its SHA-256.
    Token(TokenArgs),
    /// Print new invite codes, each good for one sign-up (when sign-up is not open).
    Invite(InviteArgs),
    /// Serve the arena's pages and API; prints `arena on http://ADDR` once it listens, and
    /// serves until SIGTERM. It schedules the ladder's games, and builds, checks and plays
    /// too, unless --no-work.
    Serve(ServeArgs),
    /// Make a tournament of the top N of a game's ladder (the arena's final), stored in the
    /// arena's database for `arbiter tournament resume` or workers to play; prints
    /// `tournament N`.
    Final(crate::arena_final::FinalArgs),
    /// The built-in robots on the ladder: enroll one, list them.
    Robot(arena_ops::RobotArgs),
    /// Pause or resume the ladder's scheduling.
    Ladder(arena_ops::LadderArgs),
    /// Freeze or open uploads of new versions.
    Uploads(arena_ops::UploadsArgs),
    /// Disable or enable a bot: off the ladder, or back on it.
    Bot(arena_ops::BotArgs),
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    db: DbArg,
    /// The address to listen on (port 0: any free port, printed). Behind a reverse proxy that
    /// speaks TLS, listen on 127.0.0.1 and give --secure-cookies.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Build and check nothing in this process: `arbiter worker --db` processes do it.
    #[arg(long)]
    no_work: bool,
    /// A game the arena offers, with its default settings; give it once per game. Default:
    /// every game of the catalog (or those of --games-file).
    #[arg(long = "game", value_name = "GAME")]
    games: Vec<String>,
    /// A TOML file of the games offered and their settings: a table [games.NAME] per game,
    /// its keys the game's settings as tournaments store them.
    #[arg(long, value_name = "TOML")]
    games_file: Option<PathBuf>,
    /// Let anyone sign up; else only with an invite code (`arbiter arena invite`).
    #[arg(long)]
    open_signup: bool,
    /// Show every replay's logs (bots' stderr, #draw lines) to everyone, not only to the
    /// bot's team and the admins.
    #[arg(long)]
    public_logs: bool,
    /// Send the session cookie over HTTPS only: the arena is reached through a reverse proxy
    /// that speaks TLS.
    #[arg(long)]
    secure_cookies: bool,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    ladder: LadderFlags,
    #[command(flatten)]
    work: WorkArgs,
}

/// How the ladder is played. The pace and the seat mixes are written to the store when given,
/// so that every server and worker on the store agrees on them; a flag not given leaves the
/// store's choice as it is (a second server started without them changes nothing).
#[derive(Args)]
struct LadderFlags {
    /// Ladder games per active version per hour, spread evenly, or `unlimited`: as fast as
    /// the workers play them. Without it, the store's pace holds (at first 20).
    #[arg(long, value_name = "unlimited|N")]
    ladder_pace: Option<Pace>,
    /// A game's seat counts on the ladder and their weights: quoridor=2:3,4:1 plays three
    /// 2-player games for each 4-player one. Once per game; each count must be one the game
    /// offers. Without it, the game's default seat count.
    #[arg(long = "ladder-seats", value_name = "GAME=MIX")]
    ladder_seats: Vec<GameSeats>,
    /// Matches this process plays at once (the ladder's, challenges, the playground, SPRT
    /// series), 1 to 64.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    match_jobs: u64,
}

/// `--ladder-seats GAME=MIX`: a game and the seat mix of its ladder games.
#[derive(Clone, Debug)]
struct GameSeats {
    game: String,
    mix: SeatMix,
}

impl std::str::FromStr for GameSeats {
    type Err = String;

    fn from_str(text: &str) -> Result<GameSeats, String> {
        let Some((game, mix)) = text.split_once('=') else {
            return Err(format!("{text:?} is not GAME=MIX (e.g. quoridor=2:3,4:1)"));
        };
        let mix = mix.parse().map_err(|e| format!("{mix:?}: {e}"))?;
        Ok(GameSeats {
            game: game.trim().to_owned(),
            mix,
        })
    }
}

/// What one upload may be.
#[derive(Args)]
struct LimitArgs {
    /// The most MiB of one upload (the file as sent), 1 to 1024.
    #[arg(long, value_name = "MIB", default_value_t = 8,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_upload_mb: u64,
    /// The most MiB an archive's files may hold once unpacked, 1 to 4096.
    #[arg(long, value_name = "MIB", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_unpacked_mb: u64,
    /// The most files and folders in an archive, 1 to 100000.
    #[arg(long, value_name = "N", default_value_t = 2_000,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_entries: u64,
    /// The most folders deep a name in an archive may be, 1 to 64.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    max_depth: u32,
    /// Versions one user may hand in per 24 hours, 1 to 100000.
    #[arg(long, value_name = "N", default_value_t = 50,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    uploads_per_day: u32,
}

/// How this process builds and checks the arena's versions.
#[derive(Args)]
pub(crate) struct WorkArgs {
    /// Builds and checks run at once, 1 to 64.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    build_jobs: u64,
    /// A build's wall-clock time, in seconds, 1 to 3600.
    #[arg(long, value_name = "SECONDS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    build_seconds: u64,
    /// A build's memory, its processes together, in MiB, 64 to 65536.
    #[arg(long, value_name = "MIB", default_value_t = 2048,
          value_parser = clap::value_parser!(u64).range(64..=65536))]
    build_memory_mb: u64,
    /// A TOML file that adds languages to the default table or changes theirs (extensions,
    /// build and run commands, toolchain folders).
    #[arg(long, value_name = "TOML")]
    pub(crate) languages: Option<PathBuf>,
}

#[derive(Args)]
struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Make a user (and its own team of the same name); the password is read from standard
    /// input, one line.
    Add(UserAddArgs),
}

/// The arena's store.
#[derive(Args)]
pub(crate) struct DbArg {
    /// The store: a SQLite file, or a postgres:// URL (the arena on many machines).
    #[arg(long)]
    pub(crate) db: String,
}

#[derive(Args)]
struct UserAddArgs {
    /// The user's name: letters, digits, '_', '-' and '.', up to 32.
    name: String,
    /// Make it an admin: it sees and manages every team, bot and version.
    #[arg(long)]
    admin: bool,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
struct TokenArgs {
    /// The user the token acts as.
    name: String,
    /// What the token is for, shown in the user's list of tokens.
    #[arg(long, default_value = "command line")]
    label: String,
    #[command(flatten)]
    db: DbArg,
}

#[derive(Args)]
struct InviteArgs {
    /// How many codes, 1 to 1000.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    count: u32,
    #[command(flatten)]
    db: DbArg,
}

pub fn run<C: Catalog>(args: ArenaArgs) -> Result<()> {
    match args.command {
        ArenaCommand::User(UserArgs {
            command: UserCommand::Add(args),
        }) => add_user(args),
        ArenaCommand::Token(args) => token(args),
        ArenaCommand::Invite(args) => invite(args),
        ArenaCommand::Serve(args) => serve::<C>(args),
        ArenaCommand::Final(args) => crate::arena_final::run::<C>(args),
        ArenaCommand::Robot(args) => arena_ops::robot::<C>(args),
        ArenaCommand::Ladder(args) => arena_ops::ladder(args),
        ArenaCommand::Uploads(args) => arena_ops::uploads(args),
        ArenaCommand::Bot(args) => arena_ops::bot(args),
    }
}

/// A runtime for one command's calls of the store.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")
}

pub(crate) async fn open(db: &str, presence: Presence) -> Result<ArenaStore> {
    ArenaStore::open(db, presence)
        .await
        .with_context(|| format!("opening the arena's store {db}"))
}

fn add_user(args: UserAddArgs) -> Result<()> {
    arbiter_store::arena::check_name("user", &args.name)?;
    let password = read_password()?;
    if let Err(why) = arbiter_logins::check_new_password(&password) {
        bail!("{why} (the password is read from standard input, one line)");
    }
    let params = arbiter_logins::Params::default();
    let phc = arbiter_logins::hash_in(&password, &params, &mut Vec::new())?;
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MayCreate).await?;
        let user = store.add_user(&args.name, &phc, args.admin).await?;
        let what = if user.admin { "admin" } else { "user" };
        outln!("{what} {} added", user.name)?;
        Ok(())
    })
}

/// The first line of standard input, without its line ending.
fn read_password() -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let line = line.strip_suffix('\n').unwrap_or(&line);
    Ok(line.strip_suffix('\r').unwrap_or(line).to_owned())
}

fn token(args: TokenArgs) -> Result<()> {
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MustExist).await?;
        let Some(user) = store.user_by_name(&args.name).await? else {
            bail!(
                "the arena has no user {:?} (`arbiter arena user add` makes one)",
                args.name
            );
        };
        let token = arbiter_logins::new_token();
        store
            .add_token(user.id, &arbiter_logins::sha256_hex(&token), &args.label)
            .await?;
        outln!("{token}")?;
        Ok(())
    })
}

fn invite(args: InviteArgs) -> Result<()> {
    runtime()?.block_on(async {
        let store = open(&args.db.db, Presence::MayCreate).await?;
        // Every code is stored before any is printed: a code shown is a code that works.
        let mut codes = Vec::with_capacity(args.count as usize);
        for _ in 0..args.count {
            let code = arbiter_logins::new_invite_code();
            store.add_invite(&arbiter_logins::sha256_hex(&code)).await?;
            codes.push(code);
        }
        for code in codes {
            outln!("{code}")?;
        }
        Ok(())
    })
}

fn serve<C: Catalog>(args: ServeArgs) -> Result<()> {
    let games = offered_games::<C>(&args.games, args.games_file.as_deref())?;
    check_seat_mixes(&games, &args.ladder.ladder_seats)?;
    let languages = languages(args.work.languages.as_deref())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async {
        let db = &args.db.db;
        let store = open(db, Presence::MayCreate).await?;
        write_ladder_settings(&store, &args.ladder).await?;
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let addr = listener.local_addr()?;
        let mut options = work_options(&args.work, languages.clone(), &games);
        options.match_jobs = args.ladder.match_jobs as usize;
        let mut ladder = LadderOptions::new(games.clone());
        ladder.work = (!args.no_work).then(|| options.wake.clone());
        let limits = &args.limits;
        let config = ArenaConfig {
            games,
            open_signup: args.open_signup,
            public_logs: args.public_logs,
            limits: UploadLimits {
                max_bytes: limits.max_unpacked_mb << 20,
                max_entries: limits.max_entries,
                max_depth: limits.max_depth,
            },
            max_upload_bytes: (limits.max_upload_mb << 20) as usize,
            uploads_per_day: limits.uploads_per_day,
            secure_cookies: args.secure_cookies,
            languages: Arc::new(languages),
            wake: (!args.no_work).then(|| options.wake.clone()),
            ..ArenaConfig::default()
        };
        options.limits.archive = config.limits.clone();
        let state = ArenaState::open(store.clone(), db, config).await?;
        outln!("arena on http://{addr}").and_then(|()| crate::out::Stdout.flush())?;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let worker = (!args.no_work).then_some(options);
        let tasks = spawn_background(store, worker, ladder, &stopped);
        arbiter_arena::serve(listener, state, terminated()).await?;
        let _ = stop.send(true);
        for (what, task) in tasks {
            task.await.context(what)?;
        }
        Ok(())
    })
}

/// The server's work beside its pages: the ladder's scheduler, always (it only queues; with
/// --no-work other processes play), and the worker, unless --no-work. Each ends once `stopped`
/// turns true.
fn spawn_background(
    store: ArenaStore,
    worker: Option<WorkOptions>,
    ladder: LadderOptions,
    stopped: &tokio::sync::watch::Receiver<bool>,
) -> Vec<(&'static str, tokio::task::JoinHandle<()>)> {
    let until_stopped = || {
        let mut stopped = stopped.clone();
        async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        }
    };
    let scheduler = run_scheduler(store.clone(), ladder, until_stopped());
    let mut tasks = vec![("the ladder's scheduler", tokio::spawn(scheduler))];
    if let Some(options) = worker {
        let worker = work(store, options, until_stopped());
        tasks.push(("the arena's worker", tokio::spawn(worker)));
    }
    tasks
}

/// Checks each `--ladder-seats`: a game the arena offers, named once, whose every seat count
/// the game can be played with, as the scheduler will make its settings.
fn check_seat_mixes(games: &[OfferedGame], mixes: &[GameSeats]) -> Result<()> {
    for (i, GameSeats { game, mix }) in mixes.iter().enumerate() {
        if mixes[..i].iter().any(|m| &m.game == game) {
            bail!("--ladder-seats names {game} twice: give all its seat counts in one MIX");
        }
        let Some(offered) = games.iter().find(|g| &g.name == game) else {
            let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
            bail!(
                "--ladder-seats {game}={mix}: the arena does not offer {game} (it offers {})",
                names.join(", ")
            );
        };
        for seats in mix.seats() {
            if let Err(why) = settings_for_seats(game, &offered.settings, seats) {
                bail!("--ladder-seats {game}={mix}: {why}");
            }
        }
    }
    Ok(())
}

/// Writes the ladder's flags that were given to the store's settings, where the scheduler of
/// every server reads them.
async fn write_ladder_settings(store: &ArenaStore, ladder: &LadderFlags) -> Result<()> {
    use arbiter_store::arena::{LADDER_PACE, ladder_seats_setting};
    if let Some(pace) = &ladder.ladder_pace {
        store.set_setting(LADDER_PACE, &pace.to_string()).await?;
    }
    for GameSeats { game, mix } in &ladder.ladder_seats {
        store
            .set_setting(&ladder_seats_setting(game), &mix.to_string())
            .await?;
    }
    Ok(())
}

/// Completes on SIGTERM or SIGINT: the service manager, or Ctrl-C.
async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The table of languages: the defaults, with the operator's file applied.
pub(crate) fn languages(file: Option<&Path>) -> Result<Languages> {
    Ok(match file {
        Some(path) => Languages::with_file(path)?,
        None => Languages::defaults(),
    })
}

/// How this process builds and checks: `args`, the languages, the games' settings.
pub(crate) fn work_options(
    args: &WorkArgs,
    languages: Languages,
    games: &[OfferedGame],
) -> WorkOptions {
    let mut options = WorkOptions::new(WorkerName::of_this_process().to_string());
    options.jobs = args.build_jobs as usize;
    options.limits.time = Duration::from_secs(args.build_seconds);
    options.limits.memory_mb = args.build_memory_mb;
    // The arena that took the upload checked it against its own limits; a worker, which may
    // not know them, unpacks within the widest an arena can be given.
    options.limits.archive = UploadLimits {
        max_bytes: 4096 << 20,
        max_entries: 100_000,
        max_depth: 64,
    };
    options.languages = languages;
    options.games = games
        .iter()
        .map(|g| (g.name.clone(), g.settings.clone()))
        .collect();
    options
}

/// The games the arena offers: those named (default settings), those of the file (its
/// settings), or every game of the catalog. Each game's settings are checked now, so that a
/// typo stops the arena rather than fails every check.
pub(crate) fn offered_games<C: Catalog>(
    named: &[String],
    file: Option<&Path>,
) -> Result<Vec<OfferedGame>> {
    let mut games: BTreeMap<String, Value> = match file {
        Some(path) => games_file(path)?,
        None => BTreeMap::new(),
    };
    for name in named {
        games
            .entry(name.clone())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    if games.is_empty() {
        for game in C::games() {
            games.insert(game.name.to_owned(), Value::Object(Default::default()));
        }
    }
    games
        .into_iter()
        .map(|(name, settings)| {
            crate::visit::<C, _>(&name, CheckSettings(&settings))?
                .with_context(|| format!("the settings of {name}"))?;
            Ok(OfferedGame { name, settings })
        })
        .collect()
}

/// A games file: `[games.NAME]` tables of settings.
fn games_file(path: &Path) -> Result<BTreeMap<String, Value>> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct GamesFile {
        games: BTreeMap<String, toml::Table>,
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file: GamesFile =
        toml::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    file.games
        .into_iter()
        .map(|(name, table)| {
            let settings = serde_json::to_value(table)
                .with_context(|| format!("{}: the settings of {name}", path.display()))?;
            Ok((name, settings))
        })
        .collect()
}

/// Checks settings as a game's: they read as its settings and a match can start with them.
struct CheckSettings<'a>(&'a Value);

impl Visit for CheckSettings<'_> {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let settings: G::Settings = serde_json::from_value(self.0.clone())?;
        let seats = G::seats(&settings, 0);
        G::build(&settings, &TableSetup::numbered(seats)).map_err(|e| anyhow::anyhow!(e.0))?;
        Ok(())
    }
}
