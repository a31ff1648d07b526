//! Reads the complete lines of a replay file that may still be growing, a line at a time; or
//! of a replay kept in the store, whose bytes are handed in as they arrive ([`Tail::pushed`]).
//!
//! The referee flushes each record as a whole line, gzip-compressed or not, while the match is
//! played. A plain reader stops at the current end of the file, and a gzip reader even fails
//! there (the stream has no trailer yet). [`Tail`] instead treats the end of the file as "no more
//! for now": the file reader answers `WouldBlock` there, which flate2's decoders pass through
//! without losing their place, so the next [`Tail::next_line`] goes on where the last one stopped.
//!
//! Memory stays bounded whatever the file: text is read in small chunks, a line longer than
//! [`MAX_LINE`] is refused, and so is a file whose text (after decompression) passes the cap it
//! was opened with, so a small gzip file inflating to gigabytes costs one bounded read, not the
//! server.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

/// The longest line read: far above any record the referee writes (bot logs and messages are
/// capped), far below what would strain the server.
pub const MAX_LINE: usize = 32 << 20;

/// How much text one read takes from the file or the decoder.
const CHUNK: usize = 64 << 10;

/// Where a tail's bytes come from, read as far as they have come: the end of what came so far
/// answers `WouldBlock`.
enum Growing {
    /// A file, as far as it has been written.
    File(File),
    /// Bytes handed in with [`Tail::push`] (a replay kept in the store, as it arrives):
    /// `bytes[start..]` are not read yet.
    Pushed { bytes: Vec<u8>, start: usize },
}

impl Read for Growing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = match self {
            Growing::File(file) => file.read(buf)?,
            Growing::Pushed { bytes, start } => {
                let n = buf.len().min(bytes.len() - *start);
                buf[..n].copy_from_slice(&bytes[*start..*start + n]);
                *start += n;
                n
            }
        };
        match read {
            0 if !buf.is_empty() => Err(io::ErrorKind::WouldBlock.into()),
            n => Ok(n),
        }
    }
}

impl Growing {
    /// Reads bytes at `offset` without moving on (the first two, to tell gzip from plain).
    fn peek(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        match self {
            Growing::File(file) => file.read_at(buf, offset),
            Growing::Pushed { bytes, start } => {
                let from = (*start + offset as usize).min(bytes.len());
                let n = buf.len().min(bytes.len() - from);
                buf[..n].copy_from_slice(&bytes[from..from + n]);
                Ok(n)
            }
        }
    }

    /// Appends pushed bytes; those already read are dropped first.
    fn push(&mut self, more: &[u8]) {
        if let Growing::Pushed { bytes, start } = self {
            bytes.drain(..*start);
            *start = 0;
            bytes.extend_from_slice(more);
        }
    }
}

enum Source {
    /// Nothing written yet: plain or gzip cannot be told.
    Unknown(Growing),
    Plain(Growing),
    Gzip(Box<MultiGzDecoder<Growing>>),
}

/// A replay file read line by line as far as it has been written.
pub struct Tail {
    path: PathBuf,
    source: Option<Source>,
    /// Text read but not handed out yet: `buffer[start..]`.
    buffer: Vec<u8>,
    start: usize,
    /// Lines handed out so far.
    lines: usize,
    /// Text read so far (decompressed), and the most that will be.
    text: u64,
    cap: u64,
}

/// Why a replay file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TailError {
    /// The file could not be opened.
    #[error("cannot open {path}: {source}")]
    Open { path: PathBuf, source: io::Error },
    /// Reading (or decompressing) failed.
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    /// A line is not UTF-8.
    #[error("{path}, line {line}: not UTF-8 text")]
    NotText { path: PathBuf, line: usize },
    /// A line longer than [`MAX_LINE`].
    #[error("{path}, line {line}: longer than {} MiB", MAX_LINE >> 20)]
    LongLine { path: PathBuf, line: usize },
    /// The file's text (decompressed) is larger than the cap.
    #[error("{path}: more than {} of replay text, the server's limit", amount(*cap))]
    TooLarge { path: PathBuf, cap: u64 },
}

