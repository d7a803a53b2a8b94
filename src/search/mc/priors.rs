//! The knowledge a new tree node starts with: hand-made priors (captures,
//! atari escapes read for ladders, ataris that catch, self-ataris, 3×3
//! patterns, nearness to the last move, the lines of empty areas) in the
//! manner of michi, and the learned move patterns' probabilities on top, in
//! the manner of Pachi's pattern prior. Each prior is a number of visits and
//! wins added to the node's statistics before the search visits it.

use super::playout::empty_area;
use super::tree::{Node, PASS};
use crate::go::board::{Board, Color, Point};
use crate::knowledge::patterns;
use crate::knowledge::prediction::Model;
use crate::knowledge::prediction::features::Position;
use crate::knowledge::prediction::spatial::Grid;
use crate::knowledge::tactics;

/// Prior wins (and visits) the likeliest move by the learned patterns gets:
/// tuned by self-play on 9×9 at 3000 playouts (80 won 218 of 400 games
/// against 40, 160 won 93 of 200 against 80).
const PATTERN_PRIOR: f32 = 80.0;

/// Prior wins (and visits) for a move at Manhattan distance 1, 2 and 3
/// from the opponent's last move (index 0, the point itself, is never
/// empty). Half of michi's 24, 22 and 8: the learned patterns already know
/// the distance to the last two moves, and the halved bonus won 228 of 400
/// self-play games against michi's at 3000 playouts on 9×9
/// (docs/strength.md).
const NEAR_LAST: [f32; 4] = [0.0, 12.0, 11.0, 4.0];

/// What the pattern priors reuse from one expansion to the next, so that
/// an expansion allocates nothing once the first has run.
#[derive(Default)]
pub(super) struct PatternScratch {
    /// The board laid out for the spatial patterns.
    grid: Grid,
    /// One candidate's features.
    features: Vec<u32>,
    /// Each candidate's strength.
    strengths: Vec<f32>,
}

/// Prior knowledge for a move: (visits, wins) added to its statistics.
/// `last` is the opponent's last move, if any.
pub(super) fn prior(board: &Board, c: Color, p: Point, last: Option<Point>) -> (f32, f32) {
    if p == PASS {
        return (10.0, 1.0);
    }
    if board.is_eye(c, p) {
        return (20.0, 0.0);
    }
    // Even prior, then bonuses as (visits, wins) in the manner of michi.
    let (mut visits, mut wins) = (10.0f32, 5.0f32);
    let mut add = |v: f32, w: f32| {
        visits += v;
        wins += w;
    };
    let mut captured = 0;
    for q in board.neighbors(p) {
        if let Some(qc) = board.color_at(q)
            && qc != c
            && board.liberties(q) == 1
        {
            captured += board.chain_size(q);
        }
    }
    if captured == 1 {
        add(15.0, 15.0);
    } else if captured > 1 {
        add(30.0, 30.0);
    }
    // Saving a chain from atari: only if it then holds (no ladder).
    if board
        .neighbors(p)
        .iter()
        .any(|&q| board.color_at(q) == Some(c) && board.liberties(q) == 1)
    {
        if tactics::move_is_safe(board, c, p, tactics::LADDER_DEPTH) {
            add(15.0, 15.0);
        } else if captured == 0 {
            add(10.0, 0.0); // runs into a ladder
        }
    }
    let self_atari = board.is_self_atari(c, p);
    if captured == 0 && self_atari {
        add(10.0, 0.0);
    }
    // An atari the opponent cannot escape (a working ladder).
    if !self_atari {
        match tactics::catches(board, c, p, tactics::LADDER_DEPTH) {
            0 => {}
            1 => add(15.0, 15.0),
            _ => add(30.0, 30.0),
        }
    }
    if patterns::matches(board, p) {
        add(10.0, 10.0);
    }
    // Near the last move.
    if let Some(l) = last.filter(|&l| l != PASS) {
        let (x, y) = board.coords(p);
        let (lx, ly) = board.coords(l);
        let d = x.abs_diff(lx) + y.abs_diff(ly);
        if let Some(&bonus) = NEAR_LAST.get(d) {
            add(bonus, bonus);
        }
    }
    // Empty areas: the third line and above are good, the first two poor.
    let line = board.line(p) - 1;
    if empty_area(board, p, 3) {
        if line >= 2 {
            add(10.0, 10.0);
        } else {
            add(10.0, 0.0);
        }
    }
    (visits, wins)
}

