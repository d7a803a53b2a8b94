//! One batch through the network, by its steps: the positions' input
//! planes made and written as rows ([`super::rows`]), the forward pass run
//! on this thread's computation or gathered with other threads' by the
//! [`batcher`](super::batcher) (`Result` of the raw outputs, or the
//! pass's error), then the raw outputs brought back from their symmetries
//! and post-processed into [`Evaluation`]s. This is the door's one voice
//! for a failure: a failed pass, or a net's output that is not a finite
//! number, makes the evaluations fail at the door (neutral stand-ins,
//! marked), each kind said once on stderr with its cause; the searches
//! count what they drop and say nothing. Also here: the counts of passes
//! and boards, and a pass timed part by part (`bench --nn --profile`).

use super::backend::{
    self, Backend, Computation, Inputs, PassError, PassProfile, RawOutput, Shape,
};
use super::batcher;
use super::inputs::{FeatureMaker, Features, GLOBAL, NetRules};
use super::ladder_memo::{LadderMemo, Ladders};
use super::model::ModelDesc;
use super::output::{self, Evaluation};
use super::profile::{HumanProfile, METADATA_INPUTS};
use super::rows::{self, Request, applicable_symmetry, symmetric_position};
use crate::go::board::{BoardSize, Point};
use crate::go::game::Game;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, RwLock};

/// The fewest timed passes [`Evaluator::profile_passes`] runs.
pub const PROFILED_PASSES: usize = 3;

/// A loaded net's passes: its backend, where the threads' positions meet
/// in one batch (for a backend that wants batches), its name and output
/// scalings, whether it reads a human profile and the one it is under,
/// and the counts of what it did.
pub(super) struct Passes {
    pub(super) backend: Arc<dyn Backend>,
    pub(super) name: String,
    scaling: output::Scaling,
    batcher: batcher::Batcher,
    pub(super) counts: AtomicCounts,
    /// Whether the net reads KataGo's game metadata (a human-like net).
    pub(super) human: bool,
    /// The profile a human-like net is evaluated under (KataGo's
    /// `humanSLProfile`); the frontends refuse to evaluate such a net
    /// without one.
    pub(super) profile: RwLock<Option<HumanProfile>>,
    /// The boards' ladders the threads have read.
    ladders: LadderMemo,
}

/// The buffers one evaluation uses, kept in the evaluator's pool and
/// reused: after the first evaluations of a board size nothing more is
/// allocated.
pub(super) struct Scratch {
    maker: FeatureMaker,
    features: Vec<Features>,
    computation: Box<dyn Computation>,
    raw: Vec<RawOutput>,
    /// This thread's rows and outputs when the batcher gathers them.
    submission: batcher::Submission,
    /// The points' planes as bits, laid down in the backend's inputs where
    /// this thread runs its own passes.
    planes: Vec<u32>,
    unmapped: RawOutput,
    legal: Vec<bool>,
}

impl Scratch {
    /// Buffers for `computation`'s passes, empty until the first batch.
    pub(super) fn new(computation: Box<dyn Computation>) -> Scratch {
        Scratch {
            maker: FeatureMaker::default(),
            features: Vec::new(),
            computation,
            raw: Vec::new(),
            submission: batcher::Submission::default(),
            planes: Vec::new(),
            unmapped: RawOutput::default(),
            legal: Vec::new(),
        }
    }
}

impl Passes {
    /// `desc`'s passes on `backend` (made from the same description).
    pub(super) fn new(desc: &ModelDesc, backend: Arc<dyn Backend>) -> Passes {
        Passes {
            backend,
            name: desc.name.clone(),
            scaling: output::Scaling {
                post: desc.post_process,
                shortterm: desc.facts.shortterm,
            },
            batcher: batcher::Batcher::default(),
            counts: AtomicCounts::default(),
            human: desc.trunk.metadata_encoder.is_some(),
            profile: RwLock::new(None),
            ladders: LadderMemo::default(),
        }
    }

    /// The most positions of `size` the backend evaluates at once.
    pub(super) fn max_batch_of(&self, size: BoardSize) -> usize {
        self.backend.attributes().batching.max(size)
    }

    /// The positions of `size` the backend wants at once.
    pub(super) fn preferred_batch(&self, size: BoardSize) -> usize {
        self.backend.attributes().batching.preferred(size)
    }

