//! What the server shows of itself to its viewers: a [`ServerStatus`] made from the lobby and
//! the games being played, published to the store (for `arbiter serve` in another process)
//! and to a [`StatusFeed`] (for the viewer in this process) whenever it changes.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_catalog::CatalogGame;
use arbiter_store::{NextStart, RunningGame, Score, ServerStatus, TeamState, TeamStatus, now_ms};
use tokio::sync::{Notify, watch};

use crate::accounts::Accounts;
use crate::server::{Shared, standings};

/// Where the viewer in the server's own process reads the status: `None` until the first.
pub type StatusFeed = Arc<watch::Sender<Option<Arc<ServerStatus>>>>;

/// A new feed, and the receiving end a viewer reads.
pub fn feed() -> (StatusFeed, watch::Receiver<Option<Arc<ServerStatus>>>) {
    let (sender, receiver) = watch::channel(None);
    (Arc::new(sender), receiver)
}

/// A status is looked at again this often even when nothing said it changed: a client that
/// left is noticed by its connection, which tells nobody.
const RECHECK: Duration = Duration::from_secs(1);

/// Changes closer together than this are published as one.
const COALESCE: Duration = Duration::from_millis(100);

/// The parts of the status that are not in the lobby.
pub(crate) struct Board {
    changed: Notify,
    running: Mutex<BTreeMap<i64, RunningGame>>,
    played: AtomicU64,
    started: i64,
    memory: Mutex<Memory>,
}

impl Board {
    /// A board for a session starting now, after `played` games recorded before it.
    pub(crate) fn new(played: u64) -> Board {
        Board {
            changed: Notify::new(),
            running: Mutex::new(BTreeMap::new()),
            played: AtomicU64::new(played),
            started: now_ms(),
            memory: Mutex::default(),
        }
    }

    /// Something the status shows has changed.
    pub(crate) fn changed(&self) {
        self.changed.notify_one();
    }

    /// A game has started.
    pub(crate) fn start(&self, game: RunningGame) {
        self.running.lock().unwrap().insert(game.id, game);
        self.changed();
    }

    /// A game is over; `recorded` if it is in the store.
    pub(crate) fn finish(&self, id: i64, recorded: bool) {
        self.running.lock().unwrap().remove(&id);
        if recorded {
            self.played.fetch_add(1, Ordering::Relaxed);
        }
        self.changed();
    }
}

/// What the publisher remembers between two statuses.
#[derive(Default)]
struct Memory {
    /// Teams seen connected in this session: `None` while they are, else since when they
    /// are gone (Unix ms).
    seen: HashMap<String, Option<i64>>,
    /// The last next start, as an instant and in Unix ms: the same instant always gives the
    /// same time.
    next: Option<(Instant, i64)>,
    last: Option<ServerStatus>,
}

/// Publishes the status whenever it changes, until the task is dropped.
pub(crate) async fn publish_changes<G: CatalogGame>(shared: Arc<Shared<G>>) {
    loop {
        publish(&shared).await;
        tokio::select! {
            _ = shared.board.changed.notified() => tokio::time::sleep(COALESCE).await,
            _ = tokio::time::sleep(RECHECK) => {}
        }
    }
}

/// Publishes the status if it differs from the last one published.
pub(crate) async fn publish<G: CatalogGame>(shared: &Shared<G>) {
    // Reading the accounts may read their file, so not on an async thread.
    let accounts = shared.accounts.clone();
    let registered = match tokio::task::spawn_blocking(move || accounts.current()).await {
        Ok((accounts, _)) => accounts,
        Err(_) => return,
    };
    let status = {
        let mut memory = shared.board.memory.lock().unwrap();
        let status = snapshot(shared, &mut memory, &registered);
        if memory.last.as_ref() == Some(&status) {
            return;
        }
        memory.last = Some(status.clone());
        status
    };
    if let Some(feed) = &shared.config.status {
        feed.send_replace(Some(Arc::new(status.clone())));
    }
    if let Err(e) = shared.store.publish(&status).await {
        shared.log(format_args!("cannot publish the server's status: {e}"));
        // Tried again at the next look, changed or not.
        shared.board.memory.lock().unwrap().last = None;
    }
}

/// The status now; `registered` are the teams that may log in, listed even if they never did.
fn snapshot<G: CatalogGame>(
    shared: &Shared<G>,
    memory: &mut Memory,
    registered: &Accounts,
) -> ServerStatus {
    let now = now_ms();
    let lobby = shared.lobby.lock().unwrap();
    let mut teams: BTreeMap<String, TeamStatus> = BTreeMap::new();
    for (team, client) in &lobby.clients {
        if client.conn.is_gone() {
            continue;
        }
        memory.seen.insert(team.clone(), None);
        let state = if client.playing {
            TeamState::Playing
        } else {
            TeamState::Idle
        };
        teams.insert(team.clone(), team_status(team, state, Some(client.since)));
    }
    for (team, gone) in &mut memory.seen {
        if !teams.contains_key(team) {
            let since = *gone.get_or_insert(now);
            teams.insert(
                team.clone(),
                team_status(team, TeamState::Disconnected, Some(since)),
            );
        }
    }
    let known = lobby.totals.keys().map(String::as_str);
    for team in known.chain(registered.teams()) {
        teams
            .entry(team.to_owned())
            .or_insert_with(|| team_status(team, TeamState::Disconnected, None));
    }
    let scoreboard = standings(&lobby.totals)
        .into_iter()
        .enumerate()
        .map(|(i, (team, test, live))| Score {
            rank: i + 1,
            team,
            test,
            live,
        })
        .collect();
    let next = (!lobby.over).then(|| {
        let at = match memory.next {
            Some((instant, at)) if instant == lobby.next_start => at,
            _ => {
                let left = lobby.next_start.saturating_duration_since(Instant::now());
                now + left.as_millis() as i64
            }
        };
        memory.next = Some((lobby.next_start, at));
        NextStart {
            at,
            level: lobby.next_level,
            mode: shared.config.mode(),
        }
    });
    let over = lobby.over && shared.board.running.lock().unwrap().is_empty();
    drop(lobby);
    ServerStatus {
        game: G::NAME.to_owned(),
        mode: shared.config.mode(),
        over,
        started: shared.board.started,
        played: shared.board.played.load(Ordering::Relaxed),
        teams: teams.into_values().collect(),
        scoreboard,
        running: shared
            .board
            .running
            .lock()
            .unwrap()
            .values()
            .cloned()
            .collect(),
        next,
    }
}

fn team_status(team: &str, state: TeamState, since: Option<i64>) -> TeamStatus {
    TeamStatus {
        team: team.to_owned(),
        state,
        since,
    }
}
