//! `kosumi bench`: playout speed on empty boards, printed one figure per
//! line in the form scripts read:
//! `bench board=9 policy=light threads=1 playouts_per_s=123456`, and the
//! Aléago lines `bench board=13 policy=full dice=1d6 ... ratio_to_no_dice=R`,
//! the analysis lines (tree search counting ownership for `kata-analyze
//! ownership true`, and the time from the input that stops an analysis to
//! its answer, measured on the engine as a GUI runs it).

use crate::go::board::{Board, Color};
use crate::go::dice::Dice;
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::search::mc::{McSettings, McTree, Policy, Rolls, playout, run_watched};
use crate::search::{Budget, Planning, Watch};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Playouts per second from an empty `size` board on `threads` threads,
/// each running for `duration`.
pub fn playouts_per_second(
    size: usize,
    policy: Policy,
    dice: Option<Dice>,
    threads: usize,
    duration: Duration,
) -> f64 {
    playouts_per_second_from(&Board::new(size), policy, dice, threads, duration)
}

/// Playouts per second from `start` on `threads` threads.
pub fn playouts_per_second_from(
    start_board: &Board,
    policy: Policy,
    dice: Option<Dice>,
    threads: usize,
    duration: Duration,
) -> f64 {
    let counts: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                scope.spawn(move || {
                    let empty = start_board.clone();
                    let rolls = dice.map(|d| Rolls::new(d, &empty));
                    let mut rng = SmallRng::seed_from_u64(i as u64 + 1);
                    let start = Instant::now();
                    let mut n = 0u64;
                    let mut b = empty.clone();
                    b.keep_lines(false); // dice playouts take them back
                    while start.elapsed() < duration {
                        for _ in 0..16 {
                            b.copy_from(&empty);
                            playout(
                                &mut b,
                                Color::Black,
                                policy,
                                &mut rng,
                                rolls.as_ref(),
                                [None, None],
                                |_, _| {},
                            );
                        }
                        n += 16;
                    }
                    n
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread"))
            .collect()
    });
    counts.iter().sum::<u64>() as f64 / duration.as_secs_f64()
}

/// Prints the benchmark lines for the given sizes and thread counts.
pub fn run(sizes: &[usize], threads: &[usize], seconds: f64) {
    for &size in sizes {
        for (policy, label) in [(Policy::Light, "light"), (Policy::Full, "full")] {
            for &t in threads {
                let rate =
                    playouts_per_second(size, policy, None, t, Duration::from_secs_f64(seconds));
                println!("bench board={size} policy={label} threads={t} playouts_per_s={rate:.0}");
            }
        }
    }
    // Tree search from a middle-game position (the same position each run).
    for &size in sizes {
        let game = middle_game(size);
        for &t in threads {
            let rate = tree_playouts_per_second(&game, t, Duration::from_secs_f64(seconds));
            println!("bench board={size} policy=tree threads={t} playouts_per_s={rate:.0}");
        }
    }
    network(sizes, seconds, None, &crate::nn::Backends::default())
        .expect("the embedded network loads");
    // The cost in tree playouts of the learned patterns in the priors and
    // of counting ownership for analysis, each against the plain search in
    // the same run; and how fast an analysis stops when input arrives.
    for &size in sizes {
        let game = middle_game(size);
        let time = Duration::from_secs_f64(seconds);
        let off = tree_rate(&game, 1, time, false, false);
        for (label, ownership, patterns) in [("patterns", false, true), ("ownership", true, false)]
        {
            let on = tree_rate(&game, 1, time, ownership, patterns);
            println!(
                "bench board={size} policy=tree {label}=on threads=1 playouts_per_s={on:.0} ratio_to_off={:.2}",
                on / off
            );
        }
        if let Some(ms) = analysis_stop_ms(size, 20) {
            println!(
                "bench board={size} analysis_stop_ms median={:.1} max={:.1} samples={}",
                ms[ms.len() / 2],
                ms[ms.len() - 1],
                ms.len()
            );
        }
    }
    // Phantom Go: the determinized search's playouts (each after placing
    // the unseen stones at random) against plain playouts from the true
    // position, on the middle-game position seen by Black.
    for &size in sizes {
        let time = Duration::from_secs_f64(seconds);
        let (determinized, plain) = phantom_playouts_per_second(size, time);
        println!(
            "bench board={size} policy=phantom threads=1 playouts_per_s={determinized:.0} ratio_to_plain={:.2}",
            determinized / plain
        );
    }
    // Aléago: the same playouts under 1d6 on 13x13, and without dice for the
    // ratio, measured side by side.
    if !sizes.contains(&13) {
        return;
    }
    let d = Dice::parse("1d6").expect("a valid spec");
    for (policy, label) in [(Policy::Light, "light"), (Policy::Full, "full")] {
        let time = Duration::from_secs_f64(seconds);
        let plain = playouts_per_second(13, policy, None, 1, time);
        let rolled = playouts_per_second(13, policy, Some(d), 1, time);
        println!(
            "bench board=13 policy={label} dice=1d6 threads=1 playouts_per_s={rolled:.0} ratio_to_no_dice={:.2}",
            rolled / plain
        );
    }
}

