//! The neural network: KataGo's model files read and evaluated on the CPU,
//! or on an NVIDIA GPU where the build has the CUDA backend.
//!
//! The front door is [`Evaluator`], the one thing the searches and the front
//! ends name: a game, the colour to move and one of the eight symmetries
//! in, an [`Evaluation`] out (read by board point), for one position or a
//! batch, from any thread. It owns the buffers (a pool of them, one taken
//! per evaluation and given back), the cache of evaluations ([`cache`]) and
//! the answer to whether a network applies to a game; a batch goes through
//! it by the steps of [`pass`] (rows in their symmetries by [`rows`], the
//! pass, the outputs mapped back). The back door is [`backend::Backend`]: a
//! model's layers that run a batch of input planes and give the heads' raw
//! numbers: the CPU's ([`cpu`]) or a GPU's (`gpu`, with the `cuda`
//! feature), as the [`options`] chose at start, in a [`Precision`]. Below
//! the front door, [`model`] reads a file into layer descriptions,
//! [`inputs`] makes KataGo's input planes for a kosumi [`Game`] (with
//! [`ladder`] and [`area`], KataGo's ladder and pass-alive readers), and
//! [`output`] turns the heads' numbers into probabilities and scores.
//!
//! kosumi embeds KataGo's six-block net of 2020
//! (`g170-b6c96-s175395328-d26788732`, MIT; see `LICENSE-KataGo.txt` beside
//! this file), so that it plays with a network with nothing else installed.

pub(crate) mod area;
pub(crate) mod backend;
pub(crate) mod batcher;
pub(crate) mod cache;
pub(crate) mod cpu;
pub(crate) mod faults;
#[cfg(any(test, feature = "cuda"))]
pub(crate) mod gpu;
pub(crate) mod inputs;
pub(crate) mod ladder;
pub(crate) mod model;
pub(crate) mod options;
pub(crate) mod output;
mod pass;
pub(crate) mod precision;
pub(crate) mod profile;
pub(crate) mod rows;
pub(crate) mod simulated;
pub(crate) mod test_backend;
#[cfg(test)]
pub(crate) mod test_models;

use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;
use backend::Backend;
pub use backend::PassProfile;
use model::ModelDesc;
pub use model::ModelError;
pub use options::{BackendKind, Backends, GPU_BUILT, Options, OptionsError};
pub use output::Evaluation;
pub use pass::Counts;
use pass::{AtomicCounts, Scratch};
pub use profile::HumanProfile;
pub use rows::{SYMMETRIES, applicable_symmetry, symmetric_position};
use std::sync::{Mutex, RwLock};

pub use cpu::gemm::Kernel;
pub use precision::Precision;

/// The embedded network's file.
pub static EMBEDDED_MODEL: &[u8] = include_bytes!("g170-b6c96-s175395328-d26788732.bin.gz");

/// One position to evaluate.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub game: &'a Game,
    pub to_move: Color,
    /// See the note on `fresh` in [`inputs::FeatureMaker::fill`].
    pub fresh: bool,
    pub symmetry: usize,
    /// The playout doublings White is assumed to have over Black (negative:
    /// Black over White; 0 an even match): KataGo's playout doubling
    /// advantage, which its network reads to play handicap games.
    pub white_advantage: f32,
}

impl Request<'_> {
    /// The advantage from the side of the player to move.
    pub fn mover_advantage(&self) -> f32 {
        self.to_move.from_white() as f32 * self.white_advantage
    }
}

/// The fewest timed passes [`Evaluator::profile_passes`] runs.
pub const PROFILED_PASSES: usize = 3;

/// How much of the optimistic policy (version 12 on) the evaluations
/// blend in: KataGo's `policyOptimism` in its search (its default 1.0;
/// the root's is 0.2, which `kata-raw-nn` takes by default).
pub const SEARCH_POLICY_OPTIMISM: f32 = 1.0;

/// A loaded network, with the cache of its evaluations and the buffers of
/// its evaluations; shared by every thread.
pub struct Evaluator {
    backend: std::sync::Arc<dyn Backend>,
    name: String,
    version: i32,
    scaling: output::Scaling,
    cache: cache::Cache,
    scratches: Mutex<Vec<Scratch>>,
    /// Where the threads' positions meet in one batch, for a backend that
    /// wants batches.
    batcher: batcher::Batcher,
    counts: AtomicCounts,
    /// Whether the net reads KataGo's game metadata (a human-like net).
    human: bool,
    /// The profile a human-like net is evaluated under (KataGo's
    /// `humanSLProfile`); the frontends refuse to evaluate such a net
    /// without one.
    profile: RwLock<Option<HumanProfile>>,
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Evaluator({})", self.name)
    }
}

