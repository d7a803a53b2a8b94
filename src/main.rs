//! The `kosumi` program: a GTP engine on stdin/stdout, or `kosumi bench`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use kosumi::engine::{Config, Engine};
use kosumi::frontends::analysis::Perspective;
use kosumi::frontends::gtp::serve;
use kosumi::frontends::katago_args;
use kosumi::frontends::networks;
use kosumi::go::rules::Rules;
use kosumi::phantom::Kind;
use kosumi::phantom::options::Options;
use kosumi::phantom::player::Mode;
use kosumi::search::mc::Policy;
use kosumi::search::{ChooserPolicy, MonteCarlo, Planning, Puct, SearchConfig};
use kosumi::tools::bench::BenchArgs;
use std::path::PathBuf;

/// kosumi, a Go engine speaking GTP (Go Text Protocol) on stdin and stdout,
/// for Sabaki, GoGui, Lizzie and KaTrain.
///
/// Attach it to a GUI or a match runner (gogui-twogtp) as the engine
/// command. KataGo's command lines work as KaTrain and Lizzie write them:
/// `kosumi gtp -model FILE -config FILE` and `kosumi analysis -model FILE
/// -config FILE`. Logs go to stderr; set RUST_LOG=info to see them.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Ruleset preset: chinese, egc2011, japanese, aga, new-zealand,
    /// tromp-taylor or simple-ko.
    #[arg(long, default_value = "chinese")]
    rules: String,
    /// Board size at start (2 to 25); the controller may change it.
    #[arg(long, default_value_t = 19)]
    size: usize,
    /// Komi at start; defaults to the ruleset's komi.
    #[arg(long, allow_negative_numbers = true, value_parser = komi)]
    komi: Option<f64>,
    /// Playouts per move (fixed budget, overrides the clock).
    #[arg(long)]
    playouts: Option<u64>,
    /// Seconds per move (fixed budget, overrides the clock; up to 3600).
    #[arg(long, value_parser = kosumi::engine::clock::parse_seconds)]
    time: Option<f64>,
    /// Search threads [default: the physical cores]. `--threads 1` with a
    /// `--seed` plays the same moves every time; more threads search more
    /// in the same time, in an order the system's scheduling decides.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    threads: Option<u64>,
    /// Seed of the random generators (same seed, same playouts).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Play at a person's rank, 30k to 1k or 1d to 9d, from the network's
    /// policy as KaTrain's calibrated rank AI plays (no search, no
    /// resignation); max (the default) plays at full strength. GTP's
    /// kosumi-level changes it mid-game.
    #[arg(long, value_name = "RANK", value_parser = level)]
    level: Option<LevelArg>,
    /// The profile a human-like net (one with KataGo's metadata encoder)
    /// is evaluated under, as KataGo's humanSLProfile: rank_5k, preaz_1d,
    /// rank_3k_1d (Black's rank, then White's), proyear_1990. Such a net
    /// needs one, or a --level (which plays through its preaz_ profile).
    #[arg(long, value_name = "PROFILE", value_parser = kosumi::nn::HumanProfile::parse)]
    human_profile: Option<kosumi::nn::HumanProfile>,
    /// A human-like KataGo net beside the network (KataGo's -human-model):
    /// a --level draws its moves from it under the rank's profile,
    /// kata-raw-human-nn shows it, and the JSON engine reports its policy
    /// as humanPolicy for queries with a humanSLProfile.
    #[arg(long, value_name = "FILE")]
    human_model: Option<PathBuf>,
    /// Resign below this win rate (0 never resigns).
    #[arg(long, default_value_t = 0.1, value_parser = win_rate)]
    resign: f64,
    /// Upper bound on search tree nodes (memory).
    #[arg(long, default_value_t = 4_000_000)]
    max_nodes: usize,
    /// Aléago: play with these dice (NdM, e.g. 1d6); rolls are seeded by --seed.
    #[arg(long)]
    dice: Option<String>,
    /// Aléago referee mode (needs --dice): kosumi rolls for every move of
    /// both sides, so a person's `play` in a GUI must obey the roll too.
    #[arg(long, requires = "dice")]
    dice_referee: bool,
    /// Phantom player: how it searches (net's visits are --playouts).
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    phantom_search: Mode,
    /// Host a phantom game for a person at this seat (1 to 4), kosumi
    /// playing every other seat: for GoGui's ruler interface.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=4))]
    phantom_human: Option<u8>,
    /// The hosted phantom game: go or rengo.
    #[arg(long, value_enum, default_value_t = Kind::Go)]
    phantom_kind: Kind,
    /// The hosted phantom game's conventions: seed, olympiad or openspiel.
    #[arg(long, value_enum, default_value_t = PhantomPreset::Seed)]
    phantom_preset: PhantomPreset,
    /// Phantom player: the playout policy.
    #[arg(long, value_enum, default_value_t = Policy::Light)]
    phantom_policy: Policy,
    /// Aléago: how the search plans for rolls below the root.
    #[arg(long, value_enum, default_value_t = Planning::Chance)]
    dice_planning: Planning,
    /// Think on the opponent's time: after each move it plays, kosumi
    /// searches the opponent's position until the next input arrives, and
    /// the next genmove starts from that tree.
    #[arg(long)]
    ponder: bool,
    /// Write GoGui's live graphics while thinking (gogui-gfx: blocks on
    /// stderr: candidates with their visits, the expected line, the
    /// evaluation), every half second.
    #[arg(long)]
    live_gfx: bool,
    /// Whether the learned move patterns (src/knowledge/prediction) add to the
    /// search's priors: on or off.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    patterns: Switch,
    /// Whether to load a neural network (the embedded KataGo six-block
    /// net, or --model): on or off.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    nn: Switch,
    /// What evaluates the network.
    #[arg(long, value_enum, default_value_t)]
    backend: kosumi::nn::BackendKind,
    /// The GPU a GPU backend runs on (CUDA's device number; KataGo's
    /// cudaDeviceToUse).
    #[arg(long, value_name = "N")]
    gpu: Option<usize>,
    /// The most positions a GPU evaluates in one batch (KataGo's
    /// nnMaxBatchSize; 256 where not given).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    nn_max_batch: Option<u64>,
    /// One of KataGo's refinements of the network's search, by KataGo's
    /// name, as NAME=VALUE (repeatable; each on by default as in KataGo):
    /// useLcbForSelection (true/false), cpuctUtilityStdevScale (0 to 1),
    /// fpuParentWeightByVisitedPolicy (true/false), subtreeValueBiasFactor
    /// (0 to 1), wideRootNoise (0 to 5).
    #[arg(long, value_name = "NAME=VALUE")]
    search_param: Vec<String>,
    /// How genmove chooses: net (PUCT with the network, in plain Go), mc
    /// (Monte Carlo tree search with playouts), or auto (net when a network
    /// is loaded).
    #[arg(long, value_enum, default_value_t = SearchKind::Auto)]
    search: SearchKind,
    /// A KataGo model file (.bin.gz or .txt.gz, model versions 8 to 17)
    /// to use instead of the embedded network.
    #[arg(long, value_name = "FILE", global = true)]
    model: Option<std::path::PathBuf>,
    /// The precision of the network's products (where not given, the
    /// best of what runs them: f32 on the CPU, f16 on a GPU with tensor
    /// cores).
    #[arg(long, value_enum, global = true)]
    precision: Option<kosumi::nn::Precision>,
    /// A GPU's passes launch each operation instead of replaying a CUDA
    /// graph of them (captured on a board size and batch's first pass).
    #[arg(long, global = true)]
    no_graphs: bool,
    /// The passes a GPU runs at once, each on its own thread's stream (2
    /// unless given; 1 runs them one after another, for comparing).
    #[arg(long, value_name = "N", global = true, value_parser = clap::value_parser!(u64).range(1..=4))]
    gpu_passes: Option<u64>,
    /// How a GPU runs attention (for comparing the two).
    #[arg(long, value_enum, default_value_t, global = true)]
    attention: kosumi::nn::GpuAttention,
    /// How a GPU runs its 3×3 convolutions (where not given, cuDNN where
    /// it is on the machine, else im2col).
    #[arg(long, value_enum, global = true)]
    gpu_conv: Option<kosumi::nn::GpuConv>,
    /// Where a GPU keeps the trunk under f16: single precision (the
    /// default) or halves, as KataGo's CUDA backend does.
    #[arg(long, value_enum, default_value_t, global = true)]
    gpu_trunk: kosumi::nn::GpuTrunk,
    /// A GPU's precision as a KataGo config wishes it (`cudaUseFP16`):
    /// applied where a GPU runs the networks, said once and set aside
    /// where none does; --precision, given, wins.
    #[arg(long, value_enum, hide = true)]
    gpu_precision: Option<kosumi::nn::Precision>,
    /// Answer `version` with this instead of kosumi's own version
    /// (KataGo's option of the same name): Lizzie runs an engine in its
    /// Leela Zero mode only where `version` says 0.15 or later
    /// (--override-version 0.17).
    #[arg(long, value_name = "VERSION", value_parser = one_word)]
    override_version: Option<String>,
    /// Answer GTP's `name` with this instead of "kosumi" (one word of
    /// printable characters). Lizzie's KataGo mode (score leads and
    /// ownership through kata-analyze) is for an engine whose name starts
    /// with "KataGo": --name KataGo-kosumi.
    #[arg(long, value_name = "NAME", value_parser = one_word)]
    name: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Referee a Phantom Go (two seats) or Phantom Rengo (four seats)
    /// match between GTP engines, alternating colours (or teams).
    PhantomMatch(PhantomMatchArgs),
    /// Fit the move-prediction table to strong players' games (SGF files or
    /// the Tom collection's lines under DIR) and print the prediction rate
    /// on held-out games.
    TrainPatterns(TrainPatternsArgs),
    /// KataGo's JSON analysis engine on stdin and stdout, for KaTrain and
    /// other analysis tools: one query a line (KataGo's
    /// docs/Analysis_Engine.md), one answer a line for each position.
    /// Needs the network (the embedded one, or --model). KataGo's form
    /// works too: `kosumi analysis -model FILE -config FILE`.
    Analysis(AnalysisArgs),
    /// Review a game record: search every position with the network and
    /// write the record back with Black's win rate and score on each node
    /// (Sabaki's graph properties SBKV and SBKS) and comments (the
    /// evaluation, kosumi's choice, the points the played move lost, the
    /// expected line). A progress bar goes to stderr.
    Review(ReviewArgs),
    /// Print playouts per second (playout policies, tree search, dice), one line per figure.
    Bench(BenchArgs),
    /// Hold the GPU backend to the CPU's (KataGo's testgpuerror): random
    /// positions on square and rectangular boards evaluated by both, one at
    /// a time and in batches; a line a net and batch with the win rate's,
    /// lead's, policy's and ownership's differences at the 99th percentile
    /// and the worst, against KataGo's gates. Exit 1 where a gate fails.
    GpuError(GpuErrorArgs),
}