/// The network's lines: milliseconds per evaluation of the net (`model`,
/// or the embedded one) on the middle-game position (inputs, forward pass
/// and outputs), one position at a time, with the arithmetic rate that
/// reaches (GFLOP/s, two operations a multiply-add, the products the
/// layers' algorithms do) beside the core's
/// nominal peak for the kernel in use; in batches of 8, and on two threads
/// at once; and, when a `katago` is on PATH, KataGo's own figure with the
/// same net in the same run (`katago benchmark`, one search thread, one
/// Eigen thread, its buffers the board's exact size: its evaluations per
/// second, which also pay for its search's bookkeeping).
pub fn network(
    sizes: &[usize],
    seconds: f64,
    model: Option<&std::path::Path>,
    backends: &crate::nn::Backends,
) -> Result<(), String> {
    let net = timed_net(model, backends)?;
    let katago = katago_path();
    let peak = core_peak_gflops(&net);
    for &size in sizes {
        let game = middle_game(size);
        let time = Duration::from_secs_f64(seconds);
        let one = nn_ms_per_eval(&net, &game, 1, 1, time);
        let gflops = 2.0 * net.macs(size.into()) / (one * 1e-3) / 1e9;
        let mut line = format!(
            "bench board={size} nn={} version={} threads=1 batch=1 ms_per_eval={one:.2} gflops={gflops:.1} backend=\"{}\"",
            net.name(),
            net.version(),
            net.backend_name()
        );
        if let Some(peak) = peak {
            line += &format!(" peak_gflops={peak:.1} share_of_peak={:.2}", gflops / peak);
        }
        if let Some(k) = katago
            .as_deref()
            .and_then(|k| katago_ms_per_eval(k, model, size, seconds, one))
        {
            line += &format!(" katago_ms_per_eval={k:.2} ratio_to_katago={:.2}", one / k);
        }
        println!("{line}");
        if net.preferred_batch(size.into()) > 1 {
            // A GPU: its rate by the batch, from one board to its largest
            // batch, and with two threads feeding it at once.
            let batches = [8, 32, 128, 256]
                .into_iter()
                .filter(|&b| b <= net.max_batch());
            for (threads, batch) in batches.map(|b| (1, b)).chain([(2, 128)]) {
                let ms = nn_ms_per_eval(&net, &game, threads, batch, time);
                println!(
                    "bench board={size} nn={} threads={threads} batch={batch} evals_per_s={:.0} ms_per_batch={:.2}",
                    net.name(),
                    1e3 / ms,
                    ms * batch as f64 * threads as f64
                );
            }
        } else {
            let batched = nn_ms_per_eval(&net, &game, 1, 8, time);
            println!(
                "bench board={size} nn={} threads=1 batch=8 ms_per_eval={batched:.2}",
                net.name()
            );
        }
        let two = nn_ms_per_eval(&net, &game, 2, 1, time);
        println!(
            "bench board={size} nn={} threads=2 batch=1 ms_per_eval={two:.2} ratio_to_one_thread={:.2}",
            net.name(),
            one / two
        );
        // The search itself: visits a second with 1, 2, ... threads on
        // one tree (virtual loss), from an empty tree and an empty cache of
        // evaluations, so that every visit of each run is evaluated afresh
        // (with the cache left full, a run reads what the run before it
        // evaluated, and more threads seem to scale past the cores). The
        // thread counts take turns over three rounds and each keeps its
        // best: a shared machine's other work slows single runs, and taking
        // turns keeps a slow spell from falling on one count alone.
        let counts: Vec<usize> = [1, 2, 4, 8, 16]
            .into_iter()
            .take_while(|&t| t <= std::thread::available_parallelism().map_or(1, |n| n.get()))
            .collect();
        // Windows of at least ten evaluations a thread (a big net's
        // evaluation is a tenth of a second or more).
        let window = time.max(Duration::from_secs_f64(10.0 * one / 1e3));
        let mut best = vec![SearchRate::default(); counts.len()];
        for _round in 0..SEARCH_ROUNDS {
            for (i, &threads) in counts.iter().enumerate() {
                let rate = search_rate(&net, &game, threads, window, None);
                if rate.visits > best[i].visits {
                    best[i] = rate;
                }
            }
        }
        for (&threads, rate) in counts.iter().zip(&best) {
            println!(
                "bench board={size} puct threads={threads} {} ratio_to_one_thread={:.2} best_of={SEARCH_ROUNDS}",
                rate.words(),
                rate.visits / best[0].visits.max(1e-9)
            );
        }
    }
    Ok(())
}

