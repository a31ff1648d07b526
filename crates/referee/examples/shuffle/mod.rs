//! The bot the referee's examples run as themselves (`EXAMPLE bot …`): it shuffles its pawn
//! sideways along its home row and back, so a match never ends before its tick limit.

use std::io::{BufRead, Write};

/// The move the bot makes: one step sideways along its home row, and back.
pub fn shuffle(x: u8, y: u8, centre: u8) -> (u8, u8) {
    (if x == centre { centre - 1 } else { centre }, y)
}

/// Plays Quoridor on stdin and stdout, calling `think` once a turn is read and before answering.
pub fn play(mut think: impl FnMut()) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    let mut next = |line: &mut String| -> Option<()> {
        loop {
            line.clear();
            if input.read_line(line).ok()? == 0 {
                return None;
            }
            if !line.trim().is_empty() {
                return Some(());
            }
        }
    };
    let number =
        |line: &String| -> i64 { line.split_whitespace().next().unwrap().parse().unwrap() };
    let Some(()) = next(&mut line) else { return };
    let players = number(&line) as usize;
    next(&mut line).unwrap();
    let me = number(&line) as usize;
    next(&mut line).unwrap();
    let centre = (number(&line) / 2) as u8;
    for _ in 0..players {
        next(&mut line).unwrap();
    }
    let mut pawn = (0, 0);
    while next(&mut line).is_some() {
        if number(&line) == -1 {
            return;
        }
        for p in 0..players {
            next(&mut line).unwrap();
            if p == me {
                let mut xy = line.split_whitespace().map(|v| v.parse::<u8>().unwrap());
                pawn = (xy.next().unwrap(), xy.next().unwrap());
            }
        }
        next(&mut line).unwrap();
        for _ in 0..number(&line) {
            next(&mut line).unwrap();
        }
        think();
        let (x, y) = shuffle(pawn.0, pawn.1, centre);
        writeln!(out, "{x} {y}").unwrap();
        out.flush().unwrap();
    }
}
