//! Reads the complete lines of a replay file that may still be growing.
//!
//! The referee flushes each record as a whole line, gzip-compressed or not, while the match is
//! played. A plain reader stops at the current end of the file, and a gzip reader even fails
//! there (the stream has no trailer yet). [`Tail`] instead treats the end of the file as "no more
//! for now": the file reader answers `WouldBlock` there, which flate2's decoders pass through
//! without losing their place, so the next [`Tail::poll`] goes on where the last one stopped.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

/// A file read as far as it has been written.
struct Growing(File);

impl Read for Growing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => Err(io::ErrorKind::WouldBlock.into()),
            n => Ok(n),
        }
    }
}

enum Source {
    /// Nothing written yet: plain or gzip cannot be told.
    Unknown(Growing),
    Plain(Growing),
    Gzip(Box<MultiGzDecoder<Growing>>),
}

pub struct Tail {
    path: PathBuf,
    source: Option<Source>,
    /// Bytes after the last complete line.
    partial: Vec<u8>,
    /// Lines handed out so far.
    lines: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum TailError {
    #[error("cannot open {path}: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path}, line {line}: not UTF-8 text")]
    NotText { path: PathBuf, line: usize },
}

impl Tail {
    pub fn open(path: &Path) -> Result<Tail, TailError> {
        let file = File::open(path).map_err(|source| TailError::Open {
            path: path.to_owned(),
            source,
        })?;
        Ok(Tail {
            path: path.to_owned(),
            source: Some(Source::Unknown(Growing(file))),
            partial: Vec::new(),
            lines: 0,
        })
    }

    /// The number of lines handed out so far.
    pub fn lines_read(&self) -> usize {
        self.lines
    }

    /// The complete lines written since the last call (without their newline).
    pub fn poll(&mut self) -> Result<Vec<String>, TailError> {
        let mut bytes = std::mem::take(&mut self.partial);
        let read = self.read_available(&mut bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        while let Some(end) = bytes[start..].iter().position(|&b| b == b'\n') {
            let line = &bytes[start..start + end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            self.lines += 1;
            let text = std::str::from_utf8(line).map_err(|_| TailError::NotText {
                path: self.path.clone(),
                line: self.lines,
            })?;
            lines.push(text.to_owned());
            start += end + 1;
        }
        bytes.drain(..start);
        self.partial = bytes;
        read?;
        Ok(lines)
    }

    fn read_available(&mut self, out: &mut Vec<u8>) -> Result<(), TailError> {
        let error = |source| TailError::Read {
            path: self.path.clone(),
            source,
        };
        if let Some(Source::Unknown(Growing(file))) = &self.source {
            // Two bytes tell gzip's magic number from the `{` a plain replay starts with; they
            // are read in place, so that the decoder chosen then reads from the start.
            let mut magic = [0u8; 2];
            let mut have = 0;
            while have < magic.len() {
                match file.read_at(&mut magic[have..], have as u64) {
                    Ok(0) => return Ok(()),
                    Ok(n) => have += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(error(e)),
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
        }
        let reader: &mut dyn Read = match self.source.as_mut() {
            Some(Source::Plain(file)) => file,
            Some(Source::Gzip(decoder)) => decoder.as_mut(),
            Some(Source::Unknown(_)) | None => return Ok(()),
        };
        let mut buf = [0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(error(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("arbiter-tail-{}-{name}", std::process::id()))
    }

    #[test]
    fn plain_lines_come_as_they_are_written() {
        let path = temp("plain");
        let mut file = File::create(&path).unwrap();
        let mut tail = Tail::open(&path).unwrap();
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
        let mut tail = Tail::open(&path).unwrap();
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
}