/// The net `bench --nn` times: `model`'s, or the embedded one; a
/// human-like net under a rank's profile (every profile costs the same).
fn timed_net(
    model: Option<&std::path::Path>,
    backends: &crate::nn::Backends,
) -> Result<crate::nn::Evaluator, String> {
    let net = match model {
        Some(path) => crate::nn::Evaluator::load_on(path, backends)
            .map_err(|e| format!("--model {}: {e}", path.display()))?,
        None => crate::nn::Evaluator::embedded_on(backends),
    };
    if net.is_human() {
        net.set_profile(crate::nn::HumanProfile::parse("rank_5k").ok());
    }
    Ok(net)
}

/// `kosumi bench --nn --profile`: for each size and each of the batches
/// 1, 8 and 128 the backend takes, a forward pass's time part by part
/// (a line a part: its time a pass and its share of the pass; on the CPU
/// its products' GFLOP/s and their share of the core's peak), over passes
/// enough to fill about `seconds`.
pub fn profile(
    sizes: &[usize],
    seconds: f64,
    model: Option<&std::path::Path>,
    backends: &crate::nn::Backends,
) -> Result<(), String> {
    let net = timed_net(model, backends)?;
    let peak = core_peak_gflops(&net);
    for &size in sizes {
        let game = middle_game(size);
        let most = net.max_batch_of(size.into());
        for batch in [1, 8, 128].into_iter().filter(|&b| b <= most) {
            let profile = net
                .profile_passes(&game, batch, Duration::from_secs_f64(seconds))
                .map_err(|e| e.to_string())?;
            let passes = profile.passes;
            let total = profile.total().as_secs_f64();
            let pass_ms = total / passes as f64 * 1e3;
            println!(
                "profile board={size} nn={} backend=\"{}\" batch={batch} passes={passes} ms_per_pass={pass_ms:.3} us_per_board={:.1}",
                net.name(),
                net.backend_name(),
                pass_ms * 1e3 / batch as f64
            );
            for (part, took) in &profile.parts {
                let s = took.as_secs_f64();
                // The floor on this device and the share of it reached,
                // where the device's peaks are known.
                let floor = match profile.floor(part) {
                    Some(f) => format!(
                        " floor_us={:.1} eff={:.2}",
                        f.as_secs_f64() / passes as f64 * 1e6,
                        f.as_secs_f64() / s.max(1e-12)
                    ),
                    None => String::new(),
                };
                // The rate of its products, where the backend counts them.
                let rate = match (profile.flops(part), peak) {
                    (Some(f), peak) if f > 0.0 => {
                        let gflops = f / s.max(1e-12) / 1e9;
                        let of_peak = peak.map_or(String::new(), |p| {
                            format!(" share_of_peak={:.2}", gflops / p)
                        });
                        format!(" gflops={gflops:.1}{of_peak}")
                    }
                    _ => String::new(),
                };
                println!(
                    "profile board={size} batch={batch} part=\"{part}\" us_per_pass={:.1} share={:.3}{floor}{rate}",
                    s / passes as f64 * 1e6,
                    s / total.max(1e-12)
                );
            }
        }
    }
    Ok(())
}

/// `bench --nn --roofline GPU`: the floors of the net (`model`, or the
/// embedded one) compiled for a GPU, on that GPU's peaks, a line an
/// operation kind and a total, for each board size and batch, its
/// products in `precision` (f16 unless given); in f16 with the trunk in
/// single precision and in halves.
pub fn roofline(
    model: Option<&std::path::Path>,
    gpu: &str,
    sizes: &[usize],
    batches: &[usize],
    precision: Option<crate::nn::Precision>,
) -> Result<(), String> {
    use crate::nn::GpuTrunk;
    let precision = precision.unwrap_or(crate::nn::Precision::F16);
    let trunks: &[GpuTrunk] = match precision.half_factors() {
        true => &[GpuTrunk::F32, GpuTrunk::F16],
        false => &[GpuTrunk::F32],
    };
    for &size in sizes {
        for &batch in batches {
            for &trunk in trunks {
                let kinds = crate::nn::roofline(model, gpu, size.into(), batch, precision, trunk)?;
                let total: f64 = kinds.iter().map(|k| k.floor).sum();
                for k in &kinds {
                    println!(
                        "roofline gpu={gpu} precision={precision} trunk={trunk} board={size} batch={batch} part=\"{}\" ops={} gflop={:.3} mb={:.2} floor_us={:.1} share={:.3}",
                        k.kind,
                        k.ops,
                        k.flops / 1e9,
                        k.bytes / 1e6,
                        k.floor * 1e6,
                        k.floor / total.max(1e-12)
                    );
                }
                println!(
                    "roofline gpu={gpu} precision={precision} trunk={trunk} board={size} batch={batch} floor_us={:.1} evals_per_s_ceiling={:.0}",
                    total * 1e6,
                    batch as f64 / total.max(1e-12)
                );
            }
        }
    }
    Ok(())
}

/// A core's nominal peak in GFLOP/s for `net`'s CPU kernel, where the
/// clock is known (none on a GPU, whose peak is not counted in a core's
/// cycles).
fn core_peak_gflops(net: &crate::nn::Evaluator) -> Option<f64> {
    cpu_mhz()
        .map(|mhz| mhz * 1e-3 * net.peak_flops_per_cycle())
        .filter(|&p| p > 0.0)
}

