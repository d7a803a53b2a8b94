//! A person's seat in a phantom game, through GoGui's ruler interface: the
//! commands GoGui sends a ruler (`gogui-rules_*` after each `play`), as a
//! session against the built binary.

mod common;

use common::Engine;
use std::path::Path;

fn host(args: &[&str]) -> Engine {
    Engine::start(args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn a_person_plays_white_and_sees_only_their_view() {
    let mut e = host(&["--size", "9", "--phantom-human", "2", "--playouts", "300"]);
    let commands = e.ok("list_commands");
    assert!(commands.contains("gogui-rules_legal_moves"));
    assert_eq!(e.ok("gogui-rules_game_id"), "Phantomgo");
    assert_eq!(e.ok("gogui-rules_board_size"), "9");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    // Black (kosumi) has tried already: a stone on the true board, none on
    // the person's view, which every reading command reads.
    let board = e.ok("gogui-rules_board");
    assert_eq!(board.lines().count(), 9);
    assert!(!board.contains('X') && !board.contains('O'), "{board}");
    assert_eq!(e.ok("list_stones b"), "");
    assert!(!e.ok("showboard").contains(" X"));
    let legal = e.ok("gogui-rules_legal_moves");
    assert_eq!(legal.split(' ').count(), 82, "every point and pass");
    assert_eq!(e.ok("all_legal b").split(' ').count(), 81);
    for refused in [
        "final_score",
        "kosumi-ownership",
        "kosumi-candidates b",
        "phantom-view 1",
    ] {
        assert!(e.err(refused).contains("hosts"), "{refused}");
    }
    // The person tries points in order until one holds a black stone:
    // refused, the stone revealed, still their turn, the point no longer
    // offered; each accepted try shows on their view.
    let mut revealed = None;
    for _ in 0..60 {
        let next = e
            .ok("gogui-rules_legal_moves")
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        e.ok(&format!("play w {next}"));
        if e.ok("gogui-rules_board_gfx")
            .contains("illegal occupied black")
        {
            revealed = Some(next);
            break;
        }
        assert_eq!(e.ok(&format!("color {next}")), "white");
    }
    let black = revealed.expect("a black stone found within 60 tries");
    assert_eq!(e.ok(&format!("color {black}")), "black");
    assert!(e.ok("list_stones b").split(' ').any(|v| v == black));
    assert!(e.ok("gogui-rules_board").contains('X'));
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    assert!(
        !e.ok("gogui-rules_legal_moves")
            .split(' ')
            .any(|v| v == black)
    );
    assert!(e.err("play b A1").contains("seat 2"));
    assert!(e.err("genmove b").contains("hosts"));
    // A new game starts a new phantom game.
    e.ok("clear_board");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    assert!(!e.ok("gogui-rules_board").contains('O'));
    assert!(e.finish().success());
}

#[test]
fn without_a_person_the_ruler_commands_are_not_listed() {
    let mut e = host(&["--size", "9"]);
    assert!(!e.ok("list_commands").contains("gogui-rules"));
    assert_eq!(e.ok("known_command gogui-rules_board"), "false");
    assert!(e.err("gogui-rules_board").contains("hosts"));
    assert!(e.finish().success());
}

#[test]
fn rengo_with_the_person_at_seat_three() {
    let mut e = host(&[
        "--size",
        "7",
        "--phantom-human",
        "3",
        "--phantom-kind",
        "rengo",
        "--playouts",
        "200",
    ]);
    assert_eq!(e.ok("gogui-rules_game_id"), "Phantomrengo");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "black");
    assert!(e.err("phantom-to_move").contains("hosts"));
    let mut passes = 0;
    // The person passes until the game ends (kosumi's seats play on).
    while !e.ok("gogui-rules_legal_moves").is_empty() && passes < 400 {
        e.ok("play b pass");
        passes += 1;
    }
    assert!(e.ok("gogui-rules_final_result").contains('+'));
    assert!(e.finish().success());
}
