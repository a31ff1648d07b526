//! One match: the turn loop, time banks, faults, and the replay.

use std::time::{Duration, Instant};

use arbiter_games::{
    Deserted, Fault, FaultAction, Framing, Outcome, PlayerId, Recorded, TimeControl, Watchers, Wire,
};
use arbiter_replay::{
    BotSummary, BotTick, Event, Header, MatchResult, Message, Player, Record, ReplayError,
    ReplayWriter, Tick, TickAction,
};
use arbiter_sandbox::Limit;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::seat::{
    Ask, DiscardReason, Discarded, Down, ExitInfo, Line, MAX_LINE, Reply, Seat, SeatKind,
};

/// What a tick of a match of `G` records as its action.
type RecordedAction<G> = TickAction<<G as Recorded>::ActionRecord>;
/// A replay line of a match of `G`, in the game's own types.
type GameRecord<G> =
    Record<<G as Recorded>::SettingsRecord, RecordedAction<G>, <G as Recorded>::Snapshot>;

/// The error text of a turn whose answer did not come in time.
pub const TIMEOUT_ERROR: &str = "response time limit exceeded";
/// Longest text of one message kept in a replay; a bot sending more gets it shortened there.
const REPLAY_TEXT_CAP: usize = 2000;
/// Lines a bot sent that were discarded, kept in the replay per tick.
const REPLAY_DISCARDED_CAP: usize = 20;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
/// How one match is played, beyond its game.
pub struct MatchConfig {
    /// Seed of the match's random generator (actions played for faulty bots).
    pub seed: u64,
    /// The bots' time limit; `None` plays with the game's own (`time` of [`Wire::PROTOCOL`]).
    pub time: Option<TimeControl>,
    /// How long a bot may take to exit at the end before its process group is killed.
    pub grace: Duration,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            seed: 0,
            time: None,
            grace: Duration::from_millis(200),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
/// What one match came to.
pub struct MatchReport {
    /// Scores, places and why the match ended.
    pub outcome: Outcome,
    /// Turns played (the tick of the last position).
    pub ticks: u32,
    /// The seed the match was played with.
    pub seed: u64,
    /// One per player, in player id order.
    pub bots: Vec<BotReport>,
    /// The player who lost by a fault ([`FaultAction::Forfeit`]): it is placed last, and the
    /// outcome's reason is the fault's ([`Fault::as_str`]).
    pub forfeit: Option<PlayerId>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
/// What one bot did in a match.
pub struct BotReport {
    /// The seat's name.
    pub name: String,
    /// Malformed and illegal answers.
    pub errors: u32,
    /// Answers that did not come in time.
    pub timeouts: u32,
    /// Whether the bot went offline (exited, crashed, closed its output, could not be written).
    pub crashed: bool,
    /// Wall-clock time the bot spent on its answers.
    pub time_ms: f64,
    /// CPU time the bot's processes used while it answered, where it is measured (a bot in a
    /// sandbox).
    pub cpu_ms: Option<f64>,
    /// CPU time the bot's processes used outside its turns (from the start of the match to its
    /// end, less `cpu_ms`), where it is measured: next to nothing when it is frozen between
    /// turns, the CPU it could take from the others when it is not.
    pub cpu_between_turns_ms: Option<f64>,
    /// How the seat ended.
    pub exit: ExitInfo,
    /// The sandbox limit that ended the bot: `"memory"`, `"processes"`, or none.
    pub killed_for: Option<Limit>,
    /// The kind of the bot's first fault, if it made one: a compliance check tells a bot
    /// that does not speak the protocol from one whose move was against the rules. Not in
    /// reports (`errors` counts both).
    #[serde(skip)]
    pub first_fault: Option<Fault>,
}

#[derive(Debug, thiserror::Error)]
/// The referee's own failures (a bot's faults are never errors).
pub enum RefereeError {
    #[error("the game has {players} players but {seats} seats were given")]
    /// The seats do not match the game's players.
    #[allow(missing_docs)] // the fields' names say what they hold
    SeatCount { players: usize, seats: usize },
    #[error("the game ended without an outcome (a bug in the game)")]
    /// The game reported no outcome at its end.
    NoOutcome,
    #[error(transparent)]
    /// The replay could not be written.
    Replay(#[from] ReplayError),
}

/// Plays one match between `seats` (one per player, in player id order) from the position
/// `game`, and records it to `replay` if given.
///
/// Bot faults never fail the match: they are recorded and handled as the game's rules say
/// ([`Wire::on_fault`]). Every seat is closed when this returns, whatever happened.
pub fn run_match<G: Wire>(
    game: G,
    seats: Vec<Box<dyn Seat<G>>>,
    config: &MatchConfig,
    replay: Option<&mut ReplayWriter>,
) -> Result<MatchReport, RefereeError> {
    let players = game.num_players();
    if seats.len() != players {
        return Err(RefereeError::SeatCount {
            players,
            seats: seats.len(),
        });
    }
    let mut referee = Referee::new(game, seats, config, replay);
    let result = referee.run();
    // On the error path too: no bot outlives its match.
    referee.close_all(Instant::now());
    result
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Playing,
    /// Gone for good after a fault: its turns are played for it.
    Offline,
    /// Out of the match (eliminated): no more messages, no more turns.
    Out,
}

struct SeatState<G> {
    seat: Box<dyn Seat<G>>,
    status: Status,
    /// Time left for the current request (under a per-reply limit, what is left of it).
    bank: Duration,
    /// Replies asked of this bot so far: the first one may get extra time for start-up.
    requests: u32,
    report: BotReport,
    /// What goes into this seat's part of the tick being played (filled only when recording).
    tick: BotTick,
    /// The bot's CPU time when its last request ended, or when the match started (what it
    /// took to start its process before is not counted as CPU between turns).
    cpu_after_turn: Duration,
    closed: bool,
}

impl<G: Wire> SeatState<G> {
    /// Counts the CPU the bot used since its last request ended, now that its counter reads
    /// `cpu`: in the report, and in milliseconds for the tick.
    fn note_cpu_between_turns(&mut self, cpu: Duration) -> f64 {
        let ms = millis(cpu.saturating_sub(self.cpu_after_turn));
        *self.report.cpu_between_turns_ms.get_or_insert(0.0) += ms;
        ms
    }

