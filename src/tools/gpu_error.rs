//! `kosumi gpu-error`: KataGo's `testgpuerror` for kosumi's GPU backend.
//! The same positions (games of random legal moves on square and
//! rectangular boards, a seed's) are evaluated by the CPU backend and by
//! the GPU's, one at a time and in full batches, and the differences of
//! the win rate, the lead, the CPU's top move's policy and the ownership
//! are held to KataGo's gates (`cpp/tests/testnnevalcanary.cpp`): at the
//! 99th percentile and at the worst. The comparison itself takes any two
//! evaluators: the tests hold the host's executor of the GPU program to
//! the CPU backend with it.

use crate::go::board::BoardSize;
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::nn::{Evaluation, Evaluator, Precision, Request};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The largest differences allowed: win rate (0 to 1), lead (points),
/// the top move's policy (percentage points) and ownership (−1 to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub winrate: f64,
    pub lead: f64,
    pub policy: f64,
    pub ownership: f64,
}

/// A gate: bounds at the 99th percentile and at the worst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    pub p99: Bounds,
    pub worst: Bounds,
}

/// The GPU in single precision against the CPU: KataGo's 0.45% win rate,
/// 0.34 points, 0.45 policy points at the 99th percentile, three times
/// that at the worst; ownership 1.75 and 4 times the win rate's.
pub const F32_GATE: Gate = Gate {
    p99: Bounds {
        winrate: 0.0045,
        lead: 0.34,
        policy: 0.45,
        ownership: 1.75 * 0.0045,
    },
    worst: Bounds {
        winrate: 0.0135,
        lead: 0.9,
        policy: 1.35,
        ownership: 4.0 * 0.0135,
    },
};

/// Half precision against single: 2%, 1.0, 2.5 at the 99th percentile;
/// 5%, 3.0, 6 at the worst.
pub const F16_GATE: Gate = Gate {
    p99: Bounds {
        winrate: 0.02,
        lead: 1.0,
        policy: 2.5,
        ownership: 1.75 * 0.02,
    },
    worst: Bounds {
        winrate: 0.05,
        lead: 3.0,
        policy: 6.0,
        ownership: 4.0 * 0.05,
    },
};

/// The board sizes the positions cycle through: the common squares and two
/// rectangles (each way round).
const SIZES: [(usize, usize); 6] = [(19, 19), (9, 9), (13, 13), (19, 19), (7, 11), (19, 13)];

/// The most positions one run compares (KataGo's own check takes a few
/// hundred): the differences of each are kept for the quantiles.
pub const MAX_POSITIONS: usize = 100_000;

/// Positions made as they are taken, a chunk at a time.
const CHUNK: usize = 192;

/// `count` positions, made as they are taken: on each size of [`SIZES`]
/// in turn, a game of up to 120 random legal moves (no pass) from the
/// empty board.
pub fn positions(count: usize, seed: u64) -> impl Iterator<Item = Game> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count).map(move |i| {
        let (width, height) = SIZES[i % SIZES.len()];
        let size = BoardSize { width, height };
        let mut game = Game::new(size, Rules::default(), 7.5);
        let moves = rng.random_range(0..=120.min(width * height / 2));
        for _ in 0..moves {
            let mover = game.to_move();
            let points: Vec<_> = game.board().points().collect();
            let start = rng.random_range(0..points.len());
            let legal = (0..points.len())
                .map(|k| points[(start + k) % points.len()])
                .find(|&p| game.check(mover, p).is_ok());
            let Some(p) = legal else { break };
            game.play(mover, Some(p)).expect("a checked move");
        }
        game
    })
}

/// The differences between two evaluations of each position.
#[derive(Clone, Debug, Default)]
pub struct Errors {
    pub winrate: Vec<f64>,
    pub lead: Vec<f64>,
    pub policy: Vec<f64>,
    pub ownership: Vec<f64>,
}

/// `net`'s evaluations of `games`, `batch` at a time (each position under
/// symmetry 0, for the player to move).
pub fn evaluations(net: &Evaluator, games: &[Game], batch: usize) -> Vec<Evaluation> {
    let mut out = vec![Evaluation::default(); games.len()];
    // A batch holds one board size: runs of the same size, cut at `batch`.
    let mut start = 0;
    while start < games.len() {
        let size = games[start].size();
        let mut end = start + 1;
        while end < games.len() && end - start < batch && games[end].size() == size {
            end += 1;
        }
        let requests: Vec<Request> = games[start..end]
            .iter()
            .map(|game| Request {
                game,
                to_move: game.to_move(),
                fresh: true,
                symmetry: 0,
                white_advantage: 0.0,
            })
            .collect();
        net.evaluate_batch(&requests, &mut out[start..end]);
        start = end;
    }
    out
}

