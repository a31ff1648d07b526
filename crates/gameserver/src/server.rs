//! The session: logins, games every interval with every idle client, robots in empty seats,
//! the after-game blocks, and the totals kept in the store.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_catalog::{
    CatalogGame, Hosting, MatchPlan, RobotSeeds, SeatPlan, SessionGame, Start, play_to_replay,
};
use arbiter_games::TimeControl;
use arbiter_referee::MatchConfig;
use arbiter_store::blocking::ReplayStore;
use arbiter_store::upload::ReplayUpload;
use arbiter_store::{
    GameRecord, GameServerStore, ReplayKey, RunningGame, Seat, ServerMode, ServerReplay, Totals,
};
use tokio::io::BufReader;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::accounts::{Accounts, LiveAccounts, valid_team};
use crate::board::{self, Board, StatusFeed};
use crate::conn::{self, Conn};
use crate::latency::{Latencies, TurnClock};
use crate::order::{self, Entrant};
use crate::seat::TcpSeat;
use arbiter_logins::{Gates, Hasher, Refusal, Source, Throttle};

/// Games a live session plays: 3 rounds × levels 1..5 (docs/games/labyrinth.md#sessions-on-the-game-server).
pub const LIVE_GAMES: u32 = 15;
/// Lines a login block may have before `.`.
const MAX_LOGIN_LINES: usize = 16;
/// A refused login is answered this long after its block was read, whatever the reason (wrong
/// password, no such team, too many failures): the time of the answer tells nothing, and one
/// connection cannot guess faster than this.
pub const FAILED_LOGIN_DELAY: Duration = Duration::from_millis(250);
/// How long the end of a session waits for the last blocks to be written: a client that does
/// not read must not keep the server from exiting.
const FLUSH_AT_END: Duration = Duration::from_secs(5);

/// One game the session is about to play.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The game's id in the store, also its seed and its replay's file name.
    pub id: i64,
    /// 1 to 5.
    pub level: u32,
    /// Test game or live game of the final.
    pub mode: ServerMode,
    /// Seats, robots included.
    pub players: usize,
    /// The rule that ordered the teams' seats.
    pub rule: &'static str,
}

/// How the game server runs its session.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Time between games.
    pub interval: Duration,
    /// Robots fill every game up to this many seats.
    pub min_players: usize,
    /// More idle clients than this are split into parallel games.
    pub max_players: usize,
    /// Stop after this many games (test mode).
    pub games: Option<u32>,
    /// The 15 games of the final instead of test games.
    pub live: bool,
    /// A client that has not logged in by then is dropped.
    pub login_timeout: Duration,
    /// Start a game as soon as this many clients are idle, without waiting for the interval.
    pub start_when_idle: Option<usize>,
    /// Where replays are written.
    pub replays: Option<PathBuf>,
    /// The reply time limit; the game's own if `None`.
    pub time: Option<TimeControl>,
    /// The robot in empty seats.
    pub robot: String,
    /// No log lines on stderr.
    pub quiet: bool,
    /// The file the accounts were read from: read again when it changes, so teams can be added
    /// while the server runs.
    pub accounts_file: Option<PathBuf>,
    /// Where the viewer in this process reads the server's status (it is in the store too).
    pub status: Option<StatusFeed>,
}

impl ServerConfig {
    pub(crate) fn mode(&self) -> ServerMode {
        if self.live {
            ServerMode::Live
        } else {
            ServerMode::Test
        }
    }
}

/// How a session ended.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Games played in this session.
    pub games: u32,
    /// Team, test total, live total, ranked (docs/games/labyrinth.md#sessions-on-the-game-server).
    pub standings: Vec<(String, f64, f64)>,
    /// The process was interrupted (Ctrl-C) before the session was over.
    pub interrupted: bool,
}

pub(crate) struct Client {
    pub(crate) conn: Arc<Conn>,
    login: u64,
    pub(crate) playing: bool,
    /// When it logged in (Unix ms).
    pub(crate) since: i64,
}