/// The processor's clock in MHz as Linux reports it: the first core's
/// `cpu MHz` in `/proc/cpuinfo` (x86), or its highest cpufreq clock (ARM).
fn cpu_mhz() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let from_cpuinfo = info
        .lines()
        .find(|l| l.starts_with("cpu MHz"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.trim().parse().ok());
    // ARM's /proc/cpuinfo gives no clock: the kernel's cpufreq does (kHz).
    from_cpuinfo.or_else(|| {
        std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .map(|khz| khz / 1000.0)
    })
}

/// Rounds of the search's runs in `network`, each thread count once a round.
const SEARCH_ROUNDS: usize = 3;

/// What one search did, a second: its visits, the positions the network
/// evaluated for them (the boards of its forward passes), the passes, and
/// the evaluations the cache answered (a position reached again).
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchRate {
    pub visits: f64,
    pub evals: f64,
    pub passes: f64,
    pub cache_hits: f64,
}

impl SearchRate {
    /// The boards of a forward pass, on average.
    pub fn mean_batch(&self) -> f64 {
        self.evals / self.passes.max(1e-9)
    }

    /// The words of a bench line.
    pub fn words(&self) -> String {
        format!(
            "visits_per_s={:.0} evals_per_s={:.0} cache_hits_per_s={:.0} mean_batch={:.1}",
            self.visits,
            self.evals,
            self.cache_hits,
            self.mean_batch()
        )
    }
}

/// One search of `game` with `threads` threads for `time`, from an empty
/// tree and an empty cache (`leaves`: the leaves a thread gathers a round,
/// where not the search's own choice).
pub fn search_rate(
    net: &crate::nn::Evaluator,
    game: &Game,
    threads: usize,
    time: Duration,
    leaves: Option<usize>,
) -> SearchRate {
    net.cache().clear();
    net.take_counts();
    let start = Instant::now();
    let out = crate::search::puct::search_watched(
        game,
        net,
        crate::search::puct::PuctParams {
            leaves,
            ..crate::search::puct::PuctParams::of(
                &crate::search::SearchConfig {
                    threads,
                    ..Default::default()
                },
                crate::search::Budget {
                    playouts: None,
                    time: Some(time),
                },
                threads as u64,
            )
        },
        &std::sync::atomic::AtomicBool::new(false),
        &mut crate::search::puct::NetTree::default(),
        None,
    );
    let seconds = start.elapsed().as_secs_f64();
    let counts = net.take_counts();
    SearchRate {
        visits: out.visits as f64 / seconds,
        evals: counts.boards as f64 / seconds,
        passes: counts.passes as f64 / seconds,
        cache_hits: counts.cache_hits as f64 / seconds,
    }
}

/// A simulated device as `bench --simulate` and `--in-flight` give it.
#[derive(Clone, Copy)]
pub struct Device {
    /// Milliseconds fixed and a board, and the batch wanted.
    pub latency: (f64, f64, usize),
    /// The passes at once.
    pub in_flight: usize,
}

/// The search on a simulated device ([`crate::nn::on_simulated_device`]:
/// a pass of n boards takes `fixed_ms + per_board_ms · n`, no processor
/// time, batches of `preferred` wanted, `in_flight` passes at once), from
/// the middle game of each size
/// with each count of `threads`: a line each with its visits, evaluations
/// and cache hits a second and the mean batch, beside the device's own
/// ceiling (its evaluations a second at the preferred batch).
pub fn simulated(
    sizes: &[usize],
    seconds: f64,
    device: Device,
    threads: &[usize],
    leaves: Option<usize>,
) {
    let Device {
        latency: (fixed_ms, per_board_ms, preferred),
        in_flight,
    } = device;
    let (net, _) = crate::nn::on_simulated_device(fixed_ms, per_board_ms, preferred, in_flight);
    // A batch's boards take the device alone; its fixed part runs beside
    // the other passes in flight.
    let boards_ms = per_board_ms * preferred as f64;
    let cycle_ms = boards_ms.max((fixed_ms + boards_ms) / in_flight as f64);
    let ceiling = preferred as f64 / cycle_ms * 1e3;
    // A null device (its passes take no time but the test backend's
    // arithmetic, which stands in for the device's and is told apart)
    // leaves the host's own work a position: the inputs with their
    // ladders, the symmetries, the batch's gathering, the outputs.
    let null = crate::nn::on_simulated_device(0.0, 0.0, preferred, 1);
    for &size in sizes {
        let game = middle_game(size);
        let time = Duration::from_secs_f64(seconds);
        let (host, device) = host_us_per_position(&null, size, preferred, time);
        println!(
            "bench board={size} null_device threads=1 batch={preferred} host_us_per_position={host:.1} \
             device_arithmetic_us_per_position={device:.1}"
        );
        let mut one = None;
        for &t in threads {
            let rate = search_rate(&net, &game, t, time, leaves);
            let base = *one.get_or_insert(rate.visits);
            println!(
                "bench board={size} simulated fixed_ms={fixed_ms} per_board_ms={per_board_ms} preferred={preferred} \
                 in_flight={in_flight} threads={t} {} ratio_to_one_thread={:.2} device_evals_per_s={ceiling:.0}",
                rate.words(),
                rate.visits / base.max(1e-9)
            );
        }
    }
}

