//! `kosumi analysis`, KataGo's JSON analysis engine, driven as KaTrain and
//! analysis tools drive it: several queries written at once, answers read
//! as they come, terminate, errors, and the end of input.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// Starts kosumi with `args` (the `analysis` subcommand among them), its
/// input and output piped, its stderr as given.
fn spawn_analysis(args: &[&str], stderr: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("kosumi starts")
}

/// Runs `kosumi analysis` on `queries` (input then closed) and returns the
/// answers in the order written.
fn run(args: &[&str], queries: &[&str]) -> Vec<Value> {
    let all: Vec<&str> = ["analysis"]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let mut child = spawn_analysis(&all, Stdio::null());
    let mut stdin = child.stdin.take().expect("stdin");
    for q in queries {
        writeln!(stdin, "{q}").expect("query written");
    }
    drop(stdin);
    let answers = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|l| serde_json::from_str(&l.expect("a line")).expect("each answer is JSON"))
        .collect();
    assert!(child.wait().expect("kosumi ends").success());
    answers
}

fn final_answers<'a>(answers: &'a [Value], id: &str) -> Vec<&'a Value> {
    answers
        .iter()
        .filter(|a| a["id"] == id && a.get("moveInfos").is_some() && a["isDuringSearch"] == false)
        .collect()
}

