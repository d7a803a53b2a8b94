//! `kosumi phantom-match`: referees phantom games between GTP engines, as
//! gogui-twogtp does for Go. A seat's engine that lists `phantom-seat` is
//! told everything a player hears (`phantom-seat`, `play` for the stones
//! its board gets from the seat that shares it, accepted or revealed by a
//! refused try, `phantom-heard` for each announcement line); a plain
//! engine (GNU Go, Pachi) keeps a board that mirrors its view: the referee
//! sends `play` for each stone it learns of, asks `genmove` again after an
//! illegal try (at most [`TRIES_PER_TURN`] times, then passes for it), and
//! whenever its board differs from its view otherwise (captures, a refused
//! stone it placed) re-synchronises it with `clear_board` and a replay of
//! the view, which is always legal. An engine that dies, hangs past the
//! match's timeout, floods (a line past the client's limit) or answers
//! garbage loses that game (its whole process group ended), and the match
//! goes on; an engine that cannot start at all loses each of its games.
//! Seats run under `sh -c 'exec …'` (no shell left between kosumi and the
//! engine, so an engine that closes its output is noticed at once);
//! SIGTERM or SIGINT ends every seat's process group before kosumi exits. Each game is written as an SGF of the true game (every try
//! and announcement as comments) with one SGF per final view, each seat's
//! view and what it heard after every try (`game-N-views-S.txt`), and a
//! line of a table with twogtp's `.dat` columns, rewritten after every game so that
//! an interrupted match keeps the games played; run again with the same
//! settings and folder, the match plays only the games the table lacks.

use crate::core::files::write_atomically;
use crate::core::os;
use crate::go::board::{Board, BoardSize, Color, Point};
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::go::sgf::Note;
use crate::go::vertex::{color_name, parse_vertex, vertex_name};
use crate::phantom::announcement::Announcement;
use crate::phantom::options::Options;
use crate::phantom::referee::Referee;
use crate::phantom::table::{Event, Seat, Table, TableError, Turn};
use crate::phantom::{Kind, TRIES_PER_TURN, seat_color};
use crate::tools::client::{Client, ClientError};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest the check before a match waits for an engine's first
/// answer, or the match's timeout where that is shorter (one that has not
/// answered by then still plays, and loses on time if it goes on so).
const START_WITHIN: Duration = Duration::from_secs(10);

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines' command lines, seat 1 first (2 seats: Phantom Go, 4:
    /// Phantom Rengo). Program A is seat 1's (and seat 3's), B seat 2's
    /// (and seat 4's); colours alternate from game to game.
    pub seats: Vec<String>,
    pub size: usize,
    pub komi: f64,
    pub rules: Rules,
    pub options: Options,
    pub games: usize,
    pub sgf_dir: Option<PathBuf>,
    pub threads: usize,
    pub seed: u64,
    /// The longest a seat's engine may take to answer one command.
    pub timeout: Duration,
    /// Handicap stones on their fixed points (0: none), public on every
    /// view; White tries first then.
    pub handicap: usize,
}

impl MatchConfig {
    /// Why the match cannot be played as set, before any seat starts: a
    /// board kosumi does not play, a handicap with no fixed placement on
    /// it, or a timeout that is not more than 0 and at most a day.
    pub fn check(&self) -> Result<(), String> {
        let (size, handicap) = (self.size, self.handicap);
        if !(2..=crate::go::board::MAX_SIZE).contains(&size) {
            return Err("board size must be 2 to 25".into());
        }
        if handicap > 0 && crate::go::handicap::fixed(size.into(), handicap).is_err() {
            return Err(format!(
                "no fixed placement of {handicap} handicap stones on {size}x{size}"
            ));
        }
        let seconds = self.timeout.as_secs_f64();
        if !(seconds > 0.0 && seconds <= 86_400.0) {
            return Err("--timeout must be more than 0 and at most 86400 seconds".into());
        }
        Ok(())
    }
}

