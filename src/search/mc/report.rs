//! The Monte Carlo search's [`Report`]: each root move's playouts, their
//! wins and final counts, and the line most visited below it.

use super::tree::{Node, PASS};
use super::uct::McSearch;
use crate::go::board::{Color, MAX_POINTS, Point};
use crate::go::game::Game;
use crate::search::report::{Candidate, MAX_PV, Report, lower_bound};
use std::sync::atomic::Ordering;

impl McSearch<'_> {
    /// What the search has found so far: the root moves with playouts (and,
    /// up to `min_moves` in all, the unvisited ones with the best priors),
    /// best first.
    pub fn report(&self, min_moves: usize) -> Report {
        let game = self.game;
        let c = game.to_move();
        let board = game.board();
        let last = game.last_move().map(|(_, m)| m.unwrap_or(PASS));
        let sign = if c == Color::Black { 1.0 } else { -1.0 };
        let nodes = self.nodes.lock().unwrap_or_else(|e| e.into_inner());
        let root = &nodes[0];
        let root_visits = (root.visits - root.prior_visits).max(0.0) as u64;
        let children = &nodes[root.first_child as usize..][..root.children as usize];
        let legal = |mv: Point| mv == PASS || game.check(c, mv).is_ok();
        let permitted = |mv: Point| {
            let mv = (mv != PASS).then_some(mv);
            self.restrict.as_ref().is_none_or(|r| r.permits(c, mv, 1))
        };
        // The knowledge each child started with: the hand-made prior, and
        // the learned patterns' part (as many wins as visits) on top.
        let priors: Vec<(f32, f32)> = children
            .iter()
            .map(|ch| {
                let (visits, wins) = super::priors::prior(board, c, ch.mv, last);
                (ch.prior_visits, wins + (ch.prior_visits - visits).max(0.0))
            })
            .collect();
        let prior_total: f32 = priors.iter().map(|p| p.1).sum::<f32>().max(1e-6);
        let mut line = game.clone();
        line.set_dice(None);
        let mut candidates: Vec<Candidate> = children
            .iter()
            .zip(&priors)
            .filter(|(ch, _)| legal(ch.mv) && permitted(ch.mv))
            .map(|(ch, &(prior_visits, prior_wins))| {
                let visits = (ch.visits - prior_visits).max(0.0);
                let wins = (ch.wins - prior_wins).clamp(0.0, visits);
                let mut win_rate = if visits >= 1.0 {
                    (wins / visits) as f64
                } else {
                    (prior_wins / prior_visits) as f64
                };
                // Under dynamic komi (handicap games) the tree's wins are
                // against the search's komi; analysis shows the wins
                // against the game's, as its scores are.
                if self.search_komi != self.komi
                    && let Some(black) = self.root_scores.black_win_rate(ch.mv)
                {
                    win_rate = if c == Color::Black {
                        black
                    } else {
                        1.0 - black
                    };
                }
                let scores = self.root_scores.of(ch.mv);
                Candidate {
                    mv: (ch.mv != PASS).then_some(ch.mv),
                    visits: visits as u64,
                    win_rate,
                    lcb: lower_bound(win_rate, visits as f64),
                    prior: (prior_wins / prior_total) as f64,
                    score_lead: scores.map(|(_, mean, _)| sign * (mean - self.komi)),
                    // The spread of random playouts' final counts (tens of
                    // points) says nothing of the game's: left out.
                    score_stdev: None,
                    score_selfplay: None,
                    utility: None,
                    no_result: None,
                    pv: Vec::new(),
                    pv_visits: Vec::new(),
                    ownership: None,
                }
                .with_line(principal_variation(&nodes, ch, &mut line))
            })
            .collect();
        drop(nodes);
        candidates.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.win_rate.total_cmp(&a.win_rate))
                .then(b.prior.total_cmp(&a.prior))
        });
        let visited = candidates.iter().filter(|m| m.visits > 0).count();
        candidates.truncate(visited.max(min_moves));
        Report {
            to_move: c,
            playouts: root_visits,
            candidates,
            ownership: self.owners.as_ref().map(|owners| {
                let mut mean = vec![0.0; MAX_POINTS];
                let mut stdev = vec![0.0; MAX_POINTS];
                // Counted by this search's playouts only.
                let n = self.playouts().max(1) as f64;
                for p in board.points() {
                    let [b, w] = &owners[p as usize];
                    let (b, w) = (
                        b.load(Ordering::Relaxed) as f64 / n,
                        w.load(Ordering::Relaxed) as f64 / n,
                    );
                    mean[p as usize] = (b - w).clamp(-1.0, 1.0);
                    let square = (b + w).min(1.0);
                    stdev[p as usize] = (square - (b - w) * (b - w)).max(0.0).sqrt();
                }
                (mean, stdev)
            }),
        }
    }
}

