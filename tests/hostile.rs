//! Regression tests for the faults a hostile controller found,
//! run against the built binary: they are about the process (its stack,
//! blocking reads, the framing of replies), not only the library.

mod common;

use common::{Engine, Scratch};
use std::path::Path;
use std::time::{Duration, Instant};

fn engine(args: &[&str]) -> Engine {
    Engine::start(args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// A fresh, empty scratch folder for this test, removed when it ends.
fn scratch(name: &str) -> Scratch {
    let dir = Scratch::new("kosumi-hostile", name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_deep_sgf_is_refused_and_the_engine_lives() {
    let dir = scratch("deep");
    let deep = dir.join("deep.sgf");
    std::fs::write(&deep, format!("(;SZ[9]{})", ";".repeat(150_000))).unwrap();
    let nested = dir.join("nested.sgf");
    std::fs::write(
        &nested,
        format!("(;SZ[9]{}{})", "(;".repeat(50_000), ")".repeat(50_000)),
    )
    .unwrap();
    let mut e = engine(&["--size", "9"]);
    e.ok("play b E5");
    for file in [&deep, &nested] {
        let msg = e.err(&format!("loadsgf {}", file.display()));
        assert!(msg.starts_with("cannot load file:"), "{msg}");
        assert!(msg.contains("nodes") || msg.contains("nested"), "{msg}");
    }
    assert_eq!(e.ok("color E5"), "black", "state changed");
    assert!(e.finish().success());
}

#[test]
fn an_interrupt_in_the_same_write_as_genmove_stops_it() {
    for _ in 0..5 {
        let mut e = engine(&["--size", "9", "--playouts", "100000000"]);
        let start = Instant::now();
        e.send_raw(b"genmove b\n# interrupt\n");
        let (ok, mv) = e.read_response();
        assert!(ok && !mv.is_empty(), "{mv}");
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the pipelined interrupt was lost"
        );
        // The next command is not interrupted by it.
        e.ok("play w pass");
        assert!(e.finish().success());
    }
}

#[test]
fn every_command_line_gets_one_reply_and_no_other_line_gets_any() {
    let mut e = engine(&["--size", "9"]);
    let mut input = Vec::new();
    input.push(b'#');
    input.extend(vec![b'c'; 100_000]);
    input.push(b'\n');
    input.extend(vec![b' '; 100_000]);
    input.push(b'\n');
    input.extend(vec![b'\t'; 70_000]);
    input.extend(b"# then a comment\n\x01\x02\r\n");
    e.send_raw(&input);
    assert!(
        e.silent_for(Duration::from_millis(500)),
        "a reply to no command"
    );
    for only in ["\u{a0}", "\u{3000}", "\u{85}"] {
        e.send_raw(format!("{only}\n").as_bytes());
        let reply = e.read_raw();
        assert!(reply.starts_with("? unknown command"), "{reply:?}");
    }
    // A long line that holds a command gets one error with its id.
    let mut long = b"77 name ".to_vec();
    long.extend(vec![b'x'; 100_000]);
    long.push(b'\n');
    e.send_raw(&long);
    assert!(e.read_raw().starts_with("?77 syntax error: line longer"));
    e.send_raw(b"1 name\n");
    assert_eq!(e.read_raw(), "=1 kosumi");
    assert!(e.finish().success());
}

#[test]
fn errors_keep_the_id() {
    let mut e = engine(&["--size", "9"]);
    for (line, start) in [
        (
            "99999999999999999999 name",
            "?99999999999999999999 syntax error: id",
        ),
        ("5 # x", "?5 syntax error"),
        ("6", "?6 syntax error"),
        ("8 frobnicate", "?8 unknown command"),
        ("9 komi 1e9", "?9 syntax error"),
    ] {
        e.send_raw(format!("{line}\n").as_bytes());
        let reply = e.read_raw();
        assert!(reply.starts_with(start), "{line}: {reply}");
    }
    assert!(e.read_raw_after("10 name").starts_with("=10 kosumi"));
    // Found by the fuzzer: an id is echoed as written, leading zeros too.
    assert_eq!(e.read_raw_after("068 name"), "=068 kosumi");
    assert!(e.finish().success());
}

#[test]
fn loadsgf_refuses_what_is_not_a_regular_file_without_blocking() {
    if cfg!(windows) {
        eprintln!(
            "skipped on Windows: it loads Unix device files and a FIFO; the Linux run checks it"
        );
        return;
    }
    let dir = scratch("fifo");
    let fifo = dir.join("fifo.sgf");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut e = engine(&["--size", "9"]);
    let mut paths = vec![
        "/dev/zero".to_string(),
        "/dev/urandom".into(),
        dir.display().to_string(),
    ];
    if made {
        paths.push(fifo.display().to_string());
    }
    for path in paths {
        let start = Instant::now();
        let msg = e.err(&format!("loadsgf {path}"));
        assert!(msg.contains("not a regular file"), "{path}: {msg}");
        assert!(start.elapsed() < Duration::from_secs(60), "{path}");
    }
    let big = dir.join("big.sgf");
    let mut text = String::from("(;SZ[9]C[");
    text.push_str(&"x".repeat(17 << 20));
    text.push_str("])");
    std::fs::write(&big, text).unwrap();
    let msg = e.err(&format!("loadsgf {}", big.display()));
    assert!(msg.contains("bytes"), "{msg}");
    assert!(e.finish().success());
}

#[test]
fn a_play_off_the_referees_roll_is_refused_with_the_roll() {
    let mut e = engine(&[
        "--size",
        "9",
        "--dice",
        "1d4",
        "--dice-referee",
        "--seed",
        "3",
    ]);
    let msg = e.err("play b E5");
    assert_eq!(
        msg,
        "illegal move: not on the rolled line (black rolled 1 with 1d4)"
    );
    assert_eq!(e.ok("aleago-roll b"), "1", "the roll stays pending");
    e.ok("play b A1");
    assert!(e.finish().success());
}

#[test]
fn a_lone_dead_stone_in_a_large_territory_is_dead_under_every_seed() {
    for seed in 1..=6 {
        let seed = seed.to_string();
        let mut e = engine(&["--size", "13", "--seed", &seed]);
        for y in 1..=13 {
            e.ok(&format!("play b H{y}"));
            e.ok(&format!("play w J{y}"));
        }
        for cmd in ["play b pass", "play w D7", "play b pass", "play w pass"] {
            e.ok(cmd);
        }
        assert_eq!(e.ok("final_status_list dead"), "D7", "seed {seed}");
        // Black: columns A-H (the stone removed), White: J-N; komi 7.5.
        assert_eq!(e.ok("final_score"), "B+31.5", "seed {seed}");
        assert!(e.finish().success());
    }
}
