//! `arbiter tournament`: run a tournament from a folder of player folders, resume it, and show
//! its standings and matches. The work is the tournament crate's (set-up, the arena that plays
//! every match through the catalog, the pool); this module reads flags and prints.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use arbiter_catalog::{Catalog, CatalogGame, SandboxFlags, TimeLimits, Visit};
use std::sync::Arc;

use arbiter_referee::Commands;
use arbiter_store::blocking::Store;
use arbiter_store::{MatchRow, MatchState, Presence, Scope, Tournament};
use arbiter_tournament::Arena;
use arbiter_tournament::WorkerName;
use arbiter_tournament::players::{self, Contestant};
use arbiter_tournament::pool::{self, PoolEvent, RunOptions, Until};
use arbiter_tournament::setup::{self, NewTournament, Note};
use arbiter_tournament::{Format, standings};
use clap::{Args, FromArgMatches, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};

use crate::cli::{GameArgs, GameChoice};
use crate::out::{errln, out, outln};
use arbiter_text::for_terminal as shown;

#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Start a tournament of a game between the player folders of a folder (and robots) and
    /// play it.
    Run(Box<RunGame>),
    /// Go on with a tournament that was stopped (killed, power cut, Ctrl-C).
    Resume(ResumeArgs),
    /// Print the standings (and the cross-table of a 2-player game).
    Standings(StandingsArgs),
    /// List the matches, with their results, faults and replays.
    Matches(MatchesArgs),
    /// Give a tournament a name, shown on its pages (without NAME: take it away).
    Name(NameArgs),
}

#[derive(Args)]
struct RunGame {
    #[command(flatten)]
    game: GameArgs<RunArgs>,
}

/// What `tournament run` takes for every game.
#[derive(Args)]
pub struct RunArgs {
    /// The folder of player folders: each sub-folder with an info.txt (alias, full name,
    /// command) is a player, its name the player's id.
    #[arg(value_name = "PLAYERS_DIR")]
    dir: Option<PathBuf>,
    /// A name for the tournament, shown on its pages ("Class 3B, spring final").
    #[arg(long, value_parser = tournament_name)]
    name: Option<String>,
    /// round-robin (2-player default), gauntlet, swiss (2-player games), groups (default with
    /// more players a match).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Rounds, 1 to 10000: the whole schedule played this many times with new seeds (Swiss:
    /// rounds paired; default log2 of the players, rounded up).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=crate::cli::MAX_ROUNDS))]
    rounds: Option<u32>,
    /// The player a gauntlet pits against all others: its id, alias or folder.
    #[arg(long)]
    challenger: Option<String>,
    /// Another player: builtin:NAME for a robot, or a player folder (repeatable).
    #[arg(long = "add", value_name = "PLAYER")]
    add: Vec<String>,
    /// How a player folder's command runs: `auto` (the course judge's way for folders named
    /// by six digits, as written otherwise), `as-written` (split as a shell would, run inside
    /// the folder) or `judge` (as the Domino course's Windows judge rewrote it: `\` paths
    /// from the players folder's parent, `.jar` with java -jar, `.py` with python3).
    #[arg(long, value_name = "HOW", default_value = "auto")]
    commands: Commands,
    /// The tournament seed, from which every match seed is derived (random if not given).
    #[arg(long)]
    seed: Option<u64>,
    /// Matches played at once, 1 to 1024 (default: the number of cores).
    #[arg(long, value_parser = crate::cli::jobs())]
    jobs: Option<usize>,
    /// The store: a SQLite file, or a postgres:// URL.
    #[arg(long, default_value = "tournament.db")]
    db: String,
    /// Where replays go (default: a folder next to the database, DB-replays/).
    #[arg(long)]
    replays: Option<PathBuf>,
    /// Let players that fail the compliance check play anyway.
    #[arg(long)]
    keep_failing: bool,
    /// How many times a match that fails because of Arbiter or the machine is tried.
    #[arg(long, default_value_t = 3)]
    attempts: u32,
    /// Only create the tournament: print `tournament N` and leave its matches to workers
    /// (`arbiter worker`).
    #[arg(long)]
    no_work: bool,
    #[command(flatten)]
    lease: LeaseArg,
    /// The largest player folder stored for the workers, in MiB once compressed, 1 to 512; a
    /// larger one does not play.
    #[arg(long, value_name = "MB", default_value_t = arbiter_tournament::programs::DEFAULT_MAX_MB,
          value_parser = crate::cli::max_program_mb())]
    max_program_mb: u64,
    #[command(flatten)]
    time: TimeLimits,
    #[command(flatten)]
    sandbox: SandboxFlags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    RoundRobin,
    Gauntlet,
    Swiss,
    Groups,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::RoundRobin => Format::RoundRobin,
            FormatArg::Gauntlet => Format::Gauntlet,
            FormatArg::Swiss => Format::Swiss,
            FormatArg::Groups => Format::Groups,
        }
    }
}