pub(crate) struct Lobby {
    pub(crate) clients: HashMap<String, Client>,
    pub(crate) totals: HashMap<String, Totals>,
    logins: u64,
    /// When the next game starts, at the latest, and its level: for NEXTSTART.
    pub(crate) next_start: Instant,
    pub(crate) next_level: u32,
    /// No more games: logins are told so.
    pub(crate) over: bool,
}

pub(crate) struct Shared<G: CatalogGame> {
    pub(crate) config: ServerConfig,
    pub(crate) store: GameServerStore,
    /// Where each game's replay is sent as it is written (a PostgreSQL store: viewers on other
    /// machines read it there).
    uploads: Option<Arc<ReplayStore>>,
    /// The game's settings; the session decides the players and the level of each game.
    settings: G::Settings,
    latencies: Arc<Latencies>,
    writers: conn::Writers,
    pub(crate) lobby: Mutex<Lobby>,
    /// What the status shows besides the lobby.
    pub(crate) board: Board,
    wake: Notify,
    /// The teams that may log in, as the accounts file holds them now.
    pub(crate) accounts: Arc<LiveAccounts>,
    /// Password checks, on threads of their own: a crowd of logins never takes the games'.
    hasher: Hasher,
    /// Failed logins per address and per team, and their back-off.
    throttle: Throttle,
    /// Each address checks a few passwords at a time.
    gates: Gates,
}

impl<G: CatalogGame> Shared<G> {
    pub(crate) fn log(&self, text: std::fmt::Arguments<'_>) {
        if !self.config.quiet {
            eprintln!("server: {text}");
        }
    }

    fn m(&self) -> u8 {
        u8::from(self.config.live)
    }

    fn totals(&self, team: &str) -> Totals {
        self.lobby
            .lock()
            .unwrap()
            .totals
            .get(team)
            .copied()
            .unwrap_or_default()
    }
}

/// Seconds until `at`, rounded up: an upper estimate, as NEXTSTART promises.
fn seconds_until(at: Instant) -> u64 {
    let left = at.saturating_duration_since(Instant::now());
    left.as_secs() + u64::from(left.subsec_nanos() > 0)
}

/// Runs the server on `listener` until its session is over (`games` played, or the live
/// games), or forever. Each game's replay is sent to `uploads` too, if given, as it is
/// written.
pub async fn serve<G: CatalogGame>(
    listener: TcpListener,
    accounts: Accounts,
    store: GameServerStore,
    uploads: Option<Arc<ReplayStore>>,
    config: ServerConfig,
    settings: G::Settings,
    latencies: Arc<Latencies>,
) -> Result<Summary, crate::GameServerError> {
    let totals = store.totals().await?;
    let mode = config.mode();
    let rounds = store.rounds_played(mode).await?;
    let first_level = rounds % 5 + 1;
    let played = store.games_recorded().await?;
    let cpus = std::thread::available_parallelism().map_or(4, |n| n.get());
    let accounts = Arc::new(LiveAccounts::new(accounts, config.accounts_file.clone()));
    let hasher = Hasher::start(cpus).map_err(|source| crate::GameServerError::Io {
        what: "starting the password checks".into(),
        source,
    })?;
    let shared = Arc::new(Shared::<G> {
        lobby: Mutex::new(Lobby {
            clients: HashMap::new(),
            totals,
            logins: 0,
            next_start: Instant::now() + config.interval,
            next_level: first_level,
            over: config.live && rounds >= LIVE_GAMES,
        }),
        config,
        store,
        uploads,
        board: Board::new(played),
        settings,
        latencies,
        writers: conn::Writers::default(),
        wake: Notify::new(),
        accounts,
        hasher,
        throttle: Throttle::default(),
        gates: Gates::default(),
    });
    let mut scheduler = tokio::spawn(schedule(shared.clone()));
    let publisher = AbortOnDrop(tokio::spawn(board::publish_changes(shared.clone())));
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    cap_send_buffer(&stream);
                    tokio::spawn(connection(shared.clone(), stream));
                }
                // Out of descriptors, say: the clients already in are served on.
                Err(e) => {
                    shared.log(format_args!("accept failed: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            done = &mut scheduler => {
                let games = done.map_err(|e| crate::GameServerError::Internal(e.to_string()))??;
                drop(publisher);
                board::publish(&shared).await;
                let _ = tokio::time::timeout(FLUSH_AT_END, shared.writers.drained()).await;
                let lobby = shared.lobby.lock().unwrap();
                return Ok(Summary {
                    games,
                    standings: standings(&lobby.totals),
                    interrupted: false,
                });
            }
        }
    }
}

