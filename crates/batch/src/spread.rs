//! Bit sets turned into arrays of 0/1 bytes, eight bytes at a time.

/// Byte `i` of `SPREAD[b]` is bit `i` of `b`.
static SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            table[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    table
};

/// Writes bit `x` of `rows[y]` (0 or 1) into `out[y·stride + x]` for each `x` below `width`
/// (no row has a bit at or past `width`).
///
/// Each row is written eight bytes at a time, whatever it holds (a branch on the bits would be
/// mispredicted half the time): a row may write zeros up to seven bytes past its end, over the
/// next row or whatever follows in `out`, which the caller writes afterwards.
#[inline(always)]
pub(crate) fn spread_rows(rows: &[u32], width: usize, stride: usize, out: &mut [u8]) {
    for (y, &row) in rows.iter().enumerate() {
        for k in 0..width.div_ceil(8) {
            let bytes = SPREAD[(row >> (8 * k)) as usize & 0xff].to_le_bytes();
            let at = y * stride + 8 * k;
            match out.get_mut(at..at + 8) {
                Some(chunk) => chunk.copy_from_slice(&bytes),
                None => out[at..].iter_mut().zip(bytes).for_each(|(o, b)| *o = b),
            }
        }
    }
}

/// Sets `out[i]` to bit `i` of `words` (bit `i % 64` of word `i / 64`) for `i` below `len`,
/// eight bytes at a time: up to seven zeros may be written past `len`, over whatever follows
/// in `out`, which the caller writes afterwards.
#[inline(always)]
pub(crate) fn spread_bits(words: &[u64], len: usize, out: &mut [u8]) {
    for k in 0..len.div_ceil(8) {
        let at = 8 * k;
        let valid = (1usize << (len - at).min(8)) - 1;
        let byte = (words[k / 8] >> (8 * (k % 8))) as usize & valid;
        let bytes = SPREAD[byte].to_le_bytes();
        match out.get_mut(at..at + 8) {
            Some(chunk) => chunk.copy_from_slice(&bytes),
            None => out[at..].iter_mut().zip(bytes).for_each(|(o, b)| *o = b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bit_lands_on_its_byte() {
        for (width, stride) in [(4, 4), (4, 5), (8, 8), (8, 9), (12, 13), (24, 24)] {
            let rows: Vec<u32> = [0u32, 1, 0b1011, 0xdead_beef, u32::MAX, 0]
                .iter()
                .map(|r| r & ((1u64 << width) - 1) as u32)
                .collect();
            let mut out = vec![0u8; rows.len() * stride];
            spread_rows(&rows, width, stride, &mut out);
            let mut expected = vec![0u8; out.len()];
            for (y, row) in rows.iter().enumerate() {
                for x in 0..width {
                    expected[y * stride + x] = (row >> x & 1) as u8;
                }
            }
            assert_eq!(out, expected, "rows of {width} bits, {stride} apart");
        }
    }

    #[test]
    fn bit_sets_become_bytes() {
        let words = [0x8000_0000_0000_0001u64, 0b101];
        for len in [3, 64, 66, 67, 81] {
            let mut out = vec![0u8; len + 3];
            spread_bits(&words, len, &mut out);
            let bit = |i: usize| (words[i / 64] >> (i % 64) & 1) as u8;
            let expected: Vec<u8> = (0..len + 3)
                .map(|i| if i < len { bit(i) } else { 0 })
                .collect();
            assert_eq!(out, expected, "{len} bits");
        }
    }
}