/// Adds to each child's prior, as wins, `PATTERN_PRIOR` times the square
/// root of its learned probability relative to the likeliest child's
/// (in the manner of Pachi's pattern prior).
pub(super) fn add_pattern_priors(
    model: &Model,
    board: &Board,
    c: Color,
    [last, previous]: [Option<Point>; 2],
    out: &mut [Node],
    scratch: &mut PatternScratch,
) {
    let last = last.filter(|&l| l != PASS);
    let grid = std::mem::take(&mut scratch.grid);
    let pos = Position::with_grid(board, c, last, previous, grid);
    let PatternScratch {
        features,
        strengths,
        ..
    } = scratch;
    strengths.clear();
    strengths.extend(out.iter().map(|ch| {
        model.features(&pos, ch.mv, features);
        model.strength(features)
    }));
    scratch.grid = pos.into_grid();
    let best = strengths.iter().copied().fold(f32::MIN_POSITIVE, f32::max);
    for (ch, &s) in out.iter_mut().zip(strengths.iter()) {
        let bonus = PATTERN_PRIOR * (s / best).sqrt();
        ch.visits += bonus;
        ch.wins += bonus;
        ch.prior_visits += bonus;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate((visits, wins): (f32, f32)) -> f32 {
        wins / visits
    }

    /// White's stone at C4 is in atari (its last liberty C5); Black's own
    /// eye at A1; B3 for White would be a self-atari of one stone.
    const BOARD: &str = "
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . X O X . . .
        . . X . . . .
        X X . . . . .
        . X . . . . .";

    #[test]
    fn a_capture_is_worth_more_than_a_quiet_move_and_an_own_eye_nothing() {
        let board = Board::from_ascii(BOARD);
        let at = |x, y| board.point(x, y);
        assert_eq!(board.liberties(at(2, 3)), 1);
        let quiet = prior(&board, Color::Black, at(5, 5), None);
        let capture = prior(&board, Color::Black, at(2, 4), None);
        assert!(rate(capture) > rate(quiet), "{capture:?} {quiet:?}");
        assert!(capture.0 > quiet.0);
        assert!(board.is_eye(Color::Black, at(0, 0)));
        let eye = prior(&board, Color::Black, at(0, 0), None);
        assert_eq!(eye.1, 0.0);
    }

    #[test]
    fn a_self_atari_is_discouraged_and_the_opponents_last_move_draws() {
        let board = Board::from_ascii(BOARD);
        let at = |x, y| board.point(x, y);
        assert!(board.is_self_atari(Color::White, at(1, 2)));
        let self_atari = prior(&board, Color::White, at(1, 2), None);
        let open = prior(&board, Color::White, at(5, 2), None);
        assert!(rate(self_atari) < rate(open), "{self_atari:?} {open:?}");
        let near = prior(&board, Color::White, at(5, 4), Some(at(5, 5)));
        let far = prior(&board, Color::White, at(5, 4), None);
        assert!(near.1 > far.1, "{near:?} {far:?}");
    }

    #[test]
    fn in_an_empty_area_the_third_line_is_worth_more_than_the_first() {
        let board = Board::new(9);
        let first = prior(&board, Color::Black, board.point(0, 4), None);
        let third = prior(&board, Color::Black, board.point(2, 4), None);
        assert!(rate(first) < rate(third), "{first:?} {third:?}");
    }

    #[test]
    fn the_likeliest_move_gets_the_whole_pattern_prior_and_the_others_less() {
        let board = Board::new(9);
        let mut children: Vec<Node> = board
            .empty_points()
            .iter()
            .map(|&p| Node::new(p, 10.0, 5.0))
            .collect();
        let mut scratch = PatternScratch::default();
        add_pattern_priors(
            Model::embedded(),
            &board,
            Color::Black,
            [None, None],
            &mut children,
            &mut scratch,
        );
        let added: Vec<f32> = children.iter().map(|ch| ch.visits - 10.0).collect();
        let most = added.iter().copied().fold(0.0, f32::max);
        assert!((most - PATTERN_PRIOR).abs() < 1e-3, "{most}");
        // As many wins as visits, all of them counted as prior.
        for ch in &children {
            assert!((ch.wins - 5.0 - (ch.visits - 10.0)).abs() < 1e-3);
            assert_eq!(ch.prior_visits, ch.visits);
        }
        let visits_at = |x, y| {
            let p = board.point(x, y);
            children.iter().find(|ch| ch.mv == p).unwrap().visits
        };
        // Strong players open on the 3-4 point, never on the 1-1 point.
        assert!(visits_at(0, 0) < visits_at(2, 3));
    }
}
