//! The neural network: KataGo's model files read and evaluated on the CPU,
//! or on an NVIDIA GPU where the build has the CUDA backend.
//!
//! The front door is [`Evaluator`], the one thing the searches and the front
//! ends name: a game, the colour to move and one of the eight symmetries
//! in, an [`Evaluation`] out (read by board point), for one position or a
//! batch, from any thread. It owns the buffers (a pool of them, one taken
//! per evaluation and given back), the symmetries, the cache of evaluations
//! ([`cache`]) and the answer to whether a network applies to a game. The
//! back door is [`backend::Backend`]: a model's layers that run a batch of
//! input planes and give the heads' raw numbers: the CPU's ([`cpu`]) or a
//! GPU's (`gpu`, with the `cuda` feature), as [`choice`] chose at start. Below the front door, [`model`] reads a file into layer
//! descriptions, [`inputs`] makes KataGo's input planes for a kosumi
//! [`Game`] (with [`ladder`] and [`area`], KataGo's ladder and pass-alive
//! readers), and [`output`] turns the heads' numbers into probabilities and
//! scores.
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
pub(crate) mod precision;
pub(crate) mod profile;
pub(crate) mod simulated;
pub(crate) mod test_backend;
#[cfg(test)]
pub(crate) mod test_models;

use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;
pub use backend::PassProfile;
use backend::{Backend, RawOutput, Shape};
use inputs::{FeatureMaker, Features, GLOBAL, NetRules, SPATIAL};
use model::ModelDesc;
pub use model::ModelError;
pub use options::{BackendKind, Backends, GPU_BUILT, Options, OptionsError};
pub use output::Evaluation;
pub use profile::HumanProfile;
use profile::METADATA_INPUTS;
use std::sync::{Mutex, RwLock};

pub use cpu::gemm::Kernel;
pub use precision::Precision;

/// The embedded network's file.
pub static EMBEDDED_MODEL: &[u8] = include_bytes!("g170-b6c96-s175395328-d26788732.bin.gz");

/// The number of symmetries of a square board.
pub const SYMMETRIES: usize = 8;

/// The symmetry a board of `size` is evaluated under when `symmetry` is
/// asked: itself on a square board; on a rectangle its flips alone (bit 2,
/// the transposition, dropped), since a transposed rectangle is another
/// board shape, so the eight symmetries a search draws from or averages
/// over become the rectangle's four, each twice.
pub fn applicable_symmetry(symmetry: usize, size: BoardSize) -> usize {
    if size.is_square() {
        symmetry
    } else {
        symmetry & 3
    }
}

/// Where `pos` (row from the top · width + column) of a board of `size`
/// goes under `symmetry` (bit 0 flips rows, bit 1 columns, bit 2
/// transposes: square boards only), as KataGo's `copyWithSymmetry` moves
/// inputs (`reverse` false) or brings outputs back (`reverse` true).
pub fn symmetric_position(symmetry: usize, size: BoardSize, pos: usize, reverse: bool) -> usize {
    let transpose = symmetry & 4 != 0;
    debug_assert!(!transpose || size.is_square(), "a transposed rectangle");
    let (mut flip_x, mut flip_y) = (symmetry & 2 != 0, symmetry & 1 != 0);
    if transpose && !reverse {
        std::mem::swap(&mut flip_x, &mut flip_y);
    }
    let BoardSize { width, height } = size;
    let (row, column) = (pos / width, pos % width);
    let flip = |v: usize, f: bool, n: usize| if f { n - 1 - v } else { v };
    if transpose {
        flip(column, flip_y, width) * width + flip(row, flip_x, height)
    } else {
        flip(row, flip_y, height) * width + flip(column, flip_x, width)
    }
}

/// One position to evaluate.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub game: &'a Game,
    pub to_move: Color,
    /// See the note on `fresh` in [`FeatureMaker::fill`].
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