impl Evaluator {
    /// `desc` on the backend `backends` give (the CPU's unless a GPU was
    /// chosen and runs it).
    pub fn on(desc: &ModelDesc, backends: &Backends) -> Result<Evaluator, ModelError> {
        let backend = backends.backend_for(desc).map_err(ModelError::Backend)?;
        Ok(Evaluator::with_backend(desc, backend))
    }

    /// `desc` on the CPU backend.
    pub fn new(desc: &ModelDesc) -> Evaluator {
        Evaluator::with_backend(
            desc,
            std::sync::Arc::new(cpu::network::CpuBackend::new(cpu::network::Network::new(
                desc,
            ))),
        )
    }

    /// `desc` on `backend` (made from the same description): the front
    /// door is the same whatever runs the layers.
    pub(crate) fn with_backend(
        desc: &ModelDesc,
        backend: std::sync::Arc<dyn Backend>,
    ) -> Evaluator {
        Evaluator {
            backend,
            name: desc.name.clone(),
            version: desc.version,
            scaling: output::Scaling {
                post: desc.post_process,
                shortterm: desc.facts.shortterm,
            },
            cache: cache::Cache::new(cache::CAPACITY),
            scratches: Mutex::new(Vec::new()),
            batcher: batcher::Batcher::default(),
            counts: AtomicCounts::default(),
            human: desc.trunk.metadata_encoder.is_some(),
            profile: RwLock::new(None),
        }
    }

    /// The same net with a `share` (0 to 1) of its evaluations spoiled by
    /// NaN or infinity in one of the heads, drawn from `seed`
    /// ([`faults`]): for driving every consumer through evaluations that
    /// fail at the door, in tests and drills.
    pub fn with_faults(mut self, share: f64, seed: u64) -> Evaluator {
        self.backend = std::sync::Arc::new(faults::Faulty::new(
            self.backend,
            share.clamp(0.0, 1.0),
            seed,
        ));
        self.cache = cache::Cache::new(cache::CAPACITY);
        self
    }

    /// A simulated device ([`simulated`]): the test backend's arithmetic
    /// (the embedded net's name and scalings) behind a latency model, a
    /// pass of `n` boards taking `fixed_ms + per_board_ms · n` of sleep,
    /// one pass at a time; batches of `preferred` boards wanted (1: a
    /// CPU's net, each thread its own pass, side by side). For measuring
    /// how a search feeds a device, on any machine.
    pub fn simulated(fixed_ms: f64, per_board_ms: f64, preferred: usize) -> Evaluator {
        let desc = ModelDesc::parse(EMBEDDED_MODEL).expect("the embedded net");
        let ms = |v: f64| std::time::Duration::from_secs_f64(v.max(0.0) / 1e3);
        let backend = simulated::Simulated::new(
            std::sync::Arc::new(test_backend::Counting::default()),
            ms(fixed_ms),
            ms(per_board_ms),
            preferred.max(1),
        );
        Evaluator::with_backend(&desc, std::sync::Arc::new(backend))
    }

    /// Whether the net is a human-like net: it reads the game's metadata
    /// (ranks, date, time control) and needs a [`HumanProfile`].
    pub fn is_human(&self) -> bool {
        self.human
    }