    /// Counts, at the end of the match, the CPU the bot used since its last request ended,
    /// into the report and the last tick. A seat already closed is not read: its bot is gone.
    fn last_cpu_between_turns(&mut self) {
        if self.closed {
            return;
        }
        if let Some(cpu) = self.seat.cpu_time() {
            let ms = self.note_cpu_between_turns(cpu);
            self.cpu_after_turn = cpu;
            *self.tick.cpu_between_turns_ms.get_or_insert(0.0) += ms;
        }
    }
}

struct Referee<'a, G: Wire> {
    game: G,
    seats: Vec<SeatState<G>>,
    config: &'a MatchConfig,
    rng: ChaCha8Rng,
    start: Instant,
    replay: Option<&'a mut ReplayWriter>,
    time: TimeControl,
    forfeit: Option<(PlayerId, &'static str)>,
    /// The tick of the last tick record: the game's, or one more for a forfeited turn.
    ticks: u32,
    message: String,
    discarded: Vec<Discarded>,
    actions: Vec<G::Action>,
    /// Whether any seat is not a robot in process (see [`Deserted`]).
    has_remote: bool,
}

impl<'a, G: Wire> Referee<'a, G> {
    fn new(
        game: G,
        seats: Vec<Box<dyn Seat<G>>>,
        config: &'a MatchConfig,
        replay: Option<&'a mut ReplayWriter>,
    ) -> Self {
        let time = config.time.unwrap_or(G::PROTOCOL.time);
        let seats: Vec<_> = seats
            .into_iter()
            .map(|seat| SeatState {
                cpu_after_turn: seat.cpu_time().unwrap_or_default(),
                report: BotReport {
                    name: seat.name().to_owned(),
                    errors: 0,
                    timeouts: 0,
                    crashed: false,
                    time_ms: 0.0,
                    cpu_ms: None,
                    cpu_between_turns_ms: None,
                    exit: ExitInfo::default(),
                    killed_for: None,
                    first_fault: None,
                },
                seat,
                status: Status::Playing,
                bank: Duration::ZERO,
                requests: 0,
                tick: BotTick::default(),
                closed: false,
            })
            .collect();
        let mut seats = seats;
        // Only a match that had someone to wait for can be left by everyone.
        let has_remote = seats.iter().any(|s| s.seat.kind() != SeatKind::Builtin);
        if let TimeControl::Bank { initial, .. } = time {
            for state in &mut seats {
                state.bank = initial;
            }
        }
        Referee {
            game,
            seats,
            config,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            start: Instant::now(),
            replay,
            time,
            forfeit: None,
            ticks: 0,
            message: String::with_capacity(1024),
            discarded: Vec::new(),
            actions: Vec::new(),
            has_remote,
        }
    }