/// A size in words: MiB when it is a whole number of them.
pub fn amount(bytes: u64) -> String {
    if bytes > 0 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

impl Tail {
    /// Opens `path`, to read at most `cap` bytes of text from it (after decompression).
    pub fn open(path: &Path, cap: u64) -> Result<Tail, TailError> {
        let file = File::open(path).map_err(|source| TailError::Open {
            path: path.to_owned(),
            source,
        })?;
        Ok(Tail::of(path, Growing::File(file), cap))
    }

    /// A tail of bytes handed in with [`Tail::push`], named `name` in errors; at most `cap`
    /// bytes of text are read.
    pub fn pushed(name: &Path, cap: u64) -> Tail {
        let input = Growing::Pushed {
            bytes: Vec::new(),
            start: 0,
        };
        Tail::of(name, input, cap)
    }

    fn of(path: &Path, input: Growing, cap: u64) -> Tail {
        Tail {
            path: path.to_owned(),
            source: Some(Source::Unknown(input)),
            buffer: Vec::new(),
            start: 0,
            lines: 0,
            text: 0,
            cap,
        }
    }

    /// Hands in the next bytes of a [`Tail::pushed`] (nothing for a file's).
    pub fn push(&mut self, bytes: &[u8]) {
        match self.source.as_mut() {
            Some(Source::Unknown(input) | Source::Plain(input)) => input.push(bytes),
            Some(Source::Gzip(decoder)) => decoder.get_mut().push(bytes),
            None => {}
        }
    }

    /// The number of lines handed out so far.
    pub fn lines_read(&self) -> usize {
        self.lines
    }

    /// The next complete line (without its line end), or `None` if no more has been written yet.
    pub fn next_line(&mut self) -> Result<Option<&str>, TailError> {
        // Bytes after `start` already known to hold no line end.
        let mut searched = 0;
        let end = loop {
            let unread = &self.buffer[self.start..];
            if let Some(at) = unread[searched..].iter().position(|&b| b == b'\n') {
                break self.start + searched + at;
            }
            searched = unread.len();
            if searched > MAX_LINE {
                return Err(TailError::LongLine {
                    path: self.path.clone(),
                    line: self.lines + 1,
                });
            }
            // Keep only the unread text before reading more.
            self.buffer.drain(..self.start);
            self.start = 0;
            if !self.read_chunk()? {
                if self.buffer.is_empty() {
                    // A follower waiting for the next line keeps no buffer meanwhile.
                    self.buffer = Vec::new();
                }
                return Ok(None);
            }
        };
        let line = &self.buffer[self.start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        self.start = end + 1;
        self.lines += 1;
        std::str::from_utf8(line)
            .map(Some)
            .map_err(|_| TailError::NotText {
                path: self.path.clone(),
                line: self.lines,
            })
    }

    /// Every complete line written so far after those already handed out.
    pub fn poll(&mut self) -> Result<Vec<String>, TailError> {
        let mut lines = Vec::new();
        while let Some(line) = self.next_line()? {
            lines.push(line.to_owned());
        }
        Ok(lines)
    }

    /// Appends one chunk of text to the buffer; false if the file has no more for now.
    fn read_chunk(&mut self) -> Result<bool, TailError> {
        let error = |path: &Path, source| TailError::Read {
            path: path.to_owned(),
            source,
        };
        if matches!(self.source, Some(Source::Unknown(_))) && !self.choose_decoder()? {
            return Ok(false);
        }
        let reader: &mut dyn Read = match self.source.as_mut() {
            Some(Source::Plain(file)) => file,
            Some(Source::Gzip(decoder)) => decoder.as_mut(),
            Some(Source::Unknown(_)) | None => return Ok(false),
        };
        let filled = self.buffer.len();
        self.buffer.resize(filled + CHUNK, 0);
        let read = loop {
            match reader.read(&mut self.buffer[filled..]) {
                Ok(n) => break Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(0),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            }
        };
        let read = read.map_err(|e| {
            self.buffer.truncate(filled);
            error(&self.path, e)
        })?;
        self.buffer.truncate(filled + read);
        self.text += read as u64;
        if self.text > self.cap {
            return Err(TailError::TooLarge {
                path: self.path.clone(),
                cap: self.cap,
            });
        }
        Ok(read > 0)
    }

    /// Looks at the first two bytes, once written, to read the file as gzip or as plain text;
    /// false while they are not.
    fn choose_decoder(&mut self) -> Result<bool, TailError> {
        let Some(Source::Unknown(input)) = &self.source else {
            return Ok(true);
        };
        // Two bytes tell gzip's magic number from the `{` a plain replay starts with; they are
        // read in place, so that the decoder chosen then reads from the start.
        let mut magic = [0u8; 2];
        let mut have = 0;
        while have < magic.len() {
            match input.peek(&mut magic[have..], have as u64) {
                Ok(0) => return Ok(false),
                Ok(n) => have += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(TailError::Read {
                        path: self.path.clone(),
                        source,
                    });
                }
            }
        }
        let Some(Source::Unknown(file)) = self.source.take() else {
            unreachable!("matched above")
        };
        self.source = Some(if magic == [0x1f, 0x8b] {
            Source::Gzip(Box::new(MultiGzDecoder::new(file)))
        } else {
            Source::Plain(file)
        });
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    /// A file `name` in this test process's scratch folder, removed when it exits.
    fn temp(name: &str) -> PathBuf {
        arbiter_testdir::root().join(format!("tail-{name}"))
    }

    #[test]
    fn plain_lines_come_as_they_are_written() {
        let path = temp("plain");
        let mut file = File::create(&path).unwrap();
        let mut tail = Tail::open(&path, u64::MAX).unwrap();
        assert!(tail.poll().unwrap().is_empty());
        file.write_all(b"{\"a\":1}\n{\"b\"").unwrap();
        assert_eq!(tail.poll().unwrap(), ["{\"a\":1}"]);
        file.write_all(b":2}\n").unwrap();
        assert_eq!(tail.poll().unwrap(), ["{\"b\":2}"]);
        assert_eq!(tail.lines_read(), 2);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn gzip_is_read_through_sync_flushes_and_to_the_end() {
        let path = temp("gzip");
        let mut gz = GzEncoder::new(File::create(&path).unwrap(), Compression::default());
        let mut tail = Tail::open(&path, u64::MAX).unwrap();
        assert!(tail.poll().unwrap().is_empty());
        gz.write_all(b"one\n").unwrap();
        gz.flush().unwrap();
        assert_eq!(tail.poll().unwrap(), ["one"]);
        assert!(tail.poll().unwrap().is_empty());
        gz.write_all(b"two\nthr").unwrap();
        gz.flush().unwrap();
        assert_eq!(tail.poll().unwrap(), ["two"]);
        gz.write_all(b"ee\n").unwrap();
        gz.finish().unwrap();
        assert_eq!(tail.poll().unwrap(), ["three"]);
        assert!(tail.poll().unwrap().is_empty());
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn pushed_gzip_bytes_are_read_as_they_come_whatever_their_cut() {
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(b"one\ntwo\n").unwrap();
        gz.flush().unwrap();
        gz.write_all(b"three\n").unwrap();
        let bytes = gz.finish().unwrap();
        let mut tail = Tail::pushed(Path::new("m00001.jsonl.gz"), u64::MAX);
        assert!(tail.poll().unwrap().is_empty());
        tail.push(&bytes[..1]);
        assert!(tail.poll().unwrap().is_empty());
        let mut lines = Vec::new();
        for byte in &bytes[1..] {
            tail.push(std::slice::from_ref(byte));
            lines.extend(tail.poll().unwrap());
        }
        assert_eq!(lines, ["one", "two", "three"]);
        let mut plain = Tail::pushed(Path::new("m00002.jsonl"), u64::MAX);
        plain.push(b"{\"a\":1}\n{");
        assert_eq!(plain.poll().unwrap(), ["{\"a\":1}"]);
    }

    #[test]
    fn a_gzip_inflating_past_the_cap_is_refused_after_a_bounded_read() {
        let path = temp("bomb");
        let mut gz = GzEncoder::new(File::create(&path).unwrap(), Compression::default());
        gz.write_all(b"{\"type\":\"header\"}\n").unwrap();
        let zeros = vec![b'0'; 1 << 20];
        for _ in 0..8 {
            gz.write_all(&zeros).unwrap();
        }
        gz.finish().unwrap();
        let mut tail = Tail::open(&path, 4 << 20).unwrap();
        assert_eq!(tail.next_line().unwrap(), Some("{\"type\":\"header\"}"));
        let error = tail.next_line().unwrap_err();
        assert!(matches!(error, TailError::TooLarge { cap, .. } if cap == 4 << 20));
        assert!(error.to_string().contains("4 MiB"), "{error}");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_line_longer_than_the_limit_is_refused() {
        let path = temp("long");
        let mut file = File::create(&path).unwrap();
        file.write_all(b"short\n").unwrap();
        file.write_all(&vec![b'x'; MAX_LINE + 2]).unwrap();
        let mut tail = Tail::open(&path, u64::MAX).unwrap();
        assert_eq!(tail.next_line().unwrap(), Some("short"));
        assert!(matches!(
            tail.next_line(),
            Err(TailError::LongLine { line: 2, .. })
        ));
        std::fs::remove_file(path).unwrap();
    }
}
