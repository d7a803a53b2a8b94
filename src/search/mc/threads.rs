//! Several threads on one tree, and the choice of a move from the root's
//! statistics.

use super::root::decide;
use super::tree::McTree;
use super::uct::{McSearch, McSettings};
use crate::core::concurrency::{search_threads, spawn_scoped};
use crate::go::game::Game;
use crate::search::budget::{Decision, Planning};
use crate::search::watch::Watch;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Searches with `threads` threads sharing one tree (each descent adds a
/// virtual loss along its path, so the threads spread over the tree), grown
/// from `tree` where it fits and left there for the next search. Returns
/// the decision, its win rate and the number of playouts made.
pub fn run_threads(
    game: &Game,
    settings: &McSettings,
    threads: usize,
    planning: Planning,
    stop: &AtomicBool,
    tree: &mut McTree,
) -> (Decision, f64, u64) {
    run_watched(game, settings, threads, planning, stop, tree, None)
}

/// [`run_threads`], reporting to `watch` while the threads search (the
/// calling thread only watches then).
pub fn run_watched(
    game: &Game,
    settings: &McSettings,
    threads: usize,
    planning: Planning,
    stop: &AtomicBool,
    tree: &mut McTree,
    mut watch: Option<Watch>,
) -> (Decision, f64, u64) {
    let start = Instant::now();
    let threads = search_threads(threads);
    let restrict = watch.as_ref().and_then(|w| w.restrict.clone());
    let fresh = restrict.is_some();
    let search = McSearch::new(game, settings.seed, settings.max_nodes)
        .with_planning(planning)
        .with_tree((!fresh).then(|| std::mem::take(tree)))
        .with_ownership(watch.as_ref().is_some_and(|w| w.ownership))
        .with_restrictions(restrict);
    match watch.as_mut() {
        None => search.search_on(settings, threads, stop),
        Some(w) => {
            let running = AtomicUsize::new(threads);
            std::thread::scope(|scope| {
                for i in 0..threads {
                    let (search, running) = (&search, &running);
                    let started = spawn_scoped(scope, move || {
                        search.search(settings, stop, i);
                        running.fetch_sub(1, Ordering::SeqCst);
                    });
                    if started.is_none() {
                        // The threads not started never run: this thread
                        // searches in their place when none could start.
                        running.fetch_sub(threads - i, Ordering::SeqCst);
                        if i == 0 {
                            search.search(settings, stop, 0);
                        }
                        break;
                    }
                }
                let mut next = w.every.map(|e| Instant::now() + e);
                while running.load(Ordering::SeqCst) > 0 {
                    std::thread::sleep(Duration::from_millis(2));
                    if let (Some(at), Some(every)) = (next, w.every)
                        && Instant::now() >= at
                    {
                        (w.on_report)(&search.report(w.min_moves));
                        next = Some(at.max(Instant::now() - every) + every);
                    }
                }
            });
            if w.at_end {
                (w.on_report)(&search.report(w.min_moves));
            }
        }
    }
    let playouts = search.playouts();
    let mut stats = search.root_stats();
    // A restricted search's root lacks the moves it left alone: its tree
    // is not kept for later searches.
    if !fresh {
        *tree = search.into_tree();
    }
    // A reused tree's root was grown below the root, without the superko
    // check: keep only moves legal now.
    let to_move = game.to_move();
    stats.retain(|m| m.mv.is_none_or(|p| game.check(to_move, p).is_ok()));
    if log::log_enabled!(log::Level::Debug) {
        let mut top = stats.clone();
        top.sort_by(|a, b| b.visits.total_cmp(&a.visits));
        for m in top.iter().take(6) {
            let name = crate::go::vertex::vertex_name(m.mv, game.size());
            log::debug!(
                "  {name:>4} visits {:>7.0} win rate {:.3}",
                m.visits,
                m.wins / m.visits.max(1.0)
            );
        }
    }
    let (decision, rate) = decide(&stats, settings.cleanup);
    log::info!(
        "search: {playouts} playouts in {:.2}s with {threads} thread(s), {decision:?} win rate {rate:.3}",
        start.elapsed().as_secs_f64()
    );
    (decision, rate, playouts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;
    use crate::go::rules::Rules;
    use crate::search::Budget;

    #[test]
    fn two_threads_share_one_tree() {
        let mut g = Game::new(9, Rules::default(), 7.5);
        g.play(Color::Black, Some(g.board().point(4, 4))).unwrap();
        let settings = McSettings {
            budget: Budget {
                playouts: Some(4000),
                time: None,
            },
            seed: 3,
            cleanup: false,
            max_nodes: 1 << 20,
            patterns: false,
        };
        let mut tree = McTree::default();
        let stop = AtomicBool::new(false);
        let (d, _, playouts) = run_threads(&g, &settings, 2, Planning::Chance, &stop, &mut tree);
        // The budget is shared (the search may also stop early, decided).
        assert!((256..4002).contains(&playouts), "{playouts}");
        let Decision::Play(p) = d else {
            panic!("{d:?}")
        };
        assert!(g.check(Color::White, p).is_ok());
        // Every playout is one visit of the root, and the root's children
        // share them out but for the first descents, which found the root
        // unexpanded (one per thread at most); no virtual loss is left behind.
        let root = &tree.nodes[0];
        assert_eq!(root.visits as u64, playouts);
        let children = &tree.nodes[root.first_child as usize..][..root.children as usize];
        let real: f32 = children.iter().map(|c| c.visits - c.prior_visits).sum();
        let at_root = playouts - real as u64;
        assert!((1..=2).contains(&at_root), "{at_root}");
        assert!(children.iter().all(|c| c.wins <= c.visits));
    }
}