/// `other`'s evaluations of `games` against `reference`'s, `batch` at a
/// time.
pub fn compare(reference: &Evaluator, other: &Evaluator, games: &[Game], batch: usize) -> Errors {
    Errors::between(
        &evaluations(reference, games, batch),
        &evaluations(other, games, batch),
    )
}

impl Errors {
    /// The differences of `other`'s evaluations from `reference`'s, one
    /// for one.
    pub fn between(reference: &[Evaluation], other: &[Evaluation]) -> Errors {
        let mut errors = Errors::default();
        for (x, y) in reference.iter().zip(other) {
            errors.add(x, y);
        }
        errors
    }

    /// Adds `more`'s differences.
    fn extend(&mut self, more: Errors) {
        self.winrate.extend(more.winrate);
        self.lead.extend(more.lead);
        self.policy.extend(more.policy);
        self.ownership.extend(more.ownership);
    }

    fn add(&mut self, x: &Evaluation, y: &Evaluation) {
        let diff = |p: f32, q: f32| f64::from((p - q).abs());
        self.winrate.push(diff(x.white_win, y.white_win));
        self.lead.push(diff(x.white_lead, y.white_lead));
        // The reference's top move (or the pass), its probability in both.
        let top = (0..x.policy.len()).max_by(|&i, &j| x.policy[i].total_cmp(&x.policy[j]));
        let policy = match top {
            Some(i) if x.policy[i] >= x.pass => diff(x.policy[i], y.policy[i]),
            _ => diff(x.pass, y.pass),
        };
        self.policy.push(100.0 * policy);
        let ownership = x
            .white_ownership()
            .zip(y.white_ownership())
            .map(|(p, q)| diff(p, q))
            .fold(0.0, f64::max);
        self.ownership.push(ownership);
    }

    /// The differences at quantile `q` (0.99, or 1 for the worst).
    pub fn at(&self, q: f64) -> Bounds {
        let quantile = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            let i = ((v.len() as f64 - 1.0) * q).ceil() as usize;
            v.get(i).copied().unwrap_or(0.0)
        };
        Bounds {
            winrate: quantile(&self.winrate),
            lead: quantile(&self.lead),
            policy: quantile(&self.policy),
            ownership: quantile(&self.ownership),
        }
    }

    /// Whether the differences keep within `gate`, and a line that says
    /// them.
    pub fn judge(&self, gate: &Gate) -> (bool, String) {
        let (p99, worst) = (self.at(0.99), self.at(1.0));
        let within = |e: Bounds, b: Bounds| {
            e.winrate <= b.winrate
                && e.lead <= b.lead
                && e.policy <= b.policy
                && e.ownership <= b.ownership
        };
        let pass = within(p99, gate.p99) && within(worst, gate.worst);
        let line = format!(
            "positions={} winrate_p99={:.4}% winrate_max={:.4}% lead_p99={:.4} lead_max={:.4} \
             policy_p99={:.4} policy_max={:.4} ownership_p99={:.5} ownership_max={:.5} {}",
            self.winrate.len(),
            100.0 * p99.winrate,
            100.0 * worst.winrate,
            p99.lead,
            worst.lead,
            p99.policy,
            worst.policy,
            p99.ownership,
            worst.ownership,
            if pass { "pass" } else { "FAIL" }
        );
        (pass, line)
    }
}

/// KataGo's gate for the GPU's products in `precision`, or why the GPU is
/// not checked in it.
fn gate_of(precision: Precision) -> Result<&'static Gate, String> {
    match precision.check_on_gpu()? {
        Precision::F16 => Ok(&F16_GATE),
        _ => Ok(&F32_GATE),
    }
}

