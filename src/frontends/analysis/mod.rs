//! KataGo's JSON analysis engine, `kosumi analysis`: the protocol of
//! KataGo's docs/Analysis_Engine.md, which KaTrain and analysis tools
//! speak. Each line of input is a query; each position it asks for is
//! searched by the network's PUCT search and answered by one line of JSON
//! (more with `reportDuringSearchEvery`), in whatever order the searches
//! end. Several positions are searched at once, one per worker thread,
//! the highest `priority` first, then the earliest. End of input lets the
//! queued positions finish, then the engine exits.
//!
//! The parts: `query` (a line read into an action or positions, with the
//! field at fault in each error), `response` (the answers' JSON), and here
//! the queue, the workers and the actions (`query_version`, `clear_cache`,
//! `query_models`, `terminate`, `terminate_all`).

mod query;
mod response;

pub use query::{Defaults, Perspective};

use crate::core::concurrency::spawn_scoped;
use crate::core::random::nth_seed;
use crate::nn::{Evaluator, Request};
use crate::search::{Puct, SearchConfig, Watch, puct};
use query::{Action, Asked, Parsed, Position};
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The engine's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub defaults: Defaults,
    /// Positions searched at once (KataGo's numAnalysisThreads).
    pub workers: usize,
    /// How each position is searched (its threads: KataGo's
    /// numSearchThreadsPerAnalysisThread), before a query's own settings.
    pub search: SearchConfig,
    /// A human-like net beside the network (KataGo's `-human-model`): its
    /// policy under the query's `humanSLProfile` (or its own) is reported
    /// as `humanPolicy` where the query includes the policy.
    pub human_network: Option<Arc<Evaluator>>,
    /// Whether the reader of the answers has gone (its end of the pipe
    /// closed), asked every few milliseconds while positions wait or run:
    /// then nothing more is searched. `None` where it cannot be told (the
    /// answers are then found unread at the next write).
    pub reader_gone: Option<fn() -> bool>,
}

/// How often `reader_gone` is asked.
const READER_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// The most positions waiting at once (each holds its query's moves, not
/// a game): past it a query is refused whole with an error.
const MAX_WAITING: usize = 100_000;

/// The version `query_version` reports: kosumi's own.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One position waiting or being searched.
struct Job {
    asked: Arc<Asked>,
    position: Position,
    /// Order of arrival, for ties of priority.
    arrival: u64,
    stop: Arc<AtomicBool>,
}

/// The positions not yet searched, those being searched, and whether
/// input has ended.
#[derive(Default)]
struct State {
    waiting: Vec<Job>,
    running: Vec<(String, usize, Arc<AtomicBool>)>,
    arrivals: u64,
    closed: bool,
}

struct Queue {
    state: Mutex<State>,
    changed: Condvar,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next position to search (highest priority, then earliest), or
    /// `None` once input has ended and nothing waits.
    fn next(&self) -> Option<Job> {
        let mut state = self.lock();
        loop {
            let best = (0..state.waiting.len()).max_by_key(|&i| {
                let job = &state.waiting[i];
                (job.position.priority, std::cmp::Reverse(job.arrival))
            });
            if let Some(i) = best {
                let job = state.waiting.swap_remove(i);
                let entry = (job.asked.id.clone(), job.position.turn, job.stop.clone());
                state.running.push(entry);
                return Some(job);
            }
            if state.closed {
                return None;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn finished(&self, stop: &Arc<AtomicBool>) {
        self.lock().running.retain(|r| !Arc::ptr_eq(&r.2, stop));
    }
}

/// The longest query line read (a whole game of moves fits many times).
const MAX_QUERY: usize = 16 << 20;

/// Skips input up to and including the next newline; `false` at the end
/// of input.
fn skip_line(input: &mut dyn BufRead) -> bool {
    loop {
        let (found, used) = match input.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, buf.len()),
            },
        };
        input.consume(used);
        if found {
            return true;
        }
    }
}

/// Where the answers go, and whether the client still reads them.
struct Output<'a> {
    writer: Mutex<&'a mut (dyn Write + Send)>,
    /// Set when a write failed (the client closed its end): nothing more
    /// is searched.
    gone: AtomicBool,
}

impl Output<'_> {
    fn gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }
}

/// Writes one JSON line to `out` and flushes it; a failed write marks the
/// output gone.
fn send(out: &Output<'_>, value: &Value) {
    let mut writer = out.writer.lock().unwrap_or_else(|e| e.into_inner());
    if writeln!(writer, "{value}")
        .and_then(|_| writer.flush())
        .is_err()
    {
        out.gone.store(true, Ordering::Relaxed);
    }
}