    /// Evaluates `requests` (one board size) as one batch; a human-like net
    /// under `profile` where given, its own profile otherwise: the pass,
    /// then its outputs mapped back, or every evaluation failed at the
    /// door where the pass failed.
    pub(super) fn evaluate_together(
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
        let size = first.game.size();
        assert!(
            requests.iter().all(|r| r.game.size() == size),
            "one board size per batch"
        );
        match self.run_pass(requests, profile, scratch) {
            Ok(()) => self.map_outputs(requests, optimism, scratch, out),
            Err(why) => {
                self.say_once(&self.counts.pass_failure_said, || {
                    format!("gave no evaluations ({why})")
                });
                for (r, (f, out)) in requests.iter().zip(scratch.features.iter().zip(out)) {
                    legal_moves(r, f, &mut scratch.legal);
                    out.fail_on(&scratch.legal, size);
                }
            }
        }
    }

    /// Makes `requests`' input planes and runs them through the network:
    /// gathered with other threads' rows where the backend wants batches
    /// ([`batcher`]), here otherwise. The raw outputs are left in
    /// `scratch.raw`, a board each in order.
    fn run_pass(
        &self,
        requests: &[Request],
        profile: Option<&HumanProfile>,
        scratch: &mut Scratch,
    ) -> Result<(), PassError> {
        let size = requests[0].game.size();
        let batch = requests.len();
        let shape = Shape::of(size, batch);
        scratch.features.resize_with(batch, || Features::new(size));
        scratch.raw.resize_with(batch, RawOutput::default);
        let memo = Some(&self.ladders);
        if self.preferred_batch(size) == 1 {
            let mut inputs = scratch.computation.inputs(shape);
            let planes = &mut scratch.planes;
            planes.resize(shape.points() * batch, 0);
            let (maker, features) = (&mut scratch.maker, &mut scratch.features);
            let rows = (&mut planes[..], &mut *inputs.global, &mut *inputs.metadata);
            self.fill_rows(requests, profile, maker, features, memo, rows);
            rows::lay_down(planes, &mut inputs.spatial, 0);
            self.count_runs((1, batch as u64));
            return scratch.computation.forward(shape, &mut scratch.raw);
        }
        let mut s = std::mem::take(&mut scratch.submission);
        s.size = Some(size);
        s.boards = batch;
        s.planes.resize(shape.points() * batch, 0);
        s.global.resize(GLOBAL * batch, 0.0);
        s.metadata.resize(
            if self.human {
                METADATA_INPUTS * batch
            } else {
                0
            },
            0.0,
        );
        let rows = (&mut s.planes[..], &mut s.global[..], &mut s.metadata[..]);
        let (maker, features) = (&mut scratch.maker, &mut scratch.features);
        self.fill_rows(requests, profile, maker, features, memo, rows);
        let mut runs = (0, 0);
        let batching = &self.backend.attributes().batching;
        s = self
            .batcher
            .evaluate(s, batching, &mut *scratch.computation, &mut runs);
        self.count_runs(runs);
        let failed = s.failed.take();
        std::mem::swap(&mut scratch.raw, &mut s.raw);
        scratch.submission = s;
        failed.map_or(Ok(()), Err)
    }

    /// Brings each board's raw outputs (`scratch.raw`) back from its
    /// symmetry, blends in `optimism` of the optimistic policy, and
    /// post-processes them into `out`; an evaluation that is not finite
    /// fails at the door.
    fn map_outputs(
        &self,
        requests: &[Request],
        optimism: f32,
        scratch: &mut Scratch,
        out: &mut [Evaluation],
    ) {
        // A human-like net's policy is a person's: KataGo blends in none
        // of its optimistic policy.
        let optimism = if self.human { 0.0 } else { optimism };
        let blend = |p: f32, optimistic: f32| p + (optimistic - p) * optimism;
        let size = requests[0].game.size();
        let points = size.points();
        for (b, r) in requests.iter().enumerate() {
            let raw = &scratch.raw[b];
            let u = &mut scratch.unmapped;
            u.policy.resize(points, 0.0);
            u.ownership.resize(points, 0.0);
            let symmetry = applicable_symmetry(r.symmetry, size);
            // A row of the board at a time: along it each point's place is
            // a constant step from the last.
            let width = size.width;
            for row in 0..size.height {
                let first = symmetric_position(symmetry, size, row * width, true);
                let step = symmetric_position(symmetry, size, row * width + 1, true) as isize
                    - first as isize;
                for column in 0..width {
                    let (pos, to) = (
                        row * width + column,
                        (first as isize + step * column as isize) as usize,
                    );
                    u.policy[to] = match raw.policy_optimistic.get(pos) {
                        Some(&o) => blend(raw.policy[pos], o),
                        None => raw.policy[pos],
                    };
                    u.ownership[to] = raw.ownership[pos];
                }
            }
            u.pass = blend(raw.pass, raw.pass_optimistic);
            u.value = raw.value;
            u.score = raw.score;
            legal_moves(r, &scratch.features[b], &mut scratch.legal);
            let rules = NetRules::of(&r.game.rules);
            let e = &mut out[b];
            output::postprocess(u, &scratch.legal, r.to_move, &rules, size, &self.scaling, e);
            // The door: no consumer sees a number that is none.
            e.failed = false;
            if !e.is_finite() {
                e.fail();
                self.say_once(&self.counts.not_finite_said, || {
                    "gave an evaluation that is not finite (NaN or infinity)".into()
                });
            }
        }
    }

