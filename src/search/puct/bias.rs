//! KataGo's subtree value bias correction: the network misjudges some
//! local shapes the same way wherever they occur in the tree, so each node
//! reached by a move (not a pass) files, under a key of the move, the move
//! before it and the 5×5 board around it, how far the mean of its subtree
//! has drifted from the network's value of the node (weighted by the
//! subtree's visits to the power 0.85); and each such node's own network
//! value is corrected by 0.45 times its key's mean drift
//! (`subtreeValueBiasFactor`). Re-rooting keeps the kept nodes' drift and
//! a fifth of the dropped nodes' (`subtreeValueBiasFreeProp` 0.8).

use crate::core::random::splitmix;
use crate::go::board::{Board, Color, Point};
use std::collections::HashMap;

/// The subtree's weight in its key's mean: its visits to this power
/// (`subtreeValueBiasWeightExponent`).
const WEIGHT_EXPONENT: f64 = 0.85;
/// The share of a dropped node's drift the table forgets at re-rooting.
const FREE_SHARE: f64 = 0.8;
/// The least weight whose mean drift is used.
const MIN_WEIGHT: f64 = 0.001;
/// Side of the square around a move that its key reads.
const PATTERN_RADIUS: i64 = 2;

/// One key's sums: the drifts filed under it, weighted, and the weights.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub(super) struct Drift {
    pub(super) delta: f64,
    pub(super) weight: f64,
}

/// The drifts of one tree, by key.
#[derive(Default)]
pub(super) struct BiasTable {
    entries: HashMap<u64, Drift>,
}

/// The key of the move `mv` by `mover` on `board` (before the move), the
/// last move having been `previous`; `None` for a pass or where no move
/// came before (as KataGo files none).
pub(super) fn key(
    board: &Board,
    previous: Option<Option<Point>>,
    mover: Color,
    mv: Option<Point>,
) -> Option<u64> {
    let (previous, mv) = (previous?, mv?);
    let (width, height) = (board.size().width as i64, board.size().height as i64);
    let (x, y) = board.coords(mv);
    let mut h =
        splitmix(0x5eed_b1a5 ^ u64::from(mv) ^ (u64::from(previous.map_or(u16::MAX, |p| p)) << 20));
    h ^= splitmix(mover.index() as u64 + 7);
    for dy in -PATTERN_RADIUS..=PATTERN_RADIUS {
        for dx in -PATTERN_RADIUS..=PATTERN_RADIUS {
            let (px, py) = (x as i64 + dx, y as i64 + dy);
            if !(0..width).contains(&px) || !(0..height).contains(&py) {
                continue;
            }
            let p = board.point(px as usize, py as usize);
            let colour = board.color_at(p).map_or(0, |c| 1 + c.index() as u64);
            let in_atari = colour != 0 && board.liberties(p) == 1;
            let cell = ((dy + PATTERN_RADIUS) * 5 + dx + PATTERN_RADIUS) as u64;
            h ^= splitmix((cell << 8) | (colour << 1) | u64::from(in_atari));
        }
    }
    if let Some((ko, _)) = board.ko() {
        h ^= splitmix(0xc0 << 32 | u64::from(ko));
    }
    Some(h)
}

impl BiasTable {
    /// Replaces a node's filed drift `old` by `new` under `key`; the key's
    /// mean drift after.
    pub(super) fn refile(&mut self, key: u64, old: Drift, new: Drift) -> f64 {
        let e = self.entries.entry(key).or_default();
        e.delta += new.delta - old.delta;
        e.weight += new.weight - old.weight;
        mean(e)
    }

    /// The key's mean drift (0 where nothing is filed).
    pub(super) fn mean_drift(&self, key: u64) -> f64 {
        self.entries.get(&key).map_or(0.0, mean)
    }

    /// The table for a re-rooted tree: `kept` nodes' drifts in full, the
    /// `dropped` ones' a fifth.
    pub(super) fn rebuilt<'a>(
        kept: impl Iterator<Item = (u64, Drift)>,
        dropped: impl Iterator<Item = (u64, Drift)> + 'a,
    ) -> BiasTable {
        let mut table = BiasTable::default();
        for (key, d) in dropped {
            let e = table.entries.entry(key).or_default();
            e.delta += (1.0 - FREE_SHARE) * d.delta;
            e.weight += (1.0 - FREE_SHARE) * d.weight;
        }
        for (key, d) in kept {
            let e = table.entries.entry(key).or_default();
            e.delta += d.delta;
            e.weight += d.weight;
        }
        table
    }
}

fn mean(e: &Drift) -> f64 {
    if e.weight > MIN_WEIGHT {
        e.delta / e.weight
    } else {
        0.0
    }
}

/// What a node files: its subtree's mean utility less the network's
/// value, weighted by the subtree's visits to the power 0.85.
pub(super) fn drift(subtree_mean: f64, network: f64, subtree_visits: f64) -> Drift {
    let weight = subtree_visits.powf(WEIGHT_EXPONENT);
    Drift {
        delta: (subtree_mean - network) * weight,
        weight,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_reads_the_move_the_move_before_and_the_shape_around() {
        let mut board = Board::new(9);
        let p = |x, y| board_point(9, x, y);
        let k = |b: &Board, prev, mv| key(b, Some(Some(prev)), Color::Black, Some(mv)).unwrap();
        let base = k(&board, p(0, 0), p(4, 4));
        assert_ne!(base, k(&board, p(1, 0), p(4, 4)));
        assert_ne!(base, k(&board, p(0, 0), p(4, 5)));
        // A stone two lines away changes it; one three away does not.
        board.place(Color::White, p(6, 4));
        let near = k(&board, p(0, 0), p(4, 4));
        assert_ne!(base, near);
        board.place(Color::White, p(8, 8));
        assert_eq!(near, k(&board, p(0, 0), p(4, 4)));
        // No key for a pass, nor without a move before.
        assert_eq!(key(&board, Some(Some(p(0, 0))), Color::Black, None), None);
        assert_eq!(key(&board, None, Color::Black, Some(p(4, 4))), None);
    }

    fn board_point(size: usize, x: usize, y: usize) -> Point {
        Board::new(size).point(x, y)
    }

    #[test]
    fn refiling_replaces_a_nodes_share_and_rebuilding_keeps_a_fifth_of_the_dropped() {
        let mut t = BiasTable::default();
        let a = drift(0.3, 0.1, 10.0);
        let mean = t.refile(7, Drift::default(), a);
        assert!((mean - 0.2).abs() < 1e-12);
        let b = drift(0.0, 0.1, 10.0);
        assert!((t.refile(8, Drift::default(), b) + 0.1).abs() < 1e-12);
        // The same node filing again replaces its share.
        let a2 = drift(0.5, 0.1, 20.0);
        assert!((t.refile(7, a, a2) - 0.4).abs() < 1e-12);
        assert_eq!(t.mean_drift(9), 0.0);
        let r = BiasTable::rebuilt([(7, a2)].into_iter(), [(7, a)].into_iter());
        let expected = (a2.delta + 0.2 * a.delta) / (a2.weight + 0.2 * a.weight);
        assert!((r.mean_drift(7) - expected).abs() < 1e-12);
    }
}