/// Aborts its task when dropped: the publisher ends with the session, whichever way it ends.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Bytes the kernel may hold for one client. Without a cap, Linux grows a socket's send buffer
/// to megabytes: a thousand clients could pin gigabytes, and a client that stops reading would
/// take that long to be noticed.
const SOCKET_SEND_BUFFER: libc::c_int = 64 * 1024;

fn cap_send_buffer(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    // SAFETY: setsockopt reads `size_of::<c_int>()` bytes from a live c_int on a descriptor
    // the stream owns.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&SOCKET_SEND_BUFFER as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// The ranking of docs/games/labyrinth.md#sessions-on-the-game-server from the totals.
pub fn standings(totals: &HashMap<String, Totals>) -> Vec<(String, f64, f64)> {
    let mut rows: Vec<_> = totals
        .iter()
        .map(|(team, t)| (team.clone(), t.test, t.live))
        .collect();
    order::ranking(&mut rows);
    rows
}

enum LoginError {
    /// The client closed the connection or broke a rule of the login block.
    Syntax,
    Closed,
}

/// Reads the login block: lines up to `.`, the first `LOGIN team password` counts, others are
/// ignored.
async fn read_login(reader: &mut BufReader<OwnedReadHalf>) -> Result<(String, String), LoginError> {
    let mut buf = Vec::new();
    let mut login = None;
    let mut syntax = false;
    for _ in 0..=MAX_LOGIN_LINES {
        let line = match conn::read_line(reader, &mut buf).await {
            Ok(Some(line)) => line,
            Ok(None) | Err(false) => return Err(LoginError::Closed),
            Err(true) => return Err(LoginError::Syntax),
        };
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["."] => {
                return match login {
                    Some(login) if !syntax => Ok(login),
                    _ => Err(LoginError::Syntax),
                };
            }
            ["LOGIN", rest @ ..] if login.is_none() && !syntax => match rest {
                [team, password] if valid_team(team) => {
                    login = Some(((*team).to_owned(), (*password).to_owned()));
                }
                _ => syntax = true,
            },
            _ => {}
        }
    }
    Err(LoginError::Syntax)
}

async fn refuse(mut writer: OwnedWriteHalf, reason: &str) {
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        conn::write_raw(&mut writer, &format!("MESSAGE {reason}\n.\n")),
    )
    .await;
}

async fn connection<G: CatalogGame>(shared: Arc<Shared<G>>, stream: TcpStream) {
    let source = match stream.peer_addr() {
        Ok(peer) => Source::from(peer.ip()),
        Err(_) => return,
    };
    let (mut reader, writer) = conn::split(stream);
    let login = tokio::time::timeout(shared.config.login_timeout, read_login(&mut reader)).await;
    let (team, password) = match login {
        Ok(Ok(login)) => login,
        Ok(Err(LoginError::Closed)) => return,
        Ok(Err(LoginError::Syntax)) | Err(_) => return refuse(writer, "SYNTAX").await,
    };
    let answer_after = Instant::now() + FAILED_LOGIN_DELAY;
    match check_login(&shared, source, &team, password).await {
        Ok(()) => {
            if !admit(&shared, team.clone(), reader, writer) {
                shared.log(format_args!("refused a login as {team}: ALREADY_CONNECTED"));
            }
        }
        Err(why) => {
            shared.log(format_args!(
                "refused a login as {team:?}: BAD_LOGIN ({why})"
            ));
            tokio::time::sleep_until(answer_after.into()).await;
            refuse(writer, "BAD_LOGIN").await;
        }
    }
}

