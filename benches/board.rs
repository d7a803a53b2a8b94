//! Criterion benches of the board hot paths: one light and one full playout
//! from the empty 9×9 board, and the legality checks a playout makes.

use criterion::{Criterion, criterion_group, criterion_main};
use kosumi::go::board::{Board, Color};
use kosumi::search::mc::{Policy, playout};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

fn playouts(c: &mut Criterion) {
    let empty = Board::new(9);
    for (name, policy) in [
        ("playout 9x9 light", Policy::Light),
        ("playout 9x9 full", Policy::Full),
    ] {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut board = empty.clone();
        board.keep_lines(false); // as the search's boards (no dice)
        c.bench_function(name, |b| {
            b.iter(|| {
                board.copy_from(&empty);
                playout(
                    &mut board,
                    Color::Black,
                    policy,
                    &mut rng,
                    None,
                    [None, None],
                    |_, _| {},
                );
                black_box(board.hash())
            })
        });
    }
}

fn checks(c: &mut Criterion) {
    // A middle-game position: half of a light playout.
    let mut board = Board::new(9);
    let mut rng = SmallRng::seed_from_u64(7);
    let mut moves = Vec::new();
    playout(
        &mut board.clone(),
        Color::Black,
        Policy::Light,
        &mut rng,
        None,
        [None, None],
        |col, p| moves.push((col, p)),
    );
    for &(col, p) in moves.iter().take(moves.len() / 2) {
        if board
            .check(col, p, kosumi::go::rules::Suicide::Forbidden)
            .is_ok()
        {
            board.place(col, p);
        }
    }
    let empties: Vec<_> = board.empty_points().to_vec();
    c.bench_function("eye, suicide and self-atari checks 9x9", |b| {
        b.iter(|| {
            let mut n = 0;
            for &p in &empties {
                n += board.is_eye(Color::Black, p) as u32
                    + board.is_suicide(Color::Black, p) as u32
                    + board.is_self_atari(Color::Black, p) as u32;
            }
            black_box(n)
        })
    });
    c.bench_function("place and undo by copy 9x9", |b| {
        b.iter(|| {
            let mut copy = board.clone();
            for &p in empties.iter().take(8) {
                if !copy.is_suicide(Color::White, p) {
                    copy.place(Color::White, p);
                }
            }
            black_box(copy.hash())
        })
    });
}

criterion_group!(benches, playouts, checks);
criterion_main!(benches);
