//! Text from untrusted sources (a bot's name or output, an info.txt, a team name) made safe to
//! show on a terminal and short enough to quote in a message.
//!
//! A name such as `"\x1b[2J\x1b]0;pwned\x07"` would clear the organiser's terminal and retitle
//! its window if printed as it is; [`for_terminal`] shows it as `\u{1b}[2J\u{1b}]0;pwned\u{7}`.
//! Only what is shown is escaped: replays and the store keep the text as it was received.
//!
//! Files from untrusted sources are read with [`read_capped`], so that `/dev/zero` or a file of
//! ten gigabytes is refused instead of filling the memory.
#![warn(missing_docs)]

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::Path;

/// The whole of the file at `path` if it is at most `limit` bytes; a larger one (or an endless
/// one, such as `/dev/zero`) is an [`io::ErrorKind::FileTooLarge`] error saying the limit,
/// after reading no more than `limit + 1` bytes.
pub fn read_capped(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_capped_from(std::fs::File::open(path)?, limit)
}

/// [`read_capped`] of a file already open (one opened carefully, say, without following links).
pub fn read_capped_from(file: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("the file is larger than {}", size(limit)),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`] for a text file: invalid UTF-8 is an [`io::ErrorKind::InvalidData`] error.
pub fn read_to_string_capped(path: &Path, limit: u64) -> io::Result<String> {
    read_to_string_capped_from(std::fs::File::open(path)?, limit)
}

/// [`read_to_string_capped`] of a file already open.
pub fn read_to_string_capped_from(file: impl Read, limit: u64) -> io::Result<String> {
    String::from_utf8(read_capped_from(file, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
}

/// `limit` bytes as people say it: `64 KiB`, `1 MiB`, `100 bytes`.
pub fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        b if b >= KIB * KIB && b % (KIB * KIB) == 0 => format!("{} MiB", b / (KIB * KIB)),
        b if b >= KIB && b % KIB == 0 => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

/// `text` with every control character (C0, DEL, C1, so line ends and tabs too) and every
/// Unicode direction override escaped as `\u{…}` (`\n`, `\r`, `\t` and `\\` as such), so that
/// printing it cannot move the cursor, change colours, or reorder what follows. Borrowed when
/// there is nothing to escape, which is nearly always.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether [`for_terminal`] escapes `c`. A backslash is escaped only in text that has something
/// else to escape, so that an escaped text reads back unambiguously while a Windows path in
/// plain text stays as it is.
fn needs_escape(c: char) -> bool {
    c.is_control() || is_direction_control(c)
}

/// The Unicode characters that reorder the text after them (the "Trojan source" characters).
fn is_direction_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// At most `max_chars` characters of `text`, for quoting an untrusted text in a message: a
/// longer one is cut on a character boundary and ends with `… (N bytes)`, N its whole length.
pub fn prefix(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len())),
    }
}

/// How many characters of an untrusted text a message quotes ([`prefix`]): enough to recognise
/// a command line or an answer, short enough for one line of a terminal or a stored reason.
pub const QUOTE_CHARS: usize = 200;

/// [`prefix`] of [`QUOTE_CHARS`] characters: the form every message quotes untrusted text in.
pub fn quote(text: &str) -> Cow<'_, str> {
    prefix(text, QUOTE_CHARS)
}

/// The longest path a message shows whole ([`short_path`]).
pub const PATH_CHARS: usize = 160;

/// `path` short enough for one line of a message: one longer than [`PATH_CHARS`] characters is
/// shown by its first names and its last two, with `…` and the number of names left out between
/// (`/tmp/arbiter-jail-1-0/…1496 names…/d/d`), each name itself cut to a [`prefix`] of 40.
pub fn short_path(path: &Path) -> Cow<'_, str> {
    let whole = path.to_string_lossy();
    if whole.chars().count() <= PATH_CHARS {
        return whole;
    }
    let names: Vec<Cow<'_, str>> = path
        .iter()
        .map(|name| match name.to_string_lossy() {
            Cow::Borrowed(name) => prefix(name, 40),
            Cow::Owned(name) => Cow::Owned(prefix(&name, 40).into_owned()),
        })
        .collect();
    let (first, last) = (if path.has_root() { 3 } else { 2 }, 2);
    if names.len() <= first + last {
        return Cow::Owned(names.join("/").replacen("//", "/", 1));
    }
    let left_out = names.len() - first - last;
    let mut shown = names[..first].join("/").replacen("//", "/", 1);
    let _ = write!(
        shown,
        "/…{left_out} names…/{}",
        names[names.len() - last..].join("/")
    );
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        assert!(matches!(for_terminal("Łukasz C++ bot"), Cow::Borrowed(_)));
        assert_eq!(for_terminal(r"C:\bots\a.exe"), r"C:\bots\a.exe");
    }

    #[test]
    fn escape_sequences_and_line_ends_are_shown_escaped() {
        assert_eq!(
            for_terminal("\u{1b}[2J\u{1b}]0;pwned\u{7}"),
            r"\u{1b}[2J\u{1b}]0;pwned\u{7}"
        );
        assert_eq!(for_terminal("a\nb\r\tc\\"), r"a\nb\r\tc\\");
        assert_eq!(for_terminal("\u{9b}31m\u{7f}"), r"\u{9b}31m\u{7f}");
        assert_eq!(for_terminal("abc\u{202e}fdp.exe"), r"abc\u{202e}fdp.exe");
    }

    #[test]
    fn a_long_text_is_quoted_by_its_beginning_and_its_length() {
        assert_eq!(prefix("short", 10), "short");
        assert_eq!(prefix("żółw żółw", 4), "żółw… (15 bytes)");
        assert_eq!(
            quote(&"x".repeat(10_000_000)).len(),
            200 + "… (10000000 bytes)".len()
        );
    }

    #[test]
    fn an_endless_file_is_refused_at_its_limit() {
        let error = read_capped(Path::new("/dev/zero"), 1024 * 1024).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(error.to_string(), "the file is larger than 1 MiB");
        let empty = read_to_string_capped(Path::new("/dev/null"), 0).unwrap();
        assert_eq!(empty, "");
        assert_eq!(size(64 * 1024), "64 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }

    #[test]
    fn a_long_path_is_shown_by_its_ends() {
        assert_eq!(short_path(Path::new("/tmp/a/b")), "/tmp/a/b");
        let deep: std::path::PathBuf = ["/tmp", "arbiter-jail-1-0"]
            .into_iter()
            .chain(std::iter::repeat_n("d", 1500))
            .chain(["file"])
            .collect();
        assert_eq!(
            short_path(&deep),
            "/tmp/arbiter-jail-1-0/…1499 names…/d/file"
        );
        let long_names = Path::new("/x").join("y".repeat(300)).join("z".repeat(300));
        let shown = short_path(&long_names);
        assert!(shown.len() < PATH_CHARS, "{shown}");
        assert!(shown.starts_with("/x/yyyy"), "{shown}");
    }

    proptest! {
        #[test]
        fn nothing_escaped_reaches_a_terminal(text in any::<String>()) {
            let shown = for_terminal(&text);
            prop_assert!(!shown.chars().any(needs_escape));
        }

        #[test]
        fn a_quote_is_short_and_begins_the_text(text in any::<String>(), max in 0usize..50) {
            let quoted = prefix(&text, max);
            let kept = quoted.split("… (").next().unwrap_or_default();
            prop_assert!(text.starts_with(kept));
            prop_assert!(kept.chars().count() <= max);
        }
    }
}