/// Checks a login against the throttle and the accounts; why it is refused if it is.
async fn check_login<G: CatalogGame>(
    shared: &Shared<G>,
    source: Source,
    team: &str,
    password: String,
) -> Result<(), &'static str> {
    let _turn = shared.gates.enter(source).await;
    let attempt = match shared.throttle.admit(source, team, Instant::now()) {
        Ok(attempt) => attempt,
        Err(Refusal::Address) => {
            return Err("too many failed logins from its address, not checked");
        }
        Err(Refusal::Name) => return Err("too many failed logins for this team, not checked"),
    };
    let (accounts, name) = (shared.accounts.clone(), team.to_owned());
    // The accounts are read again on the pool's thread: it may read their file.
    let checked = shared.hasher.run(move |memory| {
        let (current, problem) = accounts.current();
        (current.verify_in(&name, &password, memory), problem)
    });
    let (right, problem) = checked
        .await
        .unwrap_or_else(|e| (false, Some(e.to_string())));
    shared.throttle.settle(attempt, right, Instant::now());
    if let Some(problem) = problem {
        shared.log(format_args!(
            "{problem}; the teams read before still log in"
        ));
    }
    if right {
        Ok(())
    } else {
        Err("wrong password or no such team")
    }
}

/// Lets a client in whose password was right, unless its team is connected already (then it
/// is refused, and `false` returned).
fn admit<G: CatalogGame>(
    shared: &Shared<G>,
    team: String,
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
) -> bool {
    let m = shared.m();
    let mut lobby = shared.lobby.lock().unwrap();
    if lobby.clients.get(&team).is_some_and(|c| !c.conn.is_gone()) {
        drop(lobby);
        tokio::spawn(refuse(writer, "ALREADY_CONNECTED"));
        return false;
    }
    let conn = conn::start(team.clone(), reader, writer, &shared.writers);
    if lobby.over {
        let t = lobby.totals.get(&team).copied().unwrap_or_default();
        let _ = conn.send(
            &format!(
                "MESSAGE OK\nNEXTSTART 0 -1 {m}\n.\nEND {} {}\n.\n",
                t.test, t.live
            ),
            None,
        );
        conn.close();
        return true;
    }
    let _ = conn.send(
        &format!(
            "MESSAGE OK\nNEXTSTART {} {} {m}\n.\n",
            lobby.next_level,
            seconds_until(lobby.next_start)
        ),
        None,
    );
    lobby.logins += 1;
    let login = lobby.logins;
    lobby.clients.insert(
        team.clone(),
        Client {
            conn,
            login,
            playing: false,
            since: arbiter_store::now_ms(),
        },
    );
    let idle = lobby.clients.values().filter(|c| !c.playing).count();
    drop(lobby);
    shared.log(format_args!("{team} logged in ({idle} idle)"));
    shared.wake.notify_one();
    shared.board.changed();
    true
}

/// Takes the idle clients still connected, marked as playing, as entrants in no order.
fn take_idle<G: CatalogGame>(shared: &Shared<G>) -> Vec<(Entrant, Arc<Conn>)> {
    let mut lobby = shared.lobby.lock().unwrap();
    lobby.clients.retain(|_, c| !c.conn.is_gone());
    let Lobby {
        clients, totals, ..
    } = &mut *lobby;
    clients
        .iter_mut()
        .filter(|(_, c)| !c.playing)
        .map(|(team, c)| {
            c.playing = true;
            c.conn.set_playing(true);
            let t = totals.get(team).copied().unwrap_or_default();
            (
                Entrant {
                    team: team.clone(),
                    test: t.test,
                    live: t.live,
                    login: c.login,
                },
                c.conn.clone(),
            )
        })
        .collect()
}

fn idle_count<G: CatalogGame>(shared: &Shared<G>) -> usize {
    let lobby = shared.lobby.lock().unwrap();
    lobby
        .clients
        .values()
        .filter(|c| !c.playing && !c.conn.is_gone())
        .count()
}