/// The options of `kosumi gpu-error`.
#[derive(Args, Debug)]
struct GpuErrorArgs {
    /// KataGo model files, with --model's (the embedded net where none is
    /// given).
    nets: Vec<std::path::PathBuf>,
    /// Positions compared a net and batch (1 to 100000), made as they are
    /// compared. --precision f32 or f16 checks that arithmetic alone
    /// (auto: both).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    positions: u64,
}

/// The options of `kosumi phantom-match`.
#[derive(Args, Debug)]
struct PhantomMatchArgs {
    /// Seat 1's engine (Black in even games): a command line.
    #[arg(long)]
    seat1: String,
    /// Seat 2's engine (White in even games).
    #[arg(long)]
    seat2: String,
    /// Seat 3's engine (Rengo: Black on board B).
    #[arg(long, requires = "seat4")]
    seat3: Option<String>,
    /// Seat 4's engine (Rengo: White on board B).
    #[arg(long, requires = "seat3")]
    seat4: Option<String>,
    #[arg(long, default_value_t = 9)]
    size: usize,
    /// Komi; defaults to the ruleset's.
    #[arg(long, allow_negative_numbers = true, value_parser = komi)]
    komi: Option<f64>,
    #[arg(long, default_value = "chinese")]
    rules: String,
    /// The conventions.
    #[arg(long, value_enum, default_value_t = PhantomPreset::Seed)]
    preset: PhantomPreset,
    /// Rengo: partners share one view.
    #[arg(long)]
    shared_view: bool,
    /// Games to play (1 to 100000).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// Folder for the SGF records and the results table (match.dat).
    #[arg(long)]
    sgf: Option<std::path::PathBuf>,
    /// Games played at once (1 to 256).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Seed of the referee's scoring.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds a seat's engine may take to answer one command (a move
    /// included; 30 unless given, at most 86400); past them it loses the
    /// game. Raise it for seats given more time a move.
    #[arg(
        long,
        visible_alias = "move-timeout",
        value_name = "SECONDS",
        default_value_t = 30.0
    )]
    timeout: f64,
    /// Handicap stones on their fixed points (Black's; White tries
    /// first).
    #[arg(long, default_value_t = 0)]
    handicap: usize,
}

