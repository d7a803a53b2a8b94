//! `kosumi phantom-match` end to end: Phantom Go and Rengo between kosumi
//! seats, a plain engine (GNU Go) at a seat, seats that answer garbage,
//! hang, close their output or do not run, each losing its games while the
//! match goes on, and a match stopped by a signal.

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kosumi() -> &'static str {
    env!("CARGO_BIN_EXE_kosumi")
}

/// A scratch folder for this test's records (absent: the match makes
/// it), removed when the test ends.
fn scratch(name: &str) -> Scratch {
    Scratch::new("kosumi-pm", name)
}

/// Starts a match of `games` games on 5×5 between two `hang` seats, its
/// records in `dir`, its output dropped.
fn hanging_match(hang: &str, dir: &std::path::Path, games: &str) -> std::process::Child {
    Command::new(kosumi())
        .arg("phantom-match")
        .args([
            "--seat1", hang, "--seat2", hang, "--size", "5", "--games", games,
        ])
        .args(["--timeout", "500", "--sgf", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Runs a match; returns its standard output.
fn run(args: &[&str]) -> String {
    let out = Command::new(kosumi())
        .arg("phantom-match")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The table's game lines (comments left out).
fn table(dir: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("match.dat"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn seat(playouts: u32) -> String {
    format!("{} --playouts {playouts} --seed {{game}}", kosumi())
}

#[test]
fn phantom_go_between_kosumi_seats_writes_records_that_load() {
    let dir = scratch("go");
    let out = run(&[
        "--seat1",
        &seat(60),
        "--seat2",
        &seat(30),
        "--size",
        "5",
        "--games",
        "2",
        "--threads",
        "2",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("games 2:"), "{out}");
    let rows = table(&dir);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row[11], "0", "an error: {row:?}");
        assert!(
            row[3].starts_with("B+") || row[3].starts_with("W+") || row[3] == "0",
            "{row:?}"
        );
    }
    let template = kosumi::go::game::Game::new(9, kosumi::go::rules::Rules::default(), 7.5);
    for g in 0..2 {
        let text = std::fs::read_to_string(dir.join(format!("game-{g}.sgf"))).unwrap();
        assert!(text.contains("tries"), "{text}");
        let game = kosumi::go::sgf::load(&text, &template, None).unwrap();
        assert_eq!(game.size(), 5.into());
        for s in 1..=2 {
            let view = std::fs::read_to_string(dir.join(format!("game-{g}-view-{s}.sgf"))).unwrap();
            kosumi::go::sgf::load(&view, &template, None).unwrap();
        }
    }
}

/// A match run again into its folder plays only the games its table
/// lacks; a match with other settings is refused that folder.
#[test]
fn a_match_run_again_goes_on_where_it_stopped() {
    let dir = scratch("resume");
    let args = |games: &'static str, size: &'static str| {
        vec![
            "--seat1".to_string(),
            seat(20),
            "--seat2".to_string(),
            seat(20),
            "--size".to_string(),
            size.to_string(),
            "--games".to_string(),
            games.to_string(),
            "--sgf".to_string(),
            dir.to_str().unwrap().to_string(),
        ]
    };
    let run_with = |v: Vec<String>| run(&v.iter().map(String::as_str).collect::<Vec<_>>());
    run_with(args("2", "5"));
    let first = table(&dir);
    assert_eq!(first.len(), 2);
    let played_at = |g: usize| {
        std::fs::metadata(dir.join(format!("game-{g}.sgf")))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = played_at(0);
    let out = run_with(args("3", "5"));
    assert!(out.contains("game 2:") && !out.contains("game 0:"), "{out}");
    assert!(out.contains("games 3:"), "{out}");
    let rows = table(&dir);
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[..2],
        first[..],
        "the games played before are kept as they were"
    );
    assert_eq!(played_at(0), before, "game 0 was not played again");
    let other = Command::new(kosumi())
        .arg("phantom-match")
        .args(args("3", "7"))
        .output()
        .unwrap();
    assert!(!other.status.success());
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("another match"),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    assert_eq!(table(&dir), rows, "the table is left alone");
}

#[test]
fn phantom_rengo_with_four_kosumi_seats() {
    let dir = scratch("rengo");
    let out = run(&[
        "--seat1",
        &seat(40),
        "--seat2",
        &seat(40),
        "--seat3",
        &seat(40),
        "--seat4",
        &seat(40),
        "--size",
        "5",
        "--games",
        "1",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("games 1:"), "{out}");
    let rows = table(&dir);
    assert_eq!(rows[0][11], "0", "{rows:?}");
    assert!(dir.join("game-0-view-4.sgf").exists());
}

#[test]
fn a_seat_that_answers_garbage_loses_and_the_match_goes_on() {
    let dir = scratch("garbage");
    let garbage = "sh -c 'while read l; do echo nonsense; echo; done'";
    let out = run(&[
        "--seat1",
        &seat(30),
        "--seat2",
        garbage,
        "--size",
        "5",
        "--games",
        "2",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    let rows = table(&dir);
    assert_eq!(rows.len(), 2, "{out}");
    for row in &rows {
        assert_eq!(row[11], "1", "{row:?}");
        assert!(row[3].ends_with("+Forfeit"), "{row:?}");
    }
    assert!(out.contains("A won 2"), "{out}");
}

fn gnugo() -> Option<PathBuf> {
    let found = ["/usr/games", "/usr/bin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join("gnugo"))
        .find(|p| p.exists());
    if found.is_none() && std::env::var_os("KOSUMI_REQUIRE_GNUGO").is_some() {
        panic!("gnugo not found (apt-get install gnugo)");
    }
    found
}

#[test]
fn gnu_go_plays_a_seat_as_a_plain_engine() {
    if cfg!(windows) {
        eprintln!("skipped on Windows: GNU Go is a Linux program here; the Linux run checks it");
        return;
    }
    let Some(gnugo) = gnugo() else {
        eprintln!("gnugo not found: skipped");
        return;
    };
    let dir = scratch("gnugo");
    let plain = format!("{} --mode gtp --level 0", gnugo.display());
    run(&[
        "--seat1",
        &seat(200),
        "--seat2",
        &plain,
        "--size",
        "7",
        "--games",
        "2",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    for row in table(&dir) {
        assert_eq!(row[11], "0", "{row:?}");
    }
}

/// A seat whose program is missing loses each of its games, and the match
/// goes on to its end.
#[test]
fn a_missing_executable_loses_its_games_and_the_match_goes_on() {
    let dir = scratch("missing");
    let out = Command::new(kosumi())
        .arg("phantom-match")
        .args([
            "--seat1",
            &seat(30),
            "--seat2",
            "/nonexistent/engine --gtp",
            "--size",
            "5",
            "--games",
            "2",
            "--sgf",
            dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("seat 2") && err.contains("does not run") && err.contains("loses its games"),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("A won 2"), "{stdout}");
    assert_eq!(table(&dir).len(), 2);
}

/// A seat that closes its output at its first genmove is noticed at once
/// (no shell holds the pipe open), long before the timeout.
#[test]
fn a_seat_that_closes_its_output_loses_at_once() {
    let closes = "sh -c 'while read l; do case \"$l\" in genmove*) exec 1>&-; sleep 600;; *) printf \"= \\n\\n\";; esac; done'";
    let dir = scratch("closes");
    let started = std::time::Instant::now();
    let out = run(&[
        "--seat1",
        &seat(30),
        "--seat2",
        closes,
        "--size",
        "5",
        "--games",
        "1",
        "--timeout",
        "100",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    assert!(out.contains("errors 1"), "{out}");
}

/// A match killed hard (SIGKILL: no handler runs) still leaves no seat
/// behind: each seat is sent SIGKILL by the kernel when its runner dies.
#[test]
fn a_match_killed_hard_leaves_no_seat_running() {
    if !cfg!(target_os = "linux") {
        eprintln!(
            "skipped off Linux: the kernel's parent-death signal is Linux's; the Linux run checks it"
        );
        return;
    }
    // A seat that hangs in genmove and never ends by itself, even when its
    // input closes; the marker finds it in ps.
    let hang = "sh -c 'marker=kosumi-hard-kill-seat; while read l; do case \"$l\" in genmove*) while :; do sleep 1; done;; *) printf \"= \\n\\n\";; esac; done'";
    let dir = scratch("hard-kill");
    let mut child = hanging_match(hang, &dir, "1");
    let seats = || {
        let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
        String::from_utf8_lossy(&ps.stdout)
            .lines()
            .filter(|l| l.contains("marker=kosumi-hard-kill-seat") && !l.contains("phantom-match"))
            .count()
    };
    let started = std::time::Instant::now();
    while seats() < 2 {
        assert!(started.elapsed().as_secs() < 60, "the seats never started");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // A hang guard: the kernel ends them at once.
    let killed = std::time::Instant::now();
    while seats() > 0 {
        assert!(
            killed.elapsed().as_secs() < 60,
            "a seat outlived its runner's SIGKILL"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// SIGTERM to a match whose seat hangs ends the seat's processes with the
/// match, at once.
#[test]
fn a_signal_ends_the_match_and_every_seat() {
    if cfg!(windows) {
        eprintln!(
            "skipped on Windows: it sends Unix signals and reads ps; the Linux run checks it"
        );
        return;
    }
    let hang = "sh -c 'while read l; do case \"$l\" in genmove*) sleep 777;; *) printf \"= \\n\\n\";; esac; done'";
    let dir = scratch("signal");
    let mut child = hanging_match(hang, &dir, "2");
    let sleeping = || {
        let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
        String::from_utf8_lossy(&ps.stdout)
            .lines()
            .any(|l| l.trim() == "sleep 777")
    };
    let started = std::time::Instant::now();
    while !sleeping() {
        assert!(
            started.elapsed().as_secs() < 30,
            "the seat never reached genmove"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let stopped = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(stopped.elapsed().as_secs() < 10, "the match did not stop");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(!status.success());
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!sleeping(), "a seat's process outlived the match");
}

/// A seat that hangs on genmove, one that floods a line without end, and
/// one whose program leaves a child behind: each loses its game on the
/// match's timeout or the line limit, nothing of it is left running, and
/// the table holds every game.
#[test]
fn hanging_and_flooding_seats_lose_and_leave_nothing_running() {
    if cfg!(windows) {
        eprintln!(
            "skipped on Windows: its seats are sh scripts and it reads ps; the Linux run checks it"
        );
        return;
    }
    let hang = "sh -c 'while read l; do case \"$l\" in genmove*) sleep 1000;; *) printf \"= \\n\\n\";; esac; done'";
    let flood = "sh -c 'while read l; do case \"$l\" in genmove*) head -c 3000000 /dev/zero | tr \"\\0\" x;; *) printf \"= \\n\\n\";; esac; done'";
    // A reply begun and never ended: a line every 0.3 s, or lines of a
    // megabyte each; the whole reply is held to the timeout and its bytes
    // to the client's bound.
    let drip = "sh -c 'while read l; do case \"$l\" in genmove*) echo \"= A1\"; while :; do echo x; sleep 0.3; done;; *) printf \"= \\n\\n\";; esac; done'";
    let lines = "sh -c 'while read l; do case \"$l\" in genmove*) echo \"= A1\"; while :; do head -c 1000000 /dev/zero | tr \"\\0\" x; echo; done;; *) printf \"= \\n\\n\";; esac; done'";
    for (name, seat2) in [
        ("hang", hang),
        ("flood", flood),
        ("drip", drip),
        ("lines", lines),
    ] {
        let dir = scratch(name);
        let started = std::time::Instant::now();
        let out = run(&[
            "--seat1",
            &seat(30),
            "--seat2",
            seat2,
            "--size",
            "5",
            "--games",
            "2",
            "--timeout",
            "1",
            "--sgf",
            dir.to_str().unwrap(),
        ]);
        assert!(
            started.elapsed().as_secs() < 60,
            "{name}: {:?}",
            started.elapsed()
        );
        assert!(out.contains("errors 2"), "{name}: {out}");
        assert_eq!(table(&dir).len(), 2, "{name}");
    }
    // The hanging seat's sleep was ended with its process group.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    assert!(!ps.lines().any(|l| l.contains("sleep 1000")), "{ps}");
}

/// A game whose record cannot be written is an error: the match stops,
/// exits non-zero naming the file, and the table lacks that game.
#[test]
fn a_record_that_cannot_be_written_stops_the_match_with_an_error() {
    let dir = scratch("unwritable");
    // Where game 1's record goes stands a folder.
    std::fs::create_dir_all(dir.join("game-1.sgf")).unwrap();
    let out = Command::new(kosumi())
        .arg("phantom-match")
        .args(["--seat1", &seat(20), "--seat2", &seat(20), "--size", "5"])
        .args(["--games", "4", "--sgf", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("game-1.sgf") && err.contains("stopped"),
        "{err}"
    );
    let played: Vec<String> = table(&dir).into_iter().map(|l| l[0].clone()).collect();
    assert_eq!(played, ["0"], "{played:?}");
}

/// Games and games at once beyond any match are refused by the parser,
/// before anything is allocated or started.
#[test]
fn huge_games_and_threads_are_refused_at_once() {
    for (flag, value) in [
        ("--games", "1000000000"),
        ("--threads", "1000000"),
        ("--games", "0"),
    ] {
        let out = Command::new(kosumi())
            .args([
                "phantom-match",
                "--seat1",
                "true",
                "--seat2",
                "true",
                flag,
                value,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag), "{err}");
    }
}

#[test]
fn a_handicap_match_puts_the_stones_on_every_view_and_records_each_try() {
    let dir = scratch("handicap");
    let out = run(&[
        "--seat1",
        &seat(30),
        "--seat2",
        &seat(30),
        "--size",
        "9",
        "--games",
        "1",
        "--handicap",
        "2",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("errors 0"), "{out}");
    let record = std::fs::read_to_string(dir.join("game-0.sgf")).unwrap();
    assert!(
        record.contains("HA[2]") && record.contains("AB["),
        "{record}"
    );
    for seat in [1, 2] {
        let views = std::fs::read_to_string(dir.join(format!("game-0-views-{seat}.txt"))).unwrap();
        // White tries first, and every view shows both handicap stones.
        assert!(views.starts_with("try 1 (seat 2 "), "{views}");
        let first: Vec<&str> = views.lines().skip(1).take(9).collect();
        assert_eq!(first.concat().matches('X').count(), 2, "{views}");
    }
}

/// `--move-timeout` (the same as `--timeout`) bounds the wait for a seat
/// that answers everything but never moves: it loses, in about that time.
#[test]
fn a_seat_that_never_moves_loses_after_the_move_timeout() {
    if !cfg!(unix) {
        eprintln!("skipped off Unix: the silent seat is a shell loop; the Linux run checks it");
        return;
    }
    let silent =
        "sh -c 'while read l; do case \"$l\" in genmove*) ;; *) printf \"= \\n\\n\";; esac; done'";
    let dir = scratch("move-timeout");
    let started = std::time::Instant::now();
    let out = run(&[
        "--seat1",
        silent,
        "--seat2",
        &seat(30),
        "--size",
        "5",
        "--games",
        "1",
        "--move-timeout",
        "1",
        "--sgf",
        dir.to_str().unwrap(),
    ]);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert!(
        out.contains("errors 1") && out.contains("no answer"),
        "{out}"
    );
}