/// Serves queries from `input` until it ends and every queued position is
/// answered.
pub fn serve(
    input: &mut dyn BufRead,
    output: &mut (dyn Write + Send),
    net: &Evaluator,
    settings: &Settings,
) {
    let queue = Queue {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
    };
    let out = Output {
        writer: Mutex::new(output),
        gone: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        // Nobody reading the answers stops the searches at once, not at
        // the next answer written.
        if let Some(gone) = settings.reader_gone {
            let (queue, out) = (&queue, &out);
            spawn_scoped(scope, move || {
                loop {
                    std::thread::sleep(READER_CHECK);
                    let mut state = queue.lock();
                    if gone() {
                        out.gone.store(true, Ordering::Relaxed);
                        state.waiting.clear();
                        for (_, _, stop) in &state.running {
                            stop.store(true, Ordering::Relaxed);
                        }
                        drop(state);
                        queue.changed.notify_all();
                        return;
                    }
                    if state.closed && state.waiting.is_empty() && state.running.is_empty() {
                        return;
                    }
                }
            });
        }
        // A worker the system refuses means fewer workers; with none, each
        // query is answered with the error.
        let workers = (0..settings.workers.max(1))
            .map_while(|_| spawn_scoped(scope, || work(&queue, &out, net, settings)))
            .count();
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut *input)
                .take(MAX_QUERY as u64 + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > MAX_QUERY && line.last() != Some(&b'\n') {
                // Too long: the rest of the line is skipped unread.
                let skipped = skip_line(input);
                send(
                    &out,
                    &json!({ "error": format!("query longer than {MAX_QUERY} bytes") }),
                );
                if !skipped {
                    break;
                }
                continue;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            if workers == 0 {
                send(
                    &out,
                    &json!({ "error": "no search thread could be started (the system refused one)" }),
                );
                continue;
            }
            take(text, &queue, &out, net, settings);
            if out.gone() {
                break;
            }
        }
        let mut state = queue.lock();
        state.closed = true;
        if out.gone() {
            // Nobody reads the answers: what waits is dropped, what runs
            // stops.
            state.waiting.clear();
            for (_, _, stop) in &state.running {
                stop.store(true, Ordering::Relaxed);
            }
        }
        drop(state);
        queue.changed.notify_all();
    });
}

/// Acts on one line of input.
fn take(text: &str, queue: &Queue, out: &Output<'_>, net: &Evaluator, settings: &Settings) {
    match query::parse(text, &settings.defaults) {
        Err(e) => send(out, &response::error(&e)),
        Ok(Parsed::Action { echo, action }) => {
            let mut echo = Value::Object(echo);
            match action {
                Action::QueryVersion => {
                    echo["version"] = json!(VERSION);
                    echo["git_hash"] = json!("<omitted>");
                }
                Action::ClearCache => net.cache().clear(),
                Action::QueryModels => {
                    let model = |n: &Evaluator| json!({ "name": n.name(), "internalName": n.name(), "maxBatchSize": n.max_batch(), "usesHumanSLProfile": n.is_human(), "version": n.version(), "usingFP16": if n.uses_fp16() { "true" } else { "false" } });
                    let models: Vec<Value> = std::iter::once(net)
                        .chain(settings.human_network.as_deref())
                        .map(model)
                        .collect();
                    echo["models"] = Value::Array(models);
                }
                Action::Terminate { target, turns } => {
                    let hit = |id: &str, turn: usize| {
                        target.as_deref().is_none_or(|t| t == id)
                            && turns.as_ref().is_none_or(|ts| ts.contains(&turn))
                    };
                    let mut state = queue.lock();
                    let (dropped, kept) = std::mem::take(&mut state.waiting)
                        .into_iter()
                        .partition(|j| hit(&j.asked.id, j.position.turn));
                    state.waiting = kept;
                    for (id, turn, stop) in &state.running {
                        if hit(id, *turn) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    drop(state);
                    send(out, &echo);
                    for job in dropped {
                        send(out, &response::no_results(&job.asked.id, job.position.turn));
                    }
                    return;
                }
            }
            send(out, &echo);
        }
        Ok(Parsed::Analyse {
            asked,
            positions,
            warnings,
        }) => {
            for w in &warnings {
                send(out, &response::warning(&asked.id, w));
            }
            // A query's profile is for the human-like net beside the
            // network; a human-like network keeps the engine's own.
            if asked.human_profile.is_some() && net.is_human() {
                let w = query::Warning {
                    field: "overrideSettings".into(),
                    message: format!(
                        "humanSLProfile: the network is searched under the engine's profile ({}); a query's profile is for the human-like net beside it (--human-model)",
                        net.profile()
                            .map_or("none".into(), |p| p.name().to_string())
                    ),
                };
                send(out, &response::warning(&asked.id, &w));
            }
            let mut state = queue.lock();
            if state.waiting.len() + positions.len() > MAX_WAITING {
                drop(state);
                send(
                    out,
                    &json!({
                        "error": format!(
                            "more than {MAX_WAITING} positions would wait; this query's are not queued"
                        ),
                        "id": asked.id,
                    }),
                );
                return;
            }
            for position in positions {
                let arrival = state.arrivals;
                state.arrivals += 1;
                state.waiting.push(Job {
                    asked: asked.clone(),
                    position,
                    arrival,
                    stop: Arc::new(AtomicBool::new(false)),
                });
            }
            drop(state);
            queue.changed.notify_all();
        }
    }
}

/// One worker: searches positions from the queue until it closes.
fn work(queue: &Queue, out: &Output<'_>, net: &Evaluator, settings: &Settings) {
    while let Some(job) = queue.next() {
        if !out.gone() {
            // A failure in one search answers that query with an error;
            // the others go on.
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                search(&job, out, net, settings)
            }));
            if searched.is_err() {
                send(
                    out,
                    &json!({
                        "error": "the search of this position failed",
                        "id": job.asked.id,
                        "turnNumber": job.position.turn,
                    }),
                );
            }
        }
        queue.finished(&job.stop);
    }
}