/// The options of `kosumi train-patterns`.
#[derive(Args, Debug)]
struct TrainPatternsArgs {
    /// Folder of game records.
    dir: std::path::PathBuf,
    /// Where to write the table (src/knowledge/prediction/model.bin is built in).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Games to train on (the defaults made the built-in table).
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Games after those, held out to measure the prediction rate.
    #[arg(long, default_value_t = 200)]
    holdout: usize,
    /// Keep spatial patterns played at least this many times.
    #[arg(long, default_value_t = 6)]
    min_count: u32,
    /// Rounds of minorization-maximization.
    #[arg(long, default_value_t = 8)]
    iterations: usize,
    /// Threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// The options of `kosumi analysis`.
#[derive(Args, Debug)]
struct AnalysisArgs {
    /// Visits per position where a query sets no maxVisits.
    #[arg(long, default_value_t = 500)]
    max_visits: u64,
    /// Seconds per position at most, where a query sets no maxTime.
    #[arg(long, value_parser = kosumi::engine::clock::parse_seconds)]
    max_time: Option<f64>,
    /// Positions searched at once (each with --threads threads; unasked,
    /// the physical cores shared among them).
    #[arg(long, default_value_t = 2)]
    positions: usize,
    /// Whose side the values are given from, where a query does not
    /// say (KataGo's reportAnalysisWinratesAs).
    #[arg(long, value_enum, default_value_t = Perspective::Black)]
    report_as: Perspective,
}

/// The options of `kosumi review`.
#[derive(Args, Debug)]
struct ReviewArgs {
    /// The record (SGF; its main line is reviewed).
    game: std::path::PathBuf,
    /// Where to write the reviewed record (default: GAME-review.sgf
    /// beside the record).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Visits per position.
    #[arg(long, default_value_t = 400)]
    visits: u64,
}

/// `on` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

/// Which search `genmove` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SearchKind {
    Auto,
    Net,
    Mc,
}

