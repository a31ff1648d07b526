//! `arbiter worker`: claims matches of any open tournament of a store and plays them, on this
//! machine, beside any number of other workers on this one or others (docs/organisers.md,
//! "Many machines").

use std::sync::Arc;

use anyhow::{Context, Result};
use arbiter_catalog::Catalog;
use arbiter_store::{Scope, Tournament};
use arbiter_text::for_terminal as shown;
use arbiter_tournament::pool::{self, Arena, PoolEvent, RunOptions, Until};
use arbiter_tournament::{TournamentError, WorkerName};
use clap::Args;

use crate::out::errln;
use crate::tournament::{LeaseArg, StoredArena, default_jobs};

#[derive(Args)]
pub struct WorkerArgs {
    /// The store: a postgres:// URL (workers on many machines), or a SQLite file (workers on
    /// this machine).
    #[arg(long)]
    db: String,
    /// Matches played at once, 1 to 1024 (default: the number of cores).
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
    let arenas = |t: &Tournament| -> Result<Arc<dyn Arena>, TournamentError> {
        crate::visit::<C, _>(&t.game, StoredArena(t))
            .map_err(|e| TournamentError::TableSetup(format!("tournament {}: {e}", t.id)))?
    };
    let summary = pool::run(&store, &arenas, &options, &mut |event| {
        if let Some(line) = worker_line(&event) {
            errln!("{line}");
        }
    })
    .with_context(|| format!("worker on {}", args.db))?;
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
