//! A human-like net (KataGo's metadata encoder; here the synthetic one of
//! `tests/data/models/`) through the `kosumi` binary: it needs a profile
//! to start, takes one by KataGo's `humanSLProfile` and by a playing level,
//! refuses bad ones leaving the profile as it was, and plays a level from
//! the policy of the level's profile.

mod common;

use common::Engine;
use std::path::{Path, PathBuf};
use std::process::Command;

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/models/synthetic-v16-human.txt.gz")
}

fn start(extra: &[&str]) -> Engine {
    let model = model();
    let mut args = vec!["--model", model.to_str().unwrap(), "--size", "9"];
    args.extend_from_slice(extra);
    Engine::start(&args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn a_human_like_net_without_a_profile_is_refused_at_start() {
    let out = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(["--model", model().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("human-like net") && err.contains("--human-profile"),
        "{err}"
    );
    // A bad profile is named.
    let out = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args([
            "--model",
            model().to_str().unwrap(),
            "--human-profile",
            "rank_40k",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rank_40k") && err.contains("not a human profile"),
        "{err}"
    );
}

#[test]
fn the_profile_is_set_by_katagos_name_and_by_a_level() {
    let mut e = start(&["--human-profile", "rank_3k_1d"]);
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "rank_3k_1d");
    let under = |e: &mut Engine| e.ok("kata-raw-nn 0");
    let first = under(&mut e);
    e.ok("kata-set-param humanSLProfile proyear_1990");
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "proyear_1990");
    assert_ne!(under(&mut e), first, "another profile, other outputs");
    // Refused, and the profile stays: none at all, a bad name, a rank
    // outside the profiles, a batch with a bad entry.
    assert!(
        e.err("kata-set-param humanSLProfile \"\"")
            .contains("needs a profile")
    );
    assert!(
        e.err("kata-set-param humanSLProfile rank_0k")
            .contains("not a human profile")
    );
    assert!(e.err("kosumi-level 25k").contains("20k to 9d"));
    assert!(
        e.err(r#"kata-set-params {"humanSLProfile":"rank_1d","maxVisits":-1}"#)
            .contains("visits")
    );
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "proyear_1990");
    assert_eq!(e.ok("kosumi-level"), "max");
    // A level plays through its profile.
    e.ok("kosumi-level 5k");
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "preaz_5k");
    let reply = e.ok("kata-get-params");
    assert!(reply.contains(r#""humanSLProfile":"preaz_5k""#), "{reply}");
}

#[test]
fn a_level_draws_its_moves_from_the_profiles_policy() {
    // The same seed, the same draws; every move legal (the engine's own
    // play accepts it), none a pass on an open board.
    let mut e = start(&["--level", "12k", "--seed", "3"]);
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "preaz_12k");
    let mut moves = Vec::new();
    for i in 0..20 {
        let color = if i % 2 == 0 { "b" } else { "w" };
        let m = e.ok(&format!("genmove {color}"));
        assert!(m != "pass" && m != "resign", "move {i}: {m}");
        moves.push(m);
    }
    // Drawn, not the policy's top move each time: another seed plays
    // another game.
    let mut other = start(&["--level", "12k", "--seed", "4"]);
    let replay: Vec<String> = (0..20)
        .map(|i| other.ok(&format!("genmove {}", if i % 2 == 0 { "b" } else { "w" })))
        .collect();
    assert_ne!(moves, replay);
}
