//! The ownership estimate used for dead stones: the average final owner of
//! each point over playouts of the settle policy.

use super::playout::{Policy, final_owner, playout};
use crate::go::game::Game;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// For each point, the average final owner over `n` playouts (+1 Black).
pub fn ownership(game: &Game, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SmallRng::seed_from_u64(seed ^ game.board().hash());
    let mut total = vec![0.0; crate::go::board::MAX_POINTS];
    for _ in 0..n {
        let mut b = game.board().clone();
        playout(
            &mut b,
            game.to_move(),
            Policy::Settle,
            &mut rng,
            None,
            [None, None],
            |_, _| {},
        );
        for p in b.points() {
            total[p as usize] += final_owner(&b, p) as f64;
        }
    }
    for t in &mut total {
        *t /= n.max(1) as f64;
    }
    total
}