/// A phantom preset's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum PhantomPreset {
    Seed,
    Olympiad,
    Openspiel,
}

impl PhantomPreset {
    fn options(self) -> Options {
        let name = self.to_possible_value().expect("no variant is skipped");
        Options::preset(name.get_name()).expect("every preset name has options")
    }
}

/// A finite number.
fn finite(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a finite number")),
    }
}

/// A word of printable characters, no spaces (a GTP answer on one line).
fn one_word(s: &str) -> Result<String, String> {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_graphic()) {
        Ok(s.to_string())
    } else {
        Err(format!("'{s}' is not one word of printable characters"))
    }
}

/// A komi, finite and at most 1000 either way.
fn komi(s: &str) -> Result<f64, String> {
    kosumi::frontends::gtp::check_komi(finite(s)?)
}

/// A win rate, from 0 to 1.
fn win_rate(s: &str) -> Result<f64, String> {
    match finite(s)? {
        v if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not from 0 to 1")),
    }
}

/// Whether kosumi plays on boards of this size (2 to 25).
fn board_size_ok(size: usize) -> bool {
    (2..=kosumi::go::board::MAX_SIZE).contains(&size)
}

/// Ends the program on a command line it cannot run: `message` on stderr,
/// exit status 2.
fn refuse(message: impl std::fmt::Display) -> ! {
    kosumi::say!("kosumi: {message}");
    std::process::exit(2)
}