#[derive(Args)]
struct ResumeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Matches played at once, 1 to 1024 (default: the number of cores).
    #[arg(long, value_parser = crate::cli::jobs())]
    jobs: Option<usize>,
    #[command(flatten)]
    lease: LeaseArg,
}

/// How long a worker's claim on a match holds without being renewed.
#[derive(Args, Clone, Copy)]
pub struct LeaseArg {
    /// Seconds a claimed match stays this worker's without being renewed (renewed every
    /// third of it while it plays): after a worker dies, its matches are played again by
    /// another this much later. 1 to 3600.
    #[arg(long = "lease", value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    seconds: u64,
}

impl LeaseArg {
    pub fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.seconds)
    }
}

#[derive(Args)]
struct DbArgs {
    /// The store: a SQLite file, or a postgres:// URL.
    #[arg(long, default_value = "tournament.db")]
    db: String,
    /// Which tournament of the store (default: the last one).
    #[arg(long)]
    tournament: Option<i64>,
}

#[derive(Args)]
struct StandingsArgs {
    #[command(flatten)]
    db: DbArgs,
    /// One JSON array, best first.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV with a header line.
    #[arg(long)]
    csv: bool,
}

#[derive(Args)]
struct NameArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The name ("Class 3B, spring final").
    #[arg(value_parser = tournament_name)]
    name: Option<String>,
}

/// The longest tournament name, in characters.
const MAX_NAME: usize = 120;

/// A tournament name as given, refused when it is empty, too long or holds control characters.
pub(crate) fn tournament_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    if name.is_empty() {
        return Err("a tournament name needs a visible character".into());
    }
    if name.chars().count() > MAX_NAME {
        return Err(format!(
            "a tournament name is at most {MAX_NAME} characters"
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "a tournament name cannot hold the control character {c:?}"
        ));
    }
    Ok(name.to_owned())
}

#[derive(Args)]
struct MatchesArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Only the matches of this player (id or alias).
    #[arg(long)]
    player: Option<String>,
    /// Only the matches where a bot had a fault (or that failed).
    #[arg(long)]
    faults: bool,
    /// One JSON array, a match per element.
    #[arg(long)]
    json: bool,
}

pub fn run<C: Catalog>(args: TournamentArgs) -> Result<()> {
    match args.command {
        TournamentCommand::Run(run) => {
            let choice = run.game.required();
            crate::visit::<C, _>(&choice.game.clone(), RunNew(choice))?
        }
        TournamentCommand::Resume(args) => {
            let store = open_existing(&args.db.db)?;
            let t = tournament(&store, args.db.tournament)?;
            let jobs = args.jobs.unwrap_or_else(default_jobs);
            let arena = crate::visit::<C, _>(&t.game.clone(), StoredArena(&t))??;
            play_out(&store, &t, arena, jobs, args.lease)
        }
        TournamentCommand::Standings(args) => print_standings(args),
        TournamentCommand::Matches(args) => print_matches(args),
        TournamentCommand::Name(args) => rename(args),
    }
}

/// `tournament run GAME`: set up through the tournament crate, then played out.
struct RunNew(GameChoice<RunArgs>);

impl Visit for RunNew {
    type Output = Result<()>;