/// The buffers one evaluation uses, kept in the evaluator's pool and
/// reused: after the first evaluations of a board size nothing more is
/// allocated.
struct Scratch {
    maker: FeatureMaker,
    features: Vec<Features>,
    computation: Box<dyn backend::Computation>,
    raw: Vec<RawOutput>,
    /// This thread's rows and outputs when the batcher gathers them.
    submission: batcher::Submission,
    unmapped: RawOutput,
    legal: Vec<bool>,
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

/// An evaluator on the test backend (the embedded net's description for
/// its name and scalings), and the backend's counts.
#[cfg(test)]
pub(crate) fn on_test_backend() -> (Evaluator, std::sync::Arc<test_backend::Counting>) {
    let desc = ModelDesc::parse(EMBEDDED_MODEL).expect("the embedded net");
    let backend = std::sync::Arc::new(test_backend::Counting::default());
    (Evaluator::with_backend(&desc, backend.clone()), backend)
}

/// The embedded net on the CPU backend and on the host's executor of its
/// GPU program: the GPU's arithmetic without a GPU, for the tests.
#[cfg(test)]
pub(crate) fn on_cpu_and_host_program() -> (Evaluator, Evaluator) {
    let desc = ModelDesc::parse(EMBEDDED_MODEL).expect("the embedded network reads");
    let host = gpu::host::HostProgram::new(&desc);
    (
        Evaluator::new(&desc),
        Evaluator::with_backend(&desc, std::sync::Arc::new(host)),
    )
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
        let mut scratch = popped.unwrap_or_else(|| Scratch {
            maker: FeatureMaker::default(),
            features: Vec::new(),
            computation: self.backend.clone().computation(),
            raw: Vec::new(),
            submission: batcher::Submission::default(),
            unmapped: RawOutput::default(),
            legal: Vec::new(),
        });
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
        let finite = self.outputs_are_finite();
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

    /// Evaluates `requests` as one batch; a human-like net under `profile`
    /// where given, its own profile otherwise.
    fn evaluate_together(
        &self,
        requests: &[Request],
        optimism: f32,
        profile: Option<&HumanProfile>,
        scratch: &mut Scratch,
        out: &mut [Evaluation],
    ) {
        let Some(first) = requests.first() else {
            return;
        };
        // A human-like net's policy is a person's: KataGo blends in none
        // of its optimistic policy.
        let optimism = if self.human { 0.0 } else { optimism };
        let size = first.game.size();
        assert!(
            requests.iter().all(|r| r.game.size() == size),
            "one board size per batch"
        );
        let batch = requests.len();
        let shape = Shape::of(size, batch);
        let points = shape.points();
        scratch.features.resize_with(batch, || Features::new(size));
        scratch.raw.resize_with(batch, RawOutput::default);
        for (r, f) in requests.iter().zip(&mut scratch.features) {
            scratch
                .maker
                .fill(r.game, r.to_move, r.fresh, r.mover_advantage(), f);
        }
        // A backend that wants batches gets this thread's rows gathered
        // with other threads' ([`batcher`]); another runs them here.
        let gathered = self.preferred_batch(size) > 1;
        let mut submission = std::mem::take(&mut scratch.submission);
        let failed;
        if gathered {
            let s = &mut submission;
            s.size = Some(size);
            s.boards = batch;
            s.spatial.resize(points * SPATIAL * batch, 0.0);
            s.global.resize(GLOBAL * batch, 0.0);
            s.metadata.resize(
                if self.human {
                    METADATA_INPUTS * batch
                } else {
                    0
                },
                0.0,
            );
            self.write_rows(
                requests,
                profile,
                &scratch.features,
                size,
                &mut s.spatial,
                &mut s.global,
                &mut s.metadata,
            );
            let mut runs = (0, 0);
            submission = self.batcher.evaluate(
                submission,
                &self.backend.attributes().batching,
                &mut *scratch.computation,
                &mut runs,
            );
            self.count_runs(runs);
            failed = submission.failed.take();
        } else {
            let inputs = scratch.computation.inputs(shape);
            self.write_rows(
                requests,
                profile,
                &scratch.features,
                size,
                inputs.spatial,
                inputs.global,
                inputs.metadata,
            );
            failed = scratch.computation.forward(shape, &mut scratch.raw).err();
            self.count_runs((1, batch as u64));
        }
        if let Some(why) = &failed {
            self.say_failure(why);
        }
        let raws = if gathered {
            &submission.raw
        } else {
            &scratch.raw
        };
        for (b, r) in requests.iter().enumerate() {
            if failed.is_some() {
                legal_moves(r, &scratch.features[b], &mut scratch.legal);
                out[b].fail_on(&scratch.legal, size);
                continue;
            }
            let raw = &raws[b];
            let u = &mut scratch.unmapped;
            u.policy.resize(points, 0.0);
            u.ownership.resize(points, 0.0);
            let blend = |p: f32, optimistic: f32| p + (optimistic - p) * optimism;
            let symmetry = applicable_symmetry(r.symmetry, size);
            for pos in 0..points {
                let to = symmetric_position(symmetry, size, pos, true);
                u.policy[to] = match raw.policy_optimistic.get(pos) {
                    Some(&o) => blend(raw.policy[pos], o),
                    None => raw.policy[pos],
                };
                u.ownership[to] = raw.ownership[pos];
            }
            u.pass = blend(raw.pass, raw.pass_optimistic);
            u.value = raw.value;
            u.score = raw.score;
            legal_moves(r, &scratch.features[b], &mut scratch.legal);
            let rules = NetRules::of(&r.game.rules);
            output::postprocess(
                u,
                &scratch.legal,
                r.to_move,
                &rules,
                size,
                &self.scaling,
                &mut out[b],
            );
            // The door: no consumer sees a number that is none.
            out[b].failed = false;
            if !out[b].is_finite() {
                out[b].fail();
            }
        }
        scratch.submission = submission;
    }

    /// Writes `requests`' input rows, in their symmetries, into the
    /// backend's layout: `spatial` point by point, `global` and (a
    /// human-like net's) `metadata` board by board.
    #[allow(clippy::too_many_arguments)]
    fn write_rows(
        &self,
        requests: &[Request],
        profile: Option<&HumanProfile>,
        features: &[Features],
        size: BoardSize,
        spatial: &mut [f32],
        global: &mut [f32],
        metadata: &mut [f32],
    ) {
        let points = size.points();
        if self.human {
            let own = self.profile.read().unwrap_or_else(|e| e.into_inner());
            let rows = metadata.chunks_exact_mut(METADATA_INPUTS);
            for (r, row) in requests.iter().zip(rows) {
                match profile.or(own.as_ref()) {
                    Some(p) => p.fill_row(r.to_move, points, row),
                    None => row.fill(0.0),
                }
            }
        }
        for (b, (r, f)) in requests.iter().zip(features).enumerate() {
            let board = &mut spatial[b * points * SPATIAL..(b + 1) * points * SPATIAL];
            let symmetry = applicable_symmetry(r.symmetry, size);
            for pos in 0..points {
                let to = symmetric_position(symmetry, size, pos, false);
                for c in 0..SPATIAL {
                    board[to * SPATIAL + c] = f.spatial[c * points + pos];
                }
            }
            global[b * GLOBAL..(b + 1) * GLOBAL].copy_from_slice(&f.global);
        }
    }

    /// Says on stderr, the first time, why a pass gave no evaluations:
    /// they fail at the door, and the search goes on without them.
    fn say_failure(&self, why: &backend::PassError) {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.counts.failure_said.swap(true, Relaxed) {
            eprintln!(
                "kosumi: {} gave no evaluations ({why}); they are dropped",
                self.name
            );
        }
    }

    /// Counts forward passes and their boards (`runs`).
    fn count_runs(&self, (passes, boards): (u64, u64)) {
        use std::sync::atomic::Ordering::Relaxed;
        self.counts.passes.fetch_add(passes, Relaxed);
        self.counts.boards.fetch_add(boards, Relaxed);
    }

    /// Where a forward pass of `batch` copies of `game` (to move, in its
    /// eight symmetries in turn) spends its time: after one untimed pass,
    /// the backend's parts over passes enough to fill `time` (at least
    /// [`PROFILED_PASSES`], at most a thousand), and the host's input
    /// planes for them (features, ladders, symmetries) as "inputs
    /// (host)"; the backend's error where a pass fails. The cache is not
    /// read.
    pub fn profile_passes(
        &self,
        game: &Game,
        batch: usize,
        time: std::time::Duration,
    ) -> Result<PassProfile, backend::PassError> {
        let size = game.size();
        let batch = batch.clamp(1, self.max_batch_of(size));
        let requests: Vec<Request> = (0..batch)
            .map(|b| Request {
                game,
                to_move: game.to_move(),
                fresh: false,
                symmetry: b % 8,
                white_advantage: 0.0,
            })
            .collect();
        let shape = Shape::of(size, batch);
        let mut computation = self.backend.clone().computation();
        let mut maker = FeatureMaker::default();
        let mut features = vec![Features::new(size); batch];
        let mut raw = vec![RawOutput::default(); batch];
        let mut profile = PassProfile::default();
        let mut pass = 0;
        while pass <= PROFILED_PASSES || (profile.total() < time && pass <= 1000) {
            {
                let mut laps = backend::Laps::new((pass > 0).then_some(&mut profile));
                for (r, f) in requests.iter().zip(&mut features) {
                    maker.fill(r.game, r.to_move, r.fresh, r.mover_advantage(), f);
                }
                let inputs = computation.inputs(shape);
                self.write_rows(
                    &requests,
                    None,
                    &features,
                    size,
                    inputs.spatial,
                    inputs.global,
                    inputs.metadata,
                );
                laps.lap("inputs (host)");
            }
            match pass {
                0 => computation.forward(shape, &mut raw)?,
                _ => computation.forward_profiled(shape, &mut raw, &mut profile)?,
            }
            pass += 1;
        }
        profile.passes = pass - 1;
        Ok(profile)
    }

    /// What the network has done since it was loaded (or the counts were
    /// last taken): forward passes, the boards in them, and evaluations
    /// the cache answered.
    pub fn take_counts(&self) -> Counts {
        use std::sync::atomic::Ordering::Relaxed;
        Counts {
            passes: self.counts.passes.swap(0, Relaxed),
            boards: self.counts.boards.swap(0, Relaxed),
            cache_hits: self.counts.cache_hits.swap(0, Relaxed),
        }
    }
}

/// What a network did: its forward passes, the boards in them, and the
/// evaluations its cache answered without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passes: u64,
    pub boards: u64,
    pub cache_hits: u64,
}