/// Searches one position and sends its answers.
fn search(job: &Job, out: &Output<'_>, net: &Evaluator, settings: &Settings) {
    let asked = &job.asked;
    let turn = job.position.turn;
    if job.stop.load(Ordering::Relaxed) {
        send(out, &response::no_results(&asked.id, turn));
        return;
    }
    // The game at this turn, made now that it is searched.
    let game = &job.position.game();
    let request = Request {
        game,
        to_move: game.to_move(),
        fresh: false,
        symmetry: 0,
        white_advantage: asked.advantage.for_white(game.to_move()) as f32,
    };
    let eval = net.evaluate(request);
    let human = settings.human_network.as_ref().and_then(|h| {
        let profile = asked.human_profile.clone().or_else(|| h.profile());
        let request = Request {
            white_advantage: 0.0,
            ..request
        };
        match profile {
            Some(p) if asked.policy => Some(h.evaluate_under(&p, request)),
            // A net that reads no profile answers without one.
            None if asked.policy && !h.is_human() => Some(h.evaluate(request)),
            _ => None,
        }
    });
    // A net that overflows answers an error for this position, never a
    // NaN (which JSON cannot hold) nor a null where a number belongs.
    let not_finite = || {
        send(
            out,
            &json!({
                "error": format!("the network {} gave no finite evaluation of this position (NaN or infinity)", net.name()),
                "id": asked.id,
                "turnNumber": turn,
            }),
        );
    };
    if eval.failed || human.as_ref().is_some_and(|h| h.failed) {
        not_finite();
        return;
    }
    let raw = response::Raw {
        eval: &eval,
        human: human.as_ref(),
        board: game.board(),
    };
    let mut partial = |r: &crate::search::Report| {
        send(out, &response::analysis(asked, turn, r, &raw, true));
    };
    let watch = Watch {
        every: asked.report_every,
        at_end: false,
        ownership: asked.ownership || asked.ownership_stdev,
        moves_ownership: asked.moves_ownership || asked.moves_ownership_stdev,
        min_moves: 0,
        restrict: asked.restrict.clone(),
        on_report: &mut partial,
    };
    // The query's root noise over the engine's settings.
    let config = SearchConfig {
        puct: Puct {
            wide_root_noise: asked.wide_root_noise,
            ..settings.search.puct
        },
        ..settings.search
    };
    let budget = crate::search::Budget {
        playouts: Some(asked.max_visits),
        time: asked.max_time,
    };
    let seed = nth_seed(settings.search.seed, job.arrival);
    let mut tree = puct::NetTree::default();
    let outcome = puct::search_watched(
        game,
        net,
        puct::PuctParams {
            white_advantage: asked.advantage.for_white(game.to_move()),
            ..puct::PuctParams::of(&config, budget, seed)
        },
        &job.stop,
        &mut tree,
        Some(watch),
    );
    if outcome.visits == 0 && outcome.dropped > 0 {
        not_finite();
        return;
    }
    let report = outcome.report.expect("a watched search reports at its end");
    send(out, &response::analysis(asked, turn, &report, &raw, false));
}
