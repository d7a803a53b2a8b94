//! A second backend, for the tests and the simulated device: small,
//! deterministic arithmetic on the input planes in place of a model's
//! layers, so that the seam between the evaluator and a backend is held by
//! two implementations, a search can be tested on numbers it can predict,
//! and a simulated device's passes cost next to nothing but their sleep.
//! It takes its planes as rows of values, or (`Counting::taking_masks`,
//! the simulated device's) as a device does, a mask a point. Each point's
//! policy logit is the number of the mover's stones around it minus the
//! opponent's (spatial planes 1 and 2), the pass a fixed −3; the value
//! leans to the side with more stones; ownership is each point's stone.

use super::backend::{
    Attributes, Backend, Batching, Computation, Inputs, PassError, RawOutput, Shape, SpatialInputs,
};
use super::inputs::{GLOBAL, SPATIAL};
#[cfg(test)]
use super::{evaluator::Evaluator, model::ModelDesc};
use crate::go::board::BoardSize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The test backend; it counts its forward passes and the boards in them.
pub struct Counting {
    pub passes: AtomicUsize,
    pub boards: AtomicUsize,
    attributes: Attributes,
    /// Whether its spatial inputs are a mask a point
    /// ([`SpatialInputs::Masks`]) rather than rows of values.
    masks: bool,
}

impl Counting {
    /// The test backend taking its planes as a device does, a mask a
    /// point.
    pub fn taking_masks() -> Counting {
        Counting {
            masks: true,
            ..Counting::default()
        }
    }
}

impl Default for Counting {
    fn default() -> Counting {
        Counting {
            passes: AtomicUsize::new(0),
            boards: AtomicUsize::new(0),
            attributes: Attributes {
                name: "test".into(),
                precision: super::precision::Precision::F32,
                batching: Batching::boards(4, 4),
                peak_flops_per_cycle: 1.0,
                on_processor: true,
            },
            masks: false,
        }
    }
}

/// A thread's passes: the input buffers.
struct CountingComputation {
    counts: Arc<Counting>,
    /// Each point's rows of values, or a mask a point.
    spatial: Vec<f32>,
    global: Vec<f32>,
    metadata: Vec<f32>,
}

impl Computation for CountingComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        // Sized only: every value is written before a pass reads it.
        let per_point = if self.counts.masks { 1 } else { SPATIAL };
        self.spatial.resize(per_point * shape.rows(), 0.0);
        self.global.resize(GLOBAL * shape.batch, 0.0);
        Inputs {
            spatial: match self.counts.masks {
                true => SpatialInputs::Masks(&mut self.spatial),
                false => SpatialInputs::Rows(&mut self.spatial),
            },
            global: &mut self.global,
            metadata: &mut self.metadata,
        }
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError> {
        self.counts.passes.fetch_add(1, Relaxed);
        self.counts.boards.fetch_add(shape.batch, Relaxed);
        let points = shape.points();
        let (w, h) = (shape.width as isize, shape.height as isize);
        for (board, raw) in out.iter_mut().enumerate().take(shape.batch) {
            let row = board * points;
            let plane = |p: usize, k: usize| match self.counts.masks {
                true => ((self.spatial[row + p] as u32) >> k & 1) as f32,
                false => self.spatial[(row + p) * SPATIAL + k],
            };
            let stone = |x: isize, y: isize, k: usize| {
                if (0..w).contains(&x) && (0..h).contains(&y) {
                    plane((y * w + x) as usize, k)
                } else {
                    0.0
                }
            };
            raw.policy.clear();
            raw.ownership.clear();
            let (mut mine, mut theirs) = (0.0, 0.0);
            for p in 0..points {
                let (x, y) = ((p % shape.width) as isize, (p / shape.width) as isize);
                let around: f32 = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    .iter()
                    .map(|(dx, dy)| stone(x + dx, y + dy, 1) - stone(x + dx, y + dy, 2))
                    .sum();
                raw.policy.push(around);
                raw.ownership.push(plane(p, 1) - plane(p, 2));
                mine += plane(p, 1);
                theirs += plane(p, 2);
            }
            raw.pass = -3.0;
            raw.policy_optimistic = raw.policy.clone();
            raw.pass_optimistic = raw.pass;
            let lean = (mine - theirs) * 0.3;
            raw.value = [lean, -lean, -5.0];
            raw.score = [mine - theirs, 0.0, mine - theirs, 0.0, 0.0, 0.0];
        }
        Ok(())
    }
}