    fn recording(&self) -> bool {
        self.replay.is_some()
    }

    fn ms(&self, at: Instant) -> f64 {
        millis(at.saturating_duration_since(self.start))
    }

    fn run(&mut self) -> Result<MatchReport, RefereeError> {
        if self.recording() {
            let players = self
                .seats
                .iter()
                .map(|s| Player {
                    name: s.seat.name().to_owned(),
                    kind: s.seat.kind(),
                    command: s.seat.command().map(str::to_owned),
                })
                .collect();
            let header = Header::new(
                G::NAME,
                self.game.settings_record(),
                self.config.seed,
                players,
            );
            self.write(Record::Header(header))?;
        }

        self.start()?;
        self.end_tick(None, Some(Event::Start.into()))?;

        while self.forfeit.is_none() {
            if G::PROTOCOL.deserted == Deserted::End && self.everyone_left() {
                self.game.abandon();
                break;
            }
            let Some(p) = self.game.to_move() else { break };
            let action = if self.game.is_stuck() {
                self.game.apply_stuck();
                self.eliminate(p);
                Some(Event::Stuck.into())
            } else {
                self.turn(p)
            };
            self.end_tick(Some(p), action)?;
        }

        let outcome = match self.forfeit {
            Some((loser, reason)) => forfeit_outcome(self.seats.len(), loser, reason),
            None => self.game.outcome().ok_or(RefereeError::NoOutcome)?,
        };
        let bots: Vec<BotReport> = self.seats.iter().map(|s| s.report.clone()).collect();
        if self.recording() {
            let result = MatchResult {
                ticks: self.ticks,
                reason: outcome.reason.to_owned(),
                scores: outcome.scores.clone(),
                placement: outcome.placement.clone(),
                bots: bots
                    .iter()
                    .map(|b| BotSummary {
                        name: b.name.clone(),
                        errors: b.errors,
                        timeouts: b.timeouts,
                        crashed: b.crashed,
                    })
                    .collect(),
            };
            self.write(Record::Result(result))?;
        }
        Ok(MatchReport {
            outcome,
            ticks: self.ticks,
            seed: self.config.seed,
            bots,
            forfeit: self.forfeit.map(|(p, _)| p),
        })
    }