/// Plays rounds of games until the session is over; the number of games played.
async fn schedule<G: CatalogGame>(shared: Arc<Shared<G>>) -> Result<u32, crate::GameServerError> {
    let config = &shared.config;
    let mode = config.mode();
    let mut round = shared.store.next_round().await?;
    let mut next_id = shared.store.next_game_id().await?;
    let mut rounds_done = shared.store.rounds_played(mode).await?;
    let mut games_played = 0u32;
    let mut tables: JoinSet<()> = JoinSet::new();
    if config.live && rounds_done >= LIVE_GAMES {
        finish(&shared);
        return Ok(0);
    }
    loop {
        let next_at = shared.lobby.lock().unwrap().next_start;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(next_at.into()) => break,
                _ = shared.wake.notified() => {
                    if config.start_when_idle.is_some_and(|k| idle_count(&shared) >= k) {
                        break;
                    }
                }
            }
        }
        while tables.try_join_next().is_some() {}
        let level = rounds_done % 5 + 1;
        let mut entrants = take_idle(&shared);
        if entrants.is_empty() {
            shared.lobby.lock().unwrap().next_start = Instant::now() + config.interval;
            continue;
        }
        let mut order: Vec<Entrant> = entrants.iter().map(|(e, _)| e.clone()).collect();
        if config.live {
            order::live_order(&mut order, rounds_done);
        } else {
            order::ascending_test(&mut order);
        }
        let rule = order::rule(config.live, rounds_done);
        let ranges = order::split_tables(order.len(), config.max_players);
        let last = if config.live {
            rounds_done + 1 >= LIVE_GAMES
        } else {
            config
                .games
                .is_some_and(|n| games_played + ranges.len() as u32 >= n)
        };
        rounds_done += 1;
        {
            let mut lobby = shared.lobby.lock().unwrap();
            lobby.next_level = rounds_done % 5 + 1;
            lobby.next_start = Instant::now() + config.interval;
            lobby.over = last;
        }
        for range in ranges {
            let seated: Vec<(Entrant, Arc<Conn>)> = order[range]
                .iter()
                .map(|e| {
                    let i = entrants
                        .iter()
                        .position(|(x, _)| x.team == e.team)
                        .expect("an entrant of this round");
                    entrants.swap_remove(i)
                })
                .collect();
            let setup = GameSetup {
                id: next_id,
                level,
                mode,
                players: seated.len().max(config.min_players),
                rule,
            };
            next_id += 1;
            games_played += 1;
            tables.spawn(play_table(shared.clone(), setup, round, seated, last));
        }
        round += 1;
        // Live games are played one round after another: the next order needs the totals.
        if config.live || last {
            while tables.join_next().await.is_some() {}
        }
        if last {
            finish(&shared);
            return Ok(games_played);
        }
        if config.live {
            shared.lobby.lock().unwrap().next_start = Instant::now() + config.interval;
        }
        shared.board.changed();
    }
}

/// Tells every idle client the session is over and closes it.
fn finish<G: CatalogGame>(shared: &Shared<G>) {
    let mut lobby = shared.lobby.lock().unwrap();
    lobby.over = true;
    let Lobby {
        clients, totals, ..
    } = &mut *lobby;
    for (team, client) in clients.drain() {
        if client.playing || client.conn.is_gone() {
            continue;
        }
        if G::HOSTING == Hosting::Session {
            let t = totals.get(&team).copied().unwrap_or_default();
            let _ = client
                .conn
                .send(&format!("END {} {}\n.\n", t.test, t.live), None);
        }
        client.conn.close();
    }
}