/// `first` and, after it, the most visited child at each level, as long as
/// the moves are legal in `line` (the game, played on and taken back here),
/// with the playouts through each.
fn principal_variation(
    nodes: &[Node],
    first: &Node,
    line: &mut Game,
) -> (Vec<Option<Point>>, Vec<u64>) {
    let mut pv = Vec::new();
    let mut visits = Vec::new();
    let mut node = first;
    loop {
        let mv = (node.mv != PASS).then_some(node.mv);
        let c = line.to_move();
        if mv.is_some_and(|p| line.check(c, p).is_err()) || line.play(c, mv).is_err() {
            break;
        }
        pv.push(mv);
        visits.push((node.visits - node.prior_visits).max(0.0) as u64);
        if !node.expanded || pv.len() >= MAX_PV || line.consecutive_passes() >= 2 {
            break;
        }
        let children = &nodes[node.first_child as usize..][..node.children as usize];
        match children
            .iter()
            .filter(|ch| ch.visits > ch.prior_visits)
            .max_by(|a, b| (a.visits - a.prior_visits).total_cmp(&(b.visits - b.prior_visits)))
        {
            Some(next) => node = next,
            None => break,
        }
    }
    for _ in 0..pv.len() {
        line.undo();
    }
    (pv, visits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;
    use crate::search::mc::McSettings;
    use crate::search::{Budget, MoveRules};
    use std::sync::atomic::AtomicBool;

    fn searched(game: &Game, playouts: u64, restrict: Option<MoveRules>) -> Report {
        let s = McSearch::new(game, 7, 1 << 20)
            .with_ownership(true)
            .with_restrictions(restrict);
        let settings = McSettings {
            budget: Budget {
                playouts: Some(playouts),
                time: None,
            },
            seed: 7,
            cleanup: false,
            max_nodes: 1 << 20,
            patterns: false,
        };
        s.search(&settings, &AtomicBool::new(false), 0);
        s.report(0)
    }

    #[test]
    fn a_report_holds_legal_lines_best_first() {
        let mut g = Game::new(9, Rules::default(), 7.5);
        g.play(Color::Black, Some(g.board().point(4, 4))).unwrap();
        let r = searched(&g, 2000, None);
        assert_eq!(r.to_move, Color::White);
        assert!(!r.candidates.is_empty());
        let total: u64 = r.candidates.iter().map(|m| m.visits).sum();
        assert!(
            total + 2 >= r.playouts && total <= r.playouts,
            "{total} {}",
            r.playouts
        );
        for pair in r.candidates.windows(2) {
            assert!(pair[0].visits >= pair[1].visits);
        }
        for m in &r.candidates {
            assert!((0.0..=1.0).contains(&m.win_rate) && m.lcb <= m.win_rate);
            assert!((0.0..=1.0).contains(&m.prior));
            assert_eq!(m.pv.first(), Some(&m.mv));
            let mut line = g.clone();
            for &mv in &m.pv {
                let c = line.to_move();
                line.play(c, mv).unwrap();
            }
        }
        // The best line goes deeper than one move after 2000 playouts.
        assert!(r.candidates[0].pv.len() >= 3, "{:?}", r.candidates[0].pv);
        // White, to move after Black's centre stone with komi 7.5 on 9x9,
        // is about even; the lead is in points, not in a wild range.
        let lead = r.score_lead().unwrap();
        assert!(lead.abs() < 40.0, "{lead}");
        let (own, sd) = r.ownership.unwrap();
        let centre = g.board().point(4, 4) as usize;
        assert!(own[centre] > 0.5, "{}", own[centre]);
        assert!((0.0..=1.0).contains(&sd[centre]));
    }

    #[test]
    fn avoided_moves_are_not_searched_and_allowed_ones_are_the_only_ones() {
        let g = Game::new(9, Rules::default(), 7.5);
        let b = g.board();
        let avoided = vec![
            Some(b.point(4, 4)),
            Some(b.point(2, 2)),
            Some(b.point(6, 6)),
        ];
        let rules = MoveRules {
            avoid: vec![(Color::Black, avoided.clone(), 1)],
            allow: None,
        };
        let r = searched(&g, 500, Some(rules));
        assert!(
            r.candidates
                .iter()
                .all(|m| m.mv.is_none() || !avoided.contains(&m.mv))
        );
        let allowed = vec![Some(b.point(2, 6)), Some(b.point(6, 2))];
        let rules = MoveRules {
            avoid: Vec::new(),
            allow: Some((Color::Black, allowed.clone(), 1)),
        };
        // A pass not listed is kept out too (KataGo's avoidMoveUntilByLoc
        // covers the pass); listed, it is allowed.
        assert!(!rules.permits(Color::Black, None, 1));
        let mut with_pass = rules.clone();
        with_pass.allow.as_mut().unwrap().1.push(None);
        assert!(with_pass.permits(Color::Black, None, 1));
        let r = searched(&g, 500, Some(rules));
        assert!(r.candidates.iter().all(|m| allowed.contains(&m.mv)));
        assert!(r.candidates.iter().any(|m| m.mv.is_some()));
        // Below the depth given, the moves come back.
        let rules = MoveRules {
            avoid: vec![(Color::White, avoided.clone(), 1)],
            allow: None,
        };
        assert!(rules.permits(Color::White, avoided[0], 2));
        assert!(!rules.permits(Color::White, avoided[0], 1));
        assert!(rules.permits(Color::Black, avoided[0], 1));
    }
}