    fn visit<G: CatalogGame>(self) -> Result<()> {
        let GameChoice { args, matches, .. } = self.0;
        let seed = args.seed.unwrap_or_else(crate::play::fresh_seed);
        let jobs = args.jobs.unwrap_or_else(default_jobs);
        let store = Store::open(&args.db, Presence::MayCreate)
            .with_context(|| format!("--db {}", args.db))?;
        let new = NewTournament {
            name: args.name,
            dir: args.dir,
            add: args.add,
            stored: Vec::new(),
            format: args.format.map(Format::from),
            rounds: args.rounds,
            challenger: args.challenger,
            seed,
            replays: args.replays,
            keep_failing: args.keep_failing,
            attempts: args.attempts,
            jobs,
            settings: G::Settings::from_arg_matches(&matches)?,
            time: args.time,
            sandbox: args.sandbox.policy(),
            max_program_mb: args.max_program_mb,
            sprt: None,
            commands: args.commands,
        };
        let created = setup::create::<G>(&store, &args.db, new, &mut print_note)?;
        let t = &created.tournament;
        if args.no_work {
            outln!("tournament {}", t.id)?;
            return Ok(());
        }
        errln!(
            "tournament {} in {}: {} players, {}, {} round(s), seed {seed}",
            t.id,
            args.db,
            created.playing,
            t.format.as_str(),
            t.rounds
        );
        play_out(&store, t, Arc::new(created.arena), jobs, args.lease)
    }
}

/// The arena of a stored tournament, as it was created.
pub struct StoredArena<'a>(pub &'a Tournament);

impl Visit for StoredArena<'_> {
    type Output = Result<Arc<dyn Arena>, arbiter_tournament::TournamentError>;

    fn visit<G: CatalogGame>(self) -> Self::Output {
        Ok(Arc::new(setup::stored_arena::<G>(self.0)?))
    }
}

pub(crate) fn print_note(note: Note<'_>) {
    match note {
        Note::Skipped(p) => errln!(
            "skipping {}: {}",
            shown(
                &p.folder
                    .as_deref()
                    .unwrap_or(std::path::Path::new(&p.id))
                    .display()
                    .to_string()
            ),
            shown(p.reason.as_deref().unwrap_or("not a player folder"))
        ),
        Note::OutsideLinks { player, links } => errln!(
            "{} ({}): {} link(s) point outside the player folder, first {}: stored as written, \
             they work on a machine only where their target exists",
            shown(&player.id),
            shown(&player.alias),
            links.len(),
            shown(
                &links
                    .first()
                    .map(|l| l.display().to_string())
                    .unwrap_or_default()
            )
        ),
        Note::Checking(n) => errln!("checking {n} player program(s) on a first turn..."),
        Note::Warned { player, why } => errln!(
            "{} ({}) plays, but its first move in the check was against the rules: {}",
            shown(&player.id),
            shown(&player.alias),
            shown(why)
        ),
        Note::Failed(p) => {
            let what = if p.status == players::Status::Kept {
                "failed the check, plays anyway"
            } else {
                "excluded"
            };
            errln!(
                "{} ({}) {what}: {}",
                shown(&p.id),
                shown(&p.alias),
                shown(p.reason.as_deref().unwrap_or(""))
            );
        }
    }
}