    /// Makes each request's planes into `features` and writes its inputs
    /// into `rows` (the points' planes as bits, the global inputs, the
    /// metadata: [`rows::write`]) at once, while its planes are still in
    /// the caches.
    fn fill_rows(
        &self,
        requests: &[Request],
        profile: Option<&HumanProfile>,
        maker: &mut FeatureMaker,
        features: &mut [Features],
        memo: Option<&LadderMemo>,
        (planes, global, metadata): (&mut [u32], &mut [f32], &mut [f32]),
    ) {
        let size = requests[0].game.size();
        let own = self.own_profile();
        let profile = profile.or(own.as_ref().and_then(|p| p.as_ref()));
        let planes = planes.chunks_exact_mut(size.points());
        let global = global.chunks_exact_mut(GLOBAL);
        let mut metadata = metadata.chunks_exact_mut(METADATA_INPUTS);
        let boards = requests.iter().zip(features).zip(planes.zip(global));
        for (b, ((r, f), (planes, global))) in boards.enumerate() {
            maker.fill_remembering(r.game, r.to_move, r.fresh, r.mover_advantage(), f, memo);
            let metadata = metadata.next().unwrap_or_default();
            let (request, f) = (&requests[b..=b], std::slice::from_ref(f));
            rows::write(
                request, f, size, self.human, profile, planes, global, metadata,
            );
        }
    }

    /// Writes `requests`' input rows into `inputs`, a human-like net's
    /// metadata under `profile` or its own, the points' planes by way of
    /// `planes`.
    fn write_rows(
        &self,
        requests: &[Request],
        profile: Option<&HumanProfile>,
        features: &[Features],
        size: BoardSize,
        planes: &mut Vec<u32>,
        mut inputs: Inputs,
    ) {
        let own = self.own_profile();
        let profile = profile.or(own.as_ref().and_then(|p| p.as_ref()));
        planes.resize(size.points() * requests.len(), 0);
        rows::write(
            requests,
            features,
            size,
            self.human,
            profile,
            planes,
            inputs.global,
            inputs.metadata,
        );
        rows::lay_down(planes, &mut inputs.spatial, 0);
    }

