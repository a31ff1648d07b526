//! A Labyrinth position as text: each cell is its tile drawn with a box-drawing character and
//! a mark (a princess's seat, `*` an active display, `#` a blocked cell), then one line per seat.

use arbiter_games::labyrinth::Labyrinth;

use super::turn_line;

/// The box-drawing character of a tile, by its open sides (1 north, 2 west, 4 south, 8 east).
const GLYPHS: [char; 16] = [
    ' ', '╵', '╴', '┘', '╷', '│', '┐', '┤', '╶', '└', '─', '┴', '┌', '├', '┬', '┼',
];

fn glyph(tile: u8) -> char {
    GLYPHS[usize::from(tile & 15)]
}

/// The mark after a cell's tile: the lowest seat standing there (`0`–`9`), else `*` for an
/// active display, `#` for a blocked cell, or a space.
fn mark(game: &Labyrinth, x: usize, y: usize) -> char {
    let here = |c: arbiter_games::labyrinth::Cell| c.x as usize == x && c.y as usize == y;
    if let Some(seat) = game.positions().into_iter().position(here) {
        return char::from_digit(seat as u32 % 10, 10).unwrap_or('?');
    }
    if game.active_displays().any(|(_, c)| here(c)) {
        return '*';
    }
    if game.level().blocked.iter().any(|&c| here(c)) {
        return '#';
    }
    ' '
}

/// The whole picture: the board, each seat's score, extra tile and target, and the turn.
pub(super) fn picture(game: &Labyrinth) -> String {
    let mut text = String::new();
    for y in 0..game.height() {
        for x in 0..game.width() {
            text.push(glyph(game.tile(x, y)));
            text.push(mark(game, x, y));
        }
        text.push('\n');
    }
    for seat in 0..game.positions().len() {
        let target = match game.current_target(seat) {
            Some(d) => format!("{}", game.display_cell(d)),
            None => "none".to_owned(),
        };
        text.push_str(&format!(
            "player {seat}: {} points, extra {}, target {target}\n",
            game.score(seat),
            glyph(game.extra(seat)),
        ));
    }
    text.push_str(&format!(
        "round {} of {}\n",
        game.round(),
        game.level().max_tick
    ));
    text + &turn_line(game)
}
