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

    /// A line that does not answer the request at hand: one sent before the request's message
    /// was fully handed to the socket (§8.2), or after the answer. Under
    /// [`ExtraLines::NextReply`] it is kept as the next answer.
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
                        // Under NextReply the first line not yet used answers this request,
                        // whenever it was sent, as the original judge read its input.
                        if line.at < at && self.extra == ExtraLines::Discard {
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
            let mut answer = None;
            for line in lines {
                match answer {
                    None => answer = self.blocks.push(line),
                    // Read with the answer: the next answer, or an extra line.
                    Some(_) => self.before(line, discarded),
                }
            }
            if let Some(answer) = answer {
                self.clock.replied(sent_at, answer.at);
                return Reply::Answer(answer);
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use arbiter_games::domino::Domino;

    use super::*;
    use crate::conn::Detached;

    #[test]
    fn under_next_reply_a_line_read_while_the_request_is_written_answers_it() {
        let client = Arc::new(Detached::new("team"));
        let mut seat = TcpSeat::new(client.conn.clone(), Arc::default(), Arc::default());
        Seat::<Domino>::set_extra_lines(&mut seat, ExtraLines::NextReply);
        let writer = {
            let client = client.clone();
            std::thread::spawn(move || {
                // Once the request's message is queued, the client's line comes in before the
                // message is reported written.
                while client.queued_bytes() == 0 {
                    std::thread::yield_now();
                }
                let at = Instant::now();
                client.line("ok", at);
                let written = at + Duration::from_millis(1);
                client.inbound.send(Inbound::Flushed(1, written)).unwrap();
            })
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        let reply =
            Seat::<Domino>::request(&mut seat, Ask::Ack("ok"), "15\n", deadline, &mut vec![]);
        writer.join().unwrap();
        match reply {
            Reply::Answer(line) => assert_eq!(line.text, "ok"),
            other => panic!("expected the line as the answer, got {other:?}"),
        }
    }
}
