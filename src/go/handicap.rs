//! Handicap stones: the fixed points of the GTP specification (GNU Go's
//! placement), a free placement that spreads further stones out, and which
//! setup stones count as a handicap.

use crate::go::board::{Board, BoardSize, Color, Point};

/// Whether setup stones are a handicap (White's bonus under the rules
/// counts them): two or more, all Black, as KataGo reads `initialStones`.
pub fn stones_are_handicap(stones: &[(Color, Point)]) -> bool {
    stones.len() >= 2 && stones.iter().all(|&(c, _)| c == Color::Black)
}

/// The most fixed handicap stones a board of `size` takes: none below 7
/// on a side, 4 where a side is even or 7 (no centre line), 9 otherwise
/// (KataGo's `placeFixedHandicap` reads each side so).
fn most_fixed(size: BoardSize) -> usize {
    let side_most = |side: usize| match side {
        0..7 => 0,
        7 => 4,
        _ if side.is_multiple_of(2) => 4,
        _ => 9,
    };
    side_most(size.width).min(side_most(size.height))
}

/// The fixed handicap points for `n` stones on a board of `size`, in GNU
/// Go's order, or the reason it cannot be done. On a rectangle each axis
/// takes its own star lines, as KataGo places them.
pub fn fixed(size: BoardSize, n: usize) -> Result<Vec<(usize, usize)>, &'static str> {
    if n < 2 {
        return Err("invalid number of stones");
    }
    let max = most_fixed(size);
    if max == 0 {
        return Err("invalid number of stones: no fixed handicap below 7x7");
    }
    if n > max {
        return Err("invalid number of stones: too many for this board");
    }
    // Each axis's low, high and middle star lines.
    let lines = |side: usize| {
        let edge = if side >= 12 { 3 } else { 2 };
        (edge, side - 1 - edge, side / 2)
    };
    let ((lx, hx, mx), (ly, hy, my)) = (lines(size.width), lines(size.height));
    // D4, Q16, D16, Q4, then the sides and centre as the specification adds them.
    let corners = [(lx, ly), (hx, hy), (lx, hy), (hx, ly)];
    let mut points: Vec<(usize, usize)> = corners.iter().take(n.min(4)).copied().collect();
    let sides = match n {
        5 => vec![(mx, my)],
        6 => vec![(lx, my), (hx, my)],
        7 => vec![(lx, my), (hx, my), (mx, my)],
        8 => vec![(lx, my), (hx, my), (mx, ly), (mx, hy)],
        9 => vec![(lx, my), (hx, my), (mx, ly), (mx, hy), (mx, my)],
        _ => vec![],
    };
    points.extend(sides);
    Ok(points)
}

/// Free placement of `n` stones (2 ≤ n < the board's points): the fixed
/// points where they exist, then each further stone on the empty point
/// farthest from all stones placed so far, preferring the third and fourth
/// lines.
pub fn free(board: &Board, n: usize) -> Result<Vec<Point>, &'static str> {
    let size = board.size();
    if n < 2 || n >= size.points() {
        return Err("invalid number of stones");
    }
    let fixed_count = n.min(most_fixed(size));
    let mut chosen: Vec<(usize, usize)> = if fixed_count >= 2 {
        fixed(size, fixed_count)?
    } else {
        Vec::new()
    };
    let ideal_line = if size.shorter() >= 13 { 3.0 } else { 2.0 };
    while chosen.len() < n {
        let mut best = None;
        let mut best_value = f64::MIN;
        for y in 0..size.height {
            for x in 0..size.width {
                if chosen.contains(&(x, y)) {
                    continue;
                }
                let nearest = chosen
                    .iter()
                    .map(|&(a, b)| a.abs_diff(x).max(b.abs_diff(y)) as f64)
                    .fold(f64::MAX, f64::min);
                let line = f64::from(crate::go::board::line(size, x, y) - 1);
                let value = nearest.min(size.longer() as f64) * 10.0 - (line - ideal_line).abs();
                if value > best_value {
                    best_value = value;
                    best = Some((x, y));
                }
            }
        }
        chosen.push(best.expect("a free point remains"));
    }
    Ok(chosen.into_iter().map(|(x, y)| board.point(x, y)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_or_more_black_setup_stones_are_a_handicap() {
        let board = Board::new(9);
        let (a, b) = (board.point(2, 2), board.point(6, 6));
        assert!(stones_are_handicap(&[(Color::Black, a), (Color::Black, b)]));
        assert!(!stones_are_handicap(&[(Color::Black, a)]));
        assert!(!stones_are_handicap(&[
            (Color::Black, a),
            (Color::White, b)
        ]));
    }

    #[test]
    fn gtp_specification_points_on_19() {
        let names = |n| {
            let b = Board::new(19);
            fixed(19.into(), n)
                .unwrap()
                .into_iter()
                .map(|(x, y)| crate::go::vertex::vertex_name(Some(b.point(x, y)), 19))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(2), "D4 Q16");
        assert_eq!(names(5), "D4 Q16 D16 Q4 K10");
        assert_eq!(names(8), "D4 Q16 D16 Q4 D10 Q10 K4 K16");
        assert!(fixed(19.into(), 10).is_err());
        assert!(fixed(10.into(), 5).is_err());
        assert!(fixed(6.into(), 2).is_err());
        assert!(fixed(19.into(), 1).is_err());
    }

    #[test]
    fn a_rectangle_takes_each_axis_star_lines() {
        let size = BoardSize::new(19, 9).unwrap();
        let b = Board::new(size);
        let names = fixed(size, 4)
            .unwrap()
            .into_iter()
            .map(|(x, y)| crate::go::vertex::vertex_name(Some(b.point(x, y)), size))
            .collect::<Vec<_>>();
        assert_eq!(names, ["D3", "Q7", "D7", "Q3"]);
        assert_eq!(
            fixed(size, 9).unwrap().last(),
            Some(&(9, 4)),
            "the centre of a 19x9 board"
        );
        assert!(
            fixed(BoardSize::new(19, 10).unwrap(), 5).is_err(),
            "an even side"
        );
        assert!(
            fixed(BoardSize::new(19, 6).unwrap(), 2).is_err(),
            "a short side"
        );
        assert_eq!(free(&b, 12).unwrap().len(), 12);
    }

    #[test]
    fn free_placement_fills_what_is_asked() {
        let b = Board::new(5);
        let pts = free(&b, 24).unwrap();
        let mut sorted = pts.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
        assert!(free(&b, 25).is_err());
    }
}
