//! How many threads run at once. kosumi's searches are bound by the
//! processor: a thread beyond the cores only takes turns with another, and
//! a KataGo config made for a GPU asks for far more (KaTrain's: 12
//! analysis threads × 8 search threads, 96 on a laptop's 8 cores). So a
//! search runs at most as many threads as the machine has cores
//! ([`search_threads`]), the JSON engine searches at most as many
//! positions at once as leave each its threads ([`plan`]), and a thread
//! the system refuses to start means fewer threads, never an abort
//! ([`spawn_scoped`]; [`spawn_or_run`] for work that must be done, run on
//! the caller's thread then).

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{Scope, ScopedJoinHandle};

/// The cores this process may run on (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The physical cores this process may run on (at least 1): a search's
/// threads by default, as Leela Zero's and Pachi's. A core's second
/// hardware thread adds little to a search bound by its arithmetic.
pub fn physical_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        let all = cores();
        super::os::physical_cores().map_or(all, |n| n.clamp(1, all))
    })
}

/// The threads a search runs for `asked`: at least one, at most the cores.
pub fn search_threads(asked: usize) -> usize {
    asked.clamp(1, cores())
}

/// The threads of each search and the positions searched at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub search_threads: usize,
    pub positions: usize,
}

/// What runs at once for `search_threads` a search and `positions` at
/// once on `cores` cores: each search at most the cores, and the positions
/// at most as many as the cores give each its threads (one at least).
/// With a sentence saying what was cut, where something was.
pub fn plan(search_threads: usize, positions: usize, cores: usize) -> (Plan, Option<String>) {
    let cores = cores.max(1);
    let threads = search_threads.clamp(1, cores);
    let at_once = positions.clamp(1, (cores / threads).max(1));
    let plan = Plan {
        search_threads: threads,
        positions: at_once,
    };
    let asked = Plan {
        search_threads: search_threads.max(1),
        positions: positions.max(1),
    };
    let note = (plan != asked).then(|| {
        format!(
            "{} search threads × {} positions at once asked for, {cores} cores here: \
             running {threads} × {at_once} (more only take turns on the cores)",
            asked.search_threads, asked.positions
        )
    });
    (plan, note)
}

/// Starts `f` on a new scoped thread, or says why not: a refused thread
/// (the system's limit on threads or memory) is written to stderr once a
/// process, and the caller goes on with the threads it has.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Option<ScopedJoinHandle<'scope, T>> {
    static SAID: AtomicBool = AtomicBool::new(false);
    match std::thread::Builder::new().spawn_scoped(scope, f) {
        Ok(handle) => Some(handle),
        Err(e) => {
            if !SAID.swap(true, Ordering::Relaxed) {
                crate::say!("kosumi: a thread could not be started ({e}); going on with fewer");
            }
            None
        }
    }
}

/// Work started by [`spawn_or_run`]: on its own thread, or done already
/// on the caller's.
pub enum Running<'scope, T> {
    Thread(ScopedJoinHandle<'scope, T>),
    Done(T),
}

impl<T> Running<'_, T> {
    /// The work's result (`Err` where its thread panicked).
    pub fn join(self) -> std::thread::Result<T> {
        match self {
            Running::Thread(handle) => handle.join(),
            Running::Done(value) => Ok(value),
        }
    }
}

/// Starts `f` on a new scoped thread, or runs it here where the system
/// refuses one (said once): the work is done either way.
pub fn spawn_or_run<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + Clone + 'scope,
) -> Running<'scope, T> {
    match spawn_scoped(scope, f.clone()) {
        Some(handle) => Running::Thread(handle),
        None => Running::Done(f()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_runs_at_once_is_capped_by_the_cores() {
        // KaTrain's GPU config on two cores: one position at a time, two
        // threads each.
        let (p, note) = plan(8, 12, 2);
        assert_eq!(
            p,
            Plan {
                search_threads: 2,
                positions: 1
            }
        );
        assert!(note.unwrap().contains("8 search threads × 12 positions"));
        // Within the cores nothing changes and nothing is said.
        assert_eq!(
            plan(2, 4, 8),
            (
                Plan {
                    search_threads: 2,
                    positions: 4
                },
                None
            )
        );
        // Zeros read as one; a huge ask is cut to the cores.
        assert_eq!(
            plan(0, 0, 4).0,
            Plan {
                search_threads: 1,
                positions: 1
            }
        );
        assert_eq!(
            plan(100_000, 100_000, 16).0,
            Plan {
                search_threads: 16,
                positions: 1
            }
        );
        assert_eq!(
            plan(1, 100_000, 16).0,
            Plan {
                search_threads: 1,
                positions: 16
            }
        );
        assert!((1..=cores()).contains(&search_threads(100_000)));
        assert_eq!(search_threads(0), 1);
    }

    #[test]
    fn a_scoped_thread_runs_or_says_why_not() {
        let value =
            std::thread::scope(|scope| spawn_scoped(scope, || 7).map(|h| h.join().unwrap()));
        assert_eq!(value, Some(7));
    }
}
