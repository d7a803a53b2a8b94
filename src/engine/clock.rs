//! The game clock as the controller describes it (`time_settings`,
//! `kgs-time_settings`, `time_left`) and the time the engine gives itself for
//! one move so that it never loses on time.

use std::time::Duration;

/// The time system of a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSystem {
    /// No limit.
    None,
    /// Main time only.
    Absolute { main: f64 },
    /// Main time, then `periods` periods of `period` seconds (a move made
    /// within a period does not use it up).
    ByoYomi {
        main: f64,
        period: f64,
        periods: u32,
    },
    /// Main time, then `stones` moves in every `period` seconds.
    Canadian { main: f64, period: f64, stones: u32 },
}

/// What the controller last said about one player's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Left {
    seconds: f64,
    /// 0 in main time; else stones (Canadian) or periods (byo-yomi) left.
    stones: u32,
}

/// Time settings plus the latest `time_left` per colour.
#[derive(Clone, Debug)]
pub struct Clock {
    pub system: TimeSystem,
    left: [Option<Left>; 2],
}

/// Seconds kept back from a move for the controller's and the operating
/// system's delays (KataGo's `lagBuffer` is 1 s), at most a fifth of the
/// move's share.
const SAFETY: f64 = 0.3;

/// What a move costs beyond its search: at least one evaluation, the
/// input planes, the protocol's round trip. Main time keeps this much for
/// every move still to come, so that a game that goes on longer than
/// planned is still answered in time, by a search of one visit at worst.
const MOVE_COST: f64 = 0.015;

/// The longest the engine thinks on one move, whatever the clock allows
/// (a main time of 1e300 seconds means no limit, not a search without end).
pub const LONGEST_MOVE: f64 = 3600.0;

/// A duration in seconds as a command line gives one: a finite number more
/// than 0 and at most [`LONGEST_MOVE`], or why not.
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= LONGEST_MOVE => Ok(v),
        Ok(v) if v.is_finite() => Err(format!(
            "'{s}' is not more than 0 and at most {LONGEST_MOVE} seconds"
        )),
        _ => Err(format!("'{s}' is not a finite number")),
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            system: TimeSystem::None,
            left: [None; 2],
        }
    }
}

impl Clock {
    /// GTP `time_settings main byo_yomi_time byo_yomi_stones`.
    pub fn gtp_settings(main: f64, byo: f64, stones: u32) -> Clock {
        let system = if byo > 0.0 && stones == 0 {
            TimeSystem::None // GTP: byo-yomi time without stones means no limit
        } else if byo == 0.0 && stones == 0 {
            if main > 0.0 {
                TimeSystem::Absolute { main }
            } else {
                TimeSystem::None // 0 0 0: no time at all makes no game; GNU Go reads it as no limit
            }
        } else {
            TimeSystem::Canadian {
                main,
                period: byo,
                stones,
            }
        };
        Clock {
            system,
            left: [None; 2],
        }
    }

    pub fn with_system(system: TimeSystem) -> Clock {
        Clock {
            system,
            left: [None; 2],
        }
    }

    /// GTP `time_left color seconds stones`.
    pub fn set_left(&mut self, color: usize, seconds: f64, stones: u32) {
        self.left[color] = Some(Left { seconds, stones });
    }

    /// How long to think for the next move of `color`, with `empty` of the
    /// board's `area` points left empty; `None` when there is no limit.
    pub fn budget(&self, color: usize, empty: usize, area: usize) -> Option<Duration> {
        let (main, period, count, is_canadian) = match self.system {
            TimeSystem::None => return None,
            TimeSystem::Absolute { main } => (main, 0.0, 0, false),
            TimeSystem::ByoYomi {
                main,
                period,
                periods,
            } => (main, period, periods, false),
            TimeSystem::Canadian {
                main,
                period,
                stones,
            } => (main, period, stones, true),
        };
        let left = self.left[color].unwrap_or(Left {
            seconds: if main > 0.0 { main } else { period },
            stones: if main > 0.0 { 0 } else { count },
        });
        // Moves still to come for this player: more in the opening, with a
        // floor of a board's side so that the last main time is not spent
        // at once, however long the game goes on.
        let side = (area as f64).sqrt();
        let moves_to_come = (empty as f64 / 2.0).max(side).max(12.0);
        let seconds = if left.stones == 0 {
            // Main time; byo-yomi or Canadian afterwards lets us spend a
            // little more freely, absolute time must last to the end.
            let spendable = (left.seconds - moves_to_come * MOVE_COST).max(0.0);
            let share = spendable / moves_to_come * stage_share(empty, area, moves_to_come);
            let after = if count > 0 && period > 0.0 {
                if is_canadian {
                    period / count as f64
                } else {
                    period
                }
            } else {
                0.0
            };
            share.max(after * 0.8).min(left.seconds * 0.5 + after * 0.8)
        } else if is_canadian {
            left.seconds / left.stones as f64
        } else {
            // Byo-yomi: `left.seconds` remain in the current period.
            left.seconds.min(period.max(left.seconds))
        };
        // Never less than a millisecond (a search of one visit: the
        // policy's move), whatever is left.
        let seconds = (seconds * 0.9 - SAFETY.min(seconds * 0.2)).clamp(0.001, LONGEST_MOVE);
        Some(Duration::from_secs_f64(seconds))
    }
}

