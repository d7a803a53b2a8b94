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
    // A level no profile has, beside the network too.
    let out = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(["--human-model", model().to_str().unwrap(), "--level", "25k"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("20k to 9d"));
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

/// kosumi with the six-block network and the human-like net beside it.
fn start_beside(extra: &[&str]) -> Engine {
    let model = model();
    let mut args = vec!["--human-model", model.to_str().unwrap(), "--size", "9"];
    args.extend_from_slice(extra);
    Engine::start(&args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// The numbers of a `kata-raw-nn`-style reply, by line name.
fn numbers(reply: &str) -> Vec<(String, String)> {
    reply
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn kata_raw_human_nn_shows_the_net_beside_in_katagos_form() {
    let mut beside = start_beside(&["--human-profile", "rank_4k"]);
    let mut alone = start(&["--human-profile", "rank_4k"]);
    for e in [&mut beside, &mut alone] {
        e.ok("play b E5");
        e.ok("play w C3");
    }
    let human = beside.ok("kata-raw-human-nn w 2");
    let own = alone.ok("kata-raw-nn w 2");
    // KataGo's human form: the score and its square, no lead or time.
    assert!(
        human.contains("whiteScore ") && human.contains("whiteScoreSq "),
        "{human}"
    );
    assert!(
        !human.contains("whiteLead") && !human.contains("varTimeLeft"),
        "{human}"
    );
    // The same net under the same profile: the same numbers.
    let get =
        |all: &[(String, String)], key: &str| all.iter().find(|(k, _)| k == key).unwrap().1.clone();
    let (h, o) = (numbers(&human), numbers(&own));
    for (hk, ok) in [
        ("whiteWin", "whiteWin"),
        ("whiteLoss", "whiteLoss"),
        ("whiteScore", "whiteScoreSelfplay"),
        ("whiteScoreSq", "whiteScoreSelfplaySq"),
        ("policyPass", "policyPass"),
    ] {
        assert_eq!(get(&h, hk), get(&o, ok), "{hk}");
    }
    let policy = |r: &str| {
        r.split("policy\n")
            .nth(1)
            .unwrap()
            .split("policyPass")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(policy(&human), policy(&own));
    // The network's own raw output is another net's.
    assert_ne!(policy(&beside.ok("kata-raw-nn w 2")), policy(&own));
}

#[test]
fn kata_raw_human_nn_needs_the_net_and_a_profile() {
    let mut plain = Engine::start(&["--size", "9"], Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(plain.err("kata-raw-human-nn 0").contains("--human-model"));
    let mut beside = start_beside(&[]);
    assert!(beside.err("kata-raw-human-nn 0").contains("humanSLProfile"));
    beside.ok("kata-set-param humanSLProfile proyear_1990");
    assert!(beside.ok("kata-raw-human-nn 0").starts_with("symmetry 0"));
    assert!(
        beside
            .err("kata-raw-human-nn 0 0.5")
            .contains("unexpected argument")
    );
}

#[test]
fn a_level_beside_draws_from_the_human_net() {
    let mut e = start_beside(&["--level", "3k", "--seed", "5"]);
    assert!(e.err("kosumi-level 28k").contains("20k to 9d"));
    assert_eq!(e.ok("kosumi-level"), "3k");
    // The synthetic net's policy is near flat (its pass can lead), so the
    // moves are checked legal and drawn: other seeds, other games.
    let game = |seed: &str| {
        // One thread: the same seed, the same draws.
        let mut e = start_beside(&["--level", "3k", "--seed", seed, "--threads", "1"]);
        ["b", "w", "b", "w", "b", "w"]
            .iter()
            .map(|c| e.ok(&format!("genmove {c}")))
            .collect::<Vec<_>>()
    };
    let first = game("5");
    assert!(first.iter().all(|m| m != "resign"), "{first:?}");
    assert_ne!(first, game("6"));
    assert_eq!(first, game("5"), "the same seed, the same draws");
    assert_ne!(e.ok("genmove b"), "resign");
}

/// Runs `kosumi FLAG NET [ARGS] analysis` on `queries`.
fn analyse_with(flag: &str, args: &[&str], queries: &[&str]) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args([flag, model().to_str().unwrap()])
        .args(args)
        .arg("analysis")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for q in queries {
        writeln!(stdin, "{q}").unwrap();
    }
    drop(stdin);
    let answers = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    answers
}

/// Runs `kosumi --human-model NET analysis` on `queries`.
fn analyse(queries: &[&str]) -> Vec<serde_json::Value> {
    analyse_with("--human-model", &[], queries)
}

#[test]
fn a_human_like_network_keeps_its_profile_and_says_so() {
    let answers = analyse_with(
        "--model",
        &["--human-profile", "rank_1d"],
        &[
            r#"{"id":"a","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":4,"includePolicy":true,"overrideSettings":{"humanSLProfile":"rank_9d"}}"#,
        ],
    );
    let warning = answers.iter().find(|a| a.get("warning").is_some()).unwrap();
    assert!(
        warning["warning"].as_str().unwrap().contains("rank_1d"),
        "{warning}"
    );
    let answer = answers
        .iter()
        .find(|a| a.get("moveInfos").is_some())
        .unwrap();
    assert!(answer.get("humanPolicy").is_none());
}

#[test]
fn the_json_engine_reports_the_human_policy_under_each_querys_profile() {
    let query = |id: &str, extra: &str| {
        format!(
            r#"{{"id":"{id}","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":8{extra}}}"#
        )
    };
    let answers = analyse(&[
        &query(
            "a",
            r#","includePolicy":true,"overrideSettings":{"humanSLProfile":"rank_20k","ignorePreRootHistory":false}"#,
        ),
        &query(
            "b",
            r#","includePolicy":true,"overrideSettings":{"humanSLProfile":"rank_9d"}"#,
        ),
        &query("c", r#","overrideSettings":{"humanSLProfile":"rank_9d"}"#),
        &query("d", r#","includePolicy":true"#),
        &query("e", r#","overrideSettings":{"humanSLProfile":"rank_99d"}"#),
        r#"{"id":"m","action":"query_models"}"#,
    ]);
    let by = |id: &str| {
        answers
            .iter()
            .find(|a| a["id"] == id && a.get("warning").is_none())
            .unwrap()
    };
    let human = |id: &str| by(id)["humanPolicy"].as_array().cloned();
    let (a, b) = (human("a").unwrap(), human("b").unwrap());
    assert_eq!(a.len(), 82);
    assert_eq!(by("a")["policy"].as_array().unwrap().len(), 82);
    // Illegal points (the stones) are -1 in both, as KataGo lists them.
    assert_eq!(a[4 * 9 + 4], -1.0);
    assert_ne!(a, b, "two profiles, two policies");
    assert_ne!(
        by("a")["policy"],
        serde_json::Value::Array(a.clone()),
        "the human net's, not the network's"
    );
    // Without includePolicy, or without a profile for a human-like net: none.
    assert!(human("c").is_none() && human("d").is_none());
    // A bad profile is an error naming the field; ignorePreRootHistory
    // false is kosumi's own way and draws no warning.
    assert!(by("e")["error"].as_str().unwrap().contains("rank_99d"));
    assert!(
        !answers
            .iter()
            .any(|x| x["id"] == "a" && x.get("warning").is_some())
    );
    let models = by("m")["models"].as_array().unwrap().clone();
    assert_eq!(models.len(), 2);
    assert_eq!(
        (
            models[0]["usesHumanSLProfile"].clone(),
            models[1]["usesHumanSLProfile"].clone()
        ),
        (false.into(), true.into())
    );
}
