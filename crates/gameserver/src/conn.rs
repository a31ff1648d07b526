//! One client's connection: a reader and a writer task around the socket, and the handle
//! ([`Conn`]) through which the session and the seats talk to them without ever waiting for
//! the client.
//!
//! - Lines are capped at [`MAX_LINE`] bytes: a longer one gets `MESSAGE SYNTAX` and the client
//!   is dropped.
//! - Inbound: lines are queued only while the client plays (what it sends between games
//!   answers nothing and is dropped at once). During a game at most [`MAX_QUEUED_LINES`] wait
//!   for the referee; a client that sends more is a flooder and is dropped, so memory stays
//!   bounded whatever it sends.
//! - Outbound: at most [`MAX_QUEUED_BYTES`] wait for the socket. A client that stops reading
//!   fills its socket, then this buffer, and is dropped; the referee never waits for it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc as std_mpsc};
use std::time::Instant;

use arbiter_referee::Line;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{mpsc, watch};

/// Longest line a client may send, line end included (docs/games/labyrinth.md#protocol lines are short; 4 KiB is plenty).
pub const MAX_LINE: usize = 4096;
/// Lines a playing client may have waiting for the referee.
pub const MAX_QUEUED_LINES: usize = 256;
/// Bytes that may wait for a client that does not read.
pub const MAX_QUEUED_BYTES: usize = 256 * 1024;

/// What the reader and the writer tell the seat, in the order it happened.
#[derive(Debug)]
pub enum Inbound {
    /// A line the client sent, with when it was read.
    Line(Line),
    /// Message `seq` was fully handed to the socket at this instant.
    Flushed(u64, Instant),
    /// The client is gone; why.
    Gone(String),
}

enum Outbound {
    Text(String, Option<u64>),
    /// Write what is queued, then close.
    Close,
}

/// The connections whose writer task still runs. The runtime drops its tasks when the session
/// ends, so the session waits here first: otherwise the last SCORE and END blocks, queued but
/// not yet written, would be lost for some clients.
#[derive(Clone)]
pub struct Writers(std::sync::Arc<watch::Sender<usize>>);

impl Default for Writers {
    fn default() -> Self {
        Writers(std::sync::Arc::new(watch::Sender::new(0)))
    }
}

impl Writers {
    /// Resolves once every writer has written what was queued for it and closed, or stopped
    /// on an error.
    pub async fn drained(&self) {
        let mut running = self.0.subscribe();
        let _ = running.wait_for(|&n| n == 0).await;
    }

    fn enter(&self) -> WriterRunning {
        self.0.send_modify(|n| *n += 1);
        WriterRunning(self.clone())
    }
}

/// Counts a writer task as running until it is dropped, however the task ends.
struct WriterRunning(Writers);

impl Drop for WriterRunning {
    fn drop(&mut self) {
        self.0.0.send_modify(|n| *n -= 1);
    }
}

/// The handle of a logged-in client, shared by its tasks, the session and its seat.
pub struct Conn {
    /// The team that logged in on this connection.
    pub team: String,
    out: mpsc::UnboundedSender<Outbound>,
    queued_bytes: AtomicUsize,
    queued_lines: AtomicUsize,
    pub(crate) inbound: Mutex<std_mpsc::Receiver<Inbound>>,
    inbound_tx: std_mpsc::Sender<Inbound>,
    playing: AtomicBool,
    gone: AtomicBool,
    why_gone: Mutex<Option<String>>,
    kill: watch::Sender<bool>,
}