    /// The start messages, round by round in turn order, each acknowledged where the game
    /// asks for it.
    fn start(&mut self) -> Result<(), RefereeError> {
        let players = self.seats.len();
        let first = self.game.to_move().unwrap_or(0);
        let start = G::PROTOCOL.start;
        for round in 0..start.rounds {
            for p in (0..players).map(|i| (first + i) % players) {
                if self.seats[p].status != Status::Playing || self.forfeit.is_some() {
                    continue;
                }
                self.message.clear();
                self.game.start_message(round, p, &mut self.message);
                let fault = match start.ack {
                    None => self.send(p).err().map(|down| {
                        let text = down.to_string();
                        self.went_down(p);
                        (Fault::Crash, text)
                    }),
                    Some(ack) => self
                        .exchange(p, Some(ack))
                        .and_then(|line| {
                            start
                                .check_ack(&line.text)
                                .map_err(|e| (Fault::Malformed, e))
                        })
                        .err(),
                };
                if let Some((fault, text)) = fault {
                    self.fault_outside_turn(p, fault, text);
                }
            }
        }
        Ok(())
    }

    /// Records a fault of `p` in its report and the tick.
    fn record_fault(&mut self, p: PlayerId, fault: &Fault<G::Action>, text: String) {
        let report = &mut self.seats[p].report;
        report.first_fault.get_or_insert(fault.without_action());
        match fault {
            Fault::Malformed | Fault::Illegal(_) => report.errors += 1,
            Fault::Timeout => report.timeouts += 1,
            Fault::Crash => report.crashed = true,
        }
        if self.recording() && self.seats[p].tick.error.is_none() {
            self.seats[p].tick.error = Some(text);
        }
    }

    /// Decides what the fault of `p` does, as the game's rules say; a forfeit ends the match.
    fn decide(
        &mut self,
        p: PlayerId,
        fault: Fault<G::Action>,
        rng_of_the_match: bool,
    ) -> FaultAction<G::Action> {
        let reason = fault.as_str();
        let decision = if rng_of_the_match {
            self.game.on_fault(fault, &mut self.rng)
        } else {
            // Outside a turn only a forfeit matters: asking must not move the match's
            // generator, which draws the actions played for faulty bots.
            self.game
                .on_fault(fault, &mut ChaCha8Rng::seed_from_u64(self.config.seed))
        };
        if decision == FaultAction::Forfeit && self.forfeit.is_none() {
            self.forfeit = Some((p, reason));
        }
        decision
    }

    /// A fault of `p` outside its turn (a start message, a message it only watches): recorded,
    /// and the match ends if the rules say it forfeits.
    fn fault_outside_turn(&mut self, p: PlayerId, fault: Fault<G::Action>, text: String) {
        self.record_fault(p, &fault, text);
        self.decide(p, fault, false);
    }

    /// Sends `self.message` to `p` (a turn, or a start message that `ack` acknowledges) and
    /// waits for one line under the time control. A timeout or
    /// a crash comes back as the fault it is (the crash already handled: `p` is offline).
    fn exchange(
        &mut self,
        p: PlayerId,
        ack: Option<&'static str>,
    ) -> Result<Line, (Fault<G::Action>, String)> {
        let state = &mut self.seats[p];
        let allowed = self.time.allow(&mut state.bank, state.requests == 0);
        state.requests += 1;
        self.discarded.clear();
        let cpu_before = state.seat.cpu_time();
        let between_turns = cpu_before.map(|cpu| state.note_cpu_between_turns(cpu));
        state.seat.thaw();
        let sent_at = Instant::now();
        let ask = match ack {
            Some(ack) => Ask::Ack(ack),
            None => Ask::Turn(&self.game, self.time),
        };
        let reply = state
            .seat
            .request(ask, &self.message, sent_at + allowed, &mut self.discarded);
        let replied_at = match &reply {
            Reply::Answer(line) => line.at,
            _ => Instant::now(),
        };
        let elapsed = replied_at.saturating_duration_since(sent_at);
        let state = &mut self.seats[p];
        // Frozen before its CPU is read: what it takes until it stops counts as its turn's.
        state.seat.freeze();
        state.report.time_ms += millis(elapsed);
        let cpu_after = state.seat.cpu_time();
        let cpu = cpu_before
            .zip(cpu_after)
            .map(|(before, after)| millis(after.saturating_sub(before)));
        if let Some(cpu) = cpu {
            *state.report.cpu_ms.get_or_insert(0.0) += cpu;
        }
        if let Some(after) = cpu_after {
            state.cpu_after_turn = after;
        }
        // A bank at zero is a timeout, even if the answer squeezed through the channel.
        state.bank = match reply {
            Reply::Timeout => Duration::ZERO,
            _ => allowed.saturating_sub(elapsed),
        };
        let timed_out = state.bank.is_zero();
        if self.recording() {
            self.record_request(p, sent_at, elapsed, &reply);
            self.seats[p].tick.cpu_ms = cpu;
            self.seats[p].tick.cpu_between_turns_ms = between_turns;
        }
        match reply {
            Reply::Answer(_) | Reply::Timeout if timed_out => {
                Err((Fault::Timeout, TIMEOUT_ERROR.to_owned()))
            }
            Reply::Answer(line) => Ok(line),
            Reply::Timeout => unreachable!("a timeout empties the bank"),
            Reply::Down(down) => {
                let text = down.to_string();
                self.went_down(p);
                Err((Fault::Crash, text))
            }
        }
    }

