//! The view search: the ordinary search on the seat's view (the network's
//! PUCT, or Monte Carlo UCT), as if it were the whole board, with the
//! probes an atari announcement asks for and the tries it keeps away from
//! (refused ones, self-ataris and thinning joins on the view, and in
//! Phantom Rengo the seat's own enclosures).

use super::{Player, Settings};
use crate::go::board::{Board, Color, Point};
use crate::go::game::Game;
use crate::nn::Evaluator;
use crate::phantom::Kind;
use crate::phantom::enclosure::in_enclosure;
use crate::search::puct::{self, NetTree};
use crate::search::{self, Decision, MoveRules, Report, Watch};
use std::sync::atomic::AtomicBool;

impl Player {
    /// The probe's first try still open on `view`, a kill's first: not
    /// refused, not suicide on the view (a try must stand on it). A probe
    /// may go into the seat's own enclosure: the chain it hunts, rescues
    /// or kills is where the view shows none.
    fn probe_try(&self, view: &Game) -> Option<Point> {
        let board = view.board();
        let me = self.color();
        self.kill(view)
            .into_iter()
            .chain(self.probe)
            .flat_map(|probe| probe.tries(board, me))
            .find(|&q| !self.barred(q) && board.check(me, q, view.rules.suicide).is_ok())
    }

    /// Whether a try at `p` lies in an empty region of the view that only
    /// this seat's stones border ([`enclosure`](super::enclosure)), where
    /// the view shows the face-to-face opponent's moves (Phantom Rengo
    /// with views of their own): its own area, which the partner may be
    /// filling from the other board. In Phantom Go the view shows no
    /// opponent move, so every region would look enclosed.
    fn fills_own_enclosure(&self, board: &Board, p: Point) -> bool {
        self.kind == Kind::Rengo
            && !self.options.shared_view
            && in_enclosure(board, self.color(), p)
    }

    /// The view search: the probe's first open try where an atari on the
    /// seat's last stone or on the faced opponent's asks for one, else the
    /// ordinary search on the view (the network's, where `network` is
    /// given; Monte Carlo otherwise), its choice kept to the points not
    /// refused this turn and no self-atari on the view: a stone that has
    /// one liberty on the view has at most one on the true board, where the
    /// opponent's unseen stones take away more (in 32 Rengo records of
    /// games against GNU Go, 2026-11-23, commit 6aee08a, 307 of 327 such tries were announced `atari
    /// self`: 58% of the 529 self-ataris of the kosumi seats), no thinning
    /// join ([`thins_own_chain`]), and in Phantom Rengo none in the seat's
    /// own enclosure ([`Player::fills_own_enclosure`]). The determinized
    /// player does without the probes: its samples weigh those tries
    /// already, and with the probes it won 45 of 100 Phantom Go games
    /// against itself without.
    pub(super) fn choose_on_view(
        &self,
        view: &Game,
        settings: &Settings,
        network: Option<&Evaluator>,
        stop: &AtomicBool,
    ) -> Decision {
        if let Some(p) = self.probe_try(view) {
            return Decision::Play(p);
        }
        let mut game = view.clone();
        game.set_to_move(self.color());
        let board = view.board();
        let open = |p: Point| {
            !self.barred(p)
                && !board.is_self_atari(self.color(), p)
                && !thins_own_chain(board, self.color(), p)
                && !self.fills_own_enclosure(board, p)
        };
        if let Some(net) = network {
            return self.choose_with_network(&game, net, settings, stop, open);
        }
        let how = settings.search;
        let search = search::mc::McSearch::new(&game, settings.seed, how.max_nodes);
        let s = search::mc::McSettings {
            budget: settings.budget,
            seed: settings.seed,
            cleanup: false,
            max_nodes: how.max_nodes,
            patterns: how.mc.patterns,
        };
        let (decision, _) = search.run(&s, how.threads, stop);
        match decision {
            Decision::Play(p) if !open(p) => {
                // The best of the others.
                let mut stats = search.root_stats();
                stats.sort_by(|a, b| b.visits.total_cmp(&a.visits));
                stats
                    .iter()
                    .find(|m| m.mv.is_none_or(open))
                    .map_or(Decision::Pass, |m| {
                        m.mv.map_or(Decision::Pass, Decision::Play)
                    })
            }
            other => other,
        }
    }