impl Conn {
    /// Whether the client has disconnected or been dropped.
    pub fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Acquire)
    }

    /// Why the client is gone, once it is.
    pub fn why_gone(&self) -> Option<String> {
        self.why_gone.lock().unwrap().clone()
    }

    /// Queues `text` for the client; `Err` if the client is gone or dropped now because its
    /// buffer is full. Never waits.
    pub fn send(&self, text: &str, notify: Option<u64>) -> Result<(), String> {
        if self.is_gone() {
            return Err(self.why_gone().unwrap_or_else(|| "gone".into()));
        }
        let queued = self.queued_bytes.fetch_add(text.len(), Ordering::AcqRel);
        if queued + text.len() > MAX_QUEUED_BYTES {
            self.drop_client("stopped reading (send buffer full)");
            return Err("stopped reading (send buffer full)".into());
        }
        if self
            .out
            .send(Outbound::Text(text.to_owned(), notify))
            .is_err()
        {
            self.drop_client("connection closed");
            return Err("connection closed".into());
        }
        Ok(())
    }

    /// Sends what is queued, then closes the connection.
    pub fn close(&self) {
        let _ = self.out.send(Outbound::Close);
    }

    /// Ends the connection now, for `why`.
    pub fn drop_client(&self, why: &str) {
        if !self.gone.swap(true, Ordering::AcqRel) {
            *self.why_gone.lock().unwrap() = Some(why.to_owned());
            let _ = self.inbound_tx.send(Inbound::Gone(why.to_owned()));
            let _ = self.kill.send(true);
        }
    }

    /// Says `message` and ends the connection for `why`: the client is gone at once for
    /// everyone, the message goes out if the client reads it within a second.
    pub fn end_with(self: &std::sync::Arc<Self>, message: &str, why: &str) {
        if self.gone.swap(true, Ordering::AcqRel) {
            return;
        }
        *self.why_gone.lock().unwrap() = Some(why.to_owned());
        let _ = self.inbound_tx.send(Inbound::Gone(why.to_owned()));
        let _ = self.out.send(Outbound::Text(message.to_owned(), None));
        let _ = self.out.send(Outbound::Close);
        let conn = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            let _ = conn.kill.send(true);
        });
    }

    /// Whether the client is seated in a game: only then are its lines kept.
    pub fn set_playing(&self, playing: bool) {
        self.playing.store(playing, Ordering::Release);
        if !playing {
            // What it sent during the game and nobody read answers nothing now.
            let inbound = self.inbound.lock().unwrap();
            while let Ok(event) = inbound.try_recv() {
                match event {
                    Inbound::Line(_) => self.line_taken(),
                    Inbound::Gone(why) => {
                        drop(inbound);
                        let _ = self.inbound_tx.send(Inbound::Gone(why));
                        return;
                    }
                    Inbound::Flushed(..) => {}
                }
            }
        }
    }

    pub(crate) fn line_taken(&self) {
        self.queued_lines.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes; `Ok(None)` at the end of the stream,
/// `Err(true)` when the line is too long, `Err(false)` on a read error.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> Result<Option<String>, bool> {
    buf.clear();
    loop {
        let available = reader.fill_buf().await.map_err(|_| false)?;
        if available.is_empty() {
            if buf.is_empty() {
                return Ok(None);
            }
            break;
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                if buf.len() + i + 1 > MAX_LINE {
                    return Err(true);
                }
                buf.extend_from_slice(&available[..i]);
                reader.consume(i + 1);
                break;
            }
            None => {
                let n = available.len();
                if buf.len() + n >= MAX_LINE {
                    return Err(true);
                }
                buf.extend_from_slice(available);
                reader.consume(n);
            }
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(buf).into_owned()))
}

/// Starts the reader and writer tasks of a client that has logged in, the writer counted in
/// `writers`. `reader` may hold bytes already read past the login block.
pub fn start(
    team: String,
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    writers: &Writers,
) -> std::sync::Arc<Conn> {
    let (out, out_rx) = mpsc::unbounded_channel();
    let (inbound_tx, inbound_rx) = std_mpsc::channel();
    let (kill, _) = watch::channel(false);
    let conn = std::sync::Arc::new(Conn {
        team,
        out,
        queued_bytes: AtomicUsize::new(0),
        queued_lines: AtomicUsize::new(0),
        inbound: Mutex::new(inbound_rx),
        inbound_tx,
        playing: AtomicBool::new(false),
        gone: AtomicBool::new(false),
        why_gone: Mutex::new(None),
        kill,
    });
    tokio::spawn(write_loop(conn.clone(), writer, out_rx, writers.enter()));
    tokio::spawn(read_loop(conn.clone(), reader));
    conn
}

async fn write_loop(
    conn: std::sync::Arc<Conn>,
    mut writer: OwnedWriteHalf,
    mut out: mpsc::UnboundedReceiver<Outbound>,
    _running: WriterRunning,
) {
    let mut kill = conn.kill.subscribe();
    loop {
        let message = tokio::select! {
            message = out.recv() => message,
            _ = kill.wait_for(|k| *k) => break,
        };
        match message {
            Some(Outbound::Text(text, notify)) => {
                let written = tokio::select! {
                    r = write_stamped(&writer, text.as_bytes()) => r,
                    _ = kill.wait_for(|k| *k) => break,
                };
                conn.queued_bytes.fetch_sub(text.len(), Ordering::AcqRel);
                match written {
                    Ok(at) => {
                        if let Some(seq) = notify {
                            let _ = conn.inbound_tx.send(Inbound::Flushed(seq, at));
                        }
                    }
                    Err(e) => {
                        conn.drop_client(&format!("writing failed: {e}"));
                        break;
                    }
                }
            }
            Some(Outbound::Close) | None => {
                let _ = writer.shutdown().await;
                conn.drop_client("closed by the server");
                break;
            }
        }
    }
}