/// The host's microseconds a position of `size` on `net` (a null device's:
/// its passes take no time), one thread evaluating batches of `batch`
/// distinct positions for `duration` (after an untimed [`WARM_UP`]): the
/// positions of games of the light playouts, from the 20th move on, in
/// the order they were played, each under a symmetry of its own, as a
/// search's leaves come after their parents (a position's two boards
/// before it were evaluated before it). Making the games is not timed,
/// and the device's arithmetic (`net`'s clock) is told apart: the host's
/// microseconds and the device's, a position.
fn host_us_per_position(
    (net, device): &(crate::nn::Evaluator, crate::nn::DeviceClock),
    size: usize,
    batch: usize,
    duration: Duration,
) -> (f64, f64) {
    use crate::nn::{Evaluation, Request};
    let mut rng = SmallRng::seed_from_u64(2026);
    let mut game = Game::new(size, Rules::default(), 7.5);
    let mut moves = Vec::new();
    let mut next = 0;
    let mut positions: Vec<Game> = Vec::with_capacity(batch);
    let mut out = vec![Evaluation::default(); batch];
    let (mut timed, mut on_device, mut evaluated) = (Duration::ZERO, Duration::ZERO, 0u64);
    let start = Instant::now();
    while start.elapsed() < WARM_UP + duration || evaluated < 10 * batch as u64 {
        positions.clear();
        while positions.len() < batch {
            if next == moves.len() {
                // A new game's moves, its first 20 played at once.
                game = Game::new(size, Rules::default(), 7.5);
                moves = playout_moves(size, &mut rng);
                next = 0;
                while next < moves.len().min(20) {
                    let _ = game.play(moves[next].0, Some(moves[next].1));
                    next += 1;
                }
                continue;
            }
            let (c, p) = moves[next];
            next += 1;
            if game.play(c, Some(p)).is_ok() {
                positions.push(game.clone());
            }
        }
        let requests: Vec<Request> = positions
            .iter()
            .enumerate()
            .map(|(i, g)| Request {
                game: g,
                to_move: g.to_move(),
                fresh: false,
                symmetry: (evaluated as usize + i) % crate::nn::SYMMETRIES,
                white_advantage: 0.0,
            })
            .collect();
        let (lap, device_before) = (Instant::now(), device.elapsed());
        net.evaluate_batch(&requests, &mut out);
        if start.elapsed() > WARM_UP {
            timed += lap.elapsed();
            on_device += device.elapsed() - device_before;
            evaluated += batch as u64;
        }
    }
    let per_position = |t: Duration| t.as_secs_f64() * 1e6 / evaluated.max(1) as f64;
    (
        per_position(timed.saturating_sub(on_device)),
        per_position(on_device),
    )
}

/// Milliseconds per evaluation of `game` (all threads together), each
/// thread evaluating batches of `batch` symmetries for `duration` (and at
/// least ten batches) after an untimed [`WARM_UP`].
fn nn_ms_per_eval(
    net: &crate::nn::Evaluator,
    game: &Game,
    threads: usize,
    batch: usize,
    duration: Duration,
) -> f64 {
    use crate::nn::{Evaluation, Request};
    let rates: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let requests: Vec<Request> = (0..batch)
                        .map(|s| Request {
                            game,
                            to_move: game.to_move(),
                            fresh: false,
                            symmetry: s % crate::nn::SYMMETRIES,
                            white_advantage: 0.0,
                        })
                        .collect();
                    let mut out = vec![Evaluation::default(); batch];
                    // Untimed first, long enough for the cores to reach
                    // their clock (a one-thread figure had run before
                    // the clock rose, a third of the two-thread one).
                    let warm = Instant::now();
                    let mut warmed = 0;
                    while warmed < 2 || warm.elapsed() < WARM_UP {
                        net.evaluate_batch(&requests, &mut out);
                        warmed += 1;
                    }
                    // Then at least ten passes, whatever the window.
                    let start = Instant::now();
                    let mut n = 0;
                    while n < 10 * batch as u64 || start.elapsed() < duration {
                        net.evaluate_batch(&requests, &mut out);
                        n += batch as u64;
                    }
                    n as f64 / start.elapsed().as_secs_f64()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread"))
            .collect()
    });
    1000.0 / rates.iter().sum::<f64>().max(1e-9)
}

/// The untimed load before each evaluation figure.
const WARM_UP: Duration = Duration::from_millis(300);

/// `katago` on PATH, if any.
fn katago_path() -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("katago"))
            .find(|p| p.is_file())
    })
}