/// One game's outcome, as a line of the table.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub number: usize,
    /// Whether the programs swapped colours (A plays White).
    pub swapped: bool,
    pub result: String,
    pub moves: usize,
    /// Seconds the seats of each colour took (Black, White).
    pub seconds: [f64; 2],
    /// Moves each colour made (for seconds per move).
    pub colour_moves: [usize; 2],
    pub error: Option<String>,
}

impl GameRecord {
    /// The program that won: `Some(true)` A, `Some(false)` B, `None` a draw.
    pub fn a_won(&self) -> Option<bool> {
        let black_won = if self.result.starts_with("B+") {
            true
        } else if self.result.starts_with("W+") {
            false
        } else {
            return None;
        };
        Some(black_won != self.swapped)
    }
}

/// A seat's engine process, spoken to over GTP, and how long it may take
/// to answer.
struct SeatEngine(Client, Duration);

impl SeatEngine {
    fn start(command: &str, timeout: Duration) -> Result<SeatEngine, String> {
        let mut client = Client::shell(command).map_err(|e| format!("'{command}': {e}"))?;
        live_groups().push(client.child_mut().id());
        Ok(SeatEngine(client, timeout))
    }

    /// Sends a command; `Ok` with the text of a `=` reply, `Err` with the
    /// `?` message, or `Err` if the engine died, hung or wrote garbage.
    fn send(&mut self, command: &str) -> Result<Result<String, String>, String> {
        let reply = self
            .0
            .command(command, self.1)
            .map_err(|e| format!("'{command}': {e}"))?;
        let text: Vec<&str> = reply
            .text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .collect();
        let text = text.join("\n").trim().to_string();
        Ok(if reply.ok { Ok(text) } else { Err(text) })
    }

    /// A command that must succeed.
    fn must(&mut self, command: &str) -> Result<String, String> {
        self.send(command)?
            .map_err(|e| format!("'{command}' failed: {e}"))
    }
}

impl Drop for SeatEngine {
    fn drop(&mut self) {
        let id = self.0.child_mut().id();
        live_groups().retain(|&g| g != id);
    }
}

/// The process groups of the seats' engines now running (each engine
/// leads its own), for [`end_seats_on_signals`].
fn live_groups() -> std::sync::MutexGuard<'static, Vec<u32>> {
    static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// On SIGTERM or SIGINT (Ctrl+C; Ctrl+Break too on Windows), ends every
/// seat's process group and exits (the table of the games played is
/// already written, after each game): a match stopped leaves no engine
/// running. The signals are only noted; a watcher thread does the rest.
fn end_seats_on_signals() {
    os::catch_stop_signals();
    let watcher = std::thread::Builder::new().spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if let Some(signal) = os::stop_signal() {
                for &group in live_groups().iter() {
                    os::kill_group(group);
                }
                crate::say!("kosumi phantom-match: stopped by signal {signal}; every seat ended");
                std::process::exit(128 + signal);
            }
        }
    });
    if let Err(err) = watcher {
        // The signals then end the match by their default action; the
        // seats still end with it (their parent-death signal, or job).
        crate::say!("kosumi phantom-match: no thread to watch for signals ({err})");
        os::default_stop_signals();
    }
}

/// One seat during a game: a GTP program.
struct Program {
    number: usize,
    client: SeatEngine,
    /// Whether the engine plays phantom games itself (lists `phantom-seat`).
    aware: bool,
    /// Plain engines: the board the engine holds, as the referee knows it.
    mirror: Board,
    seconds: f64,
    moves: usize,
}

fn same_stones(a: &Board, b: &Board) -> bool {
    a.points().all(|p| a.color_at(p) == b.color_at(p))
}