/// Writes all of `bytes`; the instant just before the system call that handed the last of
/// them to the socket. A line read before that instant was sent before the client could have
/// read the whole message, so it cannot answer it; stamping after the call instead would race
/// with a fast client's answer.
async fn write_stamped(writer: &OwnedWriteHalf, mut bytes: &[u8]) -> std::io::Result<Instant> {
    let mut at = Instant::now();
    while !bytes.is_empty() {
        writer.writable().await?;
        at = Instant::now();
        match writer.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

async fn read_loop(conn: std::sync::Arc<Conn>, mut reader: BufReader<OwnedReadHalf>) {
    let mut kill = conn.kill.subscribe();
    let mut buf = Vec::with_capacity(256);
    loop {
        let line = tokio::select! {
            line = read_line(&mut reader, &mut buf) => line,
            _ = kill.wait_for(|k| *k) => return,
        };
        match line {
            Ok(Some(text)) => {
                if !conn.playing.load(Ordering::Acquire) {
                    continue;
                }
                let at = Instant::now();
                if conn.queued_lines.fetch_add(1, Ordering::AcqRel) >= MAX_QUEUED_LINES {
                    conn.drop_client("sent too many lines (flood)");
                    return;
                }
                let line = Line {
                    text,
                    at,
                    overlong: false,
                };
                if conn.inbound_tx.send(Inbound::Line(line)).is_err() {
                    return;
                }
            }
            Ok(None) => {
                conn.drop_client("closed the connection");
                return;
            }
            Err(true) => {
                conn.end_with(
                    "MESSAGE SYNTAX\n.\n",
                    &format!("sent a line over {MAX_LINE} bytes"),
                );
                return;
            }
            Err(false) => {
                conn.drop_client("reading failed");
                return;
            }
        }
    }
}

/// Writes a whole block to a socket before the connection is handed to its tasks (login).
pub async fn write_raw(stream: &mut OwnedWriteHalf, text: &str) -> std::io::Result<()> {
    stream.write_all(text.as_bytes()).await
}

/// Splits a stream for [`start`].
pub fn split(stream: TcpStream) -> (BufReader<OwnedReadHalf>, OwnedWriteHalf) {
    let (r, w) = stream.into_split();
    (BufReader::with_capacity(MAX_LINE, r), w)
}

/// A connection with no socket behind it, for the seat's tests: the test plays the reader and
/// the writer tasks.
#[cfg(test)]
pub(crate) struct Detached {
    pub conn: std::sync::Arc<Conn>,
    pub inbound: std_mpsc::Sender<Inbound>,
    _out: mpsc::UnboundedReceiver<Outbound>,
}

#[cfg(test)]
impl Detached {
    pub fn new(team: &str) -> Detached {
        let (out, out_rx) = mpsc::unbounded_channel();
        let (inbound_tx, inbound_rx) = std_mpsc::channel();
        let (kill, _) = watch::channel(false);
        let conn = std::sync::Arc::new(Conn {
            team: team.to_owned(),
            out,
            queued_bytes: AtomicUsize::new(0),
            queued_lines: AtomicUsize::new(0),
            inbound: Mutex::new(inbound_rx),
            inbound_tx: inbound_tx.clone(),
            playing: AtomicBool::new(true),
            gone: AtomicBool::new(false),
            why_gone: Mutex::new(None),
            kill,
        });
        Detached {
            conn,
            inbound: inbound_tx,
            _out: out_rx,
        }
    }

    /// Bytes handed to the connection and not yet written: a request's message once queued.
    pub fn queued_bytes(&self) -> usize {
        self.conn.queued_bytes.load(Ordering::Acquire)
    }

    /// The client sends `text`, read at `at`.
    pub fn line(&self, text: &str, at: Instant) {
        self.conn.queued_lines.fetch_add(1, Ordering::AcqRel);
        let line = Line {
            text: text.to_owned(),
            at,
            overlong: false,
        };
        self.inbound.send(Inbound::Line(line)).unwrap();
    }
}