impl Backend for Counting {
    fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn computation(self: Arc<Self>) -> Box<dyn Computation> {
        Box::new(CountingComputation {
            counts: self,
            spatial: Vec::new(),
            global: Vec::new(),
            metadata: Vec::new(),
        })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        size.points() as f64
    }
}

/// An evaluator on the test backend (the embedded net's description for
/// its name and scalings), and the backend's counts.
#[cfg(test)]
pub(crate) fn on_test_backend() -> (Evaluator, std::sync::Arc<Counting>) {
    let desc = ModelDesc::parse(super::model::EMBEDDED_MODEL).expect("the embedded net");
    let backend = std::sync::Arc::new(Counting::default());
    (Evaluator::with_backend(&desc, backend.clone()), backend)
}

/// The embedded net on the CPU backend and on the host's executor of its
/// GPU program: the GPU's arithmetic without a GPU, for the tests.
#[cfg(test)]
pub(crate) fn on_cpu_and_host_program() -> (Evaluator, Evaluator) {
    let desc = ModelDesc::parse(super::model::EMBEDDED_MODEL).expect("the embedded network reads");
    let host = crate::nn::gpu::host::HostProgram::new(&desc);
    (
        Evaluator::new(&desc),
        Evaluator::with_backend(&desc, std::sync::Arc::new(host)),
    )
}

#[cfg(test)]
mod tests {
    use crate::go::board::Color;
    use crate::go::game::Game;
    use crate::go::rules::Rules;
    use crate::nn::{Evaluation, Request};
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn a_cached_batch_runs_only_what_the_cache_does_not_know() {
        let (net, counts) = crate::nn::on_test_backend();
        let mut games = Vec::new();
        for x in 0..6 {
            let mut game = Game::new(9, Rules::default(), 7.5);
            game.play(Color::Black, Some(game.board().point(x, 2)))
                .unwrap();
            games.push(game);
        }
        let request = |game| Request {
            game,
            to_move: Color::White,
            fresh: false,
            symmetry: 0,
            white_advantage: 0.0,
        };
        // Two of the six known first, one at a time.
        let mut one = Evaluation::default();
        for game in &games[..2] {
            net.evaluate_cached(request(game), &mut one);
        }
        assert_eq!(counts.boards.load(Relaxed), 2);
        let requests: Vec<Request> = games.iter().map(request).collect();
        let mut out = vec![Evaluation::default(); 6];
        net.evaluate_cached_batch(&requests, &mut out);
        // The four unknown in one pass of the backend's batch of four.
        assert_eq!(
            (counts.passes.load(Relaxed), counts.boards.load(Relaxed)),
            (3, 6)
        );
        for (game, batched) in games.iter().zip(&out) {
            let alone = net.evaluate(request(game));
            assert_eq!(alone.policy, batched.policy);
            assert_eq!(alone.white_win, batched.white_win);
        }
        // Now all six are known.
        let before = counts.passes.load(Relaxed);
        net.evaluate_cached_batch(&requests, &mut out);
        assert_eq!(counts.passes.load(Relaxed), before);
    }

    #[test]
    fn the_evaluator_runs_on_any_backend_in_its_batches() {
        let (net, counts) = crate::nn::on_test_backend();
        assert_eq!(net.backend_name(), "test");
        assert_eq!(net.max_batch(), 4);
        assert!(!net.uses_fp16());
        let mut game = Game::new(9, Rules::default(), 7.5);
        game.play(Color::Black, Some(game.board().point(4, 4)))
            .unwrap();
        let requests: Vec<Request> = (0..10)
            .map(|symmetry| Request {
                game: &game,
                to_move: Color::White,
                fresh: true,
                symmetry: symmetry % 8,
                white_advantage: 0.0,
            })
            .collect();
        let mut out = vec![Evaluation::default(); 10];
        net.evaluate_batch(&requests, &mut out);
        // Ten boards in batches of at most four.
        assert_eq!(
            (counts.passes.load(Relaxed), counts.boards.load(Relaxed)),
            (3, 10)
        );
        for e in &out {
            assert!(e.is_finite());
            // White to move beside Black's one stone: the policy's top is
            // a point beside it (the mover's opponent's stones count
            // against, so White's best are those with none of its own).
            let best = (0..e.policy.len())
                .max_by(|&a, &b| e.policy[a].total_cmp(&e.policy[b]))
                .unwrap();
            assert!(e.policy[best] > 0.0);
            // Black is ahead by its stone.
            assert!(e.white_win < 0.5, "{}", e.white_win);
        }
    }
}