    /// Whether every seat that is not a robot in process has gone offline.
    fn everyone_left(&self) -> bool {
        self.has_remote
            && self
                .seats
                .iter()
                .all(|s| s.seat.kind() == SeatKind::Builtin || s.status != Status::Playing)
    }

    /// Tells every other player still playing the state before `p`'s turn, for games that do
    /// ([`Watchers::ToldEveryTurn`]). Recorded in each watcher's part of the tick, so that a
    /// replay holds everything a bot read.
    fn tell_watchers(&mut self, p: PlayerId) {
        if G::PROTOCOL.watchers == Watchers::Silent {
            return;
        }
        for q in (0..self.seats.len()).filter(|&q| q != p) {
            // Robots in process read the game itself, not text: theirs is written only for the
            // replay, which holds what a program in their seat would have read.
            let seat = &self.seats[q];
            let robot = seat.seat.kind() == SeatKind::Builtin;
            if seat.status != Status::Playing || (robot && !self.recording()) {
                continue;
            }
            self.message.clear();
            self.game.watch_message(q, &mut self.message);
            if self.message.is_empty() {
                return;
            }
            if let Err(down) = self.send(q) {
                let text = down.to_string();
                self.went_down(q);
                self.fault_outside_turn(q, Fault::Crash, text);
            }
        }
    }

    /// Plays player `p`'s turn; what the replay records of it (`None` when not recording).
    fn turn(&mut self, p: PlayerId) -> Option<RecordedAction<G>> {
        self.tell_watchers(p);
        let answer = (self.seats[p].status == Status::Playing).then(|| {
            self.message.clear();
            self.game.turn_message(p, &mut self.message);
            self.exchange(p, None)
                .and_then(|line| self.read_answer(&line))
        });
        let fault = match answer {
            Some(Ok(action)) => return self.play(action),
            Some(Err((fault, text))) => {
                self.record_fault(p, &fault, text);
                fault
            }
            // Gone: its turns are played as the rules say of a bot that is gone.
            None => Fault::Crash,
        };
        if self.forfeit.is_some() {
            return self.recording().then_some(Event::Forfeit.into());
        }
        let action = match self.decide(p, fault, true) {
            FaultAction::Forfeit => return self.recording().then_some(Event::Forfeit.into()),
            FaultAction::Play(action) => action,
            FaultAction::PlayAny => {
                // Any legal action: there is one, the player is not stuck.
                self.game.legal_actions(&mut self.actions);
                self.actions[self.rng.random_range(0..self.actions.len())]
            }
        };
        self.play(action)
    }

    /// Plays `action`; its record when recording.
    fn play(&mut self, action: G::Action) -> Option<RecordedAction<G>> {
        let record = self.recording().then(|| self.game.action_record(action));
        self.game.apply_unchecked(action);
        record.map(TickAction::Played)
    }