impl Program {
    fn start(
        number: usize,
        command: &str,
        config: &MatchConfig,
        kind: Kind,
    ) -> Result<Program, String> {
        let mut client = SeatEngine::start(command, config.timeout)?;
        let aware = client.must("known_command phantom-seat")? == "true";
        client.must(&format!("boardsize {}", config.size))?;
        client.must("clear_board")?;
        client.must(&format!("komi {}", config.komi))?;
        if config.handicap > 0 {
            client.must(&format!("fixed_handicap {}", config.handicap))?;
        }
        if client.must("known_command kosumi-rules")? == "true" {
            client.must(&format!("kosumi-rules {}", config.rules.name))?;
        }
        if aware {
            client.must(&format!(
                "phantom-seat {number} {} {}",
                kind.name(),
                config.options.preset
            ))?;
            for (name, value) in config.options.list() {
                client.must(&format!("phantom-option {name} {value}"))?;
            }
        }
        Ok(Program {
            number,
            client,
            aware,
            mirror: Board::new(config.size),
            seconds: 0.0,
            moves: 0,
        })
    }

    /// Brings a plain engine's board to `view`: one `play` if the view has
    /// just one stone more, else `clear_board` and a replay.
    fn sync(&mut self, view: &Board) -> Result<(), String> {
        if same_stones(&self.mirror, view) {
            return Ok(());
        }
        let added: Vec<Point> = view
            .points()
            .filter(|&p| view.color_at(p) != self.mirror.color_at(p))
            .collect();
        if let [p] = added[..]
            && let Some(c) = view.color_at(p)
            && self.mirror.color_at(p).is_none()
        {
            let mut after = self.mirror.clone();
            after.place(c, p);
            if same_stones(&after, view) {
                self.client.must(&format!(
                    "play {} {}",
                    color_name(c),
                    vertex_name(Some(p), view.size())
                ))?;
                self.mirror = after;
                return Ok(());
            }
        }
        self.client.must("clear_board")?;
        for p in view.points() {
            if let Some(c) = view.color_at(p) {
                self.client.must(&format!(
                    "play {} {}",
                    color_name(c),
                    vertex_name(Some(p), view.size())
                ))?;
            }
        }
        self.mirror = view.clone();
        Ok(())
    }
}

impl Seat for Program {
    fn number(&self) -> usize {
        self.number
    }

    /// Asks the program for its try (`genmove`), timed; a plain engine's
    /// stone stands on its own board, which the mirror follows.
    fn turn(&mut self) -> Result<Turn, String> {
        let color = seat_color(self.number);
        let start = Instant::now();
        let reply = self.client.send(&format!("genmove {}", color_name(color)));
        self.seconds += start.elapsed().as_secs_f64();
        self.moves += 1;
        let answer = reply??;
        if answer.eq_ignore_ascii_case("resign") {
            return Ok(Turn::Resign);
        }
        let mv = parse_vertex(&answer, self.mirror.size())
            .map_err(|e| format!("genmove answered {answer:?}: {e}"))?;
        if !self.aware
            && let Some(p) = mv
            && self.mirror.color_at(p).is_none()
        {
            self.mirror.place(color, p);
        }
        Ok(Turn::Try(mv))
    }

    /// A phantom-aware engine hears the announcement's lines for it and
    /// gets the stone its board shows; a plain engine's board is brought
    /// to its view.
    fn tell(
        &mut self,
        referee: &Referee,
        announcement: &Announcement,
        trier: usize,
        mv: Option<Point>,
    ) -> Result<(), String> {
        let (t, size) = (self.number, self.mirror.size());
        if !self.aware {
            if referee.to_move().is_some() {
                self.sync(&referee.view(t).board())?;
            }
            return Ok(());
        }
        let Some(heard) = referee.heard_by(announcement, trier, t) else {
            return Ok(());
        };
        for line in heard.lines(size) {
            self.client.must(&format!("phantom-heard {trier} {line}"))?;
        }
        // A board-mate's accepted stone, or the stone its refused try
        // revealed, shows on this seat's board (an accepted one after the
        // captures it made are cleared, or it would look like a suicide
        // there).
        if let Some((c, p)) = referee.shown_stone(announcement, trier, t, mv) {
            self.client.must(&format!(
                "play {} {}",
                color_name(c),
                vertex_name(Some(p), size)
            ))?;
        }
        Ok(())
    }
}

