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
    // Black (kosumi) has tried already: one stone on the true board, none
    // on the person's view.
    assert_eq!(e.ok("list_stones b").split(' ').count(), 1);
    let board = e.ok("gogui-rules_board");
    assert_eq!(board.lines().count(), 9);
    assert!(!board.contains('X') && !board.contains('O'), "{board}");
    let legal = e.ok("gogui-rules_legal_moves");
    assert_eq!(legal.split(' ').count(), 82, "every point and pass");
    // The person tries Black's point: refused, the stone revealed, still
    // their turn; the point is no longer offered.
    let black = e.ok("list_stones b");
    e.ok(&format!("play w {black}"));
    assert!(e.ok("gogui-rules_board").contains('X'));
    assert!(
        e.ok("gogui-rules_board_gfx")
            .contains("illegal occupied black")
    );
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    assert!(
        !e.ok("gogui-rules_legal_moves")
            .split(' ')
            .any(|v| v == black)
    );
    // A legal try: accepted, and kosumi answers with Black's next try.
    let free = e
        .ok("gogui-rules_legal_moves")
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    e.ok(&format!("play w {free}"));
    assert_eq!(e.ok(&format!("color {free}")), "white");
    assert!(e.ok("gogui-rules_board").contains('O'));
    assert!(e.err("play b A1").contains("seat 2"));
    assert!(e.err("genmove b").contains("refereed"));
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
    assert_eq!(e.ok("phantom-to_move"), "3");
    let mut passes = 0;
    // The person passes until the game ends (kosumi's seats play on).
    while !e.ok("gogui-rules_legal_moves").is_empty() && passes < 400 {
        e.ok("play b pass");
        passes += 1;
    }
    assert_eq!(e.ok("phantom-to_move"), "end");
    assert!(e.ok("gogui-rules_final_result").contains('+'));
    assert!(e.finish().success());
}
