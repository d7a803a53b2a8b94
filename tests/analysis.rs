//! Live analysis driven as Sabaki drives it: sync the position (`komi`,
//! `boardsize`, `clear_board`, `play`, `set_free_handicap`), send
//! `kata-analyze B 50` (or `lz-analyze`), read the `info` lines, stop with
//! `protocol_version`. The lines are parsed by the format's rules; a stop
//! is shown by the order of what comes back (the stream's end, then the
//! next command's answer), never by a duration: the stop's latency is
//! measured by `kosumi bench` (`analysis_stop_ms`).

mod common;

use common::Engine;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a test waits for a line before it calls the engine hung: a
/// guard against a hang on a loaded machine, not a measure of speed.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn start(args: &[&str]) -> Engine {
    let mut all = vec!["--threads", "1"];
    all.extend_from_slice(args);
    Engine::start(&all, Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// One `info` segment: its keys and values, and its pv.
#[derive(Debug)]
struct Segment {
    fields: HashMap<String, String>,
    pv: Vec<String>,
}

fn is_vertex(s: &str) -> bool {
    s.eq_ignore_ascii_case("pass")
        || s.len() >= 2
            && s.as_bytes()[0].is_ascii_alphabetic()
            && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Parses one line as Sabaki and KataGo's clients do: segments starting at
/// `info`, key-value pairs, then `pv` and its vertices; `ownership` values
/// after the last pv.
fn parse_line(line: &str) -> (Vec<Segment>, Option<Vec<f64>>) {
    let (infos, ownership) = match line.split_once(" ownership ") {
        Some((a, b)) => {
            let values = b
                .split(" ownershipStdev ")
                .next()
                .unwrap()
                .split_whitespace()
                .map(|v| v.parse::<f64>().expect("ownership value"))
                .collect();
            (a, Some(values))
        }
        None => (line, None),
    };
    assert!(infos.starts_with("info "), "{line}");
    let segments = infos
        .split("info ")
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let words: Vec<&str> = s.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "pv").expect("a pv");
            assert!(at % 2 == 0, "key-value pairs before the pv: {s}");
            let fields = words[..at]
                .chunks(2)
                .map(|kv| (kv[0].to_string(), kv[1].to_string()))
                .collect();
            let pv: Vec<String> = words[at + 1..].iter().map(|w| w.to_string()).collect();
            assert!(pv.iter().all(|v| is_vertex(v)), "{s}");
            Segment { fields, pv }
        })
        .collect();
    (segments, ownership)
}

/// Checks one line: every segment has a move and a win rate in range, its
/// pv starts with the move; orders count up from 0. Returns the segments.
fn check_line(line: &str, kata: bool) -> Vec<Segment> {
    let (segments, _) = parse_line(line);
    assert!(!segments.is_empty());
    for (i, s) in segments.iter().enumerate() {
        let mv = &s.fields["move"];
        assert!(is_vertex(mv));
        let rate: f64 = s.fields["winrate"].parse().unwrap();
        if kata {
            assert!((0.0..=1.0).contains(&rate), "{rate}");
            let lead: f64 = s.fields["scoreLead"].parse().unwrap();
            assert!(lead.abs() < 400.0);
        } else {
            assert!(
                rate.fract() == 0.0 && (0.0..=10000.0).contains(&rate),
                "{rate}"
            );
        }
        assert!(s.fields["visits"].parse::<u64>().is_ok());
        assert_eq!(s.fields["order"], i.to_string());
        assert_eq!(s.pv.first(), Some(mv), "{line}");
    }
    segments
}

/// Reads the open analysis reply: its `=` line, then the info lines
/// written within `for_`. Returns them.
fn read_updates(e: &mut Engine, for_: Duration) -> Vec<String> {
    let head = e.next_line(Duration::from_secs(10)).expect("a reply");
    assert_eq!(head, "= ");
    let start = Instant::now();
    let mut lines = Vec::new();
    while start.elapsed() < for_ {
        if let Some(line) = e.next_line(Duration::from_millis(50)) {
            assert!(!line.is_empty(), "the reply ended by itself");
            lines.push(line);
        }
    }
    lines
}