    /// The action an answer names, if it is one the rules allow now.
    fn read_answer(&self, line: &Line) -> Result<G::Action, (Fault<G::Action>, String)> {
        if line.overlong {
            let what = match G::PROTOCOL.framing {
                Framing::Line => "answer line",
                Framing::Block { .. } => "answer",
            };
            return Err((
                Fault::Malformed,
                format!("{what} longer than {MAX_LINE} bytes"),
            ));
        }
        let action = self
            .game
            .parse_action(&line.text)
            .map_err(|e| (Fault::Malformed, e))?;
        self.game
            .check(action)
            .map_err(|e| (Fault::Illegal(action), e.0))?;
        Ok(action)
    }

    fn record_request(&mut self, p: PlayerId, sent_at: Instant, elapsed: Duration, reply: &Reply) {
        let sent_ms = self.ms(sent_at);
        let mut lines: Vec<(f64, String)> = Vec::new();
        let (mut late, mut extra) = (0, 0);
        for d in &self.discarded {
            match d.why {
                DiscardReason::Late => late += 1,
                DiscardReason::Extra => extra += 1,
            }
            if lines.len() < REPLAY_DISCARDED_CAP {
                let text = as_written::<G>(&d.line, !d.unfinished);
                lines.push((self.ms(d.line.at), text));
            }
        }
        if let Reply::Answer(line) = reply {
            lines.push((self.ms(line.at), as_written::<G>(line, true)));
        }
        lines.sort_by(|a, b| a.0.total_cmp(&b.0));
        let tick = &mut self.seats[p].tick;
        tick.received.push(Message {
            at_ms: sent_ms,
            text: self.message.clone(),
        });
        tick.sent.extend(
            lines
                .into_iter()
                .map(|(at_ms, text)| Message { at_ms, text }),
        );
        if late > 0 {
            tick.notes.push(format!(
                "discarded {} late answer{} to an earlier turn",
                late,
                plural(late)
            ));
        }
        if extra > 0 {
            let (unit, units) = match G::PROTOCOL.framing {
                Framing::Block { .. } => ("block", "answer or line"),
                Framing::Line => ("line", "line"),
            };
            tick.notes.push(format!(
                "discarded {} extra {units}{}: an answer is one {unit}",
                extra,
                plural(extra)
            ));
        }
        if self.discarded.len() > REPLAY_DISCARDED_CAP {
            tick.notes.push(format!(
                "{} discarded lines not kept in the replay",
                self.discarded.len() - REPLAY_DISCARDED_CAP
            ));
        }
        tick.time_ms = Some(millis(elapsed));
    }

    /// Sends `self.message` to `p`, recording it.
    fn send(&mut self, p: PlayerId) -> Result<(), Down> {
        if self.message.is_empty() {
            return Ok(());
        }
        let at = Instant::now();
        let result = self.seats[p].seat.send(&self.message);
        if self.recording() {
            let at_ms = self.ms(at);
            self.seats[p].tick.received.push(Message {
                at_ms,
                text: self.message.clone(),
            });
        }
        result
    }

    fn went_down(&mut self, p: PlayerId) {
        let state = &mut self.seats[p];
        state.status = Status::Offline;
        state.report.crashed = true;
        // Nothing it does matters any more; its last stderr is still collected.
        self.close(p, Instant::now());
    }

    fn eliminate(&mut self, p: PlayerId) {
        if self.seats[p].status == Status::Playing {
            self.message.clear();
            self.game.end_message(p, &mut self.message);
            let _ = self.send(p);
            self.close(p, Instant::now() + self.config.grace);
        }
        self.seats[p].status = Status::Out;
    }

    fn close(&mut self, p: PlayerId, deadline: Instant) {
        let state = &mut self.seats[p];
        if !state.closed {
            state.report.exit = state.seat.close(deadline);
            state.report.killed_for = state.report.exit.killed_for;
            state.closed = true;
        }
    }