    /// The network's search on the view (`game`, this seat to move), its
    /// root kept to the `open` points and pass; the settings' budget counts
    /// visits. A view whose last two moves are the seat's own passes (no
    /// stone learned of between them) is a finished game to the search,
    /// and the seat passes again: searching its stones afresh instead did
    /// no better (docs/phantom.md).
    fn choose_with_network(
        &self,
        game: &Game,
        net: &Evaluator,
        settings: &Settings,
        stop: &AtomicBool,
        open: impl Fn(Point) -> bool,
    ) -> Decision {
        let closed: Vec<Point> = game
            .board()
            .empty_points()
            .iter()
            .copied()
            .filter(|&p| !open(p))
            .collect();
        let mut ignore = |_: &Report| {};
        let keep_to_open = MoveRules {
            avoid: vec![(self.color(), closed.into_iter().map(Some).collect(), 1)],
            allow: None,
        };
        let watch = Watch::quiet(Some(keep_to_open), &mut ignore);
        let out = puct::search_watched(
            game,
            net,
            view_params(settings),
            stop,
            &mut NetTree::default(),
            Some(watch),
        );
        out.decision
    }
}

/// How the network's search on a view runs: as the engine's search
/// configuration says (its threads, tree bound and KataGo's refinements),
/// with the seat's budget and seed.
fn view_params(settings: &Settings) -> puct::PuctParams {
    puct::PuctParams::of(settings.search, settings.budget, settings.seed)
}

/// Whether `me` at `p` joins chains of its own, none of them in atari on
/// the view, into one with two liberties there, capturing nothing: a
/// stone that adds to a chain's size and not to its liberties, where one
/// unseen opponent stone makes it a self-atari. In 20 Rengo games on
/// 13×13 (kosumi's view search against GNU Go, docs/phantom.md) 25 of 97
/// such tries were announced `atari self`, against 14 of 279 lone stones
/// left with three liberties.
fn thins_own_chain(board: &Board, me: Color, p: Point) -> bool {
    let mut joins = false;
    for q in board.neighbors(p) {
        match board.color_at(q) {
            Some(c) if c == me && board.liberties(q) < 2 => return false,
            Some(c) if c == me => joins = true,
            Some(_) if board.liberties(q) == 1 => return false,
            _ => {}
        }
    }
    joins && board.liberties_after(me, p, 3) == 2
}