/// Plays one game; the seats' programs are `commands` (seat order). An
/// error where its records cannot be written (the game is then not one
/// the match played).
fn play_game(
    number: usize,
    commands: &[String],
    swapped: bool,
    config: &MatchConfig,
) -> Result<GameRecord, String> {
    let kind = if commands.len() == 4 {
        Kind::Rengo
    } else {
        Kind::Go
    };
    let mut table = new_table(number, kind, config);
    let mut record = GameRecord {
        number,
        swapped,
        result: String::new(),
        moves: 0,
        seconds: [0.0; 2],
        colour_moves: [0; 2],
        error: None,
    };
    let mut programs = match start_programs(commands, config, kind, &table) {
        Ok(programs) => programs,
        Err((seat, why)) => {
            record.result = forfeit(seat_color(seat));
            record.error = Some(format!("seat {seat}: {why}"));
            return Ok(record);
        }
    };
    let size = BoardSize::square(config.size);
    let mut journal = Journal {
        notes: Vec::new(),
        pending: String::new(),
        views: vec![String::new(); kind.seats()],
        tries: 0,
    };
    let mut seats: Vec<&mut dyn Seat> = programs.iter_mut().map(|p| p as &mut dyn Seat).collect();
    let outcome = table.run(&mut seats, &mut |event| {
        journal.take(event, size, &mut record.moves)
    });
    drop(seats);
    match outcome {
        Ok(_) => {}
        Err(e @ TableError::Seat { seat, .. }) => {
            record.error = Some(e.to_string());
            table.referee.end_with(forfeit(seat_color(seat)));
        }
        Err(e @ TableError::Referee(_)) => record.error = Some(e.to_string()),
    }
    journal.close();
    let Table { referee, truth, .. } = table;
    record.result = referee.result().unwrap_or("Void").to_string();
    for seat in &programs {
        let c = seat_color(seat.number).index();
        record.seconds[c] += seat.seconds;
        record.colour_moves[c] += seat.moves;
    }
    if let Some(dir) = &config.sgf_dir {
        let played = Played {
            number,
            kind,
            commands,
            truth: &truth,
            referee: &referee,
            result: &record.result,
        };
        played.write(dir, config, journal)?;
    }
    Ok(record)
}

/// The true game (with the handicap stones) and its referee, seeded for
/// game `number`.
fn new_table(number: usize, kind: Kind, config: &MatchConfig) -> Table {
    let mut game = Game::new(config.size, config.rules, config.komi);
    if config.handicap > 0 {
        let stones: Vec<(Color, Point)> =
            crate::go::handicap::fixed(config.size.into(), config.handicap)
                .unwrap_or_default()
                .into_iter()
                .map(|(x, y)| (Color::Black, game.board().point(x, y)))
                .collect();
        let _ = game.setup(&stones, true);
    }
    let mut referee = Referee::new(kind, config.options, &game);
    referee.seed = crate::core::random::nth_seed(config.seed, number as u64);
    Table::new(referee, game)
}

/// Each seat's program started, a plain engine's board set to its view
/// (the handicap stones); the seat that failed and why otherwise.
fn start_programs(
    commands: &[String],
    config: &MatchConfig,
    kind: Kind,
    table: &Table,
) -> Result<Vec<Program>, (usize, String)> {
    let mut programs: Vec<Program> = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        programs.push(Program::start(i + 1, command, config, kind).map_err(|e| (i + 1, e))?);
    }
    for program in programs.iter_mut().filter(|p| !p.aware) {
        let view = table.referee.view(program.number).board();
        program
            .sync(&view)
            .map_err(|e| (program.number, e.to_string()))?;
    }
    Ok(programs)
}

/// What a game's record says beside its moves: a comment a move (the
/// tries and what was announced), and what each seat knew after every try
/// (its view and what it heard).
struct Journal {
    notes: Vec<String>,
    pending: String,
    views: Vec<String>,
    tries: usize,
}

