//! Handicap stones: the fixed points of the GTP specification (GNU Go's
//! placement), a free placement that spreads further stones out, and which
//! setup stones count as a handicap.

use crate::go::board::{Board, Color, Point};

/// Whether setup stones are a handicap (White's bonus under the rules
/// counts them): two or more, all Black, as KataGo reads `initialStones`.
pub fn stones_are_handicap(stones: &[(Color, Point)]) -> bool {
    stones.len() >= 2 && stones.iter().all(|&(c, _)| c == Color::Black)
}

/// The fixed handicap points for `n` stones on a `size` board, in GNU Go's
/// order, or the reason it cannot be done.
pub fn fixed(size: usize, n: usize) -> Result<Vec<(usize, usize)>, &'static str> {
    if n < 2 {
        return Err("invalid number of stones");
    }
    if size < 7 {
        return Err("invalid number of stones: no fixed handicap below 7x7");
    }
    let max = if size.is_multiple_of(2) || size == 7 {
        4
    } else {
        9
    };
    if n > max {
        return Err("invalid number of stones: too many for this board");
    }
    let edge = if size >= 12 { 3 } else { 2 };
    let (lo, hi, mid) = (edge, size - 1 - edge, size / 2);
    // D4, Q16, D16, Q4, then the sides and centre as the specification adds them.
    let corners = [(lo, lo), (hi, hi), (lo, hi), (hi, lo)];
    let mut points: Vec<(usize, usize)> = corners.iter().take(n.min(4)).copied().collect();
    let sides = match n {
        5 => vec![(mid, mid)],
        6 => vec![(lo, mid), (hi, mid)],
        7 => vec![(lo, mid), (hi, mid), (mid, mid)],
        8 => vec![(lo, mid), (hi, mid), (mid, lo), (mid, hi)],
        9 => vec![(lo, mid), (hi, mid), (mid, lo), (mid, hi), (mid, mid)],
        _ => vec![],
    };
    points.extend(sides);
    Ok(points)
}

/// Free placement of `n` stones (2 ≤ n < size²): the fixed points where they
/// exist, then each further stone on the empty point farthest from all
/// stones placed so far, preferring the third and fourth lines.
pub fn free(board: &Board, n: usize) -> Result<Vec<Point>, &'static str> {
    let size = board.size();
    if n < 2 || n >= size * size {
        return Err("invalid number of stones");
    }
    let fixed_count = if size < 7 {
        0
    } else if size.is_multiple_of(2) || size == 7 {
        n.min(4)
    } else {
        n.min(9)
    };
    let mut chosen: Vec<(usize, usize)> = if fixed_count >= 2 {
        fixed(size, fixed_count)?
    } else {
        Vec::new()
    };
    let ideal_line = if size >= 13 { 3.0 } else { 2.0 };
    while chosen.len() < n {
        let mut best = None;
        let mut best_value = f64::MIN;
        for y in 0..size {
            for x in 0..size {
                if chosen.contains(&(x, y)) {
                    continue;
                }
                let nearest = chosen
                    .iter()
                    .map(|&(a, b)| a.abs_diff(x).max(b.abs_diff(y)) as f64)
                    .fold(f64::MAX, f64::min);
                let line = x.min(y).min(size - 1 - x).min(size - 1 - y) as f64;
                let value = nearest.min(size as f64) * 10.0 - (line - ideal_line).abs();
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
            fixed(19, n)
                .unwrap()
                .into_iter()
                .map(|(x, y)| crate::go::vertex::vertex_name(Some(b.point(x, y)), 19))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(2), "D4 Q16");
        assert_eq!(names(5), "D4 Q16 D16 Q4 K10");
        assert_eq!(names(8), "D4 Q16 D16 Q4 D10 Q10 K4 K16");
        assert!(fixed(19, 10).is_err());
        assert!(fixed(10, 5).is_err());
        assert!(fixed(6, 2).is_err());
        assert!(fixed(19, 1).is_err());
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