/// Positions KataGo's benchmark searches for its figure.
const KATAGO_POSITIONS: usize = 2;

/// KataGo's milliseconds per evaluation with `model` (the embedded net
/// where none is given) on `size` (its benchmark's evaluations per second
/// at one search thread), or None if it could not be measured. Bounded in
/// time on any machine: the visits are chosen from kosumi's own `ours_ms`
/// an evaluation so that KataGo, even three times slower, takes about
/// `seconds`, and a benchmark still running at ten times that (and 30 s
/// more) is stopped and reported as not measured.
fn katago_ms_per_eval(
    katago: &std::path::Path,
    model: Option<&std::path::Path>,
    size: usize,
    seconds: f64,
    ours_ms: f64,
) -> Option<f64> {
    let dir = std::env::temp_dir().join(format!("kosumi-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    // The work in a closure, so that the folder goes whatever it returns.
    let result = (|| {
        let config = dir.join("bench.cfg");
        let model = match model {
            Some(path) => path.to_path_buf(),
            None => {
                let embedded = dir.join("model.bin.gz");
                std::fs::write(&embedded, crate::nn::EMBEDDED_MODEL).ok()?;
                embedded
            }
        };
        std::fs::write(&config, "logToStderr = false\nnumSearchThreads = 1\n").ok()?;
        let affordable = seconds * 1000.0 / (3.0 * ours_ms.max(0.01)) / KATAGO_POSITIONS as f64;
        let visits = (affordable as usize).clamp(4, ((seconds * 40.0) as usize).max(20));
        let mut command = Command::new(katago);
        crate::core::os::prepare(&mut command);
        let mut child = command
            .args(["benchmark", "-model"])
            .arg(&model)
            .arg("-config")
            .arg(&config)
            .args([
                "-v",
                &visits.to_string(),
                "-n",
                &KATAGO_POSITIONS.to_string(),
                "-t",
                "1",
                "-boardsize",
                &size.to_string(),
            ])
            .args(["-override-config", "numEigenThreadsPerModel=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut tree = crate::core::os::ChildTree::adopt(&child);
        let mut stdout = child.stdout.take()?;
        let reader = std::thread::Builder::new().spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
            text
        });
        let deadline = Instant::now() + Duration::from_secs_f64(10.0 * seconds + 30.0);
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                _ => {
                    crate::say!(
                        "bench: katago benchmark stopped after {:.0} s, not measured",
                        10.0 * seconds + 30.0
                    );
                    tree.kill(&mut child);
                    return None;
                }
            }
        }
        let text = reader.ok()?.join().ok()?;
        let rate: f64 = text
            .rsplit("nnEvals/s = ")
            .next()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        (rate > 0.0).then(|| 1000.0 / rate)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A reproducible middle-game position: a quarter of the board filled by
/// seeded playout-policy moves.
pub fn middle_game(size: usize) -> Game {
    let mut game = Game::new(size, Rules::default(), 7.5);
    let moves = playout_moves(size, &mut SmallRng::seed_from_u64(2026));
    for (c, p) in moves.into_iter().take(size * size / 4) {
        if game.play(c, Some(p)).is_err() {
            break;
        }
    }
    game
}

/// The moves of a light playout of a game of `size` from the empty board,
/// Black first, to its end.
fn playout_moves(size: usize, rng: &mut SmallRng) -> Vec<(Color, crate::go::board::Point)> {
    let mut moves = Vec::new();
    let mut b = Board::new(size);
    playout(
        &mut b,
        Color::Black,
        Policy::Full,
        rng,
        None,
        [None, None],
        |c, p| moves.push((c, p)),
    );
    moves
}

/// Tree-search playouts per second from `game` on `threads` threads.
pub fn tree_playouts_per_second(game: &Game, threads: usize, duration: Duration) -> f64 {
    tree_rate(game, threads, duration, false, false)
}

/// Tree-search playouts per second, counting each point's final owner (as
/// analysis with ownership does) or not.
fn tree_rate(
    game: &Game,
    threads: usize,
    duration: Duration,
    ownership: bool,
    patterns: bool,
) -> f64 {
    let settings = McSettings {
        budget: Budget {
            playouts: None,
            time: Some(duration),
        },
        seed: 1,
        cleanup: false,
        max_nodes: 4_000_000,
        patterns,
    };
    let start = Instant::now();
    let mut ignore = |_: &crate::search::Report| {};
    let watch = ownership.then_some(Watch {
        every: None,
        at_end: false,
        ownership: true,
        moves_ownership: false,
        min_moves: 0,
        restrict: None,
        on_report: &mut ignore,
    });
    let (_, _, playouts) = run_watched(
        game,
        &settings,
        threads,
        Planning::Chance,
        &AtomicBool::new(false),
        &mut McTree::default(),
        watch,
    );
    playouts as f64 / start.elapsed().as_secs_f64()
}

/// Milliseconds from the input that stops an analysis to its answer: the
/// engine (this program) runs as a GUI runs it, `kata-analyze b 10` is
/// sent on an empty `size` board and, after its first line, stopped by
/// `protocol_version` as Sabaki does; `samples` times. `None` if the engine
/// cannot be run.
pub fn analysis_stop_ms(size: usize, samples: usize) -> Option<Vec<f64>> {
    let mut child = Command::new(std::env::current_exe().ok()?)
        .args(["--threads", "1", "--size", &size.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    let mut output = BufReader::new(child.stdout.take()?);
    let mut line = String::new();
    let mut read_until = |want: &dyn Fn(&str) -> bool| -> Option<()> {
        loop {
            line.clear();
            if output.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if want(line.trim_end()) {
                return Some(());
            }
        }
    };
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        input.write_all(b"kata-analyze b 10\n").ok()?;
        read_until(&|l| l.starts_with("info "))?;
        let sent = Instant::now();
        input.write_all(b"protocol_version\n").ok()?;
        read_until(&|l| l == "= 2")?;
        times.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    let _ = input.write_all(b"quit\n");
    let _ = child.wait();
    times.sort_by(f64::total_cmp);
    Some(times)
}

/// Determinized playouts per second of the phantom player (light policy)
/// from the middle-game position as Black sees it (its own stones; White's
/// unseen), and plain light playouts per second from the true position.
pub fn phantom_playouts_per_second(size: usize, duration: Duration) -> (f64, f64) {
    use crate::phantom::announcement::{Line, Outcome};
    use crate::phantom::player::{Mode, Player, Settings as PlayerSettings};
    let truth = middle_game(size);
    let board = truth.board();
    let stones = |c: Color| {
        board
            .points()
            .filter(move |&p| board.color_at(p) == Some(c))
    };
    let mut view = Game::new(size, Rules::default(), 7.5);
    let black: Vec<(Color, _)> = stones(Color::Black).map(|p| (Color::Black, p)).collect();
    view.setup(&black, false).expect("a subset of a position");
    let white = stones(Color::White).count();
    view.set_to_move(Color::Black);
    let mut player = Player::new(
        1,
        crate::phantom::Kind::Go,
        crate::phantom::options::Options::preset("seed").expect("a preset"),
        &view,
    );
    for _ in 0..white {
        player
            .hear(&mut view, 2, &Line::Outcome(Outcome::Accepted))
            .expect("an opponent's move");
    }
    let settings = PlayerSettings {
        mode: Mode::Determinized,
        policy: Policy::Light,
        budget: Budget {
            playouts: None,
            time: Some(duration),
        },
        seed: 1,
        search: &crate::search::SearchConfig::default(),
        network: None,
    };
    let start = Instant::now();
    let (_, n) = player.search_determinized(&view, &settings, &AtomicBool::new(false));
    let determinized = n as f64 / start.elapsed().as_secs_f64();
    // Plain: the same playouts from the true position, no sampling.
    let plain = playouts_per_second_from(truth.board(), Policy::Light, None, 1, duration);
    (determinized, plain)
}
/// The options of `kosumi bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Seconds per figure.
    #[arg(long, default_value_t = 2.0, value_parser = crate::engine::clock::parse_seconds)]
    pub seconds: f64,
    /// Board sizes to measure (repeat the option); 9, 13 and 19 if none.
    #[arg(long = "size")]
    pub sizes: Vec<usize>,
    /// Only the network's figures (the embedded net's, or --model's).
    #[arg(long)]
    pub nn: bool,
    /// The search on a simulated device instead: FIXED,PER_BOARD[,BATCH]
    /// (a pass of n boards takes FIXED + PER_BOARD·n milliseconds of sleep,
    /// its boards one pass at a time, batches of BATCH wanted: 128 unless
    /// given; 1 for a CPU net's threads side by side), 19×19 unless --size
    /// says.
    #[arg(long, value_name = "FIXED,PER_BOARD[,BATCH]", value_parser = latency_model)]
    pub simulate: Option<(f64, f64, usize)>,
    /// Search threads for --simulate (repeat the option): 1, 2, 4, 8, 16
    /// and 32 if none.
    #[arg(long = "threads", requires = "simulate", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Vec<u64>,
    /// With --nn: the CPU's products in this kernel (avx512, avx2,
    /// portable; neon on ARM), any this processor runs, in place of the
    /// fastest (bfloat16 products are --precision bf16).
    #[arg(long, value_name = "KERNEL", requires = "nn")]
    pub kernel: Option<crate::nn::Kernel>,
    /// The passes the simulated device runs at once (--simulate): 2, a
    /// GPU's, unless given; a pass's fixed part runs beside another's
    /// boards.
    #[arg(long, requires = "simulate", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=4))]
    pub in_flight: u64,
    /// The leaves each search thread gathers a round (the search's own
    /// choice where not given), for --simulate.
    #[arg(long, requires = "simulate", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub leaves: Option<u64>,
    /// With --nn: where a forward pass spends its time instead, part by
    /// part (each operation's kind on a GPU, by CUDA events; each block's
    /// kind and head on the CPU, by the clock), and the host's input
    /// planes, at batches 1, 8 and 128 (those the backend takes).
    #[arg(long, requires = "nn")]
    pub profile: bool,
    /// With --nn: each matrix product a forward pass of the net runs on
    /// the CPU instead (its shape and calls a pass at batch 1), timed alone
    /// with the kernel in force: GFLOP/s and share of the core's nominal
    /// peak. `scripts/gemm_reference.py` runs it and times numpy's
    /// (OpenBLAS) on the same shapes beside it.
    #[arg(long, requires = "nn")]
    pub gemm: bool,
    /// With --nn: the floors of the net compiled for this GPU instead
    /// (h100, h100-pcie, h200, a100, l4, rtx4090, rtx3090), on any machine:
    /// each operation kind's flops, bytes and least time at the GPU's peaks.
    #[arg(long, value_name = "GPU", requires = "nn")]
    pub roofline: Option<String>,
    /// With --roofline: the batches (repeat the option); 1, 8, 128 and 256
    /// if none.
    #[arg(long = "batch", requires = "roofline", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub batches: Vec<u64>,
}

/// `kosumi bench` as its options ask: the simulated device's search, a
/// net's floors, the network's figures or profile, or the playouts'
/// figures; why not where the options do not hold.
pub fn command(
    args: &BenchArgs,
    model: Option<&std::path::Path>,
    precision: Option<crate::nn::Precision>,
    backends: &crate::nn::Backends,
) -> Result<(), String> {
    // Figures piped into `head` end the bench quietly.
    crate::core::os::end_quietly_on_closed_pipe();
    if !args
        .sizes
        .iter()
        .all(|&s| (2..=crate::go::board::MAX_SIZE).contains(&s))
    {
        return Err("bench sizes must be 2 to 25".into());
    }
    let sizes = |none: &[usize]| match args.sizes.is_empty() {
        true => none.to_vec(),
        false => args.sizes.clone(),
    };
    let listed = |given: &[u64], none: &[usize]| match given.is_empty() {
        true => none.to_vec(),
        false => given.iter().map(|&v| v as usize).collect::<Vec<_>>(),
    };
    if let Some(latency) = args.simulate {
        let threads = listed(&args.threads, &[1, 2, 4, 8, 16, 32]);
        let leaves = args.leaves.map(|l| l as usize);
        let device = Device {
            latency,
            in_flight: args.in_flight as usize,
        };
        simulated(&sizes(&[19]), args.seconds, device, &threads, leaves);
    } else if let Some(gpu) = &args.roofline {
        let batches = listed(&args.batches, &[1, 8, 128, 256]);
        roofline(model, gpu, &sizes(&[19]), &batches, precision)
            .map_err(|e| format!("bench --roofline: {e}"))?;
    } else if args.nn && args.gemm {
        let net = timed_net(model, backends)?;
        let setup = super::bench_gemm::Setup {
            net: &net,
            kernel: backends.cpu_kernel(),
            mhz: cpu_mhz(),
            position: middle_game,
        };
        super::bench_gemm::products(&sizes(&[19]), args.seconds, setup)?;
    } else if args.nn && args.profile {
        profile(&sizes(&[9, 13, 19]), args.seconds, model, backends)?;
    } else if args.nn {
        network(&sizes(&[9, 13, 19]), args.seconds, model, backends)?;
    } else {
        // Threads: 1, 2, 4, 8, 16, as many as the machine has cores.
        let cores = crate::core::concurrency::cores().max(2);
        let threads: Vec<usize> = [1, 2, 4, 8, 16]
            .into_iter()
            .filter(|&t| t <= cores)
            .collect();
        run(&sizes(&[9, 13, 19]), &threads, args.seconds);
    }
    Ok(())
}

/// A simulated device's latency model as `bench --simulate` takes it:
/// `FIXED,PER_BOARD[,BATCH]`, milliseconds from 0 to 10000, a batch from
/// 1 to 256 (128 unless given).
pub fn latency_model(s: &str) -> Result<(f64, f64, usize), String> {
    let parts: Vec<&str> = s.split(',').collect();
    let ms = |v: &str| match v.trim().parse::<f64>() {
        Ok(x) if (0.0..=10_000.0).contains(&x) => Ok(x),
        _ => Err(format!("'{v}' is not milliseconds from 0 to 10000")),
    };
    let (fixed, per_board, batch) = match parts[..] {
        [a, b] => (ms(a)?, ms(b)?, 128),
        [a, b, n] => (
            ms(a)?,
            ms(b)?,
            n.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=256).contains(n))
                .ok_or_else(|| format!("'{n}' is not a batch from 1 to 256"))?,
        ),
        _ => return Err("FIXED,PER_BOARD or FIXED,PER_BOARD,BATCH (milliseconds)".into()),
    };
    if fixed + per_board <= 0.0 {
        return Err("a pass must take some time".into());
    }
    Ok((fixed, per_board, batch))
}