/// Plays one game, records it, and tells its clients their totals.
async fn play_table<G: CatalogGame>(
    shared: Arc<Shared<G>>,
    setup: GameSetup,
    round: i64,
    seated: Vec<(Entrant, Arc<Conn>)>,
    last: bool,
) {
    let mut names: Vec<String> = seated.iter().map(|(e, _)| e.team.clone()).collect();
    let humans = names.len();
    for seat in humans..setup.players {
        names.push(format!("robot_{seat}"));
    }
    let conns: Vec<Arc<Conn>> = seated.iter().map(|(_, c)| c.clone()).collect();
    let replay = shared
        .config
        .replays
        .as_ref()
        .map(|dir| dir.join(format!("{}-{}.jsonl.gz", G::NAME, setup.id)));
    shared.board.start(RunningGame {
        id: setup.id,
        round,
        mode: setup.mode,
        level: setup.level,
        seats: (0..names.len())
            .map(|s| Seat {
                name: names[s].clone(),
                team: s < humans,
            })
            .collect(),
        rule: setup.rule.to_owned(),
        replay: replay.as_ref().map(|p| p.display().to_string()),
        started: arbiter_store::now_ms(),
    });
    let job = {
        let (shared, setup, names) = (shared.clone(), setup.clone(), names.clone());
        let (conns, replay) = (conns.clone(), replay.clone());
        move || play_game(&shared, &setup, &names, &conns, replay.as_deref())
    };
    let result = tokio::task::spawn_blocking(job)
        .await
        .unwrap_or_else(|e| Err(format!("the game panicked: {e}")));
    let (points, reason) = match result {
        Ok(done) => done,
        Err(error) => {
            shared.log(format_args!(
                "game {} could not be played: {error}",
                setup.id
            ));
            release(&shared, &conns, false);
            shared.board.finish(setup.id, false);
            return;
        }
    };
    let record = GameRecord {
        id: setup.id,
        round,
        mode: setup.mode,
        level: setup.level,
        seats: names.clone(),
        teams: (0..names.len()).map(|s| s < humans).collect(),
        points: points.clone(),
        reason: reason.to_owned(),
        replay: replay.map(|p| p.display().to_string()),
    };
    let recorded = shared.store.record_game(&record).await;
    if let Err(e) = &recorded {
        shared.log(format_args!("game {}: cannot record it: {e}", setup.id));
    }
    add_points(&shared, &setup, &names[..humans], &points);
    log_game(&shared, &setup, &names, &points, &conns);
    if G::HOSTING == Hosting::Session {
        tell_totals(&shared, &setup, &points, &conns, last);
    }
    release(&shared, &conns, last || G::HOSTING != Hosting::Session);
    shared.board.finish(setup.id, recorded.is_ok());
}

