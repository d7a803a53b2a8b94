//! Whole sudden-death games against the clock: kosumi plays both sides (two
//! engines), the controller keeps each side's clock by its own wall time
//! for every `genmove` (the GTP round trip included), tells each engine
//! its time left before every move, and the game goes to its end. Neither
//! side may ever run out: the time plan has to keep a reserve for the
//! moves still to come, whatever the board size.

mod common;

use common::Engine;
use std::time::Instant;

/// One side: its engine and the time it has left by the controller's clock.
struct Side {
    engine: Engine,
    left: f64,
}

/// Plays a game of `seconds` sudden death each on `size`; returns the
/// moves played and each side's least time left.
fn sudden_death(size: usize, seconds: f64, extra: &[&str]) -> (usize, [f64; 2]) {
    let mut args = vec!["--resign", "0"];
    args.extend_from_slice(extra);
    let dir = std::env::temp_dir();
    let mut sides = [0, 1].map(|_| Side {
        engine: Engine::start(&args, &dir),
        left: seconds,
    });
    for s in &mut sides {
        s.engine.ok(&format!("boardsize {size}"));
        s.engine.ok("clear_board");
        s.engine.ok(&format!("time_settings {seconds} 0 0"));
    }
    let mut least = [seconds; 2];
    let (mut moves, mut passes) = (0, 0);
    let colors = ["b", "w"];
    while moves < 4 * size * size && passes < 2 {
        let turn = moves % 2;
        let left = sides[turn].left;
        sides[turn]
            .engine
            .ok(&format!("time_left {} {left:.3} 0", colors[turn]));
        let start = Instant::now();
        let mv = sides[turn].engine.ok(&format!("genmove {}", colors[turn]));
        sides[turn].left -= start.elapsed().as_secs_f64();
        least[turn] = least[turn].min(sides[turn].left);
        assert!(
            sides[turn].left > 0.0,
            "{size}x{size}, {seconds} s: {} lost on time at move {moves} ({mv})",
            colors[turn]
        );
        passes = if mv.eq_ignore_ascii_case("pass") {
            passes + 1
        } else {
            0
        };
        if !mv.eq_ignore_ascii_case("resign") {
            sides[1 - turn]
                .engine
                .ok(&format!("play {} {mv}", colors[turn]));
        } else {
            break;
        }
        moves += 1;
    }
    for s in sides {
        s.engine.finish();
    }
    (moves, least)
}

#[test]
fn a_sudden_death_game_on_19x19_is_never_lost_on_time() {
    let (moves, least) = sudden_death(19, 5.0, &[]);
    assert!(moves > 100, "{moves} moves");
    eprintln!("19x19, 5 s: {moves} moves, least time left {least:?}");
}

#[test]
fn a_sudden_death_game_on_9x9_is_never_lost_on_time() {
    let (moves, least) = sudden_death(9, 1.0, &[]);
    assert!(moves > 30, "{moves} moves");
    eprintln!("9x9, 1 s: {moves} moves, least time left {least:?}");
}

#[test]
fn longer_sudden_death_games_are_never_lost_on_time() {
    for (size, seconds, least_moves) in [(9, 4.0, 30), (19, 10.0, 100)] {
        let (moves, least) = sudden_death(size, seconds, &[]);
        assert!(moves > least_moves, "{moves} moves");
        eprintln!("{size}x{size}, {seconds} s: {moves} moves, least time left {least:?}");
    }
}