/// Stops an open analysis with `protocol_version`, as Sabaki does: the
/// stream ends (its blank line) before `protocol_version` is answered, and
/// nothing follows that answer. Returns the info lines still written.
fn stop(e: &mut Engine) -> Vec<String> {
    e.send_raw(b"protocol_version\n");
    let mut lines = Vec::new();
    loop {
        let line = e.next_line(HANG_GUARD).expect("the reply ends promptly");
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let answer = e.next_line(HANG_GUARD).expect("protocol_version answered");
    assert_eq!(answer, "= 2");
    assert_eq!(e.next_line(HANG_GUARD).as_deref(), Some(""));
    assert!(
        e.silent_for(Duration::from_millis(300)),
        "a line after the stop's answer"
    );
    lines
}

/// Visits never decrease from one update to the next, move by move.
fn check_visits_grow(lines: &[String], kata: bool) {
    let mut seen: HashMap<String, u64> = HashMap::new();
    for line in lines {
        for s in check_line(line, kata) {
            let visits: u64 = s.fields["visits"].parse().unwrap();
            let before = seen.insert(s.fields["move"].clone(), visits).unwrap_or(0);
            assert!(
                visits >= before,
                "{} went from {before} to {visits}",
                s.fields["move"]
            );
        }
    }
}

/// Plays `pv` from the engine's position, `first` moving first: every move
/// is legal; then takes it back.
fn check_pv_legal(e: &mut Engine, pv: &[String], first: &str) {
    let colors = if first == "B" { ["B", "W"] } else { ["W", "B"] };
    for (i, v) in pv.iter().enumerate() {
        e.ok(&format!("play {} {v}", colors[i % 2]));
    }
    for _ in pv {
        e.ok("undo");
    }
}

fn sync(e: &mut Engine, size: usize, moves: &[&str]) {
    e.ok("komi 6.5");
    e.ok(&format!("boardsize {size}"));
    e.ok("clear_board");
    for m in moves {
        e.ok(&format!("play {m}"));
    }
}

#[test]
fn kata_analyze_as_sabaki_sends_it() {
    let mut e = start(&[]);
    sync(&mut e, 9, &["B E5", "W C3", "B G7"]);
    e.send_raw(b"kata-analyze W 20 ownership true\n");
    let mut lines = read_updates(&mut e, Duration::from_millis(1200));
    let more = stop(&mut e);
    lines.extend(more);
    assert!(lines.len() >= 3, "{lines:?}");
    check_visits_grow(&lines, true);
    let last = lines.last().unwrap();
    let (segments, ownership) = parse_line(last);
    // KataGo's order: the 81 points row by row from A9, White's view.
    let ownership = ownership.expect("ownership asked for");
    assert_eq!(ownership.len(), 81);
    assert!(ownership.iter().all(|v| (-1.0..=1.0).contains(v)));
    assert!(ownership[4 * 9 + 4] < -0.5, "Black's E5 is Black's");
    // White's C3 leans White's; KataGo 1.17.2 with the same net, 1,200
    // visits, reads it 0.33 (a lone stone between Black's two).
    assert!(ownership[6 * 9 + 2] > 0.2, "White's C3 leans White's");
    check_pv_legal(&mut e, &segments[0].pv, "W");
    // The engine goes on as before: the position is unchanged.
    assert_eq!(e.ok("list_stones white"), "C3");
    e.finish();
}

#[test]
fn lz_analyze_with_handicap_stones() {
    let mut e = start(&["--size", "13"]);
    e.ok("komi 0.5");
    e.ok("boardsize 13");
    e.ok("clear_board");
    e.ok("set_free_handicap D4 K10 D10");
    e.send_raw(b"lz-analyze W 20 maxmoves 4\n");
    let mut lines = read_updates(&mut e, Duration::from_millis(800));
    let more = stop(&mut e);
    lines.extend(more);
    assert!(!lines.is_empty());
    check_visits_grow(&lines, false);
    for line in &lines {
        let segments = check_line(line, false);
        assert!(segments.len() <= 4);
        for s in &segments {
            assert!(!["D4", "K10", "D10"].contains(&s.fields["move"].as_str()));
        }
    }
    let (segments, _) = parse_line(lines.last().unwrap());
    check_pv_legal(&mut e, &segments[0].pv, "W");
    e.finish();
}

#[test]
fn kata_genmove_analyze_streams_then_plays() {
    let mut e = start(&["--time", "1"]);
    sync(&mut e, 9, &["B E5"]);
    e.send_raw(b"kata-genmove_analyze W 20\n");
    let head = e.next_line(Duration::from_secs(10)).unwrap();
    assert_eq!(head, "= ");
    let mut lines = Vec::new();
    let played = loop {
        let line = e.next_line(Duration::from_secs(10)).expect("a line");
        if let Some(mv) = line.strip_prefix("play ") {
            break mv.to_string();
        }
        lines.push(line);
    };
    assert_eq!(e.next_line(HANG_GUARD).as_deref(), Some(""));
    assert!(lines.len() >= 3, "{lines:?}");
    check_visits_grow(&lines, true);
    assert!(is_vertex(&played));
    // The move was played: the point is White's now.
    assert_eq!(e.ok(&format!("color {played}")), "white");
    // A genmove_analyze command is not stopped by input: it answers first.
    e.send_raw(b"lz-genmove_analyze b 10\nprotocol_version\n");
    let mut got_play = false;
    loop {
        let line = e.next_line(Duration::from_secs(10)).unwrap();
        if line.starts_with("play ") {
            got_play = true;
        }
        if line == "= 2" {
            break;
        }
    }
    assert!(got_play);
    e.finish();
}

#[test]
fn analysis_under_dice_keeps_to_the_rolled_lines() {
    let mut e = start(&["--seed", "3"]);
    sync(&mut e, 9, &[]);
    e.ok("aleago-dice 1d4");
    e.send_raw(b"kata-analyze b 20\n");
    let mut lines = read_updates(&mut e, Duration::from_millis(600));
    let more = stop(&mut e);
    lines.extend(more);
    let allowed = e.ok("aleago-allowed b");
    let allowed: Vec<&str> = allowed.split_whitespace().collect();
    let roll = e.ok("aleago-roll b");
    for line in &lines {
        for s in check_line(line, true) {
            let mv = s.fields["move"].as_str();
            assert!(
                mv == "pass" || allowed.contains(&mv),
                "{mv} not in {allowed:?}"
            );
            assert!(roll.contains(&s.fields["roll"]), "{roll} {:?}", s.fields);
        }
    }
    e.finish();
}

#[test]
fn input_in_the_same_write_stops_the_analysis_and_quit_exits() {
    let mut e = start(&[]);
    sync(&mut e, 19, &[]);
    e.send_raw(b"kata-analyze b 10\nprotocol_version\n");
    assert_eq!(e.next_line(HANG_GUARD).as_deref(), Some("= "));
    loop {
        let line = e.next_line(HANG_GUARD).expect("the reply ends");
        if line.is_empty() {
            break;
        }
        check_line(&line, true);
    }
    assert_eq!(e.next_line(HANG_GUARD).as_deref(), Some("= 2"));
    // A blank line stops an analysis too (as KataGo's does), and gets no
    // reply of its own.
    assert_eq!(e.next_line(HANG_GUARD).as_deref(), Some(""));
    e.send_raw(b"lz-analyze b 10\n");
    let _ = read_updates(&mut e, Duration::from_millis(300));
    e.send_raw(b"\n");
    loop {
        let line = e.next_line(HANG_GUARD).expect("the reply ends");
        if line.is_empty() {
            break;
        }
    }
    assert_eq!(e.ok("name"), "kosumi");
    // quit during an analysis exits at once.
    e.send_raw(b"kata-analyze b 10\n");
    let _ = read_updates(&mut e, Duration::from_millis(300));
    e.send_raw(b"quit\n");
    assert!(e.exits_within(HANG_GUARD));
}

#[test]
fn pondering_grows_the_tree_the_next_genmove_uses() {
    // Without pondering, a 200-playout evaluation of White's reply holds
    // at most 400 visits (200 of its own, at most 200 from the subtree of
    // Black's search kept for it); after pondering a second on it, many more.
    let visits_after_genmove = |ponder: bool, nn: &str| {
        let mut args = vec!["--playouts", "200", "--nn", nn];
        if ponder {
            args.push("--ponder");
        }
        let mut e = start(&args);
        sync(&mut e, 9, &[]);
        e.ok("genmove b");
        std::thread::sleep(Duration::from_millis(1000));
        let candidates = e.ok("kosumi-candidates w");
        e.finish();
        candidates
            .split_whitespace()
            .skip(1)
            .step_by(2)
            .map(|v| v.parse::<u64>().unwrap())
            .sum::<u64>()
    };
    // Monte Carlo: thousands of playouts a second.
    let plain = visits_after_genmove(false, "off");
    let pondered = visits_after_genmove(true, "off");
    assert!(plain <= 400, "{plain}");
    assert!(pondered > 4 * plain, "{pondered} vs {plain}");
    // The network's search: hundreds of visits a second, kept in its own tree.
    let plain = visits_after_genmove(false, "on");
    let pondered = visits_after_genmove(true, "on");
    assert!(plain <= 400, "{plain}");
    assert!(pondered > plain + 100, "{pondered} vs {plain}");
}

/// Lizzie reads the minor version from `version` (warning below 0.15 for a
/// Leela Zero) and takes an engine whose `name` starts "KataGo" into its
/// KataGo mode: kosumi answers the version and the name given.
#[test]
fn override_version_and_name_answer_as_given() {
    let mut e = start(&["--override-version", "1.0"]);
    assert_eq!(e.command("version"), (true, "1.0".to_string()));
    assert_eq!(e.command("name"), (true, "kosumi".to_string()));
    let mut plain = start(&[]);
    assert_eq!(plain.command("version").1, env!("CARGO_PKG_VERSION"));
    let mut named = start(&["--name", "KataGo-kosumi"]);
    assert_eq!(named.command("name"), (true, "KataGo-kosumi".to_string()));
    assert_eq!(named.command("version").1, env!("CARGO_PKG_VERSION"));
}

/// Monte Carlo analysis (`--nn off`) run twice on one position, as a
/// client that stops and starts again does: the tree goes on, and so do
/// the score counts of its moves, so every move listed keeps a score lead
/// (Sabaki's graph takes no score from a line where one move lacks it).
/// The spread of random playouts' counts is not given as `scoreStdev`.
#[test]
fn monte_carlo_scores_last_when_the_tree_is_reused() {
    let mut e = start(&["--nn", "off"]);
    sync(&mut e, 9, &["B E5", "W C3"]);
    for round in 0..2 {
        e.send_raw(b"kata-analyze B 20\n");
        let mut lines = read_updates(&mut e, Duration::from_millis(700));
        lines.extend(stop(&mut e));
        let (segments, _) = parse_line(lines.last().expect("lines"));
        for s in &segments {
            assert!(
                s.fields.contains_key("scoreLead"),
                "round {round}: {:?}",
                s.fields
            );
            assert!(!s.fields.contains_key("scoreStdev"), "{:?}", s.fields);
        }
    }
    e.finish();
}

/// In a handicap game the Monte Carlo search plays White against a
/// dynamic komi; analysis gives the win rate against the game's komi, as
/// its score lead: a White far behind on the board is not shown winning.
#[test]
fn handicap_win_rates_and_scores_agree() {
    for nn in ["off", "on"] {
        let mut e = start(&["--nn", nn]);
        e.ok("boardsize 19");
        e.ok("komi 0.5");
        e.ok("clear_board");
        e.ok("fixed_handicap 4");
        e.send_raw(b"kata-analyze w 20\n");
        let mut lines = read_updates(&mut e, Duration::from_millis(1200));
        lines.extend(stop(&mut e));
        let (segments, _) = parse_line(lines.last().expect("lines"));
        let best = &segments[0].fields;
        let rate: f64 = best["winrate"].parse().unwrap();
        let lead: f64 = best["scoreLead"].parse().unwrap();
        assert!(lead < -5.0 && rate < 0.5, "--nn {nn}: {best:?}");
        e.finish();
    }
}
