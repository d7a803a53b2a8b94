//! The network search's tests: budgets, threads and batches, the tree kept
//! between moves, the judging searches, the watch's reports.

use super::*;
use crate::go::board::Color;
use crate::go::rules::Rules;
use crate::go::vertex::parse_vertex;

#[test]
fn wide_root_noise_spreads_the_roots_visits() {
    let game = Game::new(9, Rules::default(), 7.5);
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(150),
        time: None,
    };
    let root_moves_visited = |wide_root_noise: f64| {
        let mut tree = NetTree::default();
        let params = PuctParams {
            puct: Puct {
                wide_root_noise,
                ..Puct::default()
            },
            ..PuctParams::new(budget, 5)
        };
        search_watched(
            &game,
            &net,
            params,
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        let t = &tree.tree;
        t.children(0)
            .filter(|&e| t.child(e).is_some_and(|c| c.visits > 0))
            .count()
    };
    let (narrow, wide) = (root_moves_visited(0.0), root_moves_visited(0.5));
    assert!(wide > narrow + 5, "{narrow} {wide}");
}

/// White E5 in atari (Black D5, F5, E6; liberty E4), Black to play.
fn white_in_atari() -> Game {
    let mut game = Game::new(9, Rules::default(), 7.5);
    for (c, v) in [
        (Color::Black, "D5"),
        (Color::White, "E5"),
        (Color::Black, "F5"),
        (Color::White, "A1"),
        (Color::Black, "E6"),
        (Color::White, "J1"),
    ] {
        game.play(c, parse_vertex(v, 9).unwrap()).unwrap();
    }
    game
}

#[test]
fn a_search_on_the_test_backend_is_exact_and_repeatable() {
    // The deterministic backend: each visit one evaluation, the same
    // seed the same tree, every visit backed up.
    let (net, counts) = crate::nn::on_test_backend();
    let game = white_in_atari();
    let budget = Budget {
        playouts: Some(120),
        time: None,
    };
    let run = || {
        let mut tree = NetTree::default();
        let out = search_watched(
            &game,
            &net,
            PuctParams::new(budget, 11),
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        let visits: Vec<u32> = tree.tree.nodes.iter().map(|n| n.visits).collect();
        (out.decision, out.visits, out.dropped, visits)
    };
    let first = run();
    assert_eq!((first.1, first.2), (120, 0));
    assert!(matches!(first.0, Decision::Play(p) if game.check(game.to_move(), p).is_ok()));
    assert!(counts.boards.load(std::sync::atomic::Ordering::Relaxed) > 0);
    net.cache().clear();
    assert_eq!(run(), first);
}

#[test]
fn a_thread_gathers_its_leaves_in_batches_where_the_backend_wants_them() {
    // The test backend prefers batches of four: one thread's rounds
    // send several boards a forward pass; asked for one leaf a round,
    // every pass is one board. Either way the budget is kept exactly
    // and every virtual loss is taken back.
    use std::sync::atomic::Ordering::Relaxed;
    let game = white_in_atari();
    let budget = Budget {
        playouts: Some(200),
        time: None,
    };
    let mut batch = Vec::new();
    for leaves in [None, Some(1)] {
        let (net, counts) = crate::nn::on_test_backend();
        let mut tree = NetTree::default();
        let params = PuctParams {
            leaves,
            ..PuctParams::new(budget, 5)
        };
        let out = search_watched(
            &game,
            &net,
            params,
            &AtomicBool::new(false),
            &mut tree,
            None,
        );
        assert_eq!((out.visits, out.dropped), (200, 0));
        assert_eq!(tree.tree.nodes[0].visits, 200);
        assert!(tree.tree.nodes.iter().all(|n| n.virtual_loss == 0));
        assert!(matches!(out.decision, Decision::Play(p) if game.check(game.to_move(), p).is_ok()));
        let (passes, boards) = (counts.passes.load(Relaxed), counts.boards.load(Relaxed));
        batch.push(boards as f64 / passes as f64);
    }
    assert!(batch[0] > 2.0, "{batch:?}");
    assert_eq!(batch[1], 1.0);
}

#[test]
fn threads_gathering_minibatches_share_one_tree_and_keep_to_the_budget() {
    // The real net, two threads of eight leaves a round: the capture
    // is still found, the budget kept, the tree consistent.
    let game = white_in_atari();
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(300),
        time: None,
    };
    let mut tree = NetTree::default();
    let params = PuctParams {
        leaves: Some(8),
        ..PuctParams::new(budget, 4).threads(2)
    };
    let out = search_watched(
        &game,
        &net,
        params,
        &AtomicBool::new(false),
        &mut tree,
        None,
    );
    assert_eq!(out.visits, 300);
    let t = &tree.tree;
    assert_eq!(t.nodes[0].visits, 300);
    assert!(t.nodes.iter().all(|n| n.virtual_loss == 0));
    let family = t.root_family();
    let most = family[1..].iter().max_by_key(|c| c.visits).unwrap();
    assert_eq!(most.mv, parse_vertex("E4", 9).unwrap());
    // Each node's visits are its own evaluation's and its children's.
    for (i, n) in t.nodes.iter().enumerate().filter(|(_, n)| n.expanded) {
        let below: u32 = t
            .children(i)
            .filter_map(|e| t.child(e))
            .map(|c| c.visits)
            .sum();
        assert!(
            below < n.visits && below + 3 >= n.visits,
            "{below} {}",
            n.visits
        );
    }
}

