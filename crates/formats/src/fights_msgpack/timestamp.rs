//! The msgpack timestamp extension (type -1), as Python's `msgpack` reads and writes it.

use rmpv::Value;

use super::Problem;

/// The msgpack extension type of timestamps.
pub(super) const TIMESTAMP_EXT: i8 = -1;

/// A time as seconds and nanoseconds since the Unix epoch (seconds may be negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Timestamp {
    seconds: i64,
    nanos: u32,
}

impl Timestamp {
    pub(super) fn from_unix_nanos(nanos: i128) -> Timestamp {
        Timestamp {
            seconds: nanos.div_euclid(1_000_000_000) as i64,
            nanos: nanos.rem_euclid(1_000_000_000) as u32,
        }
    }

    pub(super) fn unix_nanos(self) -> i128 {
        i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// The smallest of the three layouts of the msgpack spec, as Python's `msgpack` writes.
    pub(super) fn to_ext(self) -> Value {
        let bytes = if self.seconds >> 34 == 0 {
            let seconds = self.seconds as u64;
            if self.nanos == 0 && seconds >> 32 == 0 {
                (seconds as u32).to_be_bytes().to_vec()
            } else {
                (u64::from(self.nanos) << 34 | seconds)
                    .to_be_bytes()
                    .to_vec()
            }
        } else {
            let mut bytes = self.nanos.to_be_bytes().to_vec();
            bytes.extend(self.seconds.to_be_bytes());
            bytes
        };
        Value::Ext(TIMESTAMP_EXT, bytes)
    }

    /// The timestamp of an extension's data, its nanoseconds checked (the 8- and 12-byte
    /// layouts can hold more than a second's).
    pub(super) fn from_ext(bytes: &[u8]) -> Result<Timestamp, Problem> {
        let stamp = Timestamp::from_layout(bytes)?;
        if stamp.nanos >= 1_000_000_000 {
            return Err(Problem::TimestampNanos {
                seconds: stamp.seconds,
                nanos: stamp.nanos,
            });
        }
        Ok(stamp)
    }

    fn from_layout(bytes: &[u8]) -> Result<Timestamp, Problem> {
        if let Ok(b) = <[u8; 4]>::try_from(bytes) {
            return Ok(Timestamp {
                seconds: i64::from(u32::from_be_bytes(b)),
                nanos: 0,
            });
        }
        if let Ok(b) = <[u8; 8]>::try_from(bytes) {
            let v = u64::from_be_bytes(b);
            return Ok(Timestamp {
                seconds: (v & ((1 << 34) - 1)) as i64,
                nanos: (v >> 34) as u32,
            });
        }
        let Ok(b) = <[u8; 12]>::try_from(bytes) else {
            return Err(Problem::Timestamp { len: bytes.len() });
        };
        let [n0, n1, n2, n3, seconds @ ..] = b;
        Ok(Timestamp {
            nanos: u32::from_be_bytes([n0, n1, n2, n3]),
            seconds: i64::from_be_bytes(seconds),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_take_the_smallest_layout() {
        let t = |seconds, nanos| Timestamp { seconds, nanos };
        for (stamp, len) in [
            (t(1_700_000_000, 0), 4),
            (t(1_700_000_000, 5), 8),
            (t(1 << 34, 0), 12),
            (t(-1, 999_999_999), 12),
        ] {
            let Value::Ext(TIMESTAMP_EXT, bytes) = stamp.to_ext() else {
                panic!("not a timestamp")
            };
            assert_eq!(bytes.len(), len, "{stamp:?}");
            assert_eq!(Timestamp::from_ext(&bytes).unwrap(), stamp);
        }
        let nanos = 1_700_000_000_123_456_789;
        assert_eq!(Timestamp::from_unix_nanos(nanos).unix_nanos(), nanos);
        assert_eq!(Timestamp::from_unix_nanos(-1), t(-1, 999_999_999));
    }

    #[test]
    fn other_lengths_are_refused() {
        for len in [0, 3, 5, 11, 13] {
            let error = Timestamp::from_ext(&vec![0; len]).unwrap_err();
            assert!(matches!(error, Problem::Timestamp { len: l } if l == len));
        }
    }

    #[test]
    fn nanoseconds_of_a_second_or_more_are_refused() {
        let mut twelve = u32::MAX.to_be_bytes().to_vec();
        twelve.extend(i64::MAX.to_be_bytes());
        let eight = (1_000_000_000u64 << 34).to_be_bytes();
        for bytes in [&twelve[..], &eight[..]] {
            let error = Timestamp::from_ext(bytes).unwrap_err();
            assert!(matches!(error, Problem::TimestampNanos { .. }), "{error}");
        }
    }
}
