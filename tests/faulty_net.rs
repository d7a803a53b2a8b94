//! A network whose evaluations fail (NaN or infinity in a head, for a
//! chosen share of them, up to all) drives every consumer of the evaluator
//! that searches: the GTP engine (moves, analysis, scores, levels, a
//! phantom seat), KataGo's JSON analysis engine and `review`. Each command
//! gets its reply, a move or a clear error; none panics and none prints a
//! number that is none.

use kosumi::engine::{Config, Engine};
use kosumi::frontends::analysis;
use kosumi::frontends::gtp::execute;
use kosumi::go::rules::Rules;
use kosumi::nn::Evaluator;
use kosumi::search::{ChooserPolicy, SearchConfig};
use proptest::prelude::*;
use std::sync::Arc;

/// The embedded net with `share` of its evaluations spoiled.
fn faulty(share: f64, seed: u64) -> Arc<Evaluator> {
    Arc::new(Evaluator::embedded().with_faults(share, seed))
}

fn search_config() -> SearchConfig {
    SearchConfig {
        playouts: Some(24),
        max_nodes: 2000,
        threads: 2,
        chooser: ChooserPolicy {
            ownership_playouts: 16,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Whether `text` holds a number that is none, as Rust or C print one
/// (an error's words "NaN or infinity" aside, and `kata-raw-nn`'s `NAN`,
/// KataGo's own mark of an illegal point in its policy).
fn prints_a_non_number(text: &str) -> bool {
    text.replace("NaN or infinity", "")
        .split(|c: char| c.is_whitespace() || ",:[]{}\"".contains(c))
        .any(|w| {
            let w = w.trim_start_matches(['-', '+']);
            matches!(
                w,
                "NaN" | "nan" | "inf" | "Inf" | "INF" | "infinity" | "Infinity"
            )
        })
}

/// The commands that evaluate or search, in GTP.
const SEARCHING: &[&str] = &[
    "genmove b",
    "genmove w",
    "reg_genmove b",
    "kata-genmove_analyze w 10",
    "lz-genmove_analyze b 10",
    "genmove_analyze w",
    "kata-raw-nn 0",
    "kata-raw-nn all",
    "final_score",
    "final_status_list dead",
    "kosumi-evaluation",
    "kosumi-score",
    "kosumi-ownership",
    "kosumi-candidates",
    "kosumi-pv",
    "kosumi-gfx_ownership",
    "kgs-genmove_cleanup b",
];

/// Moves to put stones down between the searches.
const MOVES: &[&str] = &[
    "play b e5",
    "play w c3",
    "play b g7",
    "play w d6",
    "undo",
    "play b pass",
];

fn gtp_session(share: f64, seed: u64, picks: &[(bool, usize)], level: bool) {
    let net = faulty(share, seed);
    let mut engine = Engine::new(
        Config {
            search: search_config(),
            network: Some(net),
            net_search: true,
            ..Default::default()
        },
        Rules::default(),
        9,
        None,
    );
    if level {
        assert_eq!(
            execute(&mut engine, b"kosumi-level 5k").as_deref(),
            Some("= \n\n")
        );
    }
    for &(search, n) in picks {
        let command = if search {
            SEARCHING[n % SEARCHING.len()]
        } else {
            MOVES[n % MOVES.len()]
        };
        let reply = execute(&mut engine, command.as_bytes())
            .unwrap_or_else(|| panic!("{command}: no reply"));
        assert!(
            reply.starts_with('=') || reply.starts_with('?'),
            "{command}: {reply}"
        );
        assert!(reply.ends_with("\n\n"), "{command}: {reply:?}");
        assert!(!reply.contains("internal error"), "{command}: {reply}");
        assert!(!prints_a_non_number(&reply), "{command}: {reply}");
        if command.starts_with("genmove") || command.contains("genmove_analyze") {
            // A move, or a clear refusal: never an empty answer.
            assert!(reply.len() > 3, "{command}: {reply:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_gtp_engine_answers_every_command_whatever_share_of_evaluations_fails(
        share in prop::sample::select(vec![0.05, 0.3, 0.7, 1.0]),
        seed in any::<u64>(),
        picks in prop::collection::vec((any::<bool>(), 0usize..64), 4..14),
        level in any::<bool>(),
    ) {
        gtp_session(share, seed, &picks, level);
    }
}

#[test]
fn an_engine_whose_every_evaluation_fails_still_moves_or_says_why() {
    let picks: Vec<(bool, usize)> = (0..SEARCHING.len())
        .flat_map(|n| [(false, n), (true, n)])
        .collect();
    gtp_session(1.0, 1, &picks, false);
    gtp_session(1.0, 2, &picks, true);
    // The dead stones judged by a search that backed nothing up (the
    // property test's find): the network's own, neutral, ownership.
    gtp_session(1.0, 3, &[(false, 3), (false, 0), (true, 9)], false);
}

#[test]
fn a_phantom_seat_plays_on_through_failed_evaluations() {
    for share in [0.5, 1.0] {
        let mut engine = Engine::new(
            Config {
                search: search_config(),
                network: Some(faulty(share, 9)),
                net_search: true,
                ..Default::default()
            },
            Rules::default(),
            9,
            None,
        );
        execute(&mut engine, b"phantom-seat 1 rengo").unwrap();
        for command in ["genmove b", "play white c3", "genmove b", "genmove b"] {
            let reply = execute(&mut engine, command.as_bytes()).unwrap();
            assert!(reply.starts_with('='), "{command}: {reply}");
            assert!(!prints_a_non_number(&reply), "{command}: {reply}");
        }
    }
}

#[test]
fn the_json_engine_answers_every_query_whatever_share_fails() {
    let queries = [
        r#"{"id":"a","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":20,"includeOwnership":true,"includePolicy":true,"includeMovesOwnership":true,"analyzeTurns":[0,1,2]}"#,
        r#"{"id":"b","moves":[],"rules":"japanese","komi":6.5,"boardXSize":9,"boardYSize":9,"maxVisits":12,"includePVVisits":true}"#,
        r#"{"id":"c","moves":[["B","D4"]],"rules":"chinese","komi":7.5,"boardXSize":13,"boardYSize":13,"maxVisits":1}"#,
    ]
    .join("\n");
    for share in [0.2, 0.6, 1.0] {
        let settings = analysis::Settings {
            defaults: analysis::Defaults {
                max_visits: 20,
                max_time: None,
                perspective: analysis::Perspective::White,
            },
            workers: 2,
            search: search_config(),
            human_network: None,
            reader_gone: None,
        };
        let net = faulty(share, 4);
        let mut out = Vec::new();
        analysis::serve(&mut queries.as_bytes(), &mut out, &net, &settings);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // One answer a turn: three of "a", one each of "b" and "c".
        assert_eq!(lines.len(), 5, "{share}: {text}");
        for line in lines {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v.get("id").is_some(), "{line}");
            assert!(!prints_a_non_number(line), "{line}");
            assert!(
                v.get("error").is_some() || v.get("rootInfo").is_some(),
                "{line}"
            );
        }
    }
}

#[test]
fn review_writes_every_record_whatever_share_fails() {
    let record = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc];W[eg];B[ce])";
    let template = kosumi::go::game::Game::new(9, Rules::default(), 7.5);
    let parsed = kosumi::go::sgf::load_record(record, &template).unwrap();
    for share in [0.3, 1.0] {
        let net = faulty(share, 5);
        let how = search_config();
        let found = kosumi::frontends::review::review(&parsed.game, &net, &how, &mut |_, _| {});
        let text = kosumi::frontends::review::annotate(record, &parsed, &found).unwrap();
        assert!(!prints_a_non_number(&text), "{text}");
        assert!(text.starts_with("(;"), "{text}");
    }
}