/// Works on tournament `t` as one more worker until it is finished, with a progress bar on a
/// terminal, then prints the standings.
fn play_out(
    store: &Store,
    t: &Tournament,
    arena: Arc<dyn Arena>,
    jobs: usize,
    lease: LeaseArg,
) -> Result<()> {
    let options = options_until_finished(t, jobs, lease);
    let bar = progress_bar();
    let started = std::time::Instant::now();
    let mut first_done = None;
    let mut last = (0, 0);
    let arenas = move |_: &Tournament| Ok(arena.clone());
    let summary = pool::run(store, &arenas, &options, &mut |event| {
        if let PoolEvent::Progress { done, total, .. } = event {
            first_done.get_or_insert(done);
            last = (done, total);
            if let Some(bar) = &bar {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        } else if let PoolEvent::Paired { round, .. } = event {
            if let Some(bar) = &bar {
                bar.set_message(format!("round {round}"));
            }
        } else if let Some(line) = crate::worker::event_line(&event) {
            match &bar {
                Some(bar) => bar.println(line),
                None => errln!("{line}"),
            }
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let played = last.0 - first_done.unwrap_or(0);
    errln!(
        "{played} match(es) in {elapsed:.1} s ({:.1} a minute), {} of {} over, {} played here{}",
        if elapsed > 0.0 {
            played as f64 * 60.0 / elapsed
        } else {
            0.0
        },
        last.0,
        last.1,
        summary.played,
        if summary.failed > 0 {
            format!(", {} failed", summary.failed)
        } else {
            String::new()
        }
    );
    let (table, players) = table(store, t)?;
    out!("{}", standings::to_text(&table))?;
    let cross = standings::cross_table(&table);
    if !cross.is_empty() {
        outln!()?;
        out!("{cross}")?;
    }
    print_excluded(&players)
}

/// The pool's options for this process working on tournament `t` until it is finished.
pub fn options_until_finished(t: &Tournament, jobs: usize, lease: LeaseArg) -> RunOptions {
    RunOptions::new(
        jobs,
        Scope::Tournament(t.id),
        Until::Finished,
        lease.duration(),
        WorkerName::of_this_process(),
    )
}

fn progress_bar() -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30.cyan/blue} {pos}/{len} matches  {per_sec:.1}  ETA {eta}  {msg}",
        )
        .expect("the template is valid"),
    );
    Some(bar)
}

pub fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(crate::cli::MAX_JOBS as usize)
}

fn tournament(store: &Store, id: Option<i64>) -> Result<Tournament> {
    let id = match id {
        Some(id) => id,
        None => store.latest()?.context(
            "the store holds no tournament yet (start one with `arbiter tournament run`)",
        )?,
    };
    Ok(store.tournament(id)?)
}

fn table(store: &Store, t: &Tournament) -> Result<(standings::Table, Vec<Contestant>)> {
    let players = store.players(t.id)?;
    let matches = store.matches(t.id)?;
    let byes = store.byes(t.id)?;
    Ok((
        standings::compute(&players, &matches, &byes, t.players_per_match),
        players,
    ))
}

fn print_excluded(players: &[Contestant]) -> Result<()> {
    let excluded: Vec<&Contestant> = players.iter().filter(|p| !p.status.plays()).collect();
    if excluded.is_empty() {
        return Ok(());
    }
    outln!()?;
    outln!("not playing:")?;
    for p in excluded {
        outln!(
            "  {} ({}): {}: {}",
            shown(&p.id),
            shown(&p.alias),
            p.status.as_str(),
            shown(p.reason.as_deref().unwrap_or(""))
        )?;
    }
    Ok(())
}

/// The store of a command that continues a tournament: one that is not there is said so, and
/// not created; one that cannot be written is said so.
pub fn open_existing(db: &str) -> Result<Store> {
    Store::open(db, Presence::MustExist).with_context(|| format!("--db {db}"))
}

/// The store of a command that only reads it: it need not be writable, and is not created.
fn open_to_read(db: &str) -> Result<Store> {
    Store::open(db, Presence::ReadOnly).with_context(|| format!("--db {db}"))
}

fn print_standings(args: StandingsArgs) -> Result<()> {
    let store = open_to_read(&args.db.db)?;
    let t = tournament(&store, args.db.tournament)?;
    let (table, players) = table(&store, &t)?;
    if args.json {
        outln!("{}", standings::to_json(&table))?;
    } else if args.csv {
        out!("{}", standings::to_csv(&table))?;
    } else {
        let matches = store.matches(t.id)?;
        let over = matches
            .iter()
            .filter(|m| matches!(m.state, MatchState::Done | MatchState::Failed))
            .count();
        let named = t.name.as_deref().map(|n| format!(" \"{}\"", shown(n)));
        outln!(
            "tournament {}{}: {}, {}, seed {}, {over} of {} matches over{}",
            t.id,
            named.unwrap_or_default(),
            t.game,
            t.format.as_str(),
            t.seed,
            matches.len(),
            if t.finished.is_some() {
                ""
            } else {
                " (not finished: `arbiter tournament resume`)"
            }
        )?;
        out!("{}", standings::to_text(&table))?;
        let cross = standings::cross_table(&table);
        if !cross.is_empty() {
            outln!()?;
            out!("{cross}")?;
        }
        print_excluded(&players)?;
    }
    Ok(())
}

