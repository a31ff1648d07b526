//! Standard output and standard error as every command writes them.
//!
//! `println!` panics when the reader of standard output has gone away (`arbiter … | head`).
//! Commands write through [`outln!`] and [`out!`] instead, which return the error; a broken
//! pipe becomes [`ReaderGone`], which [`crate::run`] turns into a quiet end, as `cat` and `ls`
//! do. Standard error carries diagnostics only: [`errln!`] drops what cannot be written.

use std::io::{self, Write};

/// Standard output, whose broken pipe is a [`ReaderGone`] error.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().write(buf).map_err(reader_gone)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        io::stdout().lock().write_all(buf).map_err(reader_gone)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush().map_err(reader_gone)
    }
}

/// The reader of standard output went away: nobody is left to read the rest, which is no
/// failure of the command.
#[derive(Debug)]
pub struct ReaderGone;

impl std::fmt::Display for ReaderGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the reader of standard output went away")
    }
}

impl std::error::Error for ReaderGone {}

fn reader_gone(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, ReaderGone)
    } else {
        error
    }
}

/// Whether `error` is, or was caused by, standard output's reader going away.
pub fn is_reader_gone(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<ReaderGone>()
            || cause
                .downcast_ref::<io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.is::<ReaderGone>())
    })
}

/// `print!` that returns the error instead of panicking (a `std::io::Result<()>`).
macro_rules! out {
    ($($arg:tt)*) => {
        ::std::io::Write::write_fmt(&mut $crate::out::Stdout, format_args!($($arg)*))
    };
}

/// `println!` that returns the error instead of panicking (a `std::io::Result<()>`).
macro_rules! outln {
    () => {
        ::std::io::Write::write_all(&mut $crate::out::Stdout, b"\n")
    };
    ($($arg:tt)*) => {
        ::std::io::Write::write_fmt(
            &mut $crate::out::Stdout,
            format_args!("{}\n", format_args!($($arg)*)),
        )
    };
}

/// `eprintln!` that never panics: a diagnostic that cannot be written is dropped.
macro_rules! errln {
    ($($arg:tt)*) => {{
        let _ = ::std::io::Write::write_fmt(
            &mut ::std::io::stderr(),
            format_args!("{}\n", format_args!($($arg)*)),
        );
    }};
}

pub(crate) use {errln, out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_told_from_other_errors() {
        let gone = anyhow::Error::new(reader_gone(io::ErrorKind::BrokenPipe.into()));
        assert!(is_reader_gone(&gone.context("printing the standings")));
        let full = anyhow::Error::new(reader_gone(io::Error::from_raw_os_error(libc::ENOSPC)));
        assert!(!is_reader_gone(&full));
        // A broken pipe elsewhere (a bot's socket) is an error like any other.
        let socket = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!is_reader_gone(&socket));
    }
}
