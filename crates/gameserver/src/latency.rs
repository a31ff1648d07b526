//! Turn latency over TCP: from a turn block handed to the socket, to the reply read by the
//! referee, to the next block handed to a socket.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Samples of every game of a server, in microseconds.
#[derive(Debug, Default)]
pub struct Latencies {
    samples: Mutex<Samples>,
}

/// Latency samples taken so far, in microseconds, one pair per turn.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Block sent → reply read.
    pub reply_us: Vec<u64>,
    /// Block sent → next block sent (the reply read, judged, the turn applied, the next block
    /// written).
    pub turn_us: Vec<u64>,
}

impl Latencies {
    /// Takes the samples collected so far, leaving none.
    pub fn take(&self) -> Samples {
        std::mem::take(&mut self.samples.lock().unwrap())
    }

    fn add(&self, reply: Duration, turn: Duration) {
        let mut s = self.samples.lock().unwrap();
        s.reply_us.push(reply.as_micros() as u64);
        s.turn_us.push(turn.as_micros() as u64);
    }
}

/// One game's clock: the turn waiting for its next block.
#[derive(Debug, Default)]
pub struct TurnClock {
    pending: Mutex<Option<(Instant, Instant)>>,
}

impl TurnClock {
    /// A seat read the reply to the block sent at `sent`.
    pub fn replied(&self, sent: Instant, at: Instant) {
        *self.pending.lock().unwrap() = Some((sent, at));
    }

    /// A block went out: it closes the turn waiting for one.
    pub fn block_sent(&self, at: Instant, into: &Latencies) {
        if let Some((sent, replied)) = self.pending.lock().unwrap().take() {
            into.add(replied - sent, at.saturating_duration_since(sent));
        }
    }
}

/// The `p`-th percentile (0 to 100) of `samples`, nearest rank.
pub fn percentile(samples: &mut [u64], p: f64) -> u64 {
    if samples.is_empty() {
        return 0;
    }
    samples.sort_unstable();
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let mut v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&mut v, 50.0), 50);
        assert_eq!(percentile(&mut v, 99.0), 99);
        assert_eq!(percentile(&mut [], 50.0), 0);
    }
}