#[test]
fn two_threads_share_one_tree_and_keep_to_the_budget() {
    let game = white_in_atari();
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(200),
        time: None,
    };
    let mut tree = NetTree::default();
    let stop = AtomicBool::new(false);
    let out = search_watched(
        &game,
        &net,
        PuctParams::new(budget, 3).threads(2),
        &stop,
        &mut tree,
        None,
    );
    assert_eq!(out.visits, 200);
    // Every visit backed up, every virtual loss taken back.
    let t = &tree.tree;
    assert_eq!(t.nodes[0].visits, 200);
    assert!(t.nodes.iter().all(|n| n.virtual_loss == 0));
    // The capture is searched most (in a position this far won, the
    // move played may be another whose bound is as good).
    let family = t.root_family();
    let most = family[1..].iter().max_by_key(|c| c.visits).unwrap();
    assert_eq!(most.mv, parse_vertex("E4", 9).unwrap());
    assert!(matches!(out.decision, Decision::Play(_)));
    // The visits that found the root unexpanded (one a thread at
    // most) stop there.
    let below: u32 = family[1..].iter().map(|c| c.visits).sum();
    assert!((198..=199).contains(&below), "{below}");
}

#[test]
fn it_captures_a_stone_in_atari_and_plays_a_legal_move() {
    // Black takes the stone in atari.
    let mut game = white_in_atari();
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(64),
        time: None,
    };
    let mut tree = NetTree::default();
    let out = search(&game, &net, budget, 1, &AtomicBool::new(false), &mut tree);
    let e4 = parse_vertex("E4", 9).unwrap().unwrap();
    assert_eq!(out.decision, Decision::Play(e4));
    assert_eq!(out.visits, 64);
    assert!(out.win_rate > 0.5, "{}", out.win_rate);
    // The next search starts from the subtree of the move played.
    game.play(Color::Black, Some(e4)).unwrap();
    let (kept, bias) = tree.take_for(&game, 0.0);
    let root = &kept.nodes[0];
    assert!(root.visits > 10, "{}", root.visits);
    assert!(root.expanded);
    assert_eq!(
        root.visits - 1,
        kept.root_family()[1..]
            .iter()
            .map(|c| c.visits)
            .sum::<u32>()
    );
    // Another game does not reuse it: other komi, another advantage,
    // or an empty board of another size (the root of an empty 9x9
    // board kept).
    tree.keep(kept, bias, &game, 0.0);
    let other = Game::new(9, Rules::default(), 6.5);
    assert_eq!(tree.take_for(&other, 0.0).0.nodes[0].visits, 0);
    let empty = Game::new(9, Rules::default(), 7.5);
    search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
    assert!(tree.take_for(&empty, 0.0).0.nodes[0].visits > 0);
    search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
    assert_eq!(tree.take_for(&empty, 0.5).0.nodes[0].visits, 0);
    search(&empty, &net, budget, 2, &AtomicBool::new(false), &mut tree);
    assert_eq!(
        tree.take_for(&Game::new(13, Rules::default(), 7.5), 0.0)
            .0
            .nodes[0]
            .visits,
        0
    );
}