/// [`Counts`] as they are kept, by every thread at once.
#[derive(Default)]
struct AtomicCounts {
    /// Whether a failed pass has been said.
    failure_said: std::sync::atomic::AtomicBool,
    passes: std::sync::atomic::AtomicU64,
    boards: std::sync::atomic::AtomicU64,
    cache_hits: std::sync::atomic::AtomicU64,
}

/// Which points the mover may play, in KataGo's order: placement by the
/// board, ko and superko from the inputs' ban plane, and a suicide (which
/// the ban plane leaves out) by the game's own rules.
fn legal_moves(r: &Request, f: &Features, legal: &mut Vec<bool>) {
    let board = r.game.board();
    let points = board.size().points();
    legal.clear();
    legal.resize(points, false);
    for p in board.points() {
        let pos = inputs::position(board, p);
        legal[pos] = board.check(r.to_move, p, r.game.rules.suicide).is_ok()
            && f.spatial[6 * points + pos] == 0.0
            && (r.fresh || !board.is_suicide(r.to_move, p) || r.game.check(r.to_move, p).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    #[test]
    fn a_profiled_pass_on_the_cpu_times_each_block_kind_and_head() {
        let net = Evaluator::embedded();
        let game = Game::new(9, Rules::default(), 7.5);
        let profile = net
            .profile_passes(&game, 1, std::time::Duration::ZERO)
            .unwrap();
        assert_eq!(profile.passes, 3);
        let parts: Vec<&str> = profile.parts.iter().map(|&(p, _)| p).collect();
        assert_eq!(
            parts,
            [
                "inputs (host)",
                "inputs layer",
                "residual block",
                "global pooling block",
                "trunk tip",
                "policy head",
                "value head",
                "ownership head"
            ]
        );
        // A batch past the backend's largest is cut to it; the test
        // backend gives its pass whole.
        let (test, _) = on_test_backend();
        let profile = test
            .profile_passes(&game, 100, std::time::Duration::ZERO)
            .unwrap();
        let parts: Vec<&str> = profile.parts.iter().map(|&(p, _)| p).collect();
        assert_eq!(parts, ["inputs (host)", "forward pass"]);
    }

    #[test]
    fn the_network_reads_the_playout_doubling_advantage() {
        // Nine stones on 19×19, White to move: White, assumed much the
        // stronger, sees its deficit halved (KataGo's handicap play).
        let net = Evaluator::embedded();
        let mut game = Game::new(19, Rules::default(), 0.5);
        let stones: Vec<_> = crate::go::handicap::fixed(19.into(), 9)
            .unwrap()
            .into_iter()
            .map(|(x, y)| (Color::Black, game.board().point(x, y)))
            .collect();
        game.setup(&stones, true).unwrap();
        let lead = |white_advantage| {
            let request = Request {
                game: &game,
                to_move: Color::White,
                fresh: false,
                symmetry: 0,
                white_advantage,
            };
            net.evaluate(request).white_lead
        };
        let (even, stronger, weaker) = (lead(0.0), lead(2.75), lead(-1.0));
        assert!(even < -80.0, "{even}");
        assert!(stronger > even + 30.0, "{stronger} {even}");
        assert!(weaker < even, "{weaker} {even}");
    }

    #[test]
    fn every_evaluating_thread_flushes_subnormals_inside_the_network_only() {
        use crate::nn::cpu::denormals::flushing;
        use crate::nn::cpu::network::FORWARD_FLUSHED;
        let net = Evaluator::embedded();
        let game = Game::new(9, Rules::default(), 7.5);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    assert!(!flushing());
                    assert_eq!(FORWARD_FLUSHED.get(), None);
                    let e = net.evaluate(Request {
                        game: &game,
                        to_move: Color::Black,
                        fresh: true,
                        symmetry: 0,
                        white_advantage: 0.0,
                    });
                    assert!(e.white_win.is_finite());
                    assert_eq!(FORWARD_FLUSHED.get(), Some(true));
                    assert!(!flushing(), "the thread's mode put back");
                });
            }
        });
    }

    #[test]
    fn nets_narrower_than_their_heads_evaluate_without_a_fault() {
        // A trunk and heads of one or two channels, narrower than the
        // value head's three outputs and the scores' six: every buffer
        // holds what is written to it.
        for width in [1, 2, 5] {
            let desc = ModelDesc::parse(test_models::narrow(width, 0.0).as_bytes())
                .unwrap_or_else(|e| panic!("width {width}: {e}"));
            let net = Evaluator::new(&desc);
            let mut game = Game::new(9, Rules::default(), 7.5);
            game.play(Color::Black, Some(game.board().point(4, 4)))
                .unwrap();
            for batch in [1, 3] {
                let requests: Vec<Request> = (0..batch)
                    .map(|symmetry| Request {
                        game: &game,
                        to_move: Color::White,
                        fresh: true,
                        symmetry,
                        white_advantage: 0.0,
                    })
                    .collect();
                let mut out = vec![Evaluation::default(); batch];
                net.evaluate_batch(&requests, &mut out);
                for e in &out {
                    assert!(
                        e.white_win.is_finite() && e.white_lead.is_finite(),
                        "width {width}"
                    );
                }
            }
        }
    }

    #[test]
    fn symmetries_are_permutations_that_come_back() {
        for (width, height) in [(2, 2), (5, 5), (9, 9), (13, 9), (3, 7)] {
            let size = BoardSize::new(width, height).unwrap();
            for s in 0..SYMMETRIES {
                let s = applicable_symmetry(s, size);
                let mut seen = vec![false; size.points()];
                for pos in 0..size.points() {
                    let to = symmetric_position(s, size, pos, false);
                    assert!(!seen[to]);
                    seen[to] = true;
                    assert_eq!(
                        symmetric_position(s, size, to, true),
                        pos,
                        "symmetry {s} board {width}x{height}"
                    );
                }
            }
        }
        // A rectangle's flips: the top-left point (row 0, column 0) of 13x9
        // goes to the top-right, the bottom-left and the bottom-right.
        let size = BoardSize::new(13, 9).unwrap();
        let corners: Vec<usize> = (0..4)
            .map(|s| symmetric_position(s, size, 0, false))
            .collect();
        assert_eq!(corners, [0, 8 * 13, 12, 8 * 13 + 12]);
    }

    #[test]
    fn the_empty_board_gets_a_symmetric_policy_and_an_even_game() {
        let net = Evaluator::embedded();
        let game = Game::new(9, Rules::default(), 7.5);
        let evals: Vec<Evaluation> = (0..SYMMETRIES)
            .map(|s| {
                net.evaluate(Request {
                    game: &game,
                    to_move: Color::Black,
                    fresh: false,
                    symmetry: s,
                    white_advantage: 0.0,
                })
            })
            .collect();
        for e in &evals {
            let total: f32 = e.policy.iter().sum::<f32>() + e.pass;
            assert!((total - 1.0).abs() < 1e-4);
            // The tengen and the 3-3 points are likely, the corners not.
            assert!(e.policy[40] > e.policy[0] * 10.0);
            assert!((0.2..0.8).contains(&e.white_win), "{}", e.white_win);
            // On an empty board every symmetry sees the same position; the
            // net is nearly, not exactly, symmetric.
            assert!((e.white_win - evals[0].white_win).abs() < 0.02);
        }
        // A batch gives what one at a time gives.
        let requests: Vec<Request> = (0..3)
            .map(|s| Request {
                game: &game,
                to_move: Color::Black,
                fresh: false,
                symmetry: s,
                white_advantage: 0.0,
            })
            .collect();
        let mut batch = vec![Evaluation::default(); 3];
        net.evaluate_batch(&requests, &mut batch);
        for (s, e) in batch.iter().enumerate() {
            assert!((e.white_win - evals[s].white_win).abs() < 1e-5);
        }
    }

    #[test]
    fn a_net_whose_outputs_are_not_finite_is_refused_at_load() {
        use std::io::Read;
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(EMBEDDED_MODEL)
            .read_to_end(&mut text)
            .unwrap();
        // The score head's biases 3·10³⁸: finite weights, scores that are
        // not (KataGo scales them by 20). They are the last block but one.
        let blocks: Vec<usize> = text
            .windows(5)
            .enumerate()
            .filter(|(_, w)| *w == b"@BIN@")
            .map(|(i, _)| i + 5)
            .collect();
        let at = blocks[blocks.len() - 2];
        let huge = 3e38f32.to_le_bytes();
        for w in text[at..at + 4 * 4].chunks_exact_mut(4) {
            w.copy_from_slice(&huge);
        }
        let path = std::env::temp_dir().join(format!("kosumi-nan-{}.bin", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let err = Evaluator::load(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(err.to_string().contains("not finite"), "{err}");
    }
}
