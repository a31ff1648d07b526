//! A build's log, bounded: the start (where the first compiler error is) and the end (where the
//! build stopped) are kept, what lies between is counted and left out.

/// The bytes of a build's output, at most `limit` of them kept.
#[derive(Debug)]
pub(crate) struct BoundedLog {
    head: Vec<u8>,
    /// The latest bytes after the head filled up, as a ring of `tail_limit` bytes.
    tail: Vec<u8>,
    /// Where the next byte of the ring goes once it is full.
    tail_at: usize,
    head_limit: usize,
    tail_limit: usize,
    /// Bytes seen in all.
    total: u64,
}

impl BoundedLog {
    /// A log keeping `limit` bytes at most: half from its start, half from its end.
    pub(crate) fn new(limit: u64) -> BoundedLog {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let head_limit = limit / 2;
        BoundedLog {
            head: Vec::new(),
            tail: Vec::new(),
            tail_at: 0,
            head_limit,
            tail_limit: limit - head_limit,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_limit - self.head.len();
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        bytes = rest;
        if self.tail_limit == 0 {
            return;
        }
        // Only the last `tail_limit` bytes of a long write can stay.
        if bytes.len() > self.tail_limit {
            bytes = &bytes[bytes.len() - self.tail_limit..];
        }
        for &byte in bytes {
            if self.tail.len() < self.tail_limit {
                self.tail.push(byte);
            } else {
                self.tail[self.tail_at] = byte;
                self.tail_at = (self.tail_at + 1) % self.tail_limit;
            }
        }
    }

    /// The log as text (bytes that are not UTF-8 replaced), with a line saying how much was
    /// left out between its start and its end.
    pub(crate) fn text(&self) -> String {
        let mut tail = self.tail[self.tail_at..].to_vec();
        tail.extend_from_slice(&self.tail[..self.tail_at]);
        let kept = (self.head.len() + tail.len()) as u64;
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.total > kept {
            let left_out = self.total - kept;
            text.push_str(&format!(
                "\n[... {left_out} bytes of the build's output left out ...]\n"
            ));
        }
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_log_is_kept_whole() {
        let mut log = BoundedLog::new(100);
        log.push(b"error: ");
        log.push(b"expected ';'\n");
        assert_eq!(log.text(), "error: expected ';'\n");
    }

    #[test]
    fn a_long_log_keeps_its_start_and_its_end() {
        let mut log = BoundedLog::new(10);
        for chunk in [&b"abc"[..], b"defg", b"0123456789", b"xyz"] {
            log.push(chunk);
        }
        assert_eq!(
            log.text(),
            "abcde\n[... 10 bytes of the build's output left out ...]\n89xyz"
        );
        let mut log = BoundedLog::new(4);
        log.push(&[b'a'; 1000]);
        log.push(b"end");
        assert!(
            log.text().starts_with("aa\n[... 999 bytes"),
            "{}",
            log.text()
        );
        assert!(log.text().ends_with("nd"), "{}", log.text());
    }
}