#[test]
fn each_node_sums_its_childrens_values_and_its_corrected_own_value() {
    // Without the children's weighting (noise pruning, value weights),
    // a node's utility sum is its children's (from the other side)
    // plus its network value with the bias correction it has now:
    // every correction reached the ancestors' sums.
    let game = white_in_atari();
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(400),
        time: None,
    };
    let unweighted = PuctParams {
        puct: Puct {
            noise_pruning: false,
            value_weight_exponent: 0.0,
            ..Puct::default()
        },
        ..PuctParams::new(budget, 4)
    };
    let mut tree = NetTree::default();
    search_watched(
        &game,
        &net,
        unweighted,
        &AtomicBool::new(false),
        &mut tree,
        None,
    );
    let t = &tree.tree;
    let nodes = &t.nodes;
    let mut checked = 0;
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| n.expanded) {
        let children: Vec<_> = t.children(i).filter_map(|e| t.child(e)).collect();
        let visits: u32 = children.iter().map(|c| c.visits).sum();
        if n.visits != visits + 1 {
            continue;
        }
        let below: f64 = children.iter().map(|c| c.utility).sum();
        let own = f64::from(n.nn_utility) + f64::from(n.bias_applied);
        assert!(
            (n.utility - (own - below)).abs() < 1e-3,
            "{} {}",
            n.utility,
            own - below
        );
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    let corrected = nodes.iter().filter(|n| n.bias_applied != 0.0).count();
    assert!(corrected > 20, "{corrected}");
    // Without the correction, none.
    let plain = PuctParams {
        puct: Puct {
            subtree_bias: 0.0,
            ..unweighted.puct
        },
        ..PuctParams::new(budget, 4)
    };
    let mut tree = NetTree::default();
    search_watched(&game, &net, plain, &AtomicBool::new(false), &mut tree, None);
    assert!(
        tree.tree
            .nodes
            .iter()
            .all(|n| n.bias_applied == 0.0 && n.bias_key == 0)
    );
}

#[test]
fn analysis_lists_the_move_played_first() {
    // Over several positions and seeds, the report's first candidate is
    // the move the search decides on (by its confidence bound too).
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(120),
        time: None,
    };
    let mut game = white_in_atari();
    for seed in 0..12 {
        let mut ignore = |_: &Report| {};
        let watch = Watch::quiet(None, &mut ignore);
        let out = search_watched(
            &game,
            &net,
            PuctParams::new(budget, seed),
            &AtomicBool::new(false),
            &mut NetTree::default(),
            Some(watch),
        );
        let first = out.report.expect("watched").candidates[0].mv;
        let played = match out.decision {
            Decision::Play(p) => Some(p),
            _ => None,
        };
        assert_eq!(first, played, "seed {seed}");
        game.play(game.to_move(), played).unwrap();
    }
}

#[test]
fn the_tree_stops_growing_at_its_bound() {
    let game = Game::new(9, Rules::default(), 7.5);
    let net = Evaluator::embedded();
    let budget = Budget {
        playouts: Some(2000),
        time: None,
    };
    let mut tree = NetTree::default();
    let params = PuctParams {
        max_nodes: 300,
        ..PuctParams::new(budget, 1)
    };
    let out = search_watched(
        &game,
        &net,
        params,
        &AtomicBool::new(false),
        &mut tree,
        None,
    );
    // The search stops at the bound (each move counted), past it by one
    // expansion at most (a node's moves, 82 on 9x9).
    assert!(out.visits < 2000, "{}", out.visits);
    assert!(tree.tree.size() <= 300 + 82, "{}", tree.tree.size());
}
