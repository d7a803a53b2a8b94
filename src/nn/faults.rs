//! A backend that spoils a chosen share of another backend's evaluations,
//! drawn from a seed: NaN, +∞ or −∞ in one of the heads (a win or loss
//! logit, the score mean, a policy logit or an ownership value, each with
//! a number that carries through to the evaluation), as a corrupt model
//! file or a layer out of its range gives, or, for one spoiled board in
//! five, its whole pass failed, as a GPU's failure gives. Every consumer
//! of the evaluator can so be driven through such evaluations in a test
//! (`Evaluator::with_faults`).

use super::backend::{Attributes, Backend, Computation, Inputs, PassError, RawOutput, Shape};
use crate::go::board::BoardSize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// `inner`, with a `share` of its boards spoiled.
pub(crate) struct Faulty {
    inner: Arc<dyn Backend>,
    /// The share of the boards spoiled, 0 to 1.
    share: f64,
    /// The draws' state (SplitMix64), shared by the threads.
    state: AtomicU64,
    attributes: Attributes,
}

/// The numbers that are none.
const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

impl Faulty {
    /// `inner` with a `share` of its boards spoiled, the draws from `seed`.
    pub(crate) fn new(inner: Arc<dyn Backend>, share: f64, seed: u64) -> Faulty {
        let mut attributes = inner.attributes().clone();
        attributes.name = format!("{} (a share {share} spoiled)", attributes.name);
        Faulty {
            inner,
            share,
            state: AtomicU64::new(seed),
            attributes,
        }
    }

    /// The next draw, uniform in 0..2⁶⁴.
    fn draw(&self) -> u64 {
        let mut z = self
            .state
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Puts a number that is none into one of `raw`'s heads, or says the
    /// pass fails (`false`).
    fn spoil(&self, raw: &mut RawOutput) -> bool {
        // (A −∞ logit is a probability of 0 and an infinite ownership
        // value a tanh of ±1: those would not carry through.)
        let d = self.draw();
        let at = (d >> 8) as usize;
        let either = |a: f32, b: f32| if d & 1 == 0 { a } else { b };
        match (d >> 4) % 5 {
            4 => return false,
            0 => raw.value[at % 2] = either(NAN, INF),
            1 => raw.score[0] = [NAN, INF, -INF][at % 3],
            2 => match raw.policy.len() {
                0 => raw.pass = either(NAN, INF),
                n => raw.policy[at % n] = either(NAN, INF),
            },
            _ => match raw.ownership.len() {
                0 => raw.value[0] = NAN,
                n => raw.ownership[at % n] = NAN,
            },
        }
        true
    }
}

/// A thread's passes: the inner backend's, then the spoiling.
struct FaultyComputation {
    faults: Arc<Faulty>,
    inner: Box<dyn Computation>,
}

impl Computation for FaultyComputation {
    fn inputs(&mut self, shape: Shape) -> Inputs<'_> {
        self.inner.inputs(shape)
    }

    fn forward(&mut self, shape: Shape, out: &mut [RawOutput]) -> Result<(), PassError> {
        self.inner.forward(shape, out)?;
        let faults = &self.faults;
        let mut passed = true;
        for raw in out.iter_mut().take(shape.batch) {
            // The top 53 bits as a fraction of one.
            if (faults.draw() >> 11) as f64 / (1u64 << 53) as f64 <= faults.share {
                passed &= faults.spoil(raw);
            }
        }
        match passed {
            true => Ok(()),
            false => Err(PassError::Device("a spoiled pass".into())),
        }
    }
}

impl Backend for Faulty {
    fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    fn computation(self: Arc<Self>) -> Box<dyn Computation> {
        let inner = self.inner.clone().computation();
        Box::new(FaultyComputation {
            faults: self,
            inner,
        })
    }

    fn macs(&self, size: BoardSize) -> f64 {
        self.inner.macs(size)
    }
}

#[cfg(test)]
mod tests {
    use crate::go::game::Game;
    use crate::go::rules::Rules;
    use crate::nn::{Evaluation, Request};

    #[test]
    fn the_share_asked_for_fails_at_the_door_and_the_rest_is_the_nets() {
        let game = Game::new(9, Rules::default(), 7.5);
        let request = Request::of(&game);
        // The test backend's arithmetic: the door is the same for any.
        let backend = || crate::nn::on_test_backend().0;
        let clean = backend().evaluate(request);
        for (share, low, high) in [(0.0, 0, 0), (0.5, 60, 140), (1.0, 200, 200)] {
            let net = backend().with_faults(share, 3);
            let mut failed = 0;
            for _ in 0..50 {
                let mut out = vec![Evaluation::default(); 4];
                net.evaluate_batch(&[request; 4], &mut out);
                for e in &out {
                    assert!(e.is_finite(), "a number that is none passed the door");
                    if e.failed {
                        failed += 1;
                    } else {
                        assert_eq!(e.white_win, clean.white_win);
                    }
                }
            }
            assert!((low..=high).contains(&failed), "{share}: {failed} of 200");
        }
    }
}
