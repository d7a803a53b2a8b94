//! The network's front door: [`Evaluator`], a loaded net with the cache
//! of its evaluations and a pool of buffers, one taken per evaluation and
//! given back, from any thread; a batch goes through it by the steps of
//! [`super::pass`].

use super::backend::{Backend, PassError, PassProfile};
use super::model::{EMBEDDED_MODEL, ModelDesc, ModelError};
use super::options::Backends;
use super::output::Evaluation;
use super::pass::{Counts, Passes, Scratch};
use super::precision::Precision;
use super::profile::HumanProfile;
use super::rows::{Request, SYMMETRIES};
use super::{cache, cpu, faults};
use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;
use std::sync::Mutex;

/// How much of the optimistic policy (version 12 on) the evaluations
/// blend in: KataGo's `policyOptimism` in its search (its default 1.0;
/// the root's is 0.2, which `kata-raw-nn` takes by default).
pub const SEARCH_POLICY_OPTIMISM: f32 = 1.0;

/// A loaded network, with the cache of its evaluations and the buffers of
/// its evaluations; shared by every thread.
pub struct Evaluator {
    /// The net's passes: its backend, its batcher, its counts.
    pub(super) passes: Passes,
    version: i32,
    cache: cache::Cache,
    scratches: Mutex<Vec<Scratch>>,
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Evaluator({})", self.passes.name)
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
            passes: Passes::new(desc, backend),
            version: desc.version,
            cache: cache::Cache::new(cache::CAPACITY),
            scratches: Mutex::new(Vec::new()),
        }
    }

    /// The same net with a `share` (0 to 1) of its evaluations spoiled by
    /// NaN or infinity in one of the heads, drawn from `seed`
    /// ([`faults`]): for driving every consumer through evaluations that
    /// fail at the door, in tests and drills.
    pub fn with_faults(mut self, share: f64, seed: u64) -> Evaluator {
        self.passes.backend = std::sync::Arc::new(faults::Faulty::new(
            self.passes.backend.clone(),
            share.clamp(0.0, 1.0),
            seed,
        ));
        self.cache = cache::Cache::new(cache::CAPACITY);
        self
    }

    /// Whether the net is a human-like net: it reads the game's metadata
    /// (ranks, date, time control) and needs a [`HumanProfile`].
    pub fn is_human(&self) -> bool {
        self.passes.human
    }

    /// The profile the net is evaluated under.
    pub fn profile(&self) -> Option<HumanProfile> {
        self.passes
            .profile
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sets the profile a human-like net is evaluated under (other nets
    /// read no metadata and keep it only to report it); the cached
    /// evaluations of another profile are dropped.
    pub fn set_profile(&self, profile: Option<HumanProfile>) {
        let mut current = self
            .passes
            .profile
            .write()
            .unwrap_or_else(|e| e.into_inner());
        if *current != profile {
            *current = profile;
            if self.passes.human {
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
        self.passes.backend.attributes().name.clone()
    }

    /// The most positions of 19×19 its backend evaluates at once, as
    /// KataGo's `query_models` reports `maxBatchSize`.
    pub fn max_batch(&self) -> usize {
        self.max_batch_of(BoardSize::square(19))
    }

    /// The most positions of `size` its backend evaluates at once.
    pub fn max_batch_of(&self, size: BoardSize) -> usize {
        self.passes.max_batch_of(size)
    }

    /// The positions of `size` its backend wants at once: what a search
    /// keeps in flight.
    pub fn preferred_batch(&self, size: BoardSize) -> usize {
        self.passes.preferred_batch(size)
    }

    /// Whether its evaluations keep the calling thread's core busy (the
    /// CPU backend) rather than wait on a device (a GPU, a simulated one).
    pub fn on_processor(&self) -> bool {
        self.passes.backend.attributes().on_processor
    }

    /// Whether its products run in half precision (KataGo's `usingFP16`).
    pub fn uses_fp16(&self) -> bool {
        self.passes.backend.attributes().precision == Precision::F16
    }

    /// The backend's peak single-precision operations a cycle.
    pub fn peak_flops_per_cycle(&self) -> f64 {
        self.passes.backend.attributes().peak_flops_per_cycle
    }

    /// Runs `f` with buffers from the pool (new ones where the pool is
    /// empty), given back after.
    fn with_scratch<T>(&self, f: impl FnOnce(&mut Scratch) -> T) -> T {
        let lock = || self.scratches.lock().unwrap_or_else(|e| e.into_inner());
        let popped = lock().pop();
        let mut scratch =
            popped.unwrap_or_else(|| Scratch::new(self.passes.backend.clone().computation()));
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
            crate::say!("kosumi: the embedded network runs on the CPU: {e}");
            Evaluator::new(&desc)
        })
    }

    /// One net (`model`, or the embedded one), read once, on each of
    /// `backends` in turn, for holding one backend to another; why not
    /// where the file does not read or a backend does not run it.
    pub fn on_each(
        model: Option<&std::path::Path>,
        backends: &[Backends],
    ) -> Result<Vec<Evaluator>, ModelError> {
        let desc = match model {
            Some(path) => ModelDesc::load(path)?,
            None => ModelDesc::parse(EMBEDDED_MODEL)?,
        };
        backends.iter().map(|b| Evaluator::on(&desc, b)).collect()
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
        let warm_up = self.passes.human && self.profile().is_none();
        if warm_up {
            self.set_profile(HumanProfile::parse("proyear_2020").ok());
        }
        // The refusal below says it: the door says nothing of it.
        let finite = self.passes.unsaid(|| self.outputs_are_finite());
        if warm_up {
            self.set_profile(None);
        }
        if finite {
            Ok(())
        } else {
            Err(ModelError::Malformed {
                layer: self.passes.name.clone(),
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
        &self.passes.name
    }

    /// Multiply-adds of one evaluation on a board of `size`.
    pub fn macs(&self, size: BoardSize) -> f64 {
        self.passes.backend.macs(size)
    }

    /// The model version of the file.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// Evaluates one position with the optimistic policy blended in by
    /// `optimism` (0 to 1; nets before version 12 have none to blend).
    pub fn evaluate_with_optimism(&self, request: Request, optimism: f32) -> Evaluation {
        let mut out = [Evaluation::default()];
        self.with_scratch(|s| {
            self.passes
                .evaluate_together(&[request], optimism, None, s, &mut out)
        });
        let [e] = out;
        e
    }

    /// Evaluates one position as a human-like net under `profile`, whatever
    /// the net's own profile (another net reads no profile), bypassing the
    /// cache: one query's profile, beside the other queries'.
    pub fn evaluate_under(&self, profile: &HumanProfile, request: Request) -> Evaluation {
        let mut out = [Evaluation::default()];
        self.with_scratch(|s| {
            self.passes.evaluate_together(
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
            self.passes
                .counts
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
        self.passes.counts.cache_hits.fetch_add(
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
                self.passes
                    .evaluate_together(requests, SEARCH_POLICY_OPTIMISM, None, scratch, out);
            }
        });
    }

    /// Where a forward pass of `batch` copies of `game` (to move, in its
    /// eight symmetries in turn) spends its time: after one untimed pass,
    /// the backend's parts over passes enough to fill `time` (at least
    /// [`PROFILED_PASSES`](super::pass::PROFILED_PASSES), at most a thousand), and the host's
    /// input planes for them (features, ladders, symmetries) as "inputs
    /// (host)"; the backend's error where a pass fails. The cache is not
    /// read.
    pub fn profile_passes(
        &self,
        game: &Game,
        batch: usize,
        time: std::time::Duration,
    ) -> Result<PassProfile, PassError> {
        self.passes.profile_passes(game, batch, time)
    }

    /// What the network has done since it was loaded (or the counts were
    /// last taken): forward passes, the boards in them, and evaluations
    /// the cache answered.
    pub fn take_counts(&self) -> Counts {
        self.passes.take_counts()
    }
}