/// Plays a game between the connected clients `conns` (the first seats) and robots in the
/// others, through the catalog's one match function; the points and why the game ended.
fn play_game<G: CatalogGame>(
    shared: &Shared<G>,
    setup: &GameSetup,
    names: &[String],
    conns: &[Arc<Conn>],
    replay: Option<&std::path::Path>,
) -> Result<(Vec<f64>, &'static str), String> {
    let clock = Arc::new(TurnClock::default());
    let mut seats: Vec<SeatPlan<G>> = Vec::with_capacity(names.len());
    for conn in conns {
        let seat = TcpSeat::new(conn.clone(), clock.clone(), shared.latencies.clone());
        seats.push(SeatPlan::Open(Box::new(seat)));
    }
    for name in names.iter().skip(conns.len()) {
        seats.push(SeatPlan::Robot {
            name: name.clone(),
            robot: shared.config.robot.clone(),
        });
    }
    if let Some(dir) = replay.and_then(|path| path.parent()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    let upload = shared.uploads.as_ref().zip(replay).map(|(store, path)| {
        let key = ReplayKey::from(ServerReplay {
            game: G::NAME.to_owned(),
            id: setup.id,
        });
        ReplayUpload::start(store.clone(), key, path)
    });
    let played = play_seats(shared, setup, seats, replay);
    match (upload, &played) {
        (Some(upload), Ok(_)) => {
            // The game counts whatever the store does: its file is whole on this machine.
            if let Err(e) = upload.finish() {
                let id = setup.id;
                shared.log(format_args!(
                    "game {id}: its replay is not in the store: {e}"
                ));
            }
        }
        (Some(upload), Err(_)) => upload.abandon(),
        (None, _) => {}
    }
    played
}

/// Plays a game in `seats` through the catalog's one match function, writing its replay to
/// `replay`.
fn play_seats<G: CatalogGame>(
    shared: &Shared<G>,
    setup: &GameSetup,
    seats: Vec<SeatPlan<G>>,
    replay: Option<&std::path::Path>,
) -> Result<(Vec<f64>, &'static str), String> {
    let report = play_to_replay::<G>(MatchPlan {
        start: Start::Settings(&shared.settings),
        seats,
        session: Some(SessionGame {
            id: setup.id as u64,
            level: setup.level,
        }),
        config: MatchConfig {
            seed: setup.id as u64,
            time: shared.config.time,
            grace: Duration::ZERO,
        },
        // Robots at a table are seeded from the game id, as the server always seeded them.
        robot_seeds: RobotSeeds::Table,
        replay,
        // Every seat is a client or a robot: the server starts no program.
        sandbox: None,
    })
    .map_err(|e| e.chain())?;
    Ok((report.outcome.scores, report.outcome.reason))
}

/// Adds a game's points to the totals of the teams that played it.
fn add_points<G: CatalogGame>(
    shared: &Shared<G>,
    setup: &GameSetup,
    teams: &[String],
    points: &[f64],
) {
    let mut lobby = shared.lobby.lock().unwrap();
    for (s, name) in teams.iter().enumerate() {
        let t = lobby.totals.entry(name.clone()).or_default();
        match setup.mode {
            ServerMode::Test => t.test += points[s],
            ServerMode::Live => t.live += points[s],
        }
    }
}

/// Logs a game's points, and the clients that left during it.
fn log_game<G: CatalogGame>(
    shared: &Shared<G>,
    setup: &GameSetup,
    names: &[String],
    points: &[f64],
    conns: &[Arc<Conn>],
) {
    let mut summary = String::new();
    for (name, p) in names.iter().zip(points) {
        let _ = write!(summary, " {name} {p}");
    }
    shared.log(format_args!(
        "game {} ({} level {}):{summary}",
        setup.id,
        setup.mode.as_str(),
        setup.level
    ));
    for conn in conns {
        if let Some(why) = conn.why_gone() {
            shared.log(format_args!(
                "{} left during game {}: {why}",
                conn.team, setup.id
            ));
        }
    }
}

/// Sends each client still connected its after-game block: its points, its totals, when the
/// next game starts (or that the session is over).
fn tell_totals<G: CatalogGame>(
    shared: &Shared<G>,
    setup: &GameSetup,
    points: &[f64],
    conns: &[Arc<Conn>],
    last: bool,
) {
    let m = shared.m();
    let (next_level, next_start) = {
        let lobby = shared.lobby.lock().unwrap();
        (lobby.next_level, lobby.next_start)
    };
    for (s, conn) in conns.iter().enumerate() {
        if conn.is_gone() {
            continue;
        }
        let t = shared.totals(&conn.team);
        let mut block = format!(
            "SCORE {} {} {}\nID {}\n",
            points[s], t.test, t.live, setup.id
        );
        if last {
            let _ = write!(
                block,
                "NEXTSTART 0 -1 {m}\n.\nEND {} {}\n.\n",
                t.test, t.live
            );
        } else {
            let _ = write!(
                block,
                "NEXTSTART {next_level} {} {m}\n.\n",
                seconds_until(next_start)
            );
        }
        let _ = conn.send(&block, None);
    }
}

/// Puts the clients of a game back in the lobby, or closes them.
fn release<G: CatalogGame>(shared: &Shared<G>, conns: &[Arc<Conn>], close: bool) {
    let mut lobby = shared.lobby.lock().unwrap();
    for conn in conns {
        conn.set_playing(false);
        if close {
            conn.close();
            if lobby
                .clients
                .get(&conn.team)
                .is_some_and(|c| Arc::ptr_eq(&c.conn, conn))
            {
                lobby.clients.remove(&conn.team);
            }
        } else if let Some(client) = lobby.clients.get_mut(&conn.team)
            && Arc::ptr_eq(&client.conn, conn)
        {
            client.playing = false;
        }
    }
    drop(lobby);
    shared.wake.notify_one();
}
