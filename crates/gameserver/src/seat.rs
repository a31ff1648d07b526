//! A client connected over TCP as a seat of the referee.

use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

use arbiter_games::Wire;
use arbiter_referee::{AnswerSorter, Ask, Discarded, Down, ExitInfo, Reply, Seat, SeatKind};

use crate::conn::{Conn, Inbound};
use crate::latency::{Latencies, TurnClock};

/// A logged-in client playing one game. Closing the seat leaves the connection open: the client
/// goes back to its session for the next game.
pub struct TcpSeat {
    conn: Arc<Conn>,
    /// Tells answers from the other lines, as the game's protocol says.
    sorter: AnswerSorter,
    seq: u64,
    down: Option<Down>,
    clock: Arc<TurnClock>,
    latencies: Arc<Latencies>,
}

impl TcpSeat {
    /// A seat for the client on `conn`, timing its turns on `clock` and recording them in
    /// `latencies`.
    pub fn new(conn: Arc<Conn>, clock: Arc<TurnClock>, latencies: Arc<Latencies>) -> TcpSeat {
        TcpSeat {
            conn,
            sorter: AnswerSorter::default(),
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

    /// Sorts what the client sent since the last request, unasked.
    fn take_unasked<G: Wire>(&mut self, discarded: &mut Vec<Discarded>) -> Result<(), Down> {
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
                    self.sorter.push(&G::PROTOCOL, line, discarded);
                }
                Inbound::Gone(why) => return Err(self.gone(why)),
                Inbound::Flushed(..) => {}
            }
        }
        Ok(())
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
        let protocol = &G::PROTOCOL;
        if let Err(down) = self.take_unasked::<G>(discarded) {
            return Reply::Down(down);
        }
        let ahead = self.sorter.open(protocol, discarded);
        self.seq += 1;
        let seq = self.seq;
        let sent_at = Instant::now();
        self.clock.block_sent(sent_at, &self.latencies);
        if let Err(why) = self.conn.send(message, Some(seq)) {
            return Reply::Down(self.gone(why));
        }
        if let Some(answer) = ahead {
            return Reply::Answer(answer);
        }
        let conn = self.conn.clone();
        let inbound = conn.inbound.lock().unwrap();
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let answer = match inbound.recv_timeout(wait) {
                Ok(Inbound::Line(line)) => {
                    self.conn.line_taken();
                    self.sorter.push(protocol, line, discarded)
                }
                // The instant the message was fully handed to the socket: a line read before
                // it was sent before the client could read the whole message.
                Ok(Inbound::Flushed(s, at)) if s == seq => {
                    self.sorter.written(protocol, at, discarded)
                }
                Ok(Inbound::Flushed(..)) => None,
                Ok(Inbound::Gone(why)) => {
                    drop(inbound);
                    return Reply::Down(self.gone(why));
                }
                Err(RecvTimeoutError::Timeout) => {
                    drop(inbound);
                    self.sorter.timed_out(protocol, discarded);
                    return Reply::Timeout;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    drop(inbound);
                    return Reply::Down(self.gone("connection closed".into()));
                }
            };
            if let Some(answer) = answer {
                self.clock.replied(sent_at, answer.at);
                return Reply::Answer(answer);
            }
        }
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