impl Journal {
    /// Notes `event`; an accepted try counts a move.
    fn take(&mut self, event: Event, size: BoardSize, moves: &mut usize) {
        match event {
            Event::Tried {
                seat,
                mv,
                announcement,
                referee,
            } => {
                self.tries += 1;
                let tries = self.tries;
                for (i, text) in self.views.iter_mut().enumerate() {
                    let s = i + 1;
                    let heard = referee
                        .heard_by(announcement, seat, s)
                        .map_or("nothing".to_string(), |a| a.lines(size).join(", "));
                    text.push_str(&format!(
                        "try {tries} (seat {seat} {}): heard {heard}\n{}\n",
                        vertex_name(mv, size),
                        referee.view(s).board().to_ascii()
                    ));
                }
                self.pending.push_str(&format!(
                    "seat {seat} tries {}: {}\n",
                    vertex_name(mv, size),
                    announcement.lines(size).join(", ")
                ));
                if !announcement.outcome.is_illegal() {
                    *moves += 1;
                    self.notes.push(std::mem::take(&mut self.pending));
                }
            }
            Event::ForcedPass { seat } => self.pending.push_str(&format!(
                "seat {seat}: {TRIES_PER_TURN} illegal tries, passes\n"
            )),
            Event::Resigned { seat } => self.pending.push_str(&format!("seat {seat} resigns\n")),
        }
    }

    /// What was noted after the last move goes with it.
    fn close(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        match self.notes.last_mut() {
            Some(last) => last.push_str(&pending),
            None => self.notes.push(pending),
        }
    }
}

/// A finished game, for its records.
struct Played<'a> {
    number: usize,
    kind: Kind,
    commands: &'a [String],
    truth: &'a Game,
    referee: &'a Referee,
    result: &'a str,
}