/// The ruleset preset `name` names, or the program ends naming the presets.
fn rules_named(name: &str) -> Rules {
    Rules::preset(name).unwrap_or_else(|| {
        refuse(format!(
            "unknown rules '{name}' (known: {})",
            Rules::preset_names().collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The search threads: as asked (at most 256), else one per physical
/// core.
fn search_threads(cli: &Cli) -> usize {
    asked_threads(cli).map_or_else(kosumi::core::concurrency::physical_cores, |n| n.min(256))
}

/// The search threads `--threads` (or a KataGo config) asked for.
fn asked_threads(cli: &Cli) -> Option<usize> {
    cli.threads
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// How to search, as the command line says: built once, the same for the
/// GTP engine, the JSON engine's defaults and `review`.
fn search_config(cli: &Cli) -> SearchConfig {
    SearchConfig {
        playouts: cli.playouts,
        time: cli.time,
        threads: search_threads(cli),
        seed: cli.seed,
        max_nodes: cli.max_nodes.max(1000),
        mc: MonteCarlo {
            patterns: cli.patterns == Switch::On,
            planning: cli.dice_planning,
        },
        chooser: ChooserPolicy {
            level: cli.level.and_then(|l| l.0),
            resign: cli.resign,
            ..ChooserPolicy::default()
        },
        puct: puct_settings(cli),
    }
}

/// A playing level as `--level` reads it (`None`: max).
#[derive(Clone, Copy, Debug)]
struct LevelArg(Option<kosumi::search::level::Rank>);

fn level(text: &str) -> Result<LevelArg, String> {
    kosumi::search::level::Rank::parse(text).map(LevelArg)
}

/// Sets a human-like net's profile: `--human-profile`, else the level's;
/// exits where such a net has neither.
fn set_human_profile(cli: &Cli, net: &kosumi::nn::Evaluator) {
    let profile = match &cli.human_profile {
        Some(p) => Some(p.clone()),
        None if net.is_human() => level_profile(cli).or_else(|| {
            refuse(format!(
                "{} is a human-like net: give it a profile (--human-profile rank_5k) or a --level",
                net.name()
            ))
        }),
        None => None,
    };
    net.set_profile(profile);
}

/// The human-like profile of `--level`'s rank, if a level is set; exits
/// where the rank has none (a human-like net plays 20k to 9d).
fn level_profile(cli: &Cli) -> Option<kosumi::nn::HumanProfile> {
    let rank = cli.level.and_then(|l| l.0)?;
    Some(
        rank.human_profile()
            .unwrap_or_else(|e| refuse(format!("--level: {e}"))),
    )
}

/// The network search's refinements `--search-param` sets; exits naming a
/// bad one.
fn puct_settings(cli: &Cli) -> Puct {
    let mut puct = Puct::default();
    for assignment in &cli.search_param {
        puct.set(assignment)
            .unwrap_or_else(|e| refuse(format!("--search-param: {e}")));
    }
    puct
}

/// The network `--nn` and `--model` ask for; exits on a file that does
/// not load.
fn load_network(cli: &Cli, backends: &kosumi::nn::Backends) -> Option<kosumi::nn::Evaluator> {
    let net = networks::network(cli.nn == Switch::On, cli.model.as_deref(), backends)
        .unwrap_or_else(|e| refuse(e))?;
    if cli.model.is_some() {
        set_human_profile(cli, &net);
    }
    Some(net)
}

/// How the networks run, as the command line asks; exits with the reason
/// where the machine refuses it. `kernel`: bench's `--kernel`.
fn backends(cli: &Cli, kernel: Option<kosumi::nn::Kernel>) -> kosumi::nn::Backends {
    let options = kosumi::nn::Options {
        backend: cli.backend,
        gpu: cli.gpu,
        max_batch: cli.nn_max_batch.map(|n| n as usize),
        precision: cli.precision,
        config_precision: cli.gpu_precision,
        kernel,
        attention: cli.attention,
        gpu_conv: cli.gpu_conv,
        gpu_trunk: cli.gpu_trunk,
        no_graphs: cli.no_graphs,
        gpu_passes: cli.gpu_passes.map(|n| n as usize),
    };
    options.check().unwrap_or_else(|e| refuse(e))
}

/// The human-like net `--human-model` names, under `--human-profile` if
/// given (a level sets its own); exits on a file that does not load.
fn load_human_network(
    cli: &Cli,
    backends: &kosumi::nn::Backends,
    with_network: bool,
) -> Option<kosumi::nn::Evaluator> {
    let path = cli.human_model.as_ref()?;
    let net = networks::human_network(path, with_network, backends).unwrap_or_else(|e| refuse(e));
    // A level draws from this net under its rank's profile.
    level_profile(cli);
    net.set_profile(cli.human_profile.clone());
    Some(net)
}

/// The network a subcommand cannot do without.
fn needed_network(cli: &Cli, backends: &kosumi::nn::Backends, who: &str) -> kosumi::nn::Evaluator {
    load_network(cli, backends)
        .unwrap_or_else(|| refuse(format!("{who} needs a network (--nn off asks for none)")))
}

/// `kosumi phantom-match`: the games played, or the reason on stderr.
fn phantom_match(args: &PhantomMatchArgs) {
    let rules = rules_named(&args.rules);
    let options = Options {
        shared_view: args.shared_view,
        ..args.preset.options()
    };
    let seats = [&args.seat1, &args.seat2]
        .into_iter()
        .chain(&args.seat3)
        .chain(&args.seat4)
        .cloned()
        .collect();
    // A timeout that is no duration (negative, not a number) is caught by
    // the check as none.
    let timeout = std::time::Duration::try_from_secs_f64(args.timeout).unwrap_or_default();
    let config = kosumi::tools::phantom_match::MatchConfig {
        seats,
        size: args.size,
        komi: args.komi.unwrap_or(rules.default_komi),
        rules,
        options,
        games: args.games as usize,
        sgf_dir: args.sgf.clone(),
        threads: usize::from(args.threads),
        seed: args.seed,
        timeout,
        handicap: args.handicap,
    };
    if let Err(e) = config.check() {
        refuse(format!("phantom-match: {e}"));
    }
    if let Err(e) = kosumi::tools::phantom_match::run(&config) {
        kosumi::say!("kosumi: phantom-match: {e}");
        std::process::exit(1);
    }
}

/// `kosumi train-patterns`: the table written, or the reason on stderr.
fn train_patterns(args: &TrainPatternsArgs) {
    let options = kosumi::tools::train_patterns::Options {
        dir: args.dir.clone(),
        games: args.games,
        holdout: args.holdout,
        min_count: args.min_count,
        iterations: args.iterations,
        threads: args
            .threads
            .unwrap_or_else(kosumi::core::concurrency::cores)
            .max(1),
    };
    // A place that cannot be written is said before the minutes of training.
    if let Err(e) = kosumi::core::files::check_writable(&args.out) {
        refuse(format!("train-patterns: --out {e}"));
    }
    match kosumi::tools::train_patterns::train_into(&options, &args.out) {
        Ok(s) => println!(
            "train-patterns: {} patterns, {} training positions; held out: {} positions, first choice {:.1}%, top 5 {:.1}%",
            s.patterns,
            s.train_positions,
            s.test_positions,
            100.0 * s.first_choice,
            100.0 * s.top5
        ),
        Err(e) => {
            kosumi::say!("kosumi: train-patterns: {e}");
            std::process::exit(1);
        }
    }
}

/// `kosumi analysis`: KataGo's JSON analysis engine until input ends.
fn analysis_engine(cli: &Cli, backends: &kosumi::nn::Backends, args: &AnalysisArgs) {
    use kosumi::frontends::analysis::{Defaults, Settings, serve};
    let net = needed_network(cli, backends, "analysis");
    let human_network = load_human_network(cli, backends, true).map(std::sync::Arc::new);
    let settings = Settings {
        defaults: Defaults {
            max_visits: args.max_visits.max(1),
            max_time: args.max_time.map(std::time::Duration::from_secs_f64),
            perspective: args.report_as,
        },
        workers: 1,
        search: search_config(cli),
        human_network,
        reader_gone: Some(kosumi::core::os::stdout_reader_gone),
    };
    // What runs at once, whatever a config made for a GPU asks: said once.
    // On the processor, the cores bound it; on a device the threads wait
    // while it works, and as many positions as asked keep it busy (KataGo's
    // numAnalysisThreads), up to the device's bound on threads.
    let room = if net.on_processor() {
        kosumi::core::concurrency::cores()
    } else {
        kosumi::search::puct::MAX_DEVICE_THREADS
    };
    // Unasked, the positions at once share the physical cores.
    let threads = asked_threads(cli).unwrap_or_else(|| {
        (kosumi::core::concurrency::physical_cores() / args.positions.max(1)).max(1)
    });
    let (plan, note) = kosumi::core::concurrency::plan(threads, args.positions, room);
    if let Some(note) = note {
        kosumi::say!("kosumi analysis: {note}");
    }
    let settings = Settings {
        workers: plan.positions,
        search: SearchConfig {
            threads: plan.search_threads,
            ..settings.search
        },
        ..settings
    };
    // KaTrain runs a custom engine command through a shell and ends it by
    // ending that shell: kosumi goes with its parent.
    kosumi::core::os::end_with_parent();
    kosumi::say!("kosumi analysis: network {}; ready for queries", net.name());
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout();
    serve(&mut input, &mut output, &net, &settings);
}

/// `kosumi review`: the reviewed record written, or the reason on stderr.
/// The options and the places are checked before any search; the record
/// is written whole to its place or not at all, never over the record
/// reviewed.
fn review_record(cli: &Cli, backends: &kosumi::nn::Backends, args: &ReviewArgs) {
    use kosumi::core::files;
    if args.visits < 2 {
        refuse(format!(
            "review: --visits {}: a position needs at least 2 visits to be judged",
            args.visits
        ));
    }
    let rules = rules_named(&cli.rules);
    let path = args.game.as_path();
    let out: PathBuf = args.out.clone().unwrap_or_else(|| {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        path.with_file_name(format!("{stem}-review.sgf"))
    });
    if out == path || files::same_file(&out, path) {
        refuse(format!(
            "review: --out {} is the record itself; the review goes to another file",
            out.display()
        ));
    }
    // Every check the write makes, before hours of search.
    if let Err(e) = files::check_writable(&out) {
        refuse(format!("review: --out {e}"));
    }
    let net = needed_network(cli, backends, "review");
    let template = kosumi::go::game::Game::new(19, rules, cli.komi.unwrap_or(rules.default_komi));
    let how = SearchConfig {
        playouts: Some(args.visits),
        ..search_config(cli)
    };
    if let Err(e) = kosumi::frontends::review::review_file(path, &out, &template, &net, &how) {
        kosumi::say!("kosumi: review: {e}");
        std::process::exit(1);
    }
    kosumi::say!("review: written to {}", out.display());
}

/// `kosumi bench`: speed figures on stdout, or the reason it cannot run.
fn bench(cli: &Cli, backends: &kosumi::nn::Backends, args: &BenchArgs) {
    kosumi::tools::bench::command(args, cli.model.as_deref(), cli.precision, backends)
        .unwrap_or_else(|e| refuse(e));
}

/// The GTP engine on stdin and stdout, as the command line sets it up.
fn gtp_engine(cli: &Cli, backends: &kosumi::nn::Backends) {
    let rules = rules_named(&cli.rules);
    if !board_size_ok(cli.size) {
        refuse("board size must be 2 to 25");
    }
    let dice = match cli
        .dice
        .as_deref()
        .map(kosumi::go::dice::Dice::parse)
        .transpose()
    {
        Ok(d) => d.map(|d| kosumi::go::dice::Dice {
            referee: cli.dice_referee,
            ..d
        }),
        Err(e) => refuse(format!("--dice: {e}")),
    };
    let phantom_host = cli.phantom_human.map(|seat| {
        let kind = cli.phantom_kind;
        if usize::from(seat) > kind.seats() {
            refuse(format!(
                "--phantom-human {seat}: phantom {} has {} seats",
                kind.name(),
                kind.seats()
            ));
        }
        if dice.is_some() {
            refuse("phantom games roll no dice");
        }
        (usize::from(seat), kind, cli.phantom_preset.options())
    });
    let network = load_network(cli, backends);
    if let Some(net) = &network {
        log::info!("network {}", net.name());
    } else if cli.search == SearchKind::Net {
        refuse("--search net needs a network (--nn off asks for none)");
    } else if cli.level.is_some_and(|l| l.0.is_some()) {
        refuse("--level plays from the network's policy (--nn off asks for none)");
    }
    let human_network = load_human_network(cli, backends, network.is_some());
    let cores = kosumi::core::concurrency::cores();
    if let Some(asked) = asked_threads(cli).filter(|&n| n > cores) {
        kosumi::say!(
            "kosumi: {asked} search threads asked for, {cores} cores here: a search runs {cores} \
             (more only take turns on the cores)"
        );
    }
    let mut search = search_config(cli);
    // A hosted game's answers are a function of the game so far (GoGui's
    // ruler and program, two processes, must hear the same): one thread
    // unless asked.
    if phantom_host.is_some() && cli.threads.is_none() {
        search.threads = 1;
    }
    let config = Config {
        search,
        phantom_mode: cli.phantom_search,
        phantom_policy: cli.phantom_policy,
        phantom_host,
        ponder: cli.ponder,
        live_gfx: cli.live_gfx,
        net_search: cli.search != SearchKind::Mc && network.is_some(),
        network: network.map(std::sync::Arc::new),
        human_network: human_network.map(std::sync::Arc::new),
        version: cli.override_version.clone(),
        name: cli.name.clone(),
    };
    let mut engine = Engine::new(config, rules, cli.size, cli.komi);
    if let Ok(game) = engine.game_mut() {
        game.set_dice(dice);
        game.seed_rolls(cli.seed);
    }
    engine.start_host();
    serve(engine);
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<_> = std::env::args_os().collect();
    let cli = match katago_args::is_katago_form(&args) {
        None => Cli::parse_from(args),
        Some(program) => {
            let t = katago_args::translate(&args, program, katago_args::read_config_file)
                .unwrap_or_else(|e| refuse(e));
            for note in t.notes() {
                kosumi::say!("kosumi: {note}");
            }
            Cli::parse_from(t.args)
        }
    };
    let kernel = match &cli.command {
        Some(Command::Bench(args)) => args.kernel,
        _ => None,
    };
    let backends = backends(&cli, kernel);
    match &cli.command {
        Some(Command::PhantomMatch(args)) => phantom_match(args),
        Some(Command::TrainPatterns(args)) => train_patterns(args),
        Some(Command::Analysis(args)) => analysis_engine(&cli, &backends, args),
        Some(Command::Review(args)) => review_record(&cli, &backends, args),
        Some(Command::Bench(args)) => bench(&cli, &backends, args),
        Some(Command::GpuError(args)) => {
            let nets: Vec<_> = args.nets.iter().chain(&cli.model).cloned().collect();
            let (count, gpu) = (args.positions as usize, cli.gpu.unwrap_or(0));
            match kosumi::tools::gpu_error::run(&nets, count, gpu, cli.precision) {
                Ok(true) => {}
                Ok(false) => std::process::exit(1),
                Err(why) => refuse(format!("gpu-error: {why}")),
            }
        }
        None => gtp_engine(&cli, &backends),
    }
}