/// How much of an even share of main time a move gets at each stage of the
/// game, by the part of the board already filled: less in the opening (the
/// priors know it), more in the middle game, where fights are decided, and
/// an even share in the endgame.
const STAGES: [(f64, f64); 3] = [(0.1, 0.6), (0.5, 1.4), (f64::INFINITY, 1.0)];

fn stage_weight(filled: f64) -> f64 {
    STAGES
        .iter()
        .find(|&&(upto, _)| filled < upto)
        .map_or(1.0, |s| s.1)
}

/// The next move's weight over the mean weight of the `moves_to_come`
/// moves left to this player (each pair of moves filling two more points
/// of `area`), so that the shares of the moves to come add up to the time
/// left: in the manner of Pachi's time allocation, which also spends more
/// in the middle game.
fn stage_share(empty: usize, area: usize, moves_to_come: f64) -> f64 {
    if area == 0 {
        return 1.0;
    }
    let area = area as f64;
    let filled = 1.0 - (empty as f64 / area).min(1.0);
    let n = moves_to_come.ceil() as usize;
    let mean = (0..n)
        .map(|k| stage_weight(filled + 2.0 * k as f64 / area))
        .sum::<f64>()
        / n as f64;
    stage_weight(filled) / mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_time_is_shared_out() {
        let mut c = Clock::gtp_settings(300.0, 0.0, 0);
        c.set_left(0, 120.0, 0);
        let t = c.budget(0, 81, 81).unwrap().as_secs_f64();
        assert!(t > 1.0 && t < 12.0, "{t}");
        c.set_left(0, 1.0, 0);
        assert!(c.budget(0, 81, 81).unwrap().as_secs_f64() < 0.5);
    }

    #[test]
    fn the_last_seconds_of_sudden_death_keep_a_reserve_for_the_moves_to_come() {
        let mut c = Clock::gtp_settings(10.0, 0.0, 0);
        // Less than the moves to come cost: a search of one visit.
        for left in [0.0, 0.01, 1.0, 2.0] {
            c.set_left(0, left, 0);
            assert_eq!(
                c.budget(0, 300, 361).unwrap().as_secs_f64(),
                0.001,
                "{left}"
            );
        }
        // Above it, a share of what is above it.
        c.set_left(0, 3.0, 0);
        let t = c.budget(0, 300, 361).unwrap().as_secs_f64();
        assert!(t > 0.001 && t < (3.0 - 150.0 * MOVE_COST) / 100.0, "{t}");
    }

    #[test]
    fn canadian_and_byo_yomi_periods() {
        let mut c = Clock::gtp_settings(0.0, 60.0, 10);
        c.set_left(1, 30.0, 5);
        let t = c.budget(1, 100, 361).unwrap().as_secs_f64();
        assert!(t < 6.0 && t > 4.0, "{t}");
        let mut b = Clock::with_system(TimeSystem::ByoYomi {
            main: 0.0,
            period: 10.0,
            periods: 3,
        });
        b.set_left(0, 10.0, 3);
        let t = b.budget(0, 100, 361).unwrap().as_secs_f64();
        assert!(t < 10.0 && t > 7.0, "{t}");
        assert_eq!(Clock::gtp_settings(0.0, 5.0, 0).budget(0, 10, 81), None);
    }

    #[test]
    fn the_middle_game_gets_more_time_and_absolute_time_lasts() {
        // 30 minutes sudden death on 19x19, each move spending its budget,
        // two points filled a move pair, 300 moves each (captures refill).
        let mut c = Clock::gtp_settings(1800.0, 0.0, 0);
        let mut left = 1800.0;
        let mut spent = Vec::new();
        for k in 0..300usize {
            let empty = 361usize.saturating_sub(2 * k).max(40);
            c.set_left(0, left, 0);
            let t = c.budget(0, empty, 361).unwrap().as_secs_f64();
            left -= t;
            spent.push(t);
            assert!(left > 0.0, "lost on time at move {k}");
        }
        let opening = spent[..15].iter().sum::<f64>() / 15.0;
        let middle = spent[30..80].iter().sum::<f64>() / 50.0;
        assert!(middle > 1.5 * opening, "opening {opening}, middle {middle}");
        // Most of the main time is used by the end.
        assert!(left < 0.5 * 1800.0, "{left}");
    }

    #[test]
    fn a_limitless_clock_still_gives_a_bounded_move() {
        for (main, left) in [(1e300, 1e300), (f64::MAX, f64::MAX), (100.0, f64::INFINITY)] {
            let mut c = Clock::gtp_settings(main, 0.0, 0);
            c.set_left(0, left, 0);
            assert_eq!(c.budget(0, 81, 81).unwrap().as_secs_f64(), LONGEST_MOVE);
        }
    }
}