impl Played<'_> {
    /// Writes the game's records into `dir`, each whole or not at all: the
    /// true game with the journal's comments, each seat's final view, and
    /// what each seat knew after every try. Why not, naming the file,
    /// where one cannot be written.
    fn write(
        &self,
        dir: &std::path::Path,
        config: &MatchConfig,
        journal: Journal,
    ) -> Result<(), String> {
        use crate::core::files::write_atomically;
        let (number, kind) = (self.number, self.kind);
        let size = BoardSize::square(config.size);
        let root_note = format!(
            "kosumi phantom-match, phantom {} ({} preset), game {number}\n{}",
            kind.name(),
            config.options.preset,
            self.commands
                .iter()
                .enumerate()
                .map(|(i, c)| format!("seat {} ({}): {c}", i + 1, color_name(seat_color(i + 1))))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let notes: Vec<Note> = journal.notes.into_iter().map(Note::comment).collect();
        let text = crate::go::sgf::write_annotated(
            self.truth,
            Some(self.result),
            &Note::comment(root_note),
            &notes,
        );
        let write = |name: String, bytes: &[u8]| {
            let path = dir.join(name);
            write_atomically(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
        };
        write(format!("game-{number}.sgf"), text.as_bytes())?;
        for seat in 1..=kind.seats() {
            let mut view = Game::new(size, config.rules, config.komi);
            let _ = view.setup(&self.referee.view(seat).stones(), false);
            let text = crate::go::sgf::write_annotated(
                &view,
                None,
                &Note::comment(format!("game {number}: the final view of seat {seat}")),
                &[],
            );
            write(format!("game-{number}-view-{seat}.sgf"), text.as_bytes())?;
            write(
                format!("game-{number}-views-{seat}.txt"),
                journal.views[seat - 1].as_bytes(),
            )?;
        }
        Ok(())
    }
}

fn forfeit(loser: Color) -> String {
    format!("{}+Forfeit", loser.opponent().letter())
}

/// Plays the match, printing a line per game and a summary; writes the
/// table (`match.dat`) and the records into `sgf_dir` if given.
pub fn run(config: &MatchConfig) -> Result<Vec<GameRecord>, String> {
    if ![2, 4].contains(&config.seats.len()) {
        return Err("give 2 seats (Phantom Go) or 4 (Phantom Rengo)".into());
    }
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // A program that does not run (missing, or crashing at start) loses
    // each of its games; the match says so once, up front, and goes on.
    for (i, command) in config.seats.iter().enumerate() {
        let command = command.replace("{game}", "0");
        let started = Client::shell(&command)
            .and_then(|mut c| c.command("protocol_version", START_WITHIN.min(config.timeout)));
        if let Err(e @ (ClientError::Start(_) | ClientError::Closed | ClientError::Gone(_))) =
            started
        {
            crate::say!(
                "kosumi phantom-match: seat {}: '{command}' does not run ({e}); it loses its games",
                i + 1
            );
        }
    }
    end_seats_on_signals();
    let before = played_before(config)?;
    if !before.is_empty() {
        crate::say!(
            "kosumi phantom-match: {} games of this match already in match.dat; playing the others",
            before.len()
        );
    }
    let todo: Vec<usize> = (0..config.games)
        .filter(|g| before.iter().all(|r| r.number != *g))
        .collect();
    let next = AtomicUsize::new(0);
    let records: Mutex<Vec<GameRecord>> = Mutex::new(before);
    // A record that cannot be written stops the match: the first why.
    let failed: Mutex<Option<String>> = Mutex::new(None);
    let stopped = || failed.lock().map_or(true, |f| f.is_some());
    let out = Arc::new(Mutex::new(std::io::stdout()));
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            // A thread refused: its games are played here, one at a time.
            crate::core::concurrency::spawn_or_run(scope, || {
                while let Some(&g) = todo
                    .get(next.fetch_add(1, Ordering::SeqCst))
                    .filter(|_| !stopped())
                {
                    let swapped = g % 2 == 1;
                    // `{game}` in a command becomes the game's number (to
                    // vary an engine's seed from game to game).
                    let commands: Vec<String> = (0..config.seats.len())
                        .map(|i| {
                            config.seats[if swapped { i ^ 1 } else { i }]
                                .replace("{game}", &g.to_string())
                        })
                        .collect();
                    let record = match play_game(g, &commands, swapped, config) {
                        Ok(record) => record,
                        Err(why) => {
                            if let Ok(mut f) = failed.lock() {
                                f.get_or_insert(format!("game {g}'s record: {why}"));
                            }
                            break;
                        }
                    };
                    let winner = match record.a_won() {
                        Some(true) => "A",
                        Some(false) => "B",
                        None => "-",
                    };
                    let line = format!(
                        "game {g}: A plays {}, {} after {} moves, winner {winner}{}",
                        if swapped { "white" } else { "black" },
                        record.result,
                        record.moves,
                        record
                            .error
                            .as_deref()
                            .map(|e| format!(" (error: {e})"))
                            .unwrap_or_default()
                    );
                    if let Ok(mut o) = out.lock() {
                        let _ = writeln!(o, "{line}");
                        let _ = o.flush();
                    }
                    if let Ok(mut r) = records.lock() {
                        r.push(record);
                        // The table so far, after every game.
                        if let Some(dir) = &config.sgf_dir {
                            let mut sorted = r.clone();
                            sorted.sort_by_key(|x| x.number);
                            let _ = write_atomically(
                                &dir.join("match.dat"),
                                dat_table(config, &sorted).as_bytes(),
                            );
                        }
                    }
                }
            });
        }
    });
    let mut records = records.into_inner().unwrap_or_else(|e| e.into_inner());
    records.sort_by_key(|r| r.number);
    let table = dat_table(config, &records);
    if let Some(dir) = &config.sgf_dir {
        write_atomically(&dir.join("match.dat"), table.as_bytes()).map_err(|e| e.to_string())?;
    }
    println!("{}", summary(&records));
    if let Some(why) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(format!(
            "{why}; the match stopped ({} games played and in the table)",
            records.len()
        ));
    }
    Ok(records)
}

