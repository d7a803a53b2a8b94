//! `kosumi bench`: playout speed on empty boards, printed one figure per
//! line in the form scripts read:
//! `bench board=9 policy=light threads=1 playouts_per_s=123456`, and the
//! Aléago lines `bench board=13 policy=full dice=1d6 ... ratio_to_no_dice=R`.

use crate::board::{Board, Color};
use crate::dice::Dice;
use crate::game::Game;
use crate::rules::Rules;
use crate::search::{Budget, Planning, Policy, Rolls, Settings, playout, run_threads};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Playouts per second from an empty `size` board on `threads` threads,
/// each running for `duration`.
pub fn playouts_per_second(
    size: usize,
    policy: Policy,
    dice: Option<Dice>,
    threads: usize,
    duration: Duration,
) -> f64 {
    playouts_per_second_from(&Board::new(size), policy, dice, threads, duration)
}

/// Playouts per second from `start` on `threads` threads.
pub fn playouts_per_second_from(
    start_board: &Board,
    policy: Policy,
    dice: Option<Dice>,
    threads: usize,
    duration: Duration,
) -> f64 {
    let counts: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                scope.spawn(move || {
                    let empty = start_board.clone();
                    let rolls = dice.map(|d| Rolls::new(d, &empty));
                    let mut rng = SmallRng::seed_from_u64(i as u64 + 1);
                    let start = Instant::now();
                    let mut n = 0u64;
                    let mut b = empty.clone();
                    b.keep_lines(false); // dice playouts take them back
                    while start.elapsed() < duration {
                        for _ in 0..16 {
                            b.copy_from(&empty);
                            playout(
                                &mut b,
                                Color::Black,
                                policy,
                                &mut rng,
                                rolls.as_ref(),
                                [None, None],
                                |_, _| {},
                            );
                        }
                        n += 16;
                    }
                    n
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread"))
            .collect()
    });
    counts.iter().sum::<u64>() as f64 / duration.as_secs_f64()
}

/// Prints the benchmark lines for the given sizes and thread counts.
pub fn run(sizes: &[usize], threads: &[usize], seconds: f64) {
    for &size in sizes {
        for (policy, label) in [(Policy::Light, "light"), (Policy::Full, "full")] {
            for &t in threads {
                let rate =
                    playouts_per_second(size, policy, None, t, Duration::from_secs_f64(seconds));
                println!("bench board={size} policy={label} threads={t} playouts_per_s={rate:.0}");
            }
        }
    }
    // Tree search from a middle-game position (the same position each run).
    for &size in sizes {
        let game = middle_game(size);
        for &t in threads {
            let rate = tree_playouts_per_second(&game, t, Duration::from_secs_f64(seconds));
            println!("bench board={size} policy=tree threads={t} playouts_per_s={rate:.0}");
        }
    }
    // Phantom Go: the determinized search's playouts (each after placing
    // the unseen stones at random) against plain playouts from the true
    // position, on the middle-game position seen by Black.
    for &size in sizes {
        let time = Duration::from_secs_f64(seconds);
        let (determinized, plain) = phantom_playouts_per_second(size, time);
        println!(
            "bench board={size} policy=phantom threads=1 playouts_per_s={determinized:.0} ratio_to_plain={:.2}",
            determinized / plain
        );
    }
    // Aléago: the same playouts under 1d6 on 13x13, and without dice for the
    // ratio, measured side by side.
    if !sizes.contains(&13) {
        return;
    }
    let d = Dice::parse("1d6").expect("a valid spec");
    for (policy, label) in [(Policy::Light, "light"), (Policy::Full, "full")] {
        let time = Duration::from_secs_f64(seconds);
        let plain = playouts_per_second(13, policy, None, 1, time);
        let rolled = playouts_per_second(13, policy, Some(d), 1, time);
        println!(
            "bench board=13 policy={label} dice=1d6 threads=1 playouts_per_s={rolled:.0} ratio_to_no_dice={:.2}",
            rolled / plain
        );
    }
}

/// A reproducible middle-game position: a quarter of the board filled by
/// seeded playout-policy moves.
pub fn middle_game(size: usize) -> Game {
    let mut game = Game::new(size, Rules::default(), 7.5);
    let mut rng = SmallRng::seed_from_u64(2026);
    let mut moves = Vec::new();
    let mut b = game.board().clone();
    playout(
        &mut b,
        Color::Black,
        Policy::Full,
        &mut rng,
        None,
        [None, None],
        |c, p| moves.push((c, p)),
    );
    for (c, p) in moves.into_iter().take(size * size / 4) {
        if game.play(c, Some(p)).is_err() {
            break;
        }
    }
    game
}

/// Tree-search playouts per second from `game` on `threads` threads.
pub fn tree_playouts_per_second(game: &Game, threads: usize, duration: Duration) -> f64 {
    let settings = Settings {
        budget: Budget {
            playouts: None,
            time: Some(duration),
        },
        seed: 1,
        cleanup: false,
        max_nodes: 4_000_000,
    };
    let start = Instant::now();
    let (_, _, playouts) = run_threads(
        game,
        &settings,
        threads,
        Planning::Chance,
        &AtomicBool::new(false),
        &mut crate::search::Tree::default(),
    );
    playouts as f64 / start.elapsed().as_secs_f64()
}

/// Determinized playouts per second of the phantom player (light policy)
/// from the middle-game position as Black sees it (its own stones; White's
/// unseen), and plain light playouts per second from the true position.
pub fn phantom_playouts_per_second(size: usize, duration: Duration) -> (f64, f64) {
    use crate::phantom::announcement::{Line, Outcome};
    use crate::phantom::player::{Mode, Player, Settings as PlayerSettings};
    let truth = middle_game(size);
    let board = truth.board();
    let stones = |c: Color| {
        board
            .points()
            .filter(move |&p| board.color_at(p) == Some(c))
    };
    let mut view = Game::new(size, Rules::default(), 7.5);
    let black: Vec<(Color, _)> = stones(Color::Black).map(|p| (Color::Black, p)).collect();
    view.setup(&black, false).expect("a subset of a position");
    let white = stones(Color::White).count();
    view.set_to_move(Color::Black);
    let mut player = Player::new(
        1,
        crate::phantom::Kind::Go,
        crate::phantom::options::Options::preset("seed").expect("a preset"),
        &view,
    );
    for _ in 0..white {
        player
            .hear(&mut view, 2, &Line::Outcome(Outcome::Accepted))
            .expect("an opponent's move");
    }
    let settings = PlayerSettings {
        mode: Mode::Determinized,
        policy: Policy::Light,
        budget: Budget {
            playouts: None,
            time: Some(duration),
        },
        seed: 1,
        max_nodes: 0,
    };
    let start = Instant::now();
    let (_, n) = player.search_determinized(&view, &settings, &AtomicBool::new(false));
    let determinized = n as f64 / start.elapsed().as_secs_f64();
    // Plain: the same playouts from the true position, no sampling.
    let plain = playouts_per_second_from(truth.board(), Policy::Light, None, 1, duration);
    (determinized, plain)
}