    fn close_all(&mut self, deadline: Instant) {
        // All at once: a bot still frozen while another is closed would lose its grace period.
        for state in &mut self.seats {
            state.seat.thaw();
        }
        for p in 0..self.seats.len() {
            self.close(p, deadline);
        }
    }

    /// Ends the tick: when the match is over, says so to every bot still playing and closes
    /// them all first, so that their last log lines land in the last tick; then writes the tick.
    fn end_tick(
        &mut self,
        player: Option<PlayerId>,
        action: Option<RecordedAction<G>>,
    ) -> Result<(), ReplayError> {
        let over = self.forfeit.is_some() || self.game.to_move().is_none();
        // A forfeited turn is a turn taken, though the game did not move.
        self.ticks = self.game.tick() + u32::from(self.forfeit.is_some() && player.is_some());
        if over {
            for state in &mut self.seats {
                state.last_cpu_between_turns();
            }
            for p in 0..self.seats.len() {
                if self.seats[p].status == Status::Playing {
                    self.message.clear();
                    self.game.end_message(p, &mut self.message);
                    let _ = self.send(p);
                }
            }
            self.close_all(Instant::now() + self.config.grace);
        }
        let Some(action) = action.filter(|_| self.recording()) else {
            for state in &mut self.seats {
                let _ = state.seat.take_log();
            }
            return Ok(());
        };
        let bots = self
            .seats
            .iter_mut()
            .map(|state| {
                let mut tick = std::mem::take(&mut state.tick);
                tick.log = state.seat.take_log();
                tick.offline = state.status == Status::Offline;
                tick.bank_ms = millis(state.bank);
                tick
            })
            .collect();
        let tick = Tick {
            tick: self.ticks,
            player,
            action,
            state: self.game.snapshot(),
            bots,
        };
        self.write(Record::Tick(tick))
    }

    fn write(&mut self, record: GameRecord<G>) -> Result<(), ReplayError> {
        match &mut self.replay {
            Some(replay) => replay.write(&record),
            None => Ok(()),
        }
    }
}

/// The forfeiting player is placed last with no points; the others share first place and the
/// point.
fn forfeit_outcome(players: usize, loser: PlayerId, reason: &'static str) -> Outcome {
    let winners = (players - 1).max(1) as f64;
    Outcome {
        scores: (0..players)
            .map(|p| if p == loser { 0.0 } else { 1.0 / winners })
            .collect(),
        placement: (0..players)
            .map(|p| if p == loser { players as u32 } else { 1 })
            .collect(),
        reason,
    }
}

/// Milliseconds, rounded to the microsecond: finer is noise, and it keeps replays short.
fn millis(d: Duration) -> f64 {
    d.as_micros() as f64 / 1000.0
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What the replay keeps of a unit a bot sent: its lines as it wrote them, without the last
/// line end, so that a bot's `sent` texts, each followed by a line end, are what it wrote.
/// A block ends with its terminator line when it got one (`finished`).
fn as_written<G: Wire>(unit: &Line, finished: bool) -> String {
    let mut text = cap_text(&unit.text, unit.overlong);
    if let (Framing::Block { terminator }, true) = (G::PROTOCOL.framing, finished) {
        // A block of no line at all is its terminator alone.
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(terminator);
    }
    text
}

fn cap_text(text: &str, overlong: bool) -> String {
    let cut = text.char_indices().nth(REPLAY_TEXT_CAP).map(|(i, _)| i);
    match (cut, overlong) {
        (cut, true) => format!(
            "{}... [line longer than {MAX_LINE} bytes]",
            &text[..cut.unwrap_or(text.len())]
        ),
        (Some(cut), false) => format!("{}... [{} bytes in all]", &text[..cut], text.len()),
        (None, false) => text.to_owned(),
    }
}