/// The games of this match that the folder's `match.dat` holds already
/// (a match interrupted, or run again with more games, goes on where it
/// stopped, as gogui-twogtp does); an error where the table is another
/// match's (its settings differ) or cannot be read. Each colour's moves,
/// which the table does not keep, are taken as half the game's each.
fn played_before(config: &MatchConfig) -> Result<Vec<GameRecord>, String> {
    let Some(path) = config.sgf_dir.as_ref().map(|d| d.join("match.dat")) else {
        return Ok(Vec::new());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let header = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    if header(&text) != header(&dat_table(config, &[])) {
        return Err(format!(
            "{} holds another match (its settings differ): give another folder",
            path.display()
        ));
    }
    let bad = |line: &str| format!("{}: not a line of the table: {line}", path.display());
    let mut records = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 13 {
            return Err(bad(line));
        }
        let number: usize = f[0].parse().map_err(|_| bad(line))?;
        let moves: usize = f[6].parse().map_err(|_| bad(line))?;
        let seconds = [f[7], f[8]].map(|t| t.parse::<f64>());
        let [Ok(black), Ok(white)] = seconds else {
            return Err(bad(line));
        };
        if records.iter().any(|r: &GameRecord| r.number == number) {
            return Err(bad(line));
        }
        records.push(GameRecord {
            number,
            swapped: f[4] == "1",
            result: f[3].to_string(),
            moves,
            seconds: [black, white],
            colour_moves: [moves.div_ceil(2), moves / 2],
            error: (f[11] == "1").then(|| f[12..].join(" ")),
        });
    }
    Ok(records)
}

/// The table, with gogui-twogtp's `.dat` columns.
pub fn dat_table(config: &MatchConfig, records: &[GameRecord]) -> String {
    let mut out = String::from("# kosumi phantom-match\n");
    for (i, s) in config.seats.iter().enumerate() {
        out.push_str(&format!("# Seat{}: {s}\n", i + 1));
    }
    out.push_str(&format!(
        "# Size: {}\n# Komi: {}\n# Rules: {}\n# Preset: {}\n",
        config.size, config.komi, config.rules.name, config.options.preset
    ));
    out.push_str(
        "#GAME\tRES_B\tRES_W\tRES_R\tALT\tDUP\tLEN\tTIME_B\tTIME_W\tCPU_B\tCPU_W\tERR\tERR_MSG\n",
    );
    for r in records {
        out.push_str(&format!(
            "{}\t?\t?\t{}\t{}\t-\t{}\t{:.1}\t{:.1}\t0\t0\t{}\t{}\n",
            r.number,
            r.result,
            u8::from(r.swapped),
            r.moves,
            r.seconds[0],
            r.seconds[1],
            u8::from(r.error.is_some()),
            r.error.as_deref().unwrap_or("").replace(['\t', '\n'], " ")
        ));
    }
    out
}

/// Wins of each program, errors and each program's seconds per move.
pub fn summary(records: &[GameRecord]) -> String {
    let a = records.iter().filter(|r| r.a_won() == Some(true)).count();
    let b = records.iter().filter(|r| r.a_won() == Some(false)).count();
    let errors = records.iter().filter(|r| r.error.is_some()).count();
    // Program A is Black in unswapped games.
    let per_move = |program_a: bool| {
        let (mut secs, mut moves) = (0.0, 0usize);
        for r in records {
            let c = usize::from(program_a == r.swapped);
            secs += r.seconds[c];
            moves += r.colour_moves[c];
        }
        secs / moves.max(1) as f64
    };
    format!(
        "games {}: A won {a}, B won {b}, draws or void {}, errors {errors}; seconds per move A {:.3}, B {:.3}",
        records.len(),
        records.len() - a - b,
        per_move(true),
        per_move(false)
    )
}
