//! `arbiter worker`: claims matches of any open tournament of a store and plays them, on this
//! machine, beside any number of other workers on this one or others (docs/organisers.md,
//! "Many machines"). It also builds and checks the versions handed in to an arena on the same
//! store (`arbiter arena serve --no-work`) and plays the arena's matches (its ladder,
//! challenges, playground and SPRT series), unless `--no-arena`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use arbiter_arena::work::work;
use arbiter_catalog::Catalog;
use arbiter_store::{Scope, Tournament};
use arbiter_text::for_terminal as shown;
use arbiter_tournament::Arena;
use arbiter_tournament::pool::{self, PoolEvent, RunOptions, Until};
use arbiter_tournament::{TournamentError, WorkerName};
use clap::Args;

use crate::arena::WorkArgs;
use crate::out::errln;
use crate::tournament::{LeaseArg, StoredArena, default_jobs};

#[derive(Args)]
pub struct WorkerArgs {
    /// The store: a postgres:// URL (workers on many machines), or a SQLite file (workers on
    /// this machine).
    #[arg(long)]
    db: String,
    /// Matches played at once, 1 to 1024 (default: the number of cores): tournaments' and,
    /// as many again, the arena's.
    #[arg(long, value_parser = crate::cli::jobs())]
    jobs: Option<usize>,
    /// Exit (status 0) once no open tournament has a match queued or running, instead of
    /// waiting for new ones.
    #[arg(long)]
    until_idle: bool,
    /// This worker's name in the store, unique among its workers (default HOST:PID@START,
    /// which also lets another worker of this machine see at once that this one is gone).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    lease: LeaseArg,
    /// Build, check and play nothing of an arena: play tournaments' matches only.
    #[arg(long)]
    no_arena: bool,
    /// The arena's games file (`arbiter arena serve --games-file`): the settings its checks
    /// are played with. Without it, every game plays its checks with its default settings.
    #[arg(long, value_name = "TOML")]
    games_file: Option<PathBuf>,
    #[command(flatten)]
    arena: WorkArgs,
}

pub fn run<C: Catalog>(args: WorkerArgs) -> Result<()> {
    let store = crate::tournament::open_existing(&args.db)?;
    let worker = match &args.name {
        Some(name) => WorkerName::named(name),
        None => WorkerName::of_this_process(),
    };
    let until = if args.until_idle {
        Until::Idle
    } else {
        Until::Stopped
    };
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let options = RunOptions::new(
        jobs,
        Scope::Open,
        until,
        args.lease.duration(),
        worker.clone(),
    );
    errln!(
        "worker {worker} on {}: {} match(es) at once",
        shown(&args.db),
        options.jobs
    );
    let arena = if args.no_arena {
        None
    } else {
        Some(ArenaWorker::start::<C>(&args, jobs)?)
    };
    let arenas = |t: &Tournament| -> Result<Arc<dyn Arena>, TournamentError> {
        crate::visit::<C, _>(&t.game, StoredArena(t))
            .map_err(|e| TournamentError::TableSetup(format!("tournament {}: {e}", t.id)))?
    };
    let summary = pool::run(&store, &arenas, &options, &mut |event| {
        if let Some(line) = worker_line(&event) {
            errln!("{line}");
        }
    })
    .with_context(|| format!("worker on {}", args.db));
    if let Some(arena) = arena {
        arena.stop();
    }
    let summary = summary?;
    errln!(
        "worker {worker}: {} match(es) played, {} failed, {} refused, {} put back",
        summary.played,
        summary.failed,
        summary.refused,
        summary.requeued
    );
    store.close();
    Ok(())
}

/// The arena's builds, checks and matches, worked on by a thread of their own beside the
/// tournaments' matches.
struct ArenaWorker {
    stop: tokio::sync::watch::Sender<bool>,
    thread: std::thread::JoinHandle<()>,
}

impl ArenaWorker {
    /// Starts it, playing up to `match_jobs` of the arena's matches at once.
    fn start<C: Catalog>(args: &WorkerArgs, match_jobs: usize) -> Result<ArenaWorker> {
        // Every game of the catalog: a worker builds for whatever the arena offers.
        let games = crate::arena::offered_games::<C>(&[], args.games_file.as_deref())?;
        let languages = crate::arena::languages(args.arena.languages.as_deref())?;
        let mut options = crate::arena::work_options(&args.arena, languages, &games);
        options.match_jobs = match_jobs;
        if let Some(name) = &args.name {
            options.worker = format!("{name}/arena");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the arena's runtime")?;
        let store = runtime
            .block_on(arbiter_store::ArenaStore::open(
                &args.db,
                arbiter_store::Presence::MustExist,
            ))
            .with_context(|| format!("opening the arena's store {}", args.db))?;
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let thread = std::thread::Builder::new()
            .name("arena-work".into())
            .spawn(move || {
                runtime.block_on(work(store, options, async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                }));
            })
            .context("starting the arena's worker")?;
        Ok(ArenaWorker { stop, thread })
    }

    /// Stops it: builds running are stopped and handed back to the queue.
    fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.thread.join();
    }
}

/// What a worker tells about an event: each match it played, beside what every worker tells.
fn worker_line(event: &PoolEvent<'_>) -> Option<String> {
    match event {
        PoolEvent::Played { tournament, row } => {
            let scores = row.result.as_ref().map(|r| {
                r.scores
                    .iter()
                    .map(f64::to_string)
                    .collect::<Vec<_>>()
                    .join("-")
            });
            Some(format!(
                "tournament {tournament} match {}: {} {}",
                row.id,
                shown(&row.seats.join(" vs ")),
                scores.unwrap_or_default()
            ))
        }
        PoolEvent::Paired { tournament, round } => {
            Some(format!("tournament {tournament}: round {round} paired"))
        }
        event => event_line(event),
    }
}

/// What any worker (a run too) tells about an event: trouble, and matches that changed hands.
pub fn event_line(event: &PoolEvent<'_>) -> Option<String> {
    match event {
        PoolEvent::Trouble { id, error, failed } => Some(if *failed {
            format!("match {id} failed for good: {}", shown(error))
        } else {
            format!("match {id} will be tried again: {}", shown(error))
        }),
        PoolEvent::Refused { tournament, id } => Some(format!(
            "tournament {tournament} match {id}: result refused, its lease ran out and another \
             worker holds it now"
        )),
        PoolEvent::Requeued(e) => Some(format!(
            "tournament {} match {}: its worker is gone; {}",
            e.tournament,
            e.id,
            if e.failed {
                "failed after its last attempt"
            } else {
                "queued again"
            }
        )),
        PoolEvent::StoreTrouble { error, retry_in } => Some(format!(
            "the store is out of reach ({}); trying again in {:.1} s",
            shown(&error.to_string()),
            retry_in.as_secs_f64()
        )),
        PoolEvent::Progress { .. } | PoolEvent::Played { .. } | PoolEvent::Paired { .. } => None,
    }
}
