//! `arbiter tournament`: run a tournament from a folder of player folders, resume it, and show
//! its standings and matches. The work is the tournament crate's; this module reads flags,
//! plays matches through [`crate::play::play`] for whichever game, and prints.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arbiter_games::Seating;
use arbiter_referee::{MatchConfig, MatchReport, SeatError, SeatSpec};
use arbiter_robots::Robots;
use arbiter_tournament::plan::initial_matches;
use arbiter_tournament::players::{self, Player, Status};
use arbiter_tournament::pool::{self, Arena, Event, PlayFailure, RunOptions};
use arbiter_tournament::store::{MatchRow, MatchState, Store, Tournament, now_ms};
use arbiter_tournament::{Format, compliance, standings};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};

use crate::games::{CliGame, GameFlags, GameName, dispatch};
use crate::play::{CannotStart, TimeFlags, play};

#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Start a tournament between the player folders of a folder (and robots) and play it.
    Run(Box<RunArgs>),
    /// Go on with a tournament that was stopped (killed, power cut, Ctrl-C).
    Resume(ResumeArgs),
    /// Print the standings (and the cross-table of a 2-player game).
    Standings(StandingsArgs),
    /// List the matches, with their results, faults and replays.
    Matches(MatchesArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The folder of player folders: each sub-folder with an info.txt (alias, full name,
    /// command) is a player, its name the player's id.
    #[arg(value_name = "PLAYERS_DIR")]
    dir: Option<PathBuf>,
    /// The game.
    #[arg(long)]
    game: GameName,
    /// round-robin (2-player default), gauntlet, swiss (2-player games), groups (default with
    /// more players a match).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Rounds: the whole schedule played this many times with new seeds (Swiss: rounds paired;
    /// default log2 of the players, rounded up).
    #[arg(long)]
    rounds: Option<u32>,
    /// The player a gauntlet pits against all others: its id, alias or folder.
    #[arg(long)]
    challenger: Option<String>,
    /// Another player: builtin:NAME for a robot, or a player folder (repeatable).
    #[arg(long = "add", value_name = "PLAYER")]
    add: Vec<String>,
    /// The tournament seed, from which every match seed is derived (random if not given).
    #[arg(long)]
    seed: Option<u64>,
    /// Matches played at once (default: the number of cores).
    #[arg(long)]
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
    #[command(flatten)]
    time: TimeFlags,
    #[command(flatten)]
    flags: GameFlags,
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
    /// Matches played at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
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

pub fn run(args: TournamentArgs) -> Result<()> {
    match args.command {
        TournamentCommand::Run(args) => {
            dispatch!(args.game, G => run_new::<G>(*args))
        }
        TournamentCommand::Resume(args) => resume(args),
        TournamentCommand::Standings(args) => print_standings(args),
        TournamentCommand::Matches(args) => print_matches(args),
    }
}

/// Plays the matches of one game through [`play`], the same path as `arbiter play`.
struct GameArena<G> {
    game: G,
    config: MatchConfig,
    /// The flags the game is made from, for each match between its seats.
    flags: GameFlags,
    /// Whether the game draws its board (Domino): each pairing then gets its own board, drawn
    /// from the flags' seed and the pairing.
    draws_board: bool,
}

impl<G: CliGame> GameArena<G> {
    /// The start position of a match between `seats`: one board per pairing, the same for
    /// both of its games (either seat order), as the Polish judge plays them.
    fn start(&self, seats: &[SeatSpec]) -> Result<G, PlayFailure> {
        let seating = Seating::named(seats.iter().map(SeatSpec::name).collect());
        let mut flags = self.flags.clone();
        if self.draws_board {
            let mut names = seating.names.clone();
            names.sort();
            // FNV-1a: stable across builds, so a resumed tournament draws the same boards.
            let mut hash = flags.board_seed.unwrap_or(0) ^ 0xcbf2_9ce4_8422_2325;
            for byte in names.join("\n").bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
            flags.board_seed = Some(hash);
        }
        G::from_flags(&flags, &seating).map_err(|e| PlayFailure::Arbiter(format!("{e:#}")))
    }
}

impl<G: CliGame> Arena for GameArena<G> {
    fn players_per_match(&self) -> usize {
        self.game.num_players()
    }

    fn play(
        &self,
        seats: &[SeatSpec],
        seed: u64,
        replay: &Path,
    ) -> Result<MatchReport, PlayFailure> {
        let config = MatchConfig {
            seed,
            ..self.config.clone()
        };
        play(
            self.start(seats)?,
            seats,
            &config,
            Some(&replay.to_path_buf()),
        )
        .map_err(classify)
    }

    fn check(&self, seat: &SeatSpec, replay: &Path) -> Result<MatchReport, PlayFailure> {
        let mut seats = vec![seat.clone()];
        let robot = SeatSpec::Builtin {
            name: G::ROBOTS[0].into(),
        };
        seats.resize(self.game.num_players(), robot);
        self.play(&seats, 1, replay)
    }
}

/// Tells a player whose program cannot be started (its fault) from everything else (Arbiter's
/// or the machine's, retried).
fn classify(error: anyhow::Error) -> PlayFailure {
    let message = format!("{error:#}");
    let Some(start) = error.downcast_ref::<CannotStart>() else {
        return PlayFailure::Arbiter(message);
    };
    let machine = match error.chain().find_map(|e| e.downcast_ref::<SeatError>()) {
        // Out of processes, memory or file descriptors: nothing the bot did.
        Some(SeatError::CannotStart { error, .. }) => {
            matches!(
                error.raw_os_error(),
                Some(libc::EAGAIN | libc::ENOMEM | libc::EMFILE | libc::ENFILE)
            )
        }
        Some(_) => false,
        None => true,
    };
    if machine {
        PlayFailure::Arbiter(message)
    } else {
        PlayFailure::CannotStart {
            seat: start.index,
            reason: message,
        }
    }
}

fn arena<G: CliGame>(flags: &GameFlags, time: &TimeFlags) -> Result<GameArena<G>> {
    let game = G::from_flags(flags, &Seating::default())?;
    Ok(GameArena {
        flags: flags.clone(),
        draws_board: G::draws_board(flags),
        game,
        config: MatchConfig {
            time: time.time_control()?,
            ..MatchConfig::default()
        },
    })
}

fn run_new<G: CliGame>(mut args: RunArgs) -> Result<()> {
    let seed = *args.seed.get_or_insert_with(crate::play::fresh_seed);
    // Games that draw their board (Domino) draw it from the tournament seed, and every match
    // of the tournament is played on it: the two games of a pairing share their board.
    args.flags.board_seed.get_or_insert(seed);
    let arena = arena::<G>(&args.flags, &args.time)?;
    let per_match = arena.players_per_match();
    let mut players = gather_players::<G>(args.dir.as_deref(), &args.add)?;
    for p in players.iter().filter(|p| p.status == Status::Invalid) {
        eprintln!(
            "skipping {}: {}",
            p.folder.as_deref().unwrap_or(Path::new(&p.id)).display(),
            p.reason.as_deref().unwrap_or("not a player folder")
        );
    }
    let format: Format = match args.format {
        Some(f) => f.into(),
        None if per_match == 2 => Format::RoundRobin,
        None => Format::Groups,
    };
    if format == Format::Swiss && per_match != 2 {
        bail!(
            "Swiss pairs two players, but this game has {per_match} players a match: use \
             --format groups or round-robin"
        );
    }
    let challenger = match (&args.challenger, format) {
        (Some(name), Format::Gauntlet) => Some(
            players::find(&players, name)
                .with_context(|| format!("--challenger {name}: no such player"))?
                .id
                .clone(),
        ),
        (None, Format::Gauntlet) => bail!("a gauntlet needs --challenger PLAYER"),
        (Some(_), _) => bail!("--challenger is for --format gauntlet"),
        (None, _) => None,
    };
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let store = Store::open(&args.db).with_context(|| format!("--db {}", args.db))?;
    let id = store.latest()?.unwrap_or(0) + 1;
    let replays = replays_dir(args.replays.as_deref(), &store, &args.db, id)?;

    let to_check = players
        .iter()
        .filter(|p| p.status == Status::Ok && p.is_process())
        .count();
    if to_check > 0 {
        eprintln!("checking {to_check} player program(s) on a first turn...");
    }
    compliance::check_players(&arena, &mut players, jobs, &replays, args.keep_failing);
    for p in players
        .iter()
        .filter(|p| matches!(p.status, Status::Failing | Status::Kept))
    {
        let what = if p.status == Status::Kept {
            "failed the check, plays anyway"
        } else {
            "excluded"
        };
        eprintln!(
            "{} ({}) {what}: {}",
            p.id,
            p.alias,
            p.reason.as_deref().unwrap_or("")
        );
    }
    if let Some(c) = &challenger
        && !players.iter().any(|p| &p.id == c && p.status.plays())
    {
        bail!("the challenger {c} failed the compliance check (see above)");
    }

    let playing = players.iter().filter(|p| p.status.plays()).count();
    let rounds = args.rounds.unwrap_or(match format {
        Format::Swiss => (playing.max(2) as f64).log2().ceil() as u32,
        _ => 1,
    });
    if rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    let settings = json!({
        "flags": args.flags,
        "time": {
            "time_bank_ms": args.time.time_bank_ms,
            "time_per_turn_ms": args.time.time_per_turn_ms,
            "time_per_reply_ms": args.time.time_per_reply_ms,
            "startup_ms": args.time.startup_ms,
        },
        "replays": replays,
        "challenger": challenger,
        "keep_failing": args.keep_failing,
        "attempts": args.attempts,
    });
    let mut t = Tournament {
        id,
        game: G::NAME.to_owned(),
        format,
        seed,
        rounds,
        players_per_match: per_match,
        settings,
        created: now_ms(),
        finished: None,
    };
    let (matches, bye) = initial_matches(&t, &players, challenger.as_deref())?;
    let bye = bye
        .as_ref()
        .map(|(round, player)| (*round, player.as_str()));
    t.id = store.create(&t, &players, &matches, bye)?;
    eprintln!(
        "tournament {} in {}: {} players, {}, {} round(s), seed {seed}",
        t.id,
        args.db,
        playing,
        format.as_str(),
        rounds
    );
    play_out(&store, &t, &arena, jobs)
}

fn resume(args: ResumeArgs) -> Result<()> {
    let store = Store::open(&args.db.db).with_context(|| format!("--db {}", args.db.db))?;
    let t = tournament(&store, args.db.tournament)?;
    let name = GameName::from_str(&t.game, true)
        .map_err(|_| anyhow::anyhow!("this Arbiter does not know the game {:?}", t.game))?;
    let flags: GameFlags =
        serde_json::from_value(t.settings["flags"].clone()).context("the stored game settings")?;
    let time = stored_time(&t.settings["time"]);
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    dispatch!(name, G => {
        let arena = arena::<G>(&flags, &time)?;
        play_out(&store, &t, &arena, jobs)
    })
}

fn stored_time(time: &Value) -> TimeFlags {
    let ms = |key: &str| time[key].as_u64();
    TimeFlags {
        time_bank_ms: ms("time_bank_ms"),
        time_per_turn_ms: ms("time_per_turn_ms"),
        time_per_reply_ms: ms("time_per_reply_ms"),
        startup_ms: ms("startup_ms"),
    }
}

/// Plays every match left, with a progress bar on a terminal, then prints the standings.
fn play_out(store: &Store, t: &Tournament, arena: &dyn Arena, jobs: usize) -> Result<()> {
    let replays = PathBuf::from(
        t.settings["replays"]
            .as_str()
            .context("the stored settings have no replays folder")?,
    );
    let options = RunOptions {
        jobs,
        replays,
        max_attempts: t.settings["attempts"].as_u64().unwrap_or(3) as u32,
    };
    let bar = progress_bar();
    let started = std::time::Instant::now();
    let mut first_done = None;
    let mut last = (0, 0);
    let summary = pool::run(store, t, arena, &options, &mut |event| match event {
        Event::Progress { done, total } => {
            first_done.get_or_insert(done);
            last = (done, total);
            if let Some(bar) = &bar {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
        }
        Event::Played(_) => {}
        Event::Trouble { id, error, failed } => {
            let line = if failed {
                format!("match {id} failed for good: {error}")
            } else {
                format!("match {id} will be tried again: {error}")
            };
            match &bar {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
        Event::Paired { round } => {
            if let Some(bar) = &bar {
                bar.set_message(format!("round {round}"));
            }
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let played = last.0 - first_done.unwrap_or(0);
    if summary.requeued > 0 {
        eprintln!(
            "{} match(es) that were running when the last run stopped were played again",
            summary.requeued
        );
    }
    eprintln!(
        "{played} match(es) in {elapsed:.1} s ({:.1} a minute), {} of {} over{}",
        if elapsed > 0.0 {
            played as f64 * 60.0 / elapsed
        } else {
            0.0
        },
        last.0,
        last.1,
        if summary.failed > 0 {
            format!(", {} failed", summary.failed)
        } else {
            String::new()
        }
    );
    let (table, players) = table(store, t)?;
    print!("{}", standings::to_text(&table));
    let cross = standings::cross_table(&table);
    if !cross.is_empty() {
        println!();
        print!("{cross}");
    }
    print_excluded(&players);
    Ok(())
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

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The replays of tournament `id`: under `--replays`, or in DB-replays/ next to a SQLite file.
fn replays_dir(given: Option<&Path>, store: &Store, db: &str, id: i64) -> Result<PathBuf> {
    let base = match (given, store.file()) {
        (Some(dir), _) => std::path::absolute(dir)?,
        (None, Some(file)) => {
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "tournament".into());
            file.with_file_name(format!("{stem}-replays"))
        }
        (None, None) => bail!("--db {db} is not a file: say where replays go with --replays DIR"),
    };
    let dir = base.join(format!("t{id}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// The players of a folder and those added with `--add`, each id once.
fn gather_players<G: Robots>(dir: Option<&Path>, add: &[String]) -> Result<Vec<Player>> {
    let mut players = match dir {
        Some(dir) => players::discover(dir)?,
        None => Vec::new(),
    };
    for name in add {
        let player = match name.strip_prefix("builtin:") {
            Some(robot) => {
                if !G::ROBOTS.contains(&robot) {
                    bail!(
                        "--add {name}: {} has no such robot; there are: {}",
                        G::NAME,
                        G::ROBOTS
                            .iter()
                            .map(|r| format!("builtin:{r}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
                Player::builtin(robot)
            }
            None => {
                let path = Path::new(name);
                let id = path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .with_context(|| format!("--add {name}: not builtin:NAME nor a folder"))?;
                let mut found = players::discover_one(&id, path);
                if found.status == Status::Invalid {
                    bail!("--add {name}: {}", found.reason.take().unwrap_or_default());
                }
                found
            }
        };
        if players.iter().any(|p| p.id == player.id) {
            bail!("--add {name}: there is already a player {}", player.id);
        }
        players.push(player);
    }
    if players.is_empty() {
        bail!("no players: give a folder of player folders, or --add builtin:NAME");
    }
    Ok(players)
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

fn table(store: &Store, t: &Tournament) -> Result<(standings::Table, Vec<Player>)> {
    let players = store.players(t.id)?;
    let matches = store.matches(t.id)?;
    let byes = store.byes(t.id)?;
    Ok((
        standings::compute(&players, &matches, &byes, t.players_per_match),
        players,
    ))
}

fn print_excluded(players: &[Player]) {
    let out: Vec<&Player> = players.iter().filter(|p| !p.status.plays()).collect();
    if out.is_empty() {
        return;
    }
    println!();
    println!("not playing:");
    for p in out {
        println!(
            "  {} ({}): {}: {}",
            p.id,
            p.alias,
            p.status.as_str(),
            p.reason.as_deref().unwrap_or("")
        );
    }
}

fn print_standings(args: StandingsArgs) -> Result<()> {
    let store = Store::open(&args.db.db).with_context(|| format!("--db {}", args.db.db))?;
    let t = tournament(&store, args.db.tournament)?;
    let (table, players) = table(&store, &t)?;
    if args.json {
        println!("{}", standings::to_json(&table));
    } else if args.csv {
        print!("{}", standings::to_csv(&table));
    } else {
        let matches = store.matches(t.id)?;
        let over = matches
            .iter()
            .filter(|m| matches!(m.state, MatchState::Done | MatchState::Failed))
            .count();
        println!(
            "tournament {}: {}, {}, seed {}, {over} of {} matches over{}",
            t.id,
            t.game,
            t.format.as_str(),
            t.seed,
            matches.len(),
            if t.finished.is_some() {
                ""
            } else {
                " (not finished: `arbiter tournament resume`)"
            }
        );
        print!("{}", standings::to_text(&table));
        let cross = standings::cross_table(&table);
        if !cross.is_empty() {
            println!();
            print!("{cross}");
        }
        print_excluded(&players);
    }
    Ok(())
}

fn print_matches(args: MatchesArgs) -> Result<()> {
    let store = Store::open(&args.db.db).with_context(|| format!("--db {}", args.db.db))?;
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
        println!("{}", Value::Array(rows.iter().map(match_json).collect()));
        return Ok(());
    }
    for m in &rows {
        println!("{}", match_line(m));
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
