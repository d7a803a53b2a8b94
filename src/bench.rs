//! `kosumi bench`: playout speed on empty boards, printed one figure per
//! line in the form scripts read:
//! `bench board=9 policy=light threads=1 playouts_per_s=123456`.

use crate::board::{Board, Color};
use crate::search::{Policy, playout};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::time::{Duration, Instant};

/// Playouts per second from an empty `size` board on `threads` threads,
/// each running for `duration`.
pub fn playouts_per_second(size: usize, policy: Policy, threads: usize, duration: Duration) -> f64 {
    let counts: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                scope.spawn(move || {
                    let empty = Board::new(size);
                    let mut rng = SmallRng::seed_from_u64(i as u64 + 1);
                    let start = Instant::now();
                    let mut n = 0u64;
                    while start.elapsed() < duration {
                        for _ in 0..16 {
                            let mut b = empty.clone();
                            playout(&mut b, Color::Black, policy, &mut rng, None, |_, _| {});
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
                let rate = playouts_per_second(size, policy, t, Duration::from_secs_f64(seconds));
                println!("bench board={size} policy={label} threads={t} playouts_per_s={rate:.0}");
            }
        }
    }
}
