//! The GTP v2 engine: reads command lines (8-bit, any junk), dispatches them
//! through the one command table in [`commands`], and writes `=id result` or
//! `?id message` responses. Owns the engine state a controller can change:
//! the game, the clock, the search settings.
//!
//! A reader thread ([`input`]) feeds lines to the dispatcher so that GoGui's
//! `# interrupt` comment can stop a running `genmove`.

pub mod analyze;
mod background;
mod commands;
mod gogui_analysis;
mod input;
mod network;
mod parse;
mod phantom;

pub use commands::COMMANDS;
pub use parse::{
    MAX_KOMI, check_komi, holds_command, leading_id, parse_color, parse_float, parse_int,
    parse_vertex, preprocess, vertex_name,
};
pub use phantom::Phantom;

use crate::board::Color;
use crate::clock::Clock;
use crate::game::Game;
use crate::rules::Rules;
use crate::score::{self, Score, Status};
use crate::search::{self, Budget, Decision, Planning, Settings, Watch};
use background::Background;
use input::Input;
use std::fmt;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A failed command: the message after `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtpError(pub String);

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl GtpError {
    /// A standard GTP error message with a short reason after a colon.
    pub fn new(standard: &str, reason: impl fmt::Display) -> GtpError {
        let reason = reason.to_string();
        if reason.is_empty() {
            GtpError(standard.to_string())
        } else {
            GtpError(format!("{standard}: {reason}"))
        }
    }
    pub fn syntax(reason: impl fmt::Display) -> GtpError {
        GtpError::new("syntax error", reason)
    }
}

pub type Reply = Result<String, GtpError>;

/// Longest command line accepted; longer lines are answered with an error.
pub const MAX_LINE: usize = 64 * 1024;

/// Search and engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// Playouts per move, if fixed.
    pub playouts: Option<u64>,
    /// Seconds per move, if fixed.
    pub time: Option<f64>,
    pub threads: usize,
    pub seed: u64,
    /// Resign when the win rate falls below this (0 never resigns).
    pub resign: f64,
    pub max_nodes: usize,
    /// Playouts for the ownership estimate used in scoring.
    pub ownership_playouts: usize,
    /// Aléago: how the search plans for the rolls below the root.
    pub dice_planning: Planning,
    /// Phantom player: how it searches, and its playout policy.
    pub phantom_mode: crate::phantom::player::Mode,
    pub phantom_policy: search::Policy,
    /// Host a phantom game for a person at this seat (GoGui's ruler
    /// interface): the seat, Go or Rengo, the conventions.
    pub phantom_host: Option<(
        usize,
        crate::phantom::Kind,
        crate::phantom::options::Options,
    )>,
    /// Search on the opponent's time after each move played by `genmove`
    /// (stopped by the next input).
    pub ponder: bool,
    /// Write GoGui's live graphics (`gogui-gfx:` on stderr) while thinking.
    pub live_gfx: bool,
    /// Let the learned move patterns add to the search's priors.
    pub patterns: bool,
    /// The neural network (`None` with `--nn off`).
    pub network: Option<Arc<crate::nn::Evaluator>>,
    /// Choose moves by the network's PUCT search where it applies (plain
    /// Go: no dice, no phantom role) instead of Monte Carlo.
    pub net_search: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            playouts: None,
            time: None,
            threads: 1,
            seed: 0,
            resign: 0.1,
            max_nodes: 4_000_000,
            ownership_playouts: 1000,
            dice_planning: Planning::Chance,
            phantom_mode: crate::phantom::player::Mode::Auto,
            phantom_policy: search::Policy::Light,
            phantom_host: None,
            ponder: false,
            live_gfx: false,
            patterns: true,
            network: None,
            net_search: false,
        }
    }
}

/// Playouts per move when neither playouts, time nor a clock is set.
const DEFAULT_PLAYOUTS: u64 = 10_000;
/// Network visits per move when neither playouts, time nor a clock is set
/// (KataGo's example configuration: 500).
const DEFAULT_VISITS: u64 = 500;

/// The engine behind the protocol.
pub struct Engine {
    pub game: Game,
    pub config: Config,
    pub clock: Clock,
    /// Whether the controller has sent `komi` (then rules changes keep it).
    komi_from_controller: bool,
    pub(crate) stop: Arc<AtomicBool>,
    quit: bool,
    started: Instant,
    /// Searches run so far (varies the seed from search to search).
    pub(crate) searches: u64,
    /// The tree of the last search, for reuse.
    tree: search::Tree,
    /// The tree of the last network search, for reuse.
    net_tree: search::puct::NetTree,
    /// The engine's part in a phantom game, if any.
    pub phantom: Option<Phantom>,
    /// The analysis the command just run asks to stream, if any.
    stream: Option<analyze::Request>,
    /// Whether the command just run played a move to ponder after.
    ponder_wanted: bool,
}

/// What the dispatcher makes of a command line.
pub enum Response {
    /// A whole reply, `=id text` or `?id message` and its blank line.
    Reply(String),
    /// The start of a reply (`=id `, then a line break) that the analysis of
    /// `request` goes on writing; a blank line ends it.
    Stream {
        head: String,
        request: analyze::Request,
    },
}

impl Engine {
    pub fn new(config: Config, rules: Rules, size: usize, komi: Option<f64>) -> Engine {
        let komi_given = komi.is_some();
        Engine {
            game: Game::new(size, rules, komi.unwrap_or(rules.default_komi)),
            config,
            clock: Clock::default(),
            komi_from_controller: komi_given,
            stop: Arc::new(AtomicBool::new(false)),
            quit: false,
            started: Instant::now(),
            searches: 0,
            tree: search::Tree::default(),
            net_tree: search::puct::NetTree::default(),
            phantom: None,
            stream: None,
            ponder_wanted: false,
        }
    }

    /// Starts hosting the phantom game of `config.phantom_host`, if any.
    pub fn start_phantom_host(&mut self) {
        phantom::start_host(self);
    }

    /// The flag that stops a running search (set by `# interrupt`).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn wants_quit(&self) -> bool {
        self.quit
    }

    /// Handles one raw input line; `None` when the line holds no command.
    /// An analysis command runs here to its end, within the move's budget
    /// (under [`serve`] it runs beside the protocol until the next input).
    pub fn execute(&mut self, raw: &[u8]) -> Option<String> {
        match self.dispatch(raw)? {
            Response::Reply(r) => Some(r),
            Response::Stream { head, request } => {
                let mut out = head.into_bytes();
                if request.genmove {
                    analyze::genmove(self, &request, &mut out);
                } else {
                    analyze::analyze_in_line(self, &request, &mut out);
                }
                out.push(b'\n');
                Some(String::from_utf8_lossy(&out).into_owned())
            }
        }
    }

    /// Runs one raw input line's command; `None` when it holds no command.
    pub fn dispatch(&mut self, raw: &[u8]) -> Option<Response> {
        self.stream = None;
        self.ponder_wanted = false;
        let line = preprocess(raw);
        if line.is_empty() {
            return None;
        }
        let (id, reply) = match parse::command_line(&line) {
            Err(e) => (e.id, Err(GtpError::syntax(e.reason))),
            Ok(cmd) => {
                let reply = match COMMANDS.iter().find(|c| c.name == cmd.name) {
                    None => Err(GtpError::new("unknown command", cmd.name)),
                    Some(c) => {
                        let run = c.run;
                        let args = cmd.args.clone();
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            phantom::guard(self, c.name)?;
                            let reply = run(self, &args)?;
                            phantom::after(self, c.name);
                            Ok(reply)
                        }))
                        .unwrap_or_else(|_| Err(GtpError("internal error".into())))
                    }
                };
                (cmd.id.map(str::to_string), reply)
            }
        };
        match (reply, self.stream.take()) {
            (Ok(_), Some(request)) => Some(Response::Stream {
                // `=id`, a space and the line break: GoGui takes the reply's
                // text from after its first space.
                head: format!("={} \n", id.unwrap_or_default()),
                request,
            }),
            (reply, _) => Some(Response::Reply(format_response(id, reply))),
        }
    }

    /// Whether the command just run played a move after which to ponder.
    fn take_ponder(&mut self) -> bool {
        std::mem::take(&mut self.ponder_wanted)
            && self.config.ponder
            && self.phantom.is_none()
            && self.game.dice().is_none()
            && !self.game.is_over()
    }

    /// Answers a line that was too long to read, echoing its id if it
    /// started with one.
    pub fn too_long(id: Option<String>) -> String {
        format_response(
            id,
            Err(GtpError::syntax(format!(
                "line longer than {MAX_LINE} bytes"
            ))),
        )
    }

    pub fn set_rules(&mut self, rules: Rules) {
        self.game.rules = rules;
        if !self.komi_from_controller {
            self.game.komi = rules
                .handicap_komi(self.game.handicap())
                .unwrap_or(rules.default_komi);
        }
    }

    pub fn set_komi(&mut self, komi: f64) {
        self.game.komi = komi;
        self.komi_from_controller = true;
    }

    pub fn cpu_seconds(&self) -> f64 {
        cpu_time().unwrap_or_else(|| self.started.elapsed().as_secs_f64())
    }

    /// Ownership of every point (+1 Black) from playouts of the position.
    pub fn ownership(&self) -> Vec<f64> {
        search::ownership(&self.game, self.config.ownership_playouts, self.config.seed)
    }

    pub fn statuses(&self) -> Vec<Status> {
        score::statuses(self.game.board(), &self.ownership())
    }

    pub fn score(&self) -> Score {
        score::score(&self.game, &self.statuses())
    }

    pub(crate) fn budget(&self, color: Color) -> Budget {
        let fixed_time = self.config.time.map(Duration::from_secs_f64);
        if self.config.playouts.is_some() || fixed_time.is_some() {
            return Budget {
                playouts: self.config.playouts,
                time: fixed_time,
            };
        }
        match self.clock.budget(
            color.index(),
            self.game.board().empty_points().len(),
            self.game.size() * self.game.size(),
        ) {
            Some(t) => Budget {
                playouts: None,
                time: Some(t),
            },
            None => Budget {
                playouts: Some(DEFAULT_PLAYOUTS),
                time: None,
            },
        }
    }

    /// Aléago: rolls for `color`'s next move unless a roll is pending (and,
    /// with the crystal ball, for the opponent's next move too); the roll.
    pub(crate) fn roll_for_search(&mut self, color: Color) -> Option<u32> {
        let roll = self.game.roll(color);
        if self.game.dice().is_some_and(|d| d.crystal_ball) {
            self.game.roll(color.opponent());
        }
        roll
    }

    /// The seed of the engine's current search: a new one for every search
    /// of the engine's life (counted by `searches`), so that games differ
    /// (clear_board does not reset it) yet replay identically from the same
    /// --seed and the same commands.
    pub(crate) fn search_seed(&self) -> u64 {
        self.config.seed ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Whether to resign with the search's `win_rate` for the move: below
    /// the threshold, never in the first quarter of the game, and only after
    /// `searched_enough`.
    fn resigns(&self, win_rate: f64, searched_enough: bool) -> bool {
        let size = self.game.size();
        let late_enough = self.game.move_count() >= size * size / 4;
        self.config.resign > 0.0 && win_rate < self.config.resign && late_enough && searched_enough
    }

    /// The settings of the engine's next search.
    fn search_settings(&mut self, budget: Budget, cleanup: bool) -> Settings {
        self.searches += 1;
        Settings {
            budget,
            seed: self.search_seed(),
            cleanup,
            max_nodes: self.config.max_nodes,
            patterns: self.config.patterns,
        }
    }

    /// The engine's game with `color` to move (to analyse it for `color`).
    pub(crate) fn game_for(&self, color: Color) -> Game {
        let mut game = self.game.clone();
        if game.to_move() != color {
            game.set_to_move(color);
        }
        game
    }

    /// Searches `game` (from [`Engine::game_for`]) within the move's budget,
    /// reporting to `watch`; the tree is kept for the next `genmove`.
    pub(crate) fn analyse(&mut self, game: &Game, watch: Watch) {
        let budget = self.budget(game.to_move());
        let settings = self.search_settings(budget, false);
        search::run_watched(
            game,
            &settings,
            self.config.threads,
            self.config.dice_planning,
            &self.stop,
            &mut self.tree,
            Some(watch),
        );
    }

    /// The network, when this move is chosen with it: a network search is
    /// asked for, the game is plain Go (no dice; a phantom player searches
    /// its own way), and nobody watches the search (the analysis lines,
    /// GoGui's live graphics and the cleanup of dead stones come from the
    /// Monte Carlo search for now).
    fn network_for_search(
        &self,
        watched: bool,
        cleanup: bool,
    ) -> Option<Arc<crate::nn::Evaluator>> {
        self.config.network.clone().filter(|_| {
            self.config.net_search
                && self.game.dice().is_none()
                && !watched
                && !cleanup
                && !self.config.live_gfx
        })
    }

    /// The budget of a network search: the move's budget, but where nothing
    /// sets one, `DEFAULT_VISITS` visits.
    fn net_budget(&self, color: Color) -> Budget {
        let budget = self.budget(color);
        if self.config.playouts.is_none() && budget.time.is_none() {
            Budget {
                playouts: Some(DEFAULT_VISITS),
                time: None,
            }
        } else {
            budget
        }
    }

    /// Chooses a move for `color` without playing it. In cleanup mode the
    /// engine does not pass while opponent stones it judges dead remain.
    pub fn choose_move(&mut self, color: Color, cleanup: bool) -> Decision {
        self.choose_move_watched(color, cleanup, None)
    }

    /// [`Engine::choose_move`], reporting to `watch` while searching (or,
    /// with none and `live_gfx` on, drawing GoGui's live graphics).
    pub fn choose_move_watched(
        &mut self,
        color: Color,
        cleanup: bool,
        watch: Option<Watch>,
    ) -> Decision {
        if self.game.to_move() != color {
            self.game.set_to_move(color);
        }
        self.roll_for_search(color);
        // Dead stones matter only for passing now or for cleanup: estimate
        // them only then (it costs a thousand playouts).
        let opponent_passed = self.game.last_move() == Some((color.opponent(), None));
        let (statuses, settled) = if opponent_passed || cleanup {
            let ownership = self.ownership();
            let statuses = score::statuses(self.game.board(), &ownership);
            let settled = score::is_settled(self.game.board(), &ownership, &statuses);
            (statuses, settled)
        } else {
            (Vec::new(), false)
        };
        let board = self.game.board();
        let dead_opponents = !statuses.is_empty()
            && board.points().any(|p| {
                board.color_at(p) == Some(color.opponent()) && statuses[p as usize] == Status::Dead
            });
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        // The opponent passed, the board is settled and we win as things
        // stand: end the game. (Under dice a pass often means a bad roll,
        // not a finished game: an unsettled board is played on.)
        if opponent_passed && settled && !(cleanup && dead_opponents) {
            let mut ended = self.game.clone();
            ended.play(color, None).expect("pass is legal");
            let margin = score::score(&ended, &statuses).margin * sign;
            if margin > 0.0 {
                return Decision::Pass;
            }
        }
        if let Some(net) = self.network_for_search(watch.is_some(), cleanup) {
            let budget = self.net_budget(color);
            self.searches += 1;
            let seed = self.search_seed();
            let out = search::puct::search(
                &self.game,
                &net,
                budget,
                seed,
                &self.stop,
                &mut self.net_tree,
            );
            if self.resigns(out.win_rate, out.visits >= 50) {
                return Decision::Resign;
            }
            return out.decision;
        }
        let budget = self.budget(color);
        let settings = self.search_settings(budget, cleanup && dead_opponents);
        let size = self.game.size();
        let mut draw = |r: &search::Report| gogui_analysis::draw_live(r, size);
        let watch = match watch {
            // The caller's report callback, seen for the shorter life of
            // this one.
            Some(w) => Some(Watch {
                on_report: w.on_report,
                ..w
            }),
            None => self
                .config
                .live_gfx
                .then(|| gogui_analysis::live_watch(&mut draw)),
        };
        let (decision, win_rate, playouts) = search::run_watched(
            &self.game,
            &settings,
            self.config.threads,
            self.config.dice_planning,
            &self.stop,
            &mut self.tree,
            watch,
        );
        if self.resigns(win_rate, playouts >= 500) {
            return Decision::Resign;
        }
        decision
    }
}

