//! A client connected over TCP as a seat of the referee.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

use arbiter_games::{ExtraLines, Wire};
use arbiter_referee::{
    Ask, BlockAssembler, DiscardReason, Discarded, Down, ExitInfo, Line, Reply, Seat, SeatKind,
};

use crate::conn::{Conn, Inbound};
use crate::latency::{Latencies, TurnClock};

/// A logged-in client playing one game. Closing the seat leaves the connection open: the client
/// goes back to its session for the next game.
pub struct TcpSeat {
    conn: Arc<Conn>,
    extra: ExtraLines,
    blocks: BlockAssembler,
    /// Answers read before the request they answer (under [`ExtraLines::NextReply`]).
    queued: VecDeque<Line>,
    /// Requests that timed out: what the client sends next is late.
    owed: u32,
    seq: u64,
    down: Option<Down>,
    clock: Arc<TurnClock>,
    latencies: Arc<Latencies>,
}

impl TcpSeat {
    pub fn new(conn: Arc<Conn>, clock: Arc<TurnClock>, latencies: Arc<Latencies>) -> TcpSeat {
        TcpSeat {
            conn,
            extra: ExtraLines::Discard,
            blocks: BlockAssembler::default(),
            queued: VecDeque::new(),
            owed: 0,
            seq: 0,
            down: None,
            clock,
            latencies,
        }
    }

    fn gone(&mut self, why: String) -> Down {
        let down = Down::Disconnected { error: why };
        self.down = Some(down.clone());
        down
    }

    /// A line sent before the request's message was fully handed to the socket answers
    /// nothing (§8.2), except under [`ExtraLines::NextReply`], where it is the next answer.
    fn before(&mut self, line: Line, discarded: &mut Vec<Discarded>) {
        match self.extra {
            ExtraLines::NextReply => {
                if let Some(answer) = self.blocks.push(line) {
                    self.queued.push_back(answer);
                }
            }
            ExtraLines::Discard => {
                let why = if self.owed > 0 {
                    DiscardReason::Late
                } else {
                    DiscardReason::Extra
                };
                discarded.push(Discarded { line, why });
            }
        }
    }
}

impl<G: Wire> Seat<G> for TcpSeat {
    fn name(&self) -> &str {
        &self.conn.team
    }

    fn kind(&self) -> SeatKind {
        SeatKind::Tcp
    }

    fn send(&mut self, text: &str) -> Result<(), Down> {
        if let Some(down) = &self.down {
            return Err(down.clone());
        }
        self.clock.block_sent(Instant::now(), &self.latencies);
        self.conn.send(text, None).map_err(|why| self.gone(why))
    }

    fn request(
        &mut self,
        _ask: Ask<'_, G>,
        message: &str,
        deadline: Instant,
        discarded: &mut Vec<Discarded>,
    ) -> Reply {
        if let Some(down) = &self.down {
            return Reply::Down(down.clone());
        }
        let conn = self.conn.clone();
        let inbound = conn.inbound.lock().unwrap();
        let mut events = Vec::new();
        while let Ok(event) = inbound.try_recv() {
            events.push(event);
        }
        drop(inbound);
        for event in events {
            match event {
                Inbound::Line(line) => {
                    self.conn.line_taken();
                    self.before(line, discarded);
                }
                Inbound::Gone(why) => return Reply::Down(self.gone(why)),
                Inbound::Flushed(..) => {}
            }
        }
        if self.extra == ExtraLines::Discard
            && let Some(partial) = self.blocks.forget_partial()
        {
            self.before(partial, discarded);
        }
        self.owed = 0;
        self.seq += 1;
        let seq = self.seq;
        let sent_at = Instant::now();
        self.clock.block_sent(sent_at, &self.latencies);
        if let Err(why) = self.conn.send(message, Some(seq)) {
            return Reply::Down(self.gone(why));
        }
        if let Some(answer) = self.queued.pop_front() {
            return Reply::Answer(answer);
        }
        let mut flushed: Option<Instant> = None;
        let mut early: Vec<Line> = Vec::new();
        let inbound = conn.inbound.lock().unwrap();
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let event = match inbound.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    drop(inbound);
                    for line in early {
                        self.before(line, discarded);
                    }
                    self.owed += 1;
                    return Reply::Timeout;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    drop(inbound);
                    return Reply::Down(self.gone("connection closed".into()));
                }
            };
            let mut lines = Vec::new();
            match event {
                Inbound::Line(line) => {
                    self.conn.line_taken();
                    match flushed {
                        None => early.push(line),
                        Some(_) => lines.push(line),
                    }
                }
                Inbound::Flushed(s, at) if s == seq => {
                    flushed = Some(at);
                    for line in std::mem::take(&mut early) {
                        if line.at < at {
                            self.before(line, discarded);
                        } else {
                            lines.push(line);
                        }
                    }
                }
                Inbound::Flushed(..) => {}
                Inbound::Gone(why) => {
                    drop(inbound);
                    return Reply::Down(self.gone(why));
                }
            }
            for line in lines {
                if let Some(answer) = self.blocks.push(line) {
                    self.clock.replied(sent_at, answer.at);
                    return Reply::Answer(answer);
                }
            }
        }
    }

    fn set_extra_lines(&mut self, policy: ExtraLines) {
        self.extra = policy;
    }

    fn set_answer_end(&mut self, end: Option<&'static str>) {
        self.blocks.set_end(end);
    }

    fn take_log(&mut self) -> String {
        String::new()
    }

    fn close(&mut self, _deadline: Instant) -> ExitInfo {
        ExitInfo::default()
    }
}
