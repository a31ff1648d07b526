//! Positions as RGB pictures (`render_mode="rgb_array"`): every board is a grid of square cells
//! with narrow lanes between them, where Quoridor's and Puoribor's walls stand.

use numpy::ndarray::Array3;

/// A colour, red, green, blue.
pub(super) type Rgb = [u8; 3];

/// The lanes between cells.
pub(super) const LANE_COLOUR: Rgb = [200, 185, 160];
/// A cell nothing stands on.
pub(super) const FLOOR: Rgb = [235, 220, 190];
/// Walls, obstacles.
pub(super) const WALL: Rgb = [40, 30, 25];

/// One colour a seat, for pawns and princesses (ten seats at most, Labyrinth's count).
const SEATS: [Rgb; 10] = [
    [220, 40, 40],
    [40, 90, 220],
    [30, 160, 60],
    [230, 150, 20],
    [150, 60, 190],
    [20, 170, 170],
    [200, 60, 140],
    [120, 120, 120],
    [140, 90, 40],
    [0, 0, 0],
];

/// Seat `seat`'s colour.
pub(super) fn seat_colour(seat: usize) -> Rgb {
    SEATS[seat % SEATS.len()]
}

/// The side of a cell, in pixels.
pub(super) const CELL: usize = 20;
/// The width of a lane between cells, in pixels.
const LANE: usize = 4;
/// From one cell's corner to the next one's.
const PITCH: usize = CELL + LANE;

/// A picture being drawn of a board of `columns` × `rows` cells.
pub(super) struct Grid {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Grid {
    /// A board of `columns` × `rows` cells, each of colour `floor`.
    pub(super) fn new(columns: usize, rows: usize, floor: Rgb) -> Grid {
        let (width, height) = (LANE + columns * PITCH, LANE + rows * PITCH);
        let mut grid = Grid {
            width,
            height,
            pixels: LANE_COLOUR.repeat(width * height),
        };
        for y in 0..rows {
            for x in 0..columns {
                grid.cell(x, y, floor);
            }
        }
        grid
    }

    /// Fills the rectangle of `w` × `h` pixels whose corner is `(left, top)`, clipped.
    pub(super) fn fill(&mut self, left: usize, top: usize, w: usize, h: usize, colour: Rgb) {
        for y in top..(top + h).min(self.height) {
            for x in left..(left + w).min(self.width) {
                let at = 3 * (y * self.width + x);
                self.pixels[at..at + 3].copy_from_slice(&colour);
            }
        }
    }

    /// The pixel where cell `(x, y)` starts, left and top.
    pub(super) fn corner(x: usize, y: usize) -> (usize, usize) {
        (LANE + x * PITCH, LANE + y * PITCH)
    }

    /// Paints all of cell `(x, y)`.
    pub(super) fn cell(&mut self, x: usize, y: usize, colour: Rgb) {
        let (left, top) = Grid::corner(x, y);
        self.fill(left, top, CELL, CELL, colour);
    }

    /// A square in the middle of cell `(x, y)`, `margin` pixels in from each side.
    pub(super) fn token(&mut self, x: usize, y: usize, margin: usize, colour: Rgb) {
        let (left, top) = Grid::corner(x, y);
        let side = CELL.saturating_sub(2 * margin);
        self.fill(left + margin, top + margin, side, side, colour);
    }

    /// A wall in the lane below the cells `(x, y)` to `(x + cells − 1, y)`, through the lanes
    /// between them.
    pub(super) fn wall_below(&mut self, x: usize, y: usize, cells: usize, colour: Rgb) {
        let (left, top) = Grid::corner(x, y);
        self.fill(left, top + CELL, cells * PITCH - LANE, LANE, colour);
    }

    /// A wall in the lane right of the cells `(x, y)` to `(x, y + cells − 1)`.
    pub(super) fn wall_right(&mut self, x: usize, y: usize, cells: usize, colour: Rgb) {
        let (left, top) = Grid::corner(x, y);
        self.fill(left + CELL, top, LANE, cells * PITCH - LANE, colour);
    }

    /// The crossing of lanes below and right of cell `(x, y)`, where a wall's two halves meet.
    pub(super) fn joint(&mut self, x: usize, y: usize, colour: Rgb) {
        let (left, top) = Grid::corner(x, y);
        self.fill(left + CELL, top + CELL, LANE, LANE, colour);
    }

    /// The picture as numpy wants it: rows, columns, then red, green and blue.
    pub(super) fn into_array(self) -> Array3<u8> {
        Array3::from_shape_vec((self.height, self.width, 3), self.pixels)
            .expect("the pixels are height × width × 3 bytes by construction")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_is_lanes_around_cells_and_walls_fill_lanes() {
        let mut grid = Grid::new(2, 1, FLOOR);
        grid.token(1, 0, 5, seat_colour(0));
        grid.wall_right(0, 0, 1, WALL);
        let picture = grid.into_array();
        assert_eq!(picture.shape(), &[LANE + PITCH, LANE + 2 * PITCH, 3]);
        let at = |x: usize, y: usize| [0, 1, 2].map(|c| picture[[y, x, c]]);
        assert_eq!(at(0, 0), LANE_COLOUR);
        assert_eq!(at(LANE, LANE), FLOOR);
        assert_eq!(at(LANE + CELL, LANE), WALL);
        assert_eq!(at(LANE + PITCH + CELL / 2, LANE + CELL / 2), seat_colour(0));
        assert_eq!(at(LANE + PITCH + 1, LANE + 1), FLOOR);
    }

    #[test]
    fn filling_past_the_edge_is_clipped() {
        let mut grid = Grid::new(1, 1, FLOOR);
        grid.fill(LANE, LANE, 1000, 1000, WALL);
        let picture = grid.into_array();
        assert_eq!(picture[[LANE + PITCH - 1, LANE + PITCH - 1, 0]], WALL[0]);
    }
}