fn rename(args: NameArgs) -> Result<()> {
    let store = open_existing(&args.db.db)?;
    let t = tournament(&store, args.db.tournament)?;
    store.rename(t.id, args.name.as_deref())?;
    match &args.name {
        Some(name) => errln!("tournament {} is named {}", t.id, shown(name)),
        None => errln!("tournament {} has no name now", t.id),
    }
    Ok(())
}

fn print_matches(args: MatchesArgs) -> Result<()> {
    let store = open_to_read(&args.db.db)?;
    let t = tournament(&store, args.db.tournament)?;
    let players = store.players(t.id)?;
    let wanted: Option<String> = match &args.player {
        Some(name) => Some(
            players::find(&players, name)
                .with_context(|| format!("--player {name}: no such player"))?
                .id
                .clone(),
        ),
        None => None,
    };
    let rows: Vec<MatchRow> = store
        .matches(t.id)?
        .into_iter()
        .filter(|m| wanted.as_ref().is_none_or(|w| m.seats.contains(w)))
        .filter(|m| {
            !args.faults
                || m.state == MatchState::Failed
                || m.result.as_ref().is_some_and(|r| !r.faults.is_empty())
        })
        .collect();
    if args.json {
        outln!("{}", Value::Array(rows.iter().map(match_json).collect()))?;
        return Ok(());
    }
    for m in &rows {
        outln!("{}", shown(&match_line(m)))?;
    }
    Ok(())
}

/// A match as `matches --json` prints it (the contract scripts rely on).
fn match_json(m: &MatchRow) -> Value {
    let r = m.result.as_ref();
    json!({
        "id": m.id,
        "round": m.round,
        "seats": m.seats,
        "state": m.state.as_str(),
        "seed": m.seed,
        "scores": r.map(|r| &r.scores),
        "placement": r.map(|r| &r.placement),
        "reason": r.map(|r| r.reason.clone()).or_else(|| m.error.clone()),
        "faults": r.map(|r| json!(r.faults)).unwrap_or_else(|| json!([])),
        "replay": r.and_then(|r| r.replay.clone()),
        "ticks": r.map(|r| r.ticks),
        "time_ms": r.map(|r| &r.time_ms),
        "attempts": m.attempts,
        "claim": m.claim,
        "worker": m.worker,
        "error": m.error,
    })
}

fn match_line(m: &MatchRow) -> String {
    let seats = m.seats.join(" vs ");
    match (&m.result, m.state) {
        (Some(r), _) => {
            let scores: Vec<String> = r.scores.iter().map(|s| format!("{s}")).collect();
            let faults: Vec<String> = r
                .faults
                .iter()
                .map(|f| {
                    let mut parts = Vec::new();
                    if f.errors > 0 {
                        parts.push(format!("{} bad answer(s)", f.errors));
                    }
                    if f.timeouts > 0 {
                        parts.push(format!("{} timeout(s)", f.timeouts));
                    }
                    if f.crashed {
                        parts.push("crashed".into());
                    }
                    if let Some(note) = &f.note {
                        parts.push(note.clone());
                    }
                    format!("{}: {}", f.player, parts.join(", "))
                })
                .collect();
            format!(
                "#{:<5} round {:<3} {seats}  {}  {}{}{}",
                m.id,
                m.round,
                scores.join("-"),
                r.reason.replace('_', " "),
                if faults.is_empty() {
                    String::new()
                } else {
                    format!("  faults: {}", faults.join("; "))
                },
                r.replay
                    .as_ref()
                    .map(|p| format!("  {p}"))
                    .unwrap_or_default()
            )
        }
        (None, state) => format!(
            "#{:<5} round {:<3} {seats}  {}{}",
            m.id,
            m.round,
            state.as_str(),
            m.error
                .as_ref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ),
    }
}