#[cfg(test)]
mod tests {
    use super::super::tests::{line, pt};
    use super::*;
    use crate::go::rules::Rules;
    use crate::phantom::options::Options;
    use crate::phantom::player::{Mode, stand};
    use crate::phantom::probe::Probe;
    use crate::search::Budget;
    use crate::search::mc::Policy;
    /// View-search settings for tests: light playouts, a fixed budget.
    fn view_settings(playouts: u64, seed: u64) -> Settings<'static> {
        Settings {
            mode: Mode::View,
            policy: Policy::Light,
            budget: Budget {
                playouts: Some(playouts),
                time: None,
            },
            seed,
            search: crate::phantom::player::tests::search_config(10_000, false),
            network: None,
        }
    }

    #[test]
    fn an_atari_on_the_last_stone_makes_the_next_turn_probe() {
        let settings = view_settings(50, 1);
        let stop = AtomicBool::new(false);
        let mut view = Game::new(9, Rules::default(), 7.5);
        let mut p = Player::new(1, Kind::Go, Options::preset("seed").unwrap(), &view);
        // Black's E5 puts a white chain in atari: the next turn tries
        // E5's neighbours, and after E6 shows a white stone, the points
        // next to it.
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("E5"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari white 1")).unwrap();
        assert_eq!(p.probe(), Some(Probe::Hunt(pt("E5").unwrap())));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let grid = Board::new(9);
        let near = |d: Decision, around: &str| match d {
            Decision::Play(q) => grid.neighbors(pt(around).unwrap()).contains(&q),
            _ => false,
        };
        assert!(near(p.choose(&view, &settings, &stop), "E5"));
        p.put_try(&mut view, pt("E6"));
        p.hear(&mut view, 1, &line("illegal occupied white"))
            .unwrap();
        let d = p.choose(&view, &settings, &stop);
        assert!(near(d, "E6"), "{d:?}");
        assert_ne!(d, Decision::Play(pt("E5").unwrap()));
        // An accepted try ends the hunt; a self-atari of a lone stone asks
        // for no rescue, of two stones it does, once.
        p.put_try(&mut view, pt("D6"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), None);
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        p.put_try(&mut view, pt("D5"));
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), Some(Probe::Rescue(pt("D5").unwrap())));
        p.hear(&mut view, 2, &line("accepted")).unwrap();
        let d = p.choose(&view, &settings, &stop);
        let chain_libs = ["C5", "D4", "C6", "D7", "F5", "E4"].map(pt);
        assert!(
            chain_libs.iter().any(|&q| d == Decision::Play(q.unwrap())),
            "{d:?}"
        );
        p.put_try(
            &mut view,
            match d {
                Decision::Play(q) => Some(q),
                _ => None,
            },
        );
        p.hear(&mut view, 1, &line("accepted")).unwrap();
        p.hear(&mut view, 1, &line("atari self")).unwrap();
        assert_eq!(p.probe(), None, "a rescue is not rescued again");
    }

    /// The line (1 at the edge) of the first try of a Rengo seat on an
    /// empty 13×13 view, with or without the learned patterns, per seed.
    fn first_try_lines(patterns: bool) -> Vec<u32> {
        let stop = AtomicBool::new(false);
        (1..=8)
            .map(|seed| {
                let view = Game::new(13, Rules::default(), 7.5);
                let p = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
                let settings = Settings {
                    search: crate::phantom::player::tests::search_config(10_000, patterns),
                    ..view_settings(100, seed)
                };
                match p.choose(&view, &settings, &stop) {
                    Decision::Play(q) => view.board().line(q),
                    _ => 0,
                }
            })
            .collect()
    }

    #[test]
    fn the_view_search_takes_the_learned_patterns_when_asked() {
        // Strong players open on the third and fourth lines; at 100
        // playouts the search alone has not found that out.
        let near_the_corners = |lines: &[u32]| lines.iter().all(|l| (3..=4).contains(l));
        let on = first_try_lines(true);
        assert!(near_the_corners(&on), "{on:?}");
        let off = first_try_lines(false);
        assert!(!near_the_corners(&off), "the control: {off:?}");
    }

    /// A 5×5 view from rows of `X`, `O` and `.`, the top row first.
    fn view_of(rows: &[&str; 5]) -> Game {
        let mut view = Game::new(5, Rules::default(), 0.5);
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.split(' ').enumerate() {
                let color = match cell {
                    "X" => Color::Black,
                    "O" => Color::White,
                    _ => continue,
                };
                let p = view.board().point(c, 4 - r);
                assert!(stand(&mut view, color, p));
            }
        }
        view
    }

    #[test]
    fn a_rengo_seat_does_not_fill_its_own_enclosure() {
        // Black's view: B1-C2 is walled by black stones alone (a try
        // there leaves the wall three liberties: no thinning join), the
        // top row's points are self-ataris; pass is the open choice. In
        // Phantom Go the same view has every region "enclosed", and the
        // rule is off.
        let view = view_of(&[
            ". . O . .",
            "O O O O O",
            "X X X X X",
            "X . . X X",
            "X . . X X",
        ]);
        let enclosed = ["B1", "C1", "B2", "C2"].map(|v| {
            crate::go::vertex::parse_vertex(v, 5)
                .expect("vertex")
                .expect("not a pass")
        });
        let stop = AtomicBool::new(false);
        let mut filled_in_go = 0;
        for seed in 0..8 {
            let settings = view_settings(300, seed);
            let rengo = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
            let d = rengo.choose(&view, &settings, &stop);
            assert_eq!(d, Decision::Pass, "seed {seed}");
            let go = Player::new(1, Kind::Go, Options::preset("seed").unwrap(), &view);
            if let Decision::Play(q) = go.choose(&view, &settings, &stop) {
                filled_in_go += enclosed.contains(&q) as usize;
            }
        }
        assert!(
            filled_in_go > 0,
            "the view search never fills it: the test shows nothing"
        );
    }

    #[test]
    fn the_view_search_tries_no_self_atari_on_the_view() {
        // Black's view: its points to the top row are self-ataris (one
        // liberty each), the rest its own eyes; pass is the open choice.
        let view = view_of(&[
            ". . O . .",
            "O O O O O",
            "X X X X X",
            "X . X . X",
            "X X X X X",
        ]);
        let p = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
        let stop = AtomicBool::new(false);
        for seed in 0..6 {
            let settings = view_settings(300, seed);
            let d = p.choose(&view, &settings, &stop);
            if let Decision::Play(q) = d {
                assert!(!view.board().is_self_atari(Color::Black, q), "{d:?}");
            }
        }
    }

    /// Settings of the network's view search at `visits`.
    fn net_settings(net: &Evaluator, visits: u64) -> Settings<'_> {
        Settings {
            mode: Mode::Net,
            network: Some(net),
            ..view_settings(visits, 1)
        }
    }

    #[test]
    fn the_view_search_runs_as_the_search_configuration_says() {
        let mut config = crate::search::SearchConfig {
            threads: 3,
            max_nodes: 5_000,
            ..Default::default()
        };
        config.puct.set("useLcbForSelection=false").unwrap();
        let settings = Settings {
            search: &config,
            ..view_settings(40, 9)
        };
        let params = view_params(&settings);
        assert_eq!(params.threads, 3);
        assert_eq!(params.max_nodes, 5_000);
        assert_eq!(params.puct, config.puct);
        assert_ne!(params.puct, crate::search::Puct::default());
        assert_eq!((params.budget, params.seed), (settings.budget, 9));
        // And the Monte Carlo view search on two threads spends the budget
        // shared, as one search.
        let view = Game::new(9, Rules::default(), 7.5);
        let p = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
        let d = p.choose(&view, &settings, &AtomicBool::new(false));
        assert!(
            matches!(d, Decision::Play(q) if view.check(Color::Black, q).is_ok()),
            "{d:?}"
        );
    }

    #[test]
    fn the_network_on_the_view_keeps_to_the_open_points() {
        // The network's search on an empty view, every point above the
        // first line refused this turn: it tries the first line or
        // passes; left to itself it plays above it.
        let net = Evaluator::embedded();
        let stop = AtomicBool::new(false);
        let settings = net_settings(&net, 24);
        let view = Game::new(9, Rules::default(), 7.5);
        let board = view.board();
        let mut game = view.clone();
        game.set_to_move(Color::Black);
        let free = puct::search(
            &game,
            &net,
            settings.budget,
            1,
            &stop,
            &mut NetTree::default(),
        );
        assert!(
            matches!(free.decision, Decision::Play(q) if board.line(q) > 1),
            "the control: {:?}",
            free.decision
        );
        let mut p = Player::new(1, Kind::Rengo, Options::preset("seed").unwrap(), &view);
        p.refused = board.points().filter(|&q| board.line(q) > 1).collect();
        // One visit only expands the root: the move is then the open one
        // with the highest prior.
        for visits in [1, 24] {
            let d = p.choose(&view, &net_settings(&net, visits), &stop);
            assert!(
                matches!(d, Decision::Pass) || matches!(d, Decision::Play(q) if board.line(q) == 1),
                "{visits} visits: {d:?}"
            );
        }
    }

    #[test]
    fn a_rengo_seat_kills_the_chain_its_faced_opponent_put_in_atari() {
        // The seat sees its stone A2; the opponent it faces plays B2,
        // announced `atari self`: its view liberties are B1, C2 and B3,
        // and two of them hold unseen stones. The next turn tries them
        // until one is accepted: after each refusal (a stone of the
        // seat's colour shown), another of them. Seat 1 hears seats 3 and
        // 4 before its turn; seat 2's turn comes right after seat 1's
        // stone. The same stone heard with no atari asks for nothing.
        let settings = view_settings(50, 1);
        let stop = AtomicBool::new(false);
        for seat in [1, 2] {
            let me = crate::phantom::seat_color(seat);
            let faced = 3 - seat;
            let start = |atari: bool| {
                let mut view = Game::new(9, Rules::default(), 7.5);
                view.setup(&[(me, pt("A2").unwrap())], false).unwrap();
                let seed = Options::preset("seed").unwrap();
                let mut p = Player::new(seat, Kind::Rengo, seed, &view);
                p.hear(&mut view, faced, &line("accepted")).unwrap();
                if atari {
                    p.hear(&mut view, faced, &line("atari self")).unwrap();
                }
                assert!(stand(&mut view, me.opponent(), pt("B2").unwrap()));
                let between: &[usize] = if seat == 1 { &[3, 4] } else { &[] };
                for &other in between {
                    p.hear(&mut view, other, &line("accepted")).unwrap();
                }
                (p, view)
            };
            let (quiet, view) = start(false);
            assert_eq!(quiet.kill(&view), None);
            let (mut p, mut view) = start(true);
            assert_eq!(p.kill(&view), Some(Probe::Kill(pt("B2").unwrap())));
            let mut libs = vec![pt("B1"), pt("C2"), pt("B3")];
            let revealed = format!("illegal occupied {}", crate::go::vertex::color_name(me));
            for _ in 0..2 {
                let tried = p.choose_try(&mut view, &settings, &stop);
                assert!(libs.contains(&tried), "seat {seat}: {tried:?}");
                libs.retain(|&q| q != tried);
                p.hear(&mut view, seat, &line(&revealed)).unwrap();
                assert_eq!(p.kill(&view), Some(Probe::Kill(pt("B2").unwrap())));
            }
            assert_eq!(p.choose_try(&mut view, &settings, &stop), libs[0]);
            // Accepted: it captures, and the kill is over.
            p.hear(&mut view, seat, &line("accepted")).unwrap();
            assert_eq!(p.kill(&view), None);
        }
    }

    #[test]
    fn a_thinning_join_is_one_that_adds_a_stone_and_no_liberty() {
        // Black B2-C2 has A2 and D2. At D2 it keeps two (A2, D3); at A2 it
        // gains (A3, A1, D2); E4 joins nothing. With B2-C2 in atari (a
        // white stone at A2) the extension at D2 is an escape.
        let view = view_of(&[
            ". . . . .",
            ". . . . .",
            ". O O . .",
            ". X X . O",
            ". O O O .",
        ]);
        let b = view.board();
        let at = |v: &str| crate::go::vertex::parse_vertex(v, 5).unwrap().unwrap();
        assert!(thins_own_chain(b, Color::Black, at("D2")));
        assert!(!thins_own_chain(b, Color::Black, at("A2")));
        assert!(!thins_own_chain(b, Color::Black, at("E4")));
        let mut atari = view.clone();
        assert!(stand(&mut atari, Color::White, at("A2")));
        assert!(!thins_own_chain(atari.board(), Color::Black, at("D2")));
    }
}