#[test]
fn every_position_of_every_query_is_answered_once() {
    let answers = run(
        &["--positions", "2"],
        &[
            r#"{"id":"game","moves":[["B","E5"],["W","C3"],["B","G7"]],"rules":"japanese","komi":6.5,"boardXSize":9,"boardYSize":9,"analyzeTurns":[0,1,2,3],"maxVisits":30,"includeOwnership":true,"includePolicy":true,"includeMovesOwnership":true,"includePVVisits":true}"#,
            r#"{"id":"small","moves":[],"rules":"chinese","komi":7.5,"boardXSize":7,"boardYSize":7,"maxVisits":20,"overrideSettings":{"reportAnalysisWinratesAs":"SIDETOMOVE"}}"#,
            r#"{"id":"v","action":"query_version"}"#,
        ],
    );
    let game = final_answers(&answers, "game");
    let mut turns: Vec<_> = game
        .iter()
        .map(|a| a["turnNumber"].as_u64().unwrap())
        .collect();
    turns.sort();
    assert_eq!(turns, [0, 1, 2, 3]);
    for a in &game {
        let infos = a["moveInfos"].as_array().unwrap();
        assert!(!infos.is_empty());
        let visits: u64 = infos.iter().map(|m| m["visits"].as_u64().unwrap()).sum();
        assert!(visits >= 29 && a["rootInfo"]["visits"] == 30, "{a}");
        assert_eq!(a["ownership"].as_array().unwrap().len(), 81);
        assert_eq!(a["policy"].as_array().unwrap().len(), 82);
        let best = &infos[0];
        assert_eq!(best["order"], 0);
        assert_eq!(best["ownership"].as_array().unwrap().len(), 81);
        assert_eq!(
            best["pvVisits"].as_array().unwrap().len(),
            best["pv"].as_array().unwrap().len()
        );
        for key in [
            "winrate",
            "scoreLead",
            "prior",
            "lcb",
            "utility",
            "scoreStdev",
        ] {
            assert!(best[key].is_number(), "{key} in {best}");
        }
        let rate = best["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate));
    }
    // Black's view by default: Black stands well after E5 in every turn
    // (komi 6.5), whoever is to move; E5 is Black's at the end.
    let last = game.iter().find(|a| a["turnNumber"] == 3).unwrap();
    assert_eq!(last["rootInfo"]["currentPlayer"], "W");
    let e5 = 4 * 9 + 4;
    assert!(
        last["ownership"][e5].as_f64().unwrap() > 0.5,
        "{}",
        last["ownership"][e5]
    );
    assert_eq!(final_answers(&answers, "small").len(), 1);
    let version = answers.iter().find(|a| a["id"] == "v").unwrap();
    assert_eq!(version["action"], "query_version");
    assert!(version["version"].is_string());
}

#[test]
fn the_highest_priority_goes_first_and_terminate_stops_what_waits() {
    let answers = run(
        &["--positions", "1"],
        &[
            r#"{"id":"long","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":100000,"reportDuringSearchEvery":0.2}"#,
            r#"{"id":"low","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":10,"priority":-5}"#,
            r#"{"id":"high","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":10,"priority":5}"#,
            r#"{"id":"gone","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":10,"analyzeTurns":[0],"priority":-9}"#,
            r#"{"id":"t","action":"terminate","terminateId":"gone"}"#,
            r#"{"id":"t2","action":"terminate","terminateId":"long"}"#,
        ],
    );
    let at = |id: &str| {
        answers
            .iter()
            .position(|a| a["id"] == id && a["isDuringSearch"] == false)
            .unwrap_or_else(|| panic!("no final answer for {id}"))
    };
    assert!(at("high") < at("low"), "priority 5 before -5");
    let gone = &answers[at("gone")];
    assert_eq!(gone["noResults"], true);
    // Stopped while searching (its visits so far), or before it began.
    let long = &answers[at("long")];
    let visits = long["rootInfo"]["visits"].as_u64();
    assert!(
        long["noResults"] == true || visits.is_some_and(|v| v < 100_000),
        "{long}"
    );
    assert_eq!(answers.iter().filter(|a| a["id"] == "t").count(), 1);
}

#[test]
fn bad_queries_get_errors_naming_the_field_and_the_engine_goes_on() {
    let answers = run(
        &[],
        &[
            "not json",
            r#"{"moves":[]}"#,
            r#"{"id":"a","moves":[["B","E5"],["W","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
            r#"{"id":"b","moves":[],"rules":"stone_scoring","boardXSize":9,"boardYSize":9}"#,
            r#"{"id":"c","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":30}"#,
            r#"{"id":"d","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":5,"overrideSettings":{"humanSLChosenMoveProp":1.0}}"#,
        ],
    );
    let field = |id: &str| {
        answers
            .iter()
            .find(|a| a["id"] == id && a.get("error").is_some())
            .map(|a| a["field"].clone())
    };
    assert_eq!(answers.iter().filter(|a| a.get("id").is_none()).count(), 2);
    assert_eq!(field("a").unwrap(), "moves");
    assert_eq!(field("b").unwrap(), "rules");
    assert_eq!(field("c").unwrap(), "boardYSize");
    assert!(
        answers.iter().any(|a| a["id"] == "d"
            && a["field"] == "overrideSettings"
            && a.get("warning").is_some())
    );
    assert_eq!(final_answers(&answers, "d").len(), 1);
}

#[test]
fn hostile_lines_get_errors_and_the_engine_goes_on() {
    let long = "x".repeat(17 << 20);
    let nested = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let many_turns = format!(
        r#"{{"id":"t","moves":[["B","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"analyzeTurns":[{}]}}"#,
        vec!["0"; 1001].join(",")
    );
    let answers = run(
        &[],
        &[
            &long,
            &nested,
            &many_turns,
            "\u{0}\u{1}{{{",
            r#"{"id":["not a string"]}"#,
            r#"{"id":"n","moves":[],"rules":{"ko":"SIMPLE","x":1},"boardXSize":9,"boardYSize":9}"#,
            r#"{"id":"ok","moves":[],"rules":"chinese","boardXSize":5,"boardYSize":5,"maxVisits":4}"#,
        ],
    );
    let errors = answers.iter().filter(|a| a.get("error").is_some()).count();
    assert_eq!(errors, 6, "{answers:?}");
    assert!(
        answers
            .iter()
            .any(|a| a["error"].as_str().unwrap_or("").contains("longer than"))
    );
    assert!(answers.iter().any(|a| a["field"] == "analyzeTurns"));
    assert_eq!(final_answers(&answers, "ok").len(), 1);
}

#[test]
fn a_turn_asked_twice_is_answered_once_and_unknown_fields_are_named() {
    let answers = run(
        &[],
        &[
            r#"{"id":"t","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"analyzeTurns":[0,0,0,2,2],"maxVisits":8,"maxvisits":3,"boardsize":9}"#,
        ],
    );
    let mut turns: Vec<_> = final_answers(&answers, "t")
        .iter()
        .map(|a| a["turnNumber"].as_u64().unwrap())
        .collect();
    turns.sort();
    assert_eq!(turns, [0, 2]);
    let warned: Vec<&str> = answers
        .iter()
        .filter(|a| a.get("warning").is_some())
        .map(|a| a["field"].as_str().unwrap())
        .collect();
    assert!(
        warned.contains(&"maxvisits") && warned.contains(&"boardsize"),
        "{answers:?}"
    );
}

/// The peak resident memory of a process, in KiB, from `/proc`.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn a_query_of_many_turns_takes_memory_for_the_work_not_for_the_asking() {
    if cfg!(windows) {
        eprintln!(
            "skipped on Windows: it reads the peak memory from Linux's /proc; the Linux run checks it"
        );
        return;
    }
    // 300 moves of a 19x19 game, every turn asked: each position is made
    // when it is searched, so the engine does not hold 301 games of up to
    // 300 boards each (900 MB) while the queue waits.
    let mut moves = Vec::new();
    let cols = "ABCDEFGHJKLMNOPQRST";
    for i in 0..300 {
        let (x, y) = (i % 19, i / 19);
        let color = if i % 2 == 0 { "B" } else { "W" };
        moves.push(format!(r#"["{color}","{}{}"]"#, &cols[x..x + 1], y + 1));
    }
    let turns: Vec<String> = (0..=300).map(|t| t.to_string()).collect();
    let query = format!(
        r#"{{"id":"long","moves":[{}],"rules":"tromp-taylor","komi":7.5,"boardXSize":19,"boardYSize":19,"analyzeTurns":[{}],"maxVisits":2}}"#,
        moves.join(","),
        turns.join(",")
    );
    let mut child = spawn_analysis(&["analysis", "--positions", "1"], Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{query}").unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The first answer: the query is read and queued.
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("\"long\""), "{first}");
    let peak = peak_kib(child.id()).unwrap();
    drop(stdin);
    let answered = 1 + lines.count();
    assert!(child.wait().unwrap().success());
    assert!(answered > 300, "{answered} answers");
    assert!(peak < 300 * 1024, "peak {peak} KiB with the queue full");
}

#[test]
fn query_models_gives_the_model_version() {
    let answers = run(&[], &[r#"{"id":"m","action":"query_models"}"#]);
    let models = answers[0]["models"].as_array().expect("a list of models");
    assert_eq!(models[0]["version"], 8, "{answers:?}");
}

#[test]
fn allow_moves_keeps_pass_out_unless_it_is_listed() {
    let answers = run(
        &[],
        &[
            r#"{"id":"a","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":40,"allowMoves":[{"player":"B","moves":["C3","G7"],"untilDepth":1}]}"#,
            r#"{"id":"p","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":40,"allowMoves":[{"player":"B","moves":["C3","pass"],"untilDepth":1}]}"#,
        ],
    );
    let moves = |id: &str| -> Vec<String> {
        final_answers(&answers, id)[0]["moveInfos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect()
    };
    let allowed = moves("a");
    assert!(
        !allowed.is_empty() && allowed.iter().all(|m| m == "C3" || m == "G7"),
        "{allowed:?}"
    );
    let with_pass = moves("p");
    assert!(
        with_pass.iter().all(|m| m == "C3" || m == "pass"),
        "{with_pass:?}"
    );
}

/// The query LizzieYzy's flash analysis builds (`AnalysisEngine.sendRequest`)
/// is answered with every field its parser reads
/// (`Utils.getBestMovesFromJsonArray`), and the id it parses as a number.
#[test]
fn lizzieyzys_flash_analysis_query_gets_every_field_it_reads() {
    let answers = run(
        &[],
        &[
            r#"{"id":"0","maxVisits":11,"includePVVisits":true,"includeOwnership":true,"includeMovesOwnership":false,"rules":{"friendlyPassOk":true,"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"},"komi":7.5,"boardXSize":19,"boardYSize":19,"moves":[["B","Q16"],["W","D4"],["B","pass"]],"analyzeTurns":[3],"overrideSettings":{"reportAnalysisWinratesAs":"SIDETOMOVE"}}"#,
        ],
    );
    let answer = final_answers(&answers, "0")[0];
    assert_eq!(answer["ownership"].as_array().unwrap().len(), 361);
    let infos = answer["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    for info in infos {
        assert!(info["order"].is_i64() && info["visits"].is_i64(), "{info}");
        for number in ["winrate", "lcb", "prior", "scoreLead", "scoreStdev"] {
            assert!(info[number].is_number(), "{number}: {info}");
        }
        assert!(info["move"].is_string() && info["pv"].is_array(), "{info}");
        assert!(info["pvVisits"].is_array(), "{info}");
    }
}

#[test]
fn a_rectangular_board_is_analysed_point_by_point() {
    // 13 columns, 9 rows; `(12,0)` is KataGo's top-right corner, N9.
    let answers = run(
        &[],
        &[
            r#"{"id":"wide","moves":[["B","D4"],["W","(12,0)"],["B","N1"]],"rules":"chinese","komi":7.5,"boardXSize":13,"boardYSize":9,"maxVisits":30,"includeOwnership":true,"includePolicy":true}"#,
            r#"{"id":"off","moves":[["B","O1"]],"rules":"chinese","komi":7.5,"boardXSize":13,"boardYSize":9,"maxVisits":10}"#,
            r#"{"id":"tall","moves":[["B","(0,12)"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":13,"maxVisits":10}"#,
        ],
    );
    let wide = final_answers(&answers, "wide");
    assert_eq!(wide.len(), 1);
    let ownership = wide[0]["ownership"].as_array().unwrap();
    assert_eq!(ownership.len(), 13 * 9);
    let policy = wide[0]["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 13 * 9 + 1);
    // Rows from the top: N9 (White's stone) is the 13th value of the first
    // row, N1 (Black's) the last of the last row; each stone is illegal.
    assert_eq!(policy[12], -1.0);
    assert_eq!(policy[13 * 9 - 1], -1.0);
    assert!(
        ownership[12].as_f64().unwrap() < 0.0,
        "White's own corner, from Black's side"
    );
    for info in wide[0]["moveInfos"].as_array().unwrap() {
        let mv = info["move"].as_str().unwrap();
        let column = "ABCDEFGHJKLMN".find(&mv[..1]);
        let row: Option<usize> = mv[1..].parse().ok();
        assert!(
            mv == "pass" || (column.is_some() && row.is_some_and(|r| (1..=9).contains(&r))),
            "{mv} is on the 13x9 board"
        );
    }
    let off = answers.iter().find(|a| a["id"] == "off").unwrap();
    assert_eq!(off["field"], "moves", "{off}");
    assert!(
        off["error"].as_str().unwrap().contains("off the board"),
        "{off}"
    );
    let tall = final_answers(&answers, "tall");
    assert_eq!(
        tall.len(),
        1,
        "the bottom-left corner of 9x13, A1, is on the board"
    );
}

#[test]
fn nobody_reading_the_answers_stops_the_searches() {
    if cfg!(windows) {
        eprintln!("skipped on Windows: a closed pipe is found at the next write there");
        return;
    }
    // Hours of search queued (50 turns at ten million visits each, the tree
    // allowed to hold them), then
    // both pipes closed, as a GUI that dies leaves them: the engine ends
    // long before the searches could have. Fifty stones on points apart
    // from each other: every move legal, so nothing is answered before the
    // first search ends.
    let columns: Vec<char> = "ABCDEFGHJKLMNOPQRST".chars().collect();
    let moves: Vec<String> = (0..50)
        .map(|i| {
            let colour = if i % 2 == 0 { "B" } else { "W" };
            format!(
                r#"["{colour}","{}{}"]"#,
                columns[i % 10 * 2],
                1 + i / 10 * 2
            )
        })
        .collect();
    let turns: Vec<String> = (0..50).map(|t| t.to_string()).collect();
    let query = format!(
        r#"{{"id":"long","moves":[{}],"rules":"chinese","komi":7.5,"boardXSize":19,"boardYSize":19,"maxVisits":10000000,"analyzeTurns":[{}]}}"#,
        moves.join(","),
        turns.join(",")
    );
    let mut child = spawn_analysis(
        &["--threads", "1", "--max-nodes", "50000000", "analysis"],
        Stdio::null(),
    );
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{query}").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(child.stdout.take());
    drop(stdin);
    // A hang guard, not a measure: ten million visits a turn take hours.
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still searching a minute after its reader went");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn threads_asked_beyond_the_cores_are_cut_to_them_and_every_query_is_answered() {
    // A KataGo config made for a GPU (KaTrain's asks 12 × 8), and far
    // more: cut to the cores, said once on stderr; every query answered.
    let dir = std::env::temp_dir().join(format!("kosumi-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("gpu.cfg");
    std::fs::write(
        &config,
        "numAnalysisThreads = 100000\nnumSearchThreads = 100000\nmaxVisits = 8\n",
    )
    .unwrap();
    let config = config.to_string_lossy().into_owned();
    let mut child = spawn_analysis(&["analysis", "-config", &config], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..40 {
        writeln!(
            stdin,
            r#"{{"id":"q{i}","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9}}"#
        )
        .unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 40);
    assert!(
        answers.iter().all(|a| a["rootInfo"]["visits"].is_number()),
        "{answers:?}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("100000 search threads × 100000 positions")
            .count(),
        1,
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_stderr_does_not_stop_the_engine() {
    // A GUI that closed the engine's stderr (or never read it): the engine
    // still answers and ends cleanly, its messages said to no one.
    let mut child = spawn_analysis(&["analysis"], Stdio::piped());
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let query = r#"{"id":"q","moves":[],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":5}"#;
    writeln!(stdin, "{query}").expect("query written");
    drop(stdin);
    let answers: Vec<String> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|l| l.expect("a line"))
        .collect();
    assert!(
        answers.iter().any(|a| a.contains(r#""id":"q""#)),
        "{answers:?}"
    );
    assert!(child.wait().expect("kosumi ends").success());
}
