//! The network's evaluation allocates nothing once its buffers are warm:
//! a counting allocator watches this thread while positions with ladders,
//! a ko and a superko ban are evaluated again in every symmetry, through
//! the embedded net, the test nets of `tests/data/models/` (a transformer
//! among them) and (where `KOSUMI_KATRAIN_NET` names it) KaTrain's.

use kosumi::go::board::Color;
use kosumi::go::game::Game;
use kosumi::go::rules::Rules;
use kosumi::go::vertex::parse_vertex;
use kosumi::nn::{Evaluation, Evaluator, Request, SYMMETRIES};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting the allocations of a thread that asks.
struct Counting;

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations `f` makes on this thread.
fn allocations_of(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

/// Positions on 19×19 under positional superko: a ladder in progress, a
/// ko just taken, and a late position where a superko ban applies.
fn positions() -> Vec<Game> {
    let mut game = Game::new(19, Rules::preset("chinese").unwrap(), 7.5);
    let mut games = Vec::new();
    let mut c = Color::Black;
    for v in [
        "D4", "Q16", "D16", "Q4", "K10", "L10", "K11", "L11", "K9", "L9", "L12", "M10", "C3", "C4",
        "B4", "D3", "B3", "E4", "D5", "C5", "B5", "C6", "B6", "E5", "pass", "C7",
    ] {
        game.play(c, parse_vertex(v, 19).unwrap()).unwrap();
        c = c.opponent();
        games.push(game.clone());
    }
    games
}

fn assert_evaluations_allocate_nothing(net: &Evaluator, name: &str) {
    let games = positions();
    let requests: Vec<Request> = games
        .iter()
        .flat_map(|g| {
            (0..SYMMETRIES).map(move |symmetry| Request {
                game: g,
                to_move: g.to_move(),
                fresh: false,
                symmetry,
                white_advantage: 0.0,
            })
        })
        .collect();
    let mut out = [Evaluation::default()];
    let mut batch = vec![Evaluation::default(); 4];
    // Warm: the buffers take their sizes.
    for r in &requests {
        net.evaluate_batch(std::slice::from_ref(r), &mut out);
    }
    net.evaluate_batch(&requests[..4], &mut batch);
    let made = allocations_of(|| {
        for r in &requests {
            net.evaluate_batch(std::slice::from_ref(r), &mut out);
            assert!(out[0].white_win.is_finite());
        }
        for four in requests.chunks_exact(4) {
            net.evaluate_batch(four, &mut batch);
        }
    });
    assert_eq!(
        made,
        0,
        "{name}: {made} allocations in {} evaluations",
        requests.len() * 2
    );
}

#[test]
fn the_embedded_net_evaluates_without_allocating() {
    assert_evaluations_allocate_nothing(&Evaluator::embedded(), "embedded net");
}

#[test]
fn the_test_nets_evaluate_without_allocating() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/models");
    for name in [
        "b7c96h3tfrs-test5-cnorm.bin.gz",
        "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz",
        "synthetic-v16.txt.gz",
        "synthetic-v16-human.txt.gz",
    ] {
        let net = Evaluator::load(&dir.join(name)).unwrap();
        if net.is_human() {
            net.set_profile(kosumi::nn::HumanProfile::parse("rank_3k_1d").ok());
        }
        assert_evaluations_allocate_nothing(&net, name);
    }
}

#[test]
fn a_big_net_evaluates_without_allocating() {
    let Some(path) = std::env::var_os("KOSUMI_KATRAIN_NET") else {
        assert!(
            std::env::var_os("KOSUMI_REQUIRE_KATRAIN").is_none(),
            "KOSUMI_KATRAIN_NET unset"
        );
        return;
    };
    let net = Evaluator::load(std::path::Path::new(&path)).unwrap();
    assert_evaluations_allocate_nothing(&net, "KaTrain's net");
}