fn format_response(id: Option<String>, reply: Reply) -> String {
    let (mark, text) = match reply {
        Ok(t) => ('=', t),
        Err(e) => ('?', e.0),
    };
    // A response ends at the first empty line: keep the text free of them
    // (a leading newline, as in `showboard`, stays).
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut body = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            if line.trim().is_empty() {
                continue;
            }
            body.push('\n');
        }
        body.push_str(line);
    }
    match id {
        Some(id) => format!("{mark}{id} {body}\n\n"),
        None => format!("{mark} {body}\n\n"),
    }
}

/// CPU seconds used by this process (Linux), if the system tells.
fn cpu_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Writes `bytes` to stdout at once; false if stdout is gone.
fn write_out(bytes: &[u8]) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).is_ok()
}

/// Speaks GTP on stdin and stdout until `quit` or end of input. Analysis
/// and pondering run beside the protocol: any input stops them (an open
/// analysis reply is then ended by its blank line) before it is answered.
pub fn serve(mut engine: Engine) {
    let (tx, rx) = mpsc::channel();
    let interrupts = Arc::new(input::Interrupts::new(engine.stop_flag()));
    let reader_interrupts = interrupts.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        input::read_lines(stdin.lock(), &reader_interrupts, tx)
    });
    let mut beside: Option<Background> = None;
    let mut alive = true;
    for item in rx {
        if let Some(job) = beside.take() {
            alive &= job.finish(&mut engine);
        }
        let response = match item {
            Input::Blank => None,
            Input::Line(seq, raw) => {
                interrupts.begin(seq);
                engine.dispatch(&raw)
            }
            Input::TooLong(id) => Some(Response::Reply(Engine::too_long(id))),
        };
        match response {
            None => {}
            Some(Response::Reply(r)) => alive &= write_out(r.as_bytes()),
            Some(Response::Stream { head, request }) => {
                alive &= write_out(head.as_bytes());
                if request.genmove {
                    analyze::genmove(&mut engine, &request, &mut std::io::stdout());
                    alive &= write_out(b"\n");
                } else {
                    beside = Some(Background::analyze(&mut engine, request));
                }
            }
        }
        if !alive || engine.wants_quit() {
            break;
        }
        if beside.is_none() && engine.take_ponder() {
            beside = Some(Background::ponder(&mut engine));
        }
    }
    if let Some(job) = beside {
        job.finish(&mut engine);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(Config::default(), Rules::default(), 9, None)
    }

    fn run(e: &mut Engine, line: &str) -> String {
        e.execute(line.as_bytes()).unwrap_or_default()
    }

    #[test]
    fn ids_are_echoed_and_errors_marked() {
        let mut e = engine();
        assert_eq!(run(&mut e, "7 name"), "=7 kosumi\n\n");
        assert_eq!(
            run(&mut e, "frobnicate"),
            "? unknown command: frobnicate\n\n"
        );
        assert_eq!(run(&mut e, "3 boardsize 0"), "?3 unacceptable size: 0\n\n");
        assert!(e.execute(b"   # nothing").is_none());
    }

    #[test]
    fn multi_line_replies_have_no_empty_line() {
        let mut e = engine();
        let r = run(&mut e, "showboard");
        assert!(r.starts_with("= "));
        assert!(!r.trim_end().contains("\n\n"));
    }
}
