//! Stress: 20,000 commands a controller could send (valid and malformed,
//! from `kosumi::tools::fuzzing::session_command`) to one process, pipelined; every
//! command gets exactly one reply, none is an internal error, and the
//! resident memory stays bounded; a record as long as the SGF reader
//! accepts loads and is played on in memory of its own size.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const COMMANDS: usize = 20_000;
/// Resident memory allowed at any check, in KiB (the tree is bounded by
/// `--max-nodes`; boards and records are small).
const RSS_BOUND_KIB: u64 = 256 * 1024;

fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// A memory figure of `/proc/PID/status` (`VmRSS:`, `VmHWM:`), in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// kosumi with `args`, in `dir`, its input and output piped.
fn spawn(args: &[&str], dir: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn twenty_thousand_commands_in_one_process() {
    let mut child = spawn(
        &["--size", "9", "--playouts", "20", "--max-nodes", "20000"],
        &std::env::temp_dir(),
    );
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 8) as usize
    };
    let mut size = kosumi::go::board::BoardSize::square(9);
    let mut lines = Vec::with_capacity(COMMANDS);
    for i in 0..COMMANDS {
        let (kind, a, b) = (next() % 32, next() % 1000, next() % 1000);
        let command = kosumi::tools::fuzzing::session_command(kind, a, b, &mut size);
        lines.push(format!("{i} {command}\n"));
    }
    let writer = std::thread::spawn(move || {
        for line in lines {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut replies, mut peak) = (0usize, 0u64);
    let mut line = String::new();
    while replies < COMMANDS {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if line.starts_with('=') || line.starts_with('?') {
            let id = line[1..].split([' ', '\n']).next().unwrap_or("");
            assert_eq!(id, replies.to_string(), "reply out of step: {line}");
            assert!(!line.contains("internal error"), "{line}");
            replies += 1;
            if replies.is_multiple_of(1000)
                && let Some(kib) = rss_kib(pid)
            {
                peak = peak.max(kib);
                assert!(kib < RSS_BOUND_KIB, "RSS {kib} KiB after {replies} replies");
            }
        }
    }
    writer.join().unwrap();
    assert_eq!(replies, COMMANDS, "replies lost");
    println!("20,000 commands, peak RSS {peak} KiB");
    let _ = child.kill();
    let _ = child.wait();
}

/// The peak memory allowed for loading and searching from a record of
/// 99,990 passes (a 400 KB file): the parsed record and a game history of
/// a few dozen bytes a move, not the 20 KB board a move that took 3.9 GB.
const LONG_RECORD_PEAK_KIB: u64 = 400 * 1024;

#[test]
fn a_record_of_a_hundred_thousand_passes_loads_and_plays_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("kosumi-passes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("passes.sgf");
    let mut record = String::from("(;GM[1]FF[4]SZ[19]KM[7.5]");
    for i in 0..99_990 {
        record.push_str(if i % 2 == 0 { ";B[]" } else { ";W[]" });
    }
    record.push(')');
    std::fs::write(&path, record).unwrap();
    let mut child = spawn(&["--threads", "4", "--playouts", "50"], &dir);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut reply = |command: &str| {
        writeln!(stdin, "{command}").unwrap();
        let mut text = String::new();
        let mut line = String::new();
        while out.read_line(&mut line).unwrap() > 0 && line != "\n" {
            text.push_str(&line);
            line.clear();
        }
        text
    };
    assert_eq!(reply("loadsgf passes.sgf"), "= black\n");
    for _ in 0..3 {
        assert_eq!(reply("undo"), "= \n");
    }
    assert!(reply("genmove w").starts_with("= "));
    assert!(reply("genmove b").starts_with("= "));
    // The peak is Linux's to read (/proc); elsewhere the record is still
    // loaded and played.
    if let Some(peak) = status_kib(pid, "VmHWM:") {
        assert!(
            peak < LONG_RECORD_PEAK_KIB,
            "peak {peak} KiB for a record of 99,990 passes"
        );
    } else {
        if cfg!(target_os = "linux") {
            panic!("no peak memory in /proc");
        }
        eprintln!("no /proc here: the peak memory is checked on Linux");
    }
    reply("quit");
    let _ = child.wait();
    std::fs::remove_dir_all(&dir).unwrap();
}
