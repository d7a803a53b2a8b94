//! Cross-check against GNU Go 3.8, the GTP reference engine: random games
//! fed to both engines under `simple-ko` (GNU Go's rules) must give the same
//! stones, captures and `is_legal` answers for every point; `fixed_handicap`
//! must give the same points for every size and count.
//!
//! Needs `gnugo` (Debian: `apt-get install gnugo`). Without it the tests say
//! so and pass, unless KOSUMI_REQUIRE_GNUGO is set (as `.ci/run` does).

mod common;

use common::Engine;
use std::path::{Path, PathBuf};

fn gnugo() -> Option<PathBuf> {
    if cfg!(windows) {
        eprintln!(
            "skipped on Windows: the GNU Go at hand is a Linux program; the Linux run checks it"
        );
        return None;
    }
    let candidates = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/games")]);
    for dir in candidates {
        let p = dir.join("gnugo");
        if p.is_file() {
            return Some(p);
        }
    }
    if std::env::var_os("KOSUMI_REQUIRE_GNUGO").is_some() {
        panic!("gnugo not found (apt-get install gnugo)");
    }
    eprintln!("gnugo not found: GNU Go cross-check skipped");
    None
}

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sorted(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split_whitespace().map(|x| x.to_uppercase()).collect();
    v.sort();
    v
}

#[test]
fn random_games_agree_with_gnugo() {
    let Some(gnugo) = gnugo() else { return };
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rand = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut checked_points = 0;
    for game in 0..24 {
        let size = [5, 7, 9, 9, 13, 19][game % 6];
        let mut ours = Engine::start(&["--rules", "simple-ko"], here());
        let mut theirs = Engine::spawn(&gnugo, &["--mode", "gtp", "--level", "0"], here());
        for e in [&mut ours, &mut theirs] {
            e.ok(&format!("boardsize {size}"));
            e.ok("clear_board");
        }
        let letters: Vec<char> = "ABCDEFGHJKLMNOPQRST".chars().take(size).collect();
        let mut color = 'b';
        for turn in 0..(size * size * 2) {
            // Every few moves, compare legality of every point for the mover.
            if turn % 7 == 0 {
                for &l in &letters {
                    for n in 1..=size {
                        let cmd = format!("is_legal {color} {l}{n}");
                        assert_eq!(
                            ours.ok(&cmd),
                            theirs.ok(&cmd),
                            "game {game} turn {turn}: {cmd}"
                        );
                        checked_points += 1;
                    }
                }
            }
            let legal = ours.ok(&format!("all_legal {color}"));
            let legal: Vec<&str> = legal.split_whitespace().collect();
            // Mostly legal moves, sometimes a random point (maybe illegal), rarely a pass.
            let mv = if legal.is_empty() || rand(40) == 0 {
                "pass".to_string()
            } else if rand(8) == 0 {
                format!("{}{}", letters[rand(size)], rand(size) + 1)
            } else {
                legal[rand(legal.len())].to_string()
            };
            let cmd = format!("play {color} {mv}");
            let (a, b) = (ours.command(&cmd), theirs.command(&cmd));
            assert_eq!(
                a.0, b.0,
                "game {game} turn {turn}: {cmd}: ours {a:?}, GNU Go {b:?}"
            );
            if !a.0 {
                continue;
            }
            for q in ["list_stones black", "list_stones white"] {
                assert_eq!(
                    sorted(&ours.ok(q)),
                    sorted(&theirs.ok(q)),
                    "game {game} turn {turn}: {q}"
                );
            }
            for q in ["captures black", "captures white"] {
                assert_eq!(ours.ok(q), theirs.ok(q), "game {game} turn {turn}: {q}");
            }
            color = if color == 'b' { 'w' } else { 'b' };
        }
    }
    println!("GNU Go cross-check: {checked_points} is_legal answers agree");
}

#[test]
fn fixed_handicap_agrees_with_gnugo() {
    let Some(gnugo) = gnugo() else { return };
    let mut ours = Engine::start(&[], here());
    let mut theirs = Engine::spawn(&gnugo, &["--mode", "gtp"], here());
    for size in 2..=19 {
        for n in 0..=10 {
            let mut replies = Vec::new();
            for e in [&mut ours, &mut theirs] {
                e.ok(&format!("boardsize {size}"));
                e.ok("clear_board");
                let (ok, text) = e.command(&format!("fixed_handicap {n}"));
                replies.push((ok, if ok { sorted(&text) } else { Vec::new() }));
            }
            assert_eq!(
                replies[0], replies[1],
                "fixed_handicap {n} on {size}x{size}: ours, GNU Go"
            );
        }
    }
}