/// A net on the GPU in one precision, and the gate that holds it.
type OnGpu = (Evaluator, &'static Gate);

/// A net (`model`, or the embedded one) on the CPU and on GPU `gpu` in each
/// of `precisions`, each through the options as every network is loaded;
/// why not where there is no GPU backend or GPU, or the GPU does not run
/// the net.
fn on_cpu_and_gpu(
    model: Option<&std::path::Path>,
    gpu: usize,
    precisions: &[Precision],
) -> Result<(Evaluator, Vec<OnGpu>), String> {
    use crate::nn::{BackendKind, Options};
    let check = |options: Options| options.check().map_err(|e| e.to_string());
    let mut backends = vec![check(Options {
        backend: BackendKind::Cpu,
        ..Options::default()
    })?];
    for &precision in precisions {
        backends.push(check(Options {
            backend: BackendKind::Cuda,
            gpu: Some(gpu),
            precision: Some(precision),
            ..Options::default()
        })?);
    }
    let named = |e| match model {
        Some(path) => format!("{}: {e}", path.display()),
        None => e,
    };
    let mut nets = Evaluator::on_each(model, &backends)
        .map_err(|e| named(e.to_string()))?
        .into_iter();
    let cpu = nets.next().ok_or("no net on the CPU")?;
    let gates = precisions.iter().map(|&p| gate_of(p));
    let on_gpu = nets
        .zip(gates)
        .map(|(net, gate)| Ok((net, gate?)))
        .collect::<Result<_, String>>()?;
    Ok((cpu, on_gpu))
}

/// Runs the check for each net (the embedded one where none is named) on
/// GPU `gpu`: `count` positions (1 to [`MAX_POSITIONS`]) at batch 1 and in
/// full batches, in `precision` (`None`: f32 and f16, each by its gate), a
/// line each; `Ok(false)` where a gate fails. The GPU and every net are
/// read before a position is made, and the positions are made a chunk at
/// a time.
pub fn run(
    nets: &[std::path::PathBuf],
    count: usize,
    gpu: usize,
    precision: Option<Precision>,
) -> Result<bool, String> {
    let precisions = match precision {
        Some(p) => vec![p],
        None => vec![Precision::F32, Precision::F16],
    };
    for &p in &precisions {
        gate_of(p).map_err(|why| format!("--precision {p}: {why}"))?;
    }
    // A net that is not there is named before the GPU is asked for.
    for net in nets {
        std::fs::metadata(net).map_err(|e| format!("{}: {e}", net.display()))?;
    }
    if !(1..=MAX_POSITIONS).contains(&count) {
        return Err(format!(
            "--positions must be from 1 to {MAX_POSITIONS}, not {count}"
        ));
    }
    let models: Vec<Option<&std::path::Path>> = if nets.is_empty() {
        vec![None]
    } else {
        nets.iter().map(|p| Some(p.as_path())).collect()
    };
    // Every net read (and the GPU started) before the first position.
    let mut loaded = Vec::with_capacity(models.len());
    for model in models {
        loaded.push(on_cpu_and_gpu(model, gpu, &precisions)?);
    }
    let mut all = true;
    for (cpu, on_gpu) in &loaded {
        if cpu.is_human() {
            // A human-like net under a rank's profile.
            let profile = crate::nn::HumanProfile::parse("rank_3d").ok();
            for net in std::iter::once(cpu).chain(on_gpu.iter().map(|(net, _)| net)) {
                net.set_profile(profile.clone());
            }
        }
        // The GPU's evaluations in each precision held to the CPU's by its
        // gate (f32's, f16's); at batch 1 and in full batches.
        let runs: Vec<(&Evaluator, &Gate, usize)> = on_gpu
            .iter()
            .flat_map(|&(ref net, gate)| {
                [1, net.max_batch().min(64)]
                    .into_iter()
                    .map(move |batch| (net, gate, batch))
            })
            .collect();
        let mut errors = vec![Errors::default(); runs.len()];
        let mut games = positions(count, 1).peekable();
        while games.peek().is_some() {
            let chunk: Vec<Game> = games.by_ref().take(CHUNK).collect();
            // The CPU's evaluations once a chunk.
            let reference = evaluations(cpu, &chunk, 64);
            for (&(net, _, batch), found) in runs.iter().zip(&mut errors) {
                found.extend(Errors::between(
                    &reference,
                    &evaluations(net, &chunk, batch),
                ));
            }
        }
        for (&(net, gate, batch), found) in runs.iter().zip(&errors) {
            let (pass, line) = found.judge(gate);
            all &= pass;
            println!(
                "gpu-error net={} backend=\"{}\" against=\"{}\" batch={batch} {line}",
                cpu.name(),
                net.backend_name(),
                cpu.backend_name()
            );
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_positions_cover_squares_and_rectangles_in_play() {
        let games: Vec<Game> = positions(12, 3).collect();
        assert_eq!(games.len(), 12);
        assert!(games.iter().any(|g| !g.size().is_square()));
        assert!(games.iter().filter(|g| g.moves().count() > 10).count() >= 6);
        let again = positions(12, 3);
        assert!(again.zip(&games).all(|(a, b)| a.moves().eq(b.moves())));
    }

    #[test]
    fn the_gpus_program_on_the_host_keeps_within_the_f32_gate() {
        // The comparison as `gpu-error` runs it, on the host's executor of
        // the GPU program: it passes the single-precision gate at batch 1
        // and in batches; another net fails it.
        let (cpu, host) = crate::nn::on_cpu_and_host_program();
        let games: Vec<Game> = positions(18, 1).collect();
        for batch in [1, 8] {
            let (pass, line) = compare(&cpu, &host, &games, batch).judge(&F32_GATE);
            assert!(pass, "{line}");
        }
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models/");
        let other =
            Evaluator::load(std::path::Path::new(&format!("{data}synthetic-v16.txt.gz"))).unwrap();
        let (pass, line) = compare(&cpu, &other, &games, 4).judge(&F16_GATE);
        assert!(!pass, "{line}");
    }
}
