//! Error replies and protocol framing, checked against the built binary (a
//! GTP error counts as a failure in gogui-regress, so they are tested here).

mod common;

use common::Engine;
use std::path::Path;

fn engine() -> Engine {
    Engine::start(&["--size", "9"], Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn bad_arguments_get_standard_errors_and_change_nothing() {
    let mut e = engine();
    e.ok("play b E5");
    let board = e.ok("showboard");
    for (cmd, expected) in [
        ("boardsize 0", "unacceptable size"),
        ("boardsize 26", "unacceptable size"),
        ("boardsize x", "syntax error"),
        ("boardsize", "syntax error"),
        ("boardsize 13 1", "unacceptable size"),
        ("boardsize 13:26", "unacceptable size"),
        ("boardsize 13x9", "syntax error"),
        ("boardsize 13:9:5", "syntax error"),
        ("boardsize 1 2 3", "syntax error"),
        ("rectangular_boardsize 0 9", "unacceptable size"),
        ("rectangular_boardsize 13 nine", "syntax error"),
        ("komi abc", "syntax error"),
        ("komi", "syntax error"),
        ("play b E5", "illegal move"),
        ("play b J10", "syntax error"),
        ("play b Z1", "syntax error"),
        ("play x E4", "syntax error"),
        ("play b", "syntax error"),
        ("play b E4 E6", "syntax error"),
        ("genmove", "syntax error"),
        ("genmove purple", "syntax error"),
        ("fixed_handicap 2", "board not empty"),
        ("set_free_handicap A1 B1", "board not empty"),
        ("final_status_list sideways", "syntax error"),
        ("countlib A1", "syntax error"),
        ("captures x", "syntax error"),
        ("time_settings 1 2", "syntax error"),
        ("time_left b x 0", "syntax error"),
        ("kgs-time_settings weird 1", "syntax error"),
        ("kgs-rules klingon", "syntax error"),
        ("kosumi-rules klingon", "syntax error"),
        ("loadsgf /nonexistent/file.sgf", "cannot load file"),
        ("loadsgf gtp-tests/games/truncated.sgf", "cannot load file"),
        ("loadsgf Cargo.toml", "cannot load file"),
        ("gogui-setup B", "syntax error"),
        ("gogui-setup B E5", "illegal move"),
        ("gogui-play_sequence b D4 w D4", "illegal move"),
        ("gg-undo 5", "cannot undo"),
        ("kata-analyze b x", "syntax error"),
        ("kata-analyze b 50 interval", "syntax error"),
        ("kata-analyze b 50 ownership maybe", "syntax error"),
        ("lz-analyze b 50 ownership true", "syntax error"),
        ("analyze b -5", "syntax error"),
        ("kata-analyze avoid b D4", "syntax error"),
        ("kata-analyze avoid b Z99 1", "syntax error"),
        ("kata-analyze allow b D4 1 allow w C3 1", "syntax error"),
        ("kata-genmove_analyze", "syntax error"),
        ("kata-genmove_analyze 50", "syntax error"),
        ("genmove_analyze purple", "syntax error"),
        ("kosumi-candidates", "syntax error"),
        ("kosumi-pv x", "syntax error"),
        ("kata-raw-nn", "syntax error"),
        ("kata-raw-nn 8", "syntax error"),
        ("kata-raw-nn b", "syntax error"),
        ("kata-raw-nn all 1.5", "syntax error"),
        ("kata-raw-nn 0 0.5 x", "syntax error"),
        ("frobnicate", "unknown command"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    assert_eq!(e.ok("showboard"), board, "state changed by bad input");
    assert_eq!(e.ok("color D4"), "empty");
    assert!(e.finish().success());
}

#[test]
fn handicap_errors() {
    let mut e = engine();
    assert!(
        e.err("fixed_handicap 1")
            .starts_with("invalid number of stones")
    );
    assert!(
        e.err("fixed_handicap 10")
            .starts_with("invalid number of stones")
    );
    assert!(
        e.err("set_free_handicap A1")
            .starts_with("invalid number of stones")
    );
    assert!(e.err("set_free_handicap A1 A1").starts_with("syntax error"));
    assert!(
        e.err("place_free_handicap 81")
            .starts_with("invalid number of stones")
    );
    e.ok("boardsize 5");
    assert!(
        e.err("fixed_handicap 2")
            .starts_with("invalid number of stones")
    );
    assert_eq!(e.ok("list_stones b"), "");
}

#[test]
fn undo_to_the_start_and_no_further() {
    let mut e = engine();
    assert_eq!(e.err("undo"), "cannot undo");
    e.ok("play b C3");
    e.ok("play w pass");
    e.ok("undo");
    e.ok("undo");
    assert_eq!(e.err("undo"), "cannot undo");
    assert_eq!(e.ok("list_stones b"), "");
}

#[test]
fn framing_ids_comments_junk_and_long_lines() {
    let mut e = engine();
    e.send_raw(b"\n   \n# just a comment\n42 name # trailing comment\n");
    assert_eq!(e.read_response(), (true, "kosumi".into()));
    e.send_raw(b"\tprotocol_version\t\r\n");
    assert_eq!(e.read_response(), (true, "2".into()));
    e.send_raw(b"\xff\xfe\x00\x01 garbage \xc3\x28\n");
    assert!(!e.read_response().0);
    e.send_raw(&vec![b'x'; 200_000]);
    e.send_raw(b"\n");
    let (ok, msg) = e.read_response();
    assert!(!ok && msg.starts_with("syntax error"), "{msg}");
    e.send_raw(b"7 known_command play\n");
    assert_eq!(e.read_response(), (true, "true".into()));
    e.send_raw(b"9\n");
    assert!(!e.read_response().0);
    assert!(e.finish().success(), "end of input exits with status 0");
}

#[test]
fn quit_answers_then_exits_zero() {
    let mut e = engine();
    e.send_raw(b"5 quit\nname\n");
    assert_eq!(e.read_response(), (true, String::new()));
    assert!(e.finish().success());
}

#[test]
fn interrupt_stops_a_long_genmove() {
    let mut e = Engine::start(
        &["--size", "19", "--time", "60"],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    let start = std::time::Instant::now();
    e.send_raw(b"genmove b\n");
    std::thread::sleep(std::time::Duration::from_millis(300));
    e.send_raw(b"# interrupt\n");
    let (ok, mv) = e.read_response();
    assert!(ok && mv.len() >= 2, "{mv}");
    assert!(
        start.elapsed().as_secs() < 30,
        "genmove was not interrupted"
    );
    assert_eq!(e.ok("name"), "kosumi");
}

#[test]
fn list_commands_and_known_command_agree() {
    let mut e = engine();
    let listed = e.ok("list_commands");
    for name in listed.lines() {
        assert_eq!(e.ok(&format!("known_command {name}")), "true", "{name}");
    }
    for name in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "loadsgf",
        "reg_genmove",
        "undo",
        "final_score",
        "final_status_list",
        "showboard",
        "time_settings",
        "time_left",
        "captures",
        "is_legal",
        "all_legal",
        "list_stones",
        "color",
        "countlib",
        "printsgf",
        "kgs-rules",
        "kgs-time_settings",
        "kgs-genmove_cleanup",
        "kgs-game_over",
        "gogui-analyze_commands",
        "gogui-interrupt",
        "gogui-setup",
        "gogui-setup_player",
        "gogui-play_sequence",
        "cputime",
        "gg-undo",
        "kosumi-rules",
        "kosumi-pass_stones",
    ] {
        assert!(listed.lines().any(|l| l == name), "{name} not listed");
    }
}

#[test]
fn dice_errors() {
    let mut e = engine();
    assert!(e.err("aleago-roll b").starts_with("dice are off"));
    for (cmd, expected) in [
        ("aleago-dice 0d6", "syntax error"),
        ("aleago-dice 1d21", "syntax error"),
        ("aleago-dice 5d6", "syntax error"),
        ("aleago-dice six", "syntax error"),
    ] {
        assert!(e.err(cmd).starts_with(expected), "{cmd}");
    }
    e.ok("aleago-dice 1d4");
    for (cmd, expected) in [
        ("aleago-set_roll b 5", "syntax error"),
        ("aleago-set_roll b 0", "syntax error"),
        ("aleago-set_roll x 2", "syntax error"),
        ("aleago-option colour blue", "syntax error"),
        ("aleago-option bonus maybe", "syntax error"),
        ("aleago-option exempt grey", "syntax error"),
        ("aleago-next_roll w", "crystal ball is off"),
        ("aleago-seed -3", "syntax error"),
    ] {
        assert!(e.err(cmd).starts_with(expected), "{cmd}");
    }
    // GoGui's "Dice: allowed moves" before any roll draws Black's roll,
    // which then stays for the move (as genmove and analysis draw it).
    assert!(!e.ok("aleago-allowed b").is_empty());
    let rolled = e.ok("aleago-roll b");
    assert_eq!(e.ok("aleago-roll b"), rolled);
    e.ok("aleago-set_roll b 1");
    let before = e.ok("showboard");
    let msg = e.err("play b E5");
    assert!(
        msg.starts_with("illegal move: not on the rolled line"),
        "{msg}"
    );
    assert_eq!(e.ok("showboard"), before);
    e.ok("play b A1");
    assert_eq!(e.ok("aleago-dice"), "1d4");
    e.ok("aleago-option exempt black");
    assert!(e.err("aleago-roll b").contains("exempt"));
}

#[test]
fn command_line_values_out_of_range_are_refused_with_status_2() {
    for args in [
        &["--time", "1e300"][..],
        &["--time", "nan"],
        &["--komi", "inf"],
        &["--resign", "1.5"],
        &["--size", "26"],
        &["--rules", "bogus"],
        &["--dice", "0d6"],
        &["bench", "--seconds", "1e20"],
        &["bench", "--seconds", "0"],
        &["--time", "0"],
        &["--model", "/nonexistent/net.bin.gz"],
        &["--model", "Cargo.toml"],
        &["--nn", "off", "--model", "Cargo.toml"],
        &["--nn", "maybe"],
        &["--search", "net", "--nn", "off"],
        &["--search", "deep"],
        &["--backend", "cuda"],
        &["--backend", "tpu"],
        &["--backend", "cpu", "--gpu", "0"],
        &["--nn-max-batch", "0"],
        &["--nn-max-batch", "257"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kosumi"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_model_that_cannot_be_read_is_named_with_the_reason() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(["--model", "Cargo.toml"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("kosumi: --model Cargo.toml: "),
        "{stderr}"
    );
}

#[test]
fn the_network_search_plays_legal_moves_and_takes_a_stone_in_atari() {
    let mut e = Engine::start(
        &["--size", "9", "--search", "net", "--playouts", "32"],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    );
    for m in [
        "play b D5",
        "play w E5",
        "play b F5",
        "play w A1",
        "play b E6",
        "play w J1",
    ] {
        e.ok(m);
    }
    assert_eq!(e.ok("genmove b"), "E4");
    for _ in 0..6 {
        let m = e.ok("genmove w");
        assert!(m == "pass" || m == "resign" || m.len() >= 2, "{m}");
        if m == "resign" {
            break;
        }
        e.ok("genmove b");
    }
    assert!(e.finish().success());
}

#[test]
fn kata_set_rules_refuses_what_kosumi_has_no_ruleset_for() {
    let mut e = engine();
    let before = e.ok("kata-get-rules");
    for (cmd, expected) in [
        (
            "kata-set-rules stone-scoring",
            "syntax error: no kosumi ruleset matches 'stone-scoring'",
        ),
        (
            "kata-set-rules {\"scoring\":\"AREA\",\"hasButton\":true}",
            "syntax error: no kosumi ruleset matches",
        ),
        ("kata-set-rules", "syntax error: expected one rules name"),
        ("kata-get-rules extra", "syntax error"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    assert_eq!(e.ok("kata-get-rules"), before);
    assert!(e.finish().success());
}

#[test]
fn without_a_network_kata_raw_nn_says_so() {
    let mut e = Engine::start(&["--nn", "off"], Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(e.err("kata-raw-nn 0").starts_with("no network loaded"));
    assert!(e.finish().success());
}

#[test]
fn phantom_errors_change_nothing() {
    let mut e = engine();
    for (cmd, expected) in [
        ("phantom-try 1 E5", "no phantom game"),
        ("phantom-to_move", "no phantom game"),
        (
            "phantom-heard 1 accepted",
            "this engine is no phantom player",
        ),
        ("phantom-new chess", "syntax error"),
        ("phantom-new go kriegspiel", "syntax error: unknown preset"),
        ("phantom-new", "syntax error"),
        ("phantom-option illegal nothing", "no phantom game"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    e.ok("phantom-new go");
    // Before the first try the conventions may change; bad ones are refused.
    for (cmd, expected) in [
        ("phantom-option ataris maybe", "syntax error"),
        ("phantom-option colour on", "syntax error: unknown option"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    e.ok("phantom-try 1 E5");
    let board = e.ok("showboard");
    let views = (e.ok("phantom-view 1"), e.ok("phantom-view 2"));
    for (cmd, expected) in [
        ("phantom-try 1 D4", "seat 2 is to try, not seat 1"),
        ("phantom-try 3 D4", "syntax error: seat '3'"),
        ("phantom-try 0 D4", "syntax error"),
        ("phantom-try 2 Z9", "syntax error"),
        ("phantom-try 2", "syntax error"),
        ("phantom-view 5", "syntax error"),
        // Settings are fixed once the game has begun.
        ("phantom-option ataris maybe", "the phantom game has begun"),
        (
            "phantom-option shared-view on",
            "the phantom game has begun",
        ),
        ("komi 50", "the phantom game has begun"),
        ("kosumi-rules japanese", "the phantom game has begun"),
        ("play w D4", "a phantom game is refereed here"),
        ("kata-analyze w 50", "a phantom game is refereed here"),
        (
            "kata-genmove_analyze w 50",
            "a phantom game is refereed here",
        ),
        ("kosumi-evaluation w", "a phantom game is refereed here"),
        ("genmove w", "a phantom game is refereed here"),
        ("undo", "a phantom game is refereed here"),
        (
            "phantom-heard 1 accepted",
            "this engine is no phantom player",
        ),
        ("phantom-seat 1 go", "a phantom game is refereed here"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    assert_eq!(e.ok("showboard"), board, "state changed by bad input");
    assert_eq!((e.ok("phantom-view 1"), e.ok("phantom-view 2")), views);
    assert_eq!(e.ok("phantom-to_move"), "2");
    // After the end, tries are refused.
    e.ok("phantom-try 2 pass");
    e.ok("phantom-try 1 pass");
    assert_eq!(e.ok("phantom-to_move"), "end");
    assert!(e.err("phantom-try 2 D4").contains("over"));
    // A player: contradictions refused, nothing changed.
    e.ok("clear_board");
    e.ok("phantom-seat 2 go");
    e.ok("play black E5");
    let view = e.ok("showboard");
    for (cmd, expected) in [
        ("phantom-heard 2 accepted", "contradicts"),
        ("phantom-heard 2 illegal occupied black", "contradicts"),
        ("phantom-heard 1 frobnicated", "syntax error"),
        ("phantom-heard 3 accepted", "syntax error"),
        ("phantom-try 1 E5", "this engine is a phantom player"),
        ("genmove b", "syntax error: seat 2 plays white"),
        ("play white E5", "illegal move: point is occupied"),
        // A player's view changes only by what it hears, and it stays a
        // player until clear_board.
        ("undo", "this engine plays a phantom seat"),
        ("gogui-setup b A1", "this engine plays a phantom seat"),
        ("aleago-dice 1d6", "this engine plays a phantom seat"),
        ("phantom-new go", "this engine plays a phantom seat"),
        ("phantom-seat 1 go", "this engine plays a phantom seat"),
        ("final_score", "this engine plays a phantom seat"),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    assert_eq!(e.ok("showboard"), view);
    assert!(e.finish().success());
}

#[test]
fn kata_params_refuse_bad_names_and_values_and_change_nothing() {
    let mut e = engine();
    e.ok("kata-set-param maxVisits 30");
    let before = e.ok("kata-get-params");
    for (cmd, expected) in [
        (
            "kata-get-param",
            "syntax error: expected one parameter name",
        ),
        (
            "kata-get-param bogus",
            "syntax error: unknown parameter 'bogus'",
        ),
        (
            "kata-set-param maxVisits",
            "syntax error: expected a parameter name and a value",
        ),
        ("kata-set-param maxVisits 0", "syntax error: visits must be"),
        (
            "kata-set-param maxVisits 2.5",
            "syntax error: visits must be",
        ),
        ("kata-set-param maxTime 0", "syntax error: maxTime must be"),
        ("kata-set-param maxTime nan", "syntax error"),
        (
            "kata-set-param numSearchThreads 0",
            "syntax error: numSearchThreads",
        ),
        (
            "kosumi-level 40k",
            "syntax error: '40k' is not a rank (30k to 1k, 1d to 9d, or max)",
        ),
        (
            "kosumi-level 5k 6k",
            "syntax error: expected at most one rank",
        ),
        (
            "kata-set-param playingLevel 3x",
            "syntax error: '3x' is not a rank",
        ),
        (
            "kata-set-param useLcbForSelection maybe",
            "syntax error: useLcbForSelection: 'maybe' is not true or false",
        ),
        (
            "kata-set-param subtreeValueBiasFactor 2",
            "syntax error: subtreeValueBiasFactor: '2' is not a number from 0 to 1",
        ),
        (
            "kata-set-params {\"useLcbForSelection\": false, \"maxVisits\": 0}",
            "syntax error: visits must be",
        ),
        (
            "kata-set-params [1]",
            "syntax error: expected a JSON object",
        ),
        (
            "kata-set-params {\"maxTime\": 1, \"x\": 2}",
            "syntax error: unknown parameter 'x'",
        ),
        (
            "kata-set-params {\"maxTime\": \"slow\"}",
            "syntax error: maxTime: a number or null",
        ),
        (
            "kata-set-params {",
            "syntax error: parameters JSON does not read",
        ),
    ] {
        let msg = e.err(cmd);
        assert!(msg.starts_with(expected), "{cmd}: {msg}");
    }
    assert_eq!(e.ok("kata-get-params"), before);
    assert!(e.finish().success());
}