    /// The profile the net is evaluated under.
    pub fn profile(&self) -> Option<HumanProfile> {
        self.profile
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sets the profile a human-like net is evaluated under (other nets
    /// read no metadata and keep it only to report it); the cached
    /// evaluations of another profile are dropped.
    pub fn set_profile(&self, profile: Option<HumanProfile>) {
        let mut current = self.profile.write().unwrap_or_else(|e| e.into_inner());
        if *current != profile {
            *current = profile;
            if self.human {
                self.cache.clear();
            }
        }
    }

    /// Whether the network evaluates `game`: plain Go, where no dice
    /// constrain the moves (its policy and values know nothing of them).
    pub fn applies_to(&self, game: &Game) -> bool {
        game.dice().is_none()
    }

    /// Where it runs (`cpu avx512`).
    pub fn backend_name(&self) -> String {
        self.backend.attributes().name.clone()
    }

    /// The most positions of 19×19 its backend evaluates at once, as
    /// KataGo's `query_models` reports `maxBatchSize`.
    pub fn max_batch(&self) -> usize {
        self.max_batch_of(BoardSize::square(19))
    }

    /// The most positions of `size` its backend evaluates at once.
    pub fn max_batch_of(&self, size: BoardSize) -> usize {
        self.backend.attributes().batching.max(size)
    }

    /// The positions of `size` its backend wants at once: what a search
    /// keeps in flight.
    pub fn preferred_batch(&self, size: BoardSize) -> usize {
        self.backend.attributes().batching.preferred(size)
    }

    /// Whether its evaluations keep the calling thread's core busy (the
    /// CPU backend) rather than wait on a device (a GPU, a simulated one).
    pub fn on_processor(&self) -> bool {
        self.backend.attributes().on_processor
    }

    /// Whether its products run in half precision (KataGo's `usingFP16`).
    pub fn uses_fp16(&self) -> bool {
        self.backend.attributes().precision == Precision::F16
    }

    /// The backend's peak single-precision operations a cycle.
    pub fn peak_flops_per_cycle(&self) -> f64 {
        self.backend.attributes().peak_flops_per_cycle
    }

    /// Runs `f` with buffers from the pool (new ones where the pool is
    /// empty), given back after.
    fn with_scratch<T>(&self, f: impl FnOnce(&mut Scratch) -> T) -> T {
        let lock = || self.scratches.lock().unwrap_or_else(|e| e.into_inner());
        let popped = lock().pop();
        let mut scratch =
            popped.unwrap_or_else(|| Scratch::new(self.backend.clone().computation()));
        let out = f(&mut scratch);
        lock().push(scratch);
        out
    }

    /// The embedded six-block net on the CPU.
    pub fn embedded() -> Evaluator {
        Evaluator::embedded_on(&Backends::default())
    }

    /// The embedded six-block net on `backends` (the CPU where the GPU
    /// chosen does not run it, said on stderr).
    pub fn embedded_on(backends: &Backends) -> Evaluator {
        let desc = ModelDesc::parse(EMBEDDED_MODEL).expect("the embedded network reads");
        Evaluator::on(&desc, backends).unwrap_or_else(|e| {
            eprintln!("kosumi: the embedded network runs on the CPU: {e}");
            Evaluator::new(&desc)
        })
    }

    /// A network from a KataGo model file on the CPU, refused if its
    /// outputs on an empty 9×9 board are not finite numbers.
    pub fn load(path: &std::path::Path) -> Result<Evaluator, ModelError> {
        Evaluator::load_on(path, &Backends::default())
    }

    /// [`Evaluator::load`] on `backends`.
    pub fn load_on(path: &std::path::Path, backends: &Backends) -> Result<Evaluator, ModelError> {
        let net = Evaluator::on(&ModelDesc::load(path)?, backends)?;
        net.probe()?;
        Ok(net)
    }

    /// Whether the outputs on an empty 9×9 board are finite (a human-like
    /// net read as a professional's game of 2020, as KataGo warms one up).
    fn probe(&self) -> Result<(), ModelError> {
        let warm_up = self.human && self.profile().is_none();
        if warm_up {
            self.set_profile(HumanProfile::parse("proyear_2020").ok());
        }
        // The refusal below says it: the door says nothing of it.
        let finite = self.unsaid(|| self.outputs_are_finite());
        if warm_up {
            self.set_profile(None);
        }
        if finite {
            Ok(())
        } else {
            Err(ModelError::Malformed {
                layer: self.name.clone(),
                what: "its outputs on an empty board are not finite numbers".into(),
            })
        }
    }

    fn outputs_are_finite(&self) -> bool {
        let game = Game::new(9, crate::go::rules::Rules::default(), 7.5);
        let e = self.evaluate(Request {
            game: &game,
            to_move: Color::Black,
            fresh: false,
            symmetry: 0,
            white_advantage: 0.0,
        });
        !e.failed
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Multiply-adds of one evaluation on a board of `size`.
    pub fn macs(&self, size: BoardSize) -> f64 {
        self.backend.macs(size)
    }

    /// The model version of the file.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// Evaluates one position with the optimistic policy blended in by
    /// `optimism` (0 to 1; nets before version 12 have none to blend).
    pub fn evaluate_with_optimism(&self, request: Request, optimism: f32) -> Evaluation {
        let mut out = [Evaluation::default()];
        self.with_scratch(|s| self.evaluate_together(&[request], optimism, None, s, &mut out));
        let [e] = out;
        e
    }

    /// Evaluates one position as a human-like net under `profile`, whatever
    /// the net's own profile (another net reads no profile), bypassing the
    /// cache: one query's profile, beside the other queries'.
    pub fn evaluate_under(&self, profile: &HumanProfile, request: Request) -> Evaluation {
        let mut out = [Evaluation::default()];
        self.with_scratch(|s| {
            self.evaluate_together(
                &[request],
                SEARCH_POLICY_OPTIMISM,
                Some(profile),
                s,
                &mut out,
            )
        });
        let [e] = out;
        e
    }

    /// Evaluates one position.
    pub fn evaluate(&self, request: Request) -> Evaluation {
        let mut out = [Evaluation::default()];
        self.evaluate_batch(&[request], &mut out);
        let [e] = out;
        e
    }

    /// Evaluates one position for a search: from the cache where the
    /// position was evaluated before (in whatever symmetry it was then),
    /// through the network otherwise, and kept.
    pub fn evaluate_cached(&self, request: Request, out: &mut Evaluation) {
        let key = cache::key(
            request.game,
            request.to_move,
            request.fresh,
            request.white_advantage,
        );
        if let Some(known) = self.cache.get(key) {
            out.clone_from(&known);
            self.counts
                .cache_hits
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return;
        }
        self.evaluate_batch(&[request], std::slice::from_mut(out));
        // A failed evaluation is not kept: a GPU's failure may pass.
        if !out.failed {
            self.cache.put(key, std::sync::Arc::new(out.clone()));
        }
    }

    /// [`Evaluator::evaluate_cached`] for positions of one board size: those
    /// the cache knows from it, the rest through the network as one batch
    /// (as many at once as the backend takes), and kept.
    pub fn evaluate_cached_batch(&self, requests: &[Request], out: &mut [Evaluation]) {
        assert_eq!(requests.len(), out.len(), "an evaluation for each request");
        let keys: Vec<u64> = requests
            .iter()
            .map(|r| cache::key(r.game, r.to_move, r.fresh, r.white_advantage))
            .collect();
        let mut missing = Vec::new();
        for (i, &key) in keys.iter().enumerate() {
            match self.cache.get(key) {
                Some(known) => out[i].clone_from(&known),
                None => missing.push(i),
            }
        }
        self.counts.cache_hits.fetch_add(
            (requests.len() - missing.len()) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        if missing.is_empty() {
            return;
        }
        let asked: Vec<Request> = missing.iter().map(|&i| requests[i]).collect();
        let mut fresh = vec![Evaluation::default(); asked.len()];
        self.evaluate_batch(&asked, &mut fresh);
        for (&i, eval) in missing.iter().zip(fresh) {
            let failed = eval.failed;
            let eval = std::sync::Arc::new(eval);
            out[i].clone_from(&eval);
            if !failed {
                self.cache.put(keys[i], eval);
            }
        }
    }

    /// The cache of evaluations the searches share.
    pub fn cache(&self) -> &cache::Cache {
        &self.cache
    }

    /// Each point's owner by the network for `game`'s player to move, +1
    /// Black to −1 White, indexed by point.
    pub fn ownership(&self, game: &Game) -> Vec<f64> {
        self.ownership_over(game, 0..1)
    }

    /// [`Evaluator::ownership`] averaged over the eight symmetries of the
    /// board (one batch), for a steadier map.
    pub fn ownership_averaged(&self, game: &Game) -> Vec<f64> {
        self.ownership_over(game, 0..SYMMETRIES)
    }

    /// The ownership averaged over `symmetries`, evaluated as one batch.
    fn ownership_over(&self, game: &Game, symmetries: std::ops::Range<usize>) -> Vec<f64> {
        let requests: Vec<Request> = symmetries
            .map(|symmetry| Request {
                game,
                to_move: game.to_move(),
                fresh: false,
                symmetry,
                white_advantage: 0.0,
            })
            .collect();
        let mut evals = vec![Evaluation::default(); requests.len()];
        self.evaluate_batch(&requests, &mut evals);
        let board = game.board();
        let mut owner = vec![0.0; crate::go::board::MAX_POINTS];
        for eval in &evals {
            for (p, white) in eval.white_ownership_by_point(board) {
                owner[p as usize] -= f64::from(white) / evals.len() as f64;
            }
        }
        owner
    }

    /// Evaluates positions of one board size together (one matrix product
    /// per layer for the whole batch).
    pub fn evaluate_batch(&self, requests: &[Request], out: &mut [Evaluation]) {
        // As many boards at once as the backend takes.
        let Some(first) = requests.first() else {
            return;
        };
        let chunk = self.max_batch_of(first.game.size());
        self.with_scratch(|scratch| {
            for (requests, out) in requests.chunks(chunk).zip(out.chunks_mut(chunk)) {
                self.evaluate_together(requests, SEARCH_POLICY_OPTIMISM, None, scratch, out);
            }
        });
    }
}

#[cfg(test)]
mod tests;
