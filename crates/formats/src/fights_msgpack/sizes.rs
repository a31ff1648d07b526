//! The sizes a log announces, checked before anything is decoded.
//!
//! msgpack writes the length of a list, map, string or binary before its data. The decoder
//! does not allocate by those lengths, but every value it decodes takes tens of bytes for one
//! byte of the log: a 256 MiB log of empty lists would be gigabytes once decoded. So the log is
//! walked first, without allocating by anything it says: every announced length is compared
//! with the bytes that follow it, and the values are counted against what a log can hold.

use super::ImportError;

/// Most elements (positions) a log may hold: a Puoribor game ends after 200 actions unless
/// its environment was changed, and this is 25 times that.
pub const MAX_ELEMENTS: u64 = 5_000;

/// Most msgpack values a log may hold: an element of a real log holds about 570 (the board's
/// 486 cells, its lists, the keys), so this leaves room for every element of the longest log.
pub const MAX_VALUES: u64 = MAX_ELEMENTS * 800;

/// The deepest nesting a log may have: a list of maps holding a (6, 9, 9) board is six levels
/// at most.
pub const MAX_DEPTH: usize = 32;

/// What the header of one value announces.
enum Announces {
    /// A value of a fixed number of bytes after its header.
    Scalar(u64),
    /// A string, binary or extension of this many bytes after its header.
    Data(u64, &'static str),
    /// A list of this many values.
    List(u64),
    /// A map of this many entries (twice as many values).
    Map(u64),
}

/// Checks what the log at `bytes` announces against what it holds. A log that ends too early
/// or holds a byte msgpack does not define passes: the decoder names where it stops.
pub fn check(bytes: &[u8]) -> Result<(), ImportError> {
    let mut at: u64 = 0;
    // The values still to come in each list or map that is open, innermost last.
    let mut open: Vec<u64> = Vec::new();
    let mut values: u64 = 0;
    let len = bytes.len() as u64;
    loop {
        let offset = at;
        let Some((header, announces)) = header(bytes, at) else {
            return Ok(());
        };
        values = values.saturating_add(1);
        if values > MAX_VALUES {
            return Err(too_large(
                offset,
                format!(
                    "the log holds more than {MAX_VALUES} msgpack values, more than any log of {MAX_ELEMENTS} positions"
                ),
            ));
        }
        at = at.saturating_add(header);
        let follow = len.saturating_sub(at);
        let items = match announces {
            Announces::Scalar(size) => {
                at = at.saturating_add(size);
                0
            }
            Announces::Data(size, what) if size > follow => {
                let problem = format!("{what} of {size} bytes, but only {}", follow_text(follow));
                return Err(too_large(offset, problem));
            }
            Announces::Data(size, _) => {
                at = at.saturating_add(size);
                0
            }
            Announces::List(count) | Announces::Map(count) => {
                let (what, items) = match announces {
                    Announces::List(_) => ("list", count),
                    _ => ("map", count.saturating_mul(2)),
                };
                check_count(offset, what, count, items, follow, open.is_empty())?;
                items
            }
        };
        if items > 0 {
            if open.len() >= MAX_DEPTH {
                let problem = format!(
                    "lists and maps nested deeper than {MAX_DEPTH} levels (the depth limit)"
                );
                return Err(too_large(offset, problem));
            }
            open.push(items);
            continue;
        }
        // One value is complete, and with it every list or map it was the last value of.
        loop {
            let Some(left) = open.last_mut() else {
                return Ok(());
            };
            *left -= 1;
            if *left > 0 {
                break;
            }
            open.pop();
        }
    }
}

/// Checks the count of a list or map at `offset`: each of its `items` values takes a byte at
/// least, and the log itself (the `outermost` list) has at most [`MAX_ELEMENTS`].
fn check_count(
    offset: u64,
    what: &str,
    count: u64,
    items: u64,
    follow: u64,
    outermost: bool,
) -> Result<(), ImportError> {
    if items > follow {
        let problem = format!(
            "a {what} of {count} {}, but only {}",
            if what == "map" { "entries" } else { "values" },
            follow_text(follow)
        );
        return Err(too_large(offset, problem));
    }
    if outermost && count > MAX_ELEMENTS {
        let problem =
            format!("the log announces {count} positions; at most {MAX_ELEMENTS} are read");
        return Err(too_large(offset, problem));
    }
    Ok(())
}

fn follow_text(follow: u64) -> String {
    match follow {
        1 => "1 byte follows".into(),
        n => format!("{n} bytes follow"),
    }
}

fn too_large(offset: u64, problem: String) -> ImportError {
    ImportError::Size { offset, problem }
}

/// The length of the value's header at `at` (marker and length bytes) and what it announces;
/// `None` past the end or at a byte msgpack does not use.
fn header(bytes: &[u8], at: u64) -> Option<(u64, Announces)> {
    let at = usize::try_from(at).ok()?;
    let marker = *bytes.get(at)?;
    // The big-endian length of `width` bytes after the marker.
    let length = |width: usize| -> Option<u64> {
        let end = at.checked_add(1)?.checked_add(width)?;
        let field = bytes.get(at + 1..end)?;
        Some(field.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
    };
    let sized =
        |width: usize, make: fn(u64) -> Announces| Some((1 + width as u64, make(length(width)?)));
    let string = |n| Announces::Data(n, "a string");
    let binary = |n| Announces::Data(n, "a binary");
    // An extension's type byte follows its length.
    let extension = |n: u64| Announces::Data(n.saturating_add(1), "an extension");
    Some(match marker {
        0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (1, Announces::Scalar(0)),
        0x80..=0x8f => (1, Announces::Map(u64::from(marker & 0x0f))),
        0x90..=0x9f => (1, Announces::List(u64::from(marker & 0x0f))),
        0xa0..=0xbf => (1, string(u64::from(marker & 0x1f))),
        0xc4 => sized(1, binary)?,
        0xc5 => sized(2, binary)?,
        0xc6 => sized(4, binary)?,
        0xc7 => sized(1, extension)?,
        0xc8 => sized(2, extension)?,
        0xc9 => sized(4, extension)?,
        0xca | 0xce | 0xd2 => (1, Announces::Scalar(4)),
        0xcb | 0xcf | 0xd3 => (1, Announces::Scalar(8)),
        0xcc | 0xd0 => (1, Announces::Scalar(1)),
        0xcd | 0xd1 => (1, Announces::Scalar(2)),
        // fixext 1, 2, 4, 8, 16: the type byte and the data.
        0xd4..=0xd8 => (1, Announces::Scalar(1 + (1u64 << (marker - 0xd4)))),
        0xd9 => sized(1, string)?,
        0xda => sized(2, string)?,
        0xdb => sized(4, string)?,
        0xdc => sized(2, Announces::List)?,
        0xdd => sized(4, Announces::List)?,
        0xde => sized(2, Announces::Map)?,
        0xdf => sized(4, Announces::Map)?,
        0xc1 => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(bytes: &[u8]) -> String {
        check(bytes).unwrap_err().to_string()
    }

    #[test]
    fn announced_lengths_are_compared_with_the_bytes_that_follow() {
        assert_eq!(
            problem(&[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0]),
            "at byte 0: a list of 4294967295 values, but only 1 byte follows"
        );
        assert_eq!(
            problem(&[0x91, 0xdf, 0xff, 0xff, 0xff, 0xff]),
            "at byte 1: a map of 4294967295 entries, but only 0 bytes follow"
        );
        assert_eq!(
            problem(&[0x91, 0xdb, 0xff, 0xff, 0xff, 0xff, b'a']),
            "at byte 1: a string of 4294967295 bytes, but only 1 byte follows"
        );
        assert_eq!(
            problem(&[0x91, 0xc9, 0, 0, 0, 4, 0xff, 1, 2, 3]),
            "at byte 1: an extension of 5 bytes, but only 4 bytes follow"
        );
        // Ended too early, or a byte msgpack never uses: left to the decoder.
        assert!(check(&[0x92, 0xcb, 1, 2]).is_ok());
        assert!(check(&[0x91, 0xc1]).is_ok());
        assert!(check(&[0x92, 0xcb, 1, 2, 3, 4, 5, 6, 7, 8, 0xc0]).is_ok());
    }

    #[test]
    fn the_positions_the_values_and_the_depth_are_bounded() {
        let mut many = vec![0xdc, 0x13, 0x89];
        many.extend([0xc0; 5_001]);
        assert_eq!(
            problem(&many),
            "at byte 0: the log announces 5001 positions; at most 5000 are read"
        );
        // Each position a list of 1000 nils: 4,004,000 values in 4 MB.
        let mut wide = vec![0xdc, 0x0f, 0xa0];
        for _ in 0..4_000 {
            wide.extend([0xdc, 0x03, 0xe8]);
            wide.extend([0xc0; 1_000]);
        }
        assert!(problem(&wide).contains("more than 4000000 msgpack values"));
        let deep = vec![0x91; 100];
        assert_eq!(
            problem(&deep),
            "at byte 32: lists and maps nested deeper than 32 levels (the depth limit)"
        );
    }
}