    /// The net's own profile, read under its lock, where it is a
    /// human-like net (only one reads a profile: another takes no lock).
    fn own_profile(&self) -> Option<std::sync::RwLockReadGuard<'_, Option<HumanProfile>>> {
        self.human
            .then(|| self.profile.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Says on stderr, the first time `said` is set, what the network did
    /// (`what`): its evaluations fail at the door, and the searches go on
    /// without them.
    fn say_once(&self, said: &std::sync::atomic::AtomicBool, what: impl FnOnce() -> String) {
        if !said.swap(true, Relaxed) {
            crate::say!(
                "kosumi: the network {} {}; such evaluations are dropped",
                self.name,
                what()
            );
        }
    }

    /// Runs `f` (the load's probe, which says its own refusal) with the
    /// door's failures not said.
    pub(super) fn unsaid<T>(&self, f: impl FnOnce() -> T) -> T {
        let flags = [&self.counts.pass_failure_said, &self.counts.not_finite_said];
        let before = flags.map(|flag| flag.swap(true, Relaxed));
        let out = f();
        for (flag, was) in flags.into_iter().zip(before) {
            flag.store(was, Relaxed);
        }
        out
    }

    /// Counts forward passes and their boards (`runs`).
    fn count_runs(&self, (passes, boards): (u64, u64)) {
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
    pub(super) fn profile_passes(
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
        let mut planes = Vec::new();
        let mut profile = PassProfile::default();
        let mut pass = 0;
        while pass <= PROFILED_PASSES || (profile.total() < time && pass <= 1000) {
            {
                let mut laps = backend::Laps::new((pass > 0).then_some(&mut profile));
                for (r, f) in requests.iter().zip(&mut features) {
                    maker.fill(r.game, r.to_move, r.fresh, r.mover_advantage(), f);
                }
                let inputs = computation.inputs(shape);
                self.write_rows(&requests, None, &features, size, &mut planes, inputs);
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
    pub(super) fn take_counts(&self) -> Counts {
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
pub(super) struct AtomicCounts {
    /// Whether a failed pass has been said.
    pub(super) pass_failure_said: std::sync::atomic::AtomicBool,
    /// Whether an evaluation that is not finite has been said.
    pub(super) not_finite_said: std::sync::atomic::AtomicBool,
    passes: std::sync::atomic::AtomicU64,
    boards: std::sync::atomic::AtomicU64,
    pub(super) cache_hits: std::sync::atomic::AtomicU64,
}

/// Which points the mover may play, in KataGo's order: placement by the
/// board, ko and superko from the inputs' ban plane, and a suicide (which
/// the ban plane leaves out) by the game's own rules.
fn legal_moves(r: &Request, f: &Features, legal: &mut Vec<bool>) {
    let board = r.game.board();
    let size = board.size();
    legal.clear();
    legal.resize(size.points(), false);
    // A row at a time, its empty points not banned read off the planes
    // (on the board, neither colour's stone, not the ko's or superko's).
    let run = |plane: usize, at: usize| Ladders::run(&f.planes[plane], at, size.width);
    for (at, first) in board.rows_from_top() {
        let mut open = run(0, at) & !run(1, at) & !run(2, at) & !run(6, at);
        while open != 0 {
            let x = open.trailing_zeros() as usize;
            open &= open - 1;
            let p = first + x as Point;
            // A suicide, seldom met, is the rules' to allow, then the
            // game's (a repeat); anything else is legal.
            legal[at + x] = !board.is_suicide(r.to_move, p)
                || board.check(r.to_move, p, r.game.rules.suicide).is_ok()
                    && (r.fresh || r.game.check(r.to_move, p).is_ok());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Cell;
    use crate::go::rules::Rules;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_legal_moves_are_the_points_the_game_lets_the_mover_play() {
        // Random games on small boards and a rectangle, crowded enough for
        // suicides and repeats, under rules that refuse or allow a suicide
        // of several stones: a point is legal exactly where the game plays
        // it.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let mut maker = FeatureMaker::default();
        let mut legal = Vec::new();
        let (mut suicides, mut refused) = (0, 0);
        for (width, height) in [(4, 4), (5, 5), (6, 4)] {
            let size = BoardSize::new(width, height).unwrap();
            let mut f = Features::new(size);
            for rules in ["chinese", "tromp-taylor", "japanese"] {
                for _ in 0..20 {
                    let mut game = Game::new(size, Rules::preset(rules).unwrap(), 7.5);
                    for _ in 0..3 * width * height {
                        let r = Request::of(&game);
                        maker.fill(&game, r.to_move, false, 0.0, &mut f);
                        legal_moves(&r, &f, &mut legal);
                        let board = game.board();
                        let mut playable = Vec::new();
                        for p in board.points() {
                            let plays = game.clone().play(r.to_move, Some(p)).is_ok();
                            let pos = super::super::inputs::position(board, p);
                            assert_eq!(legal[pos], plays, "{rules} {p}");
                            let empty = board.cell(p) == Cell::Empty;
                            refused += usize::from(empty && !plays);
                            suicides += usize::from(plays && board.is_suicide(r.to_move, p));
                            if plays {
                                playable.push(p);
                            }
                        }
                        let mv = (!playable.is_empty() && rng.random_range(0..10) > 0)
                            .then(|| playable[rng.random_range(0..playable.len())]);
                        game.play(r.to_move, mv).unwrap();
                    }
                }
            }
        }
        assert!(suicides > 10 && refused > 100, "{suicides} {refused}");
    }
}
