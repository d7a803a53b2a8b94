//! The human-like nets' profiles: who is imagined to be playing, as
//! KataGo's `humanSLProfile` names it (`rank_5k`, `preaz_1d`,
//! `rank_3k_7d`, `proyear_1990`), and the 192 metadata inputs a net with
//! KataGo's metadata encoder reads for it (`SGFMetadata::getProfile` and
//! `fillMetadataRow` in KataGo's `neuralnet/sgfmetadata.cpp`): each side's
//! rank, the game's time control and date, the server the games came
//! from, from the side of the player to move.

use crate::go::board::Color;

/// The metadata inputs of a human-like net.
pub const METADATA_INPUTS: usize = 192;

/// Where the games of a profile come from (KataGo's `SOURCE_*`).
const SOURCE_KGS: usize = 2;
const SOURCE_GOGOD: usize = 5;
const SOURCE_GO4GO: usize = 6;

/// The time control a profile's games were played under.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TimeControl {
    Unknown,
    /// Main time, then periods of byo-yomi.
    ByoYomi {
        main_seconds: f64,
        period_seconds: f64,
        periods: i32,
    },
}

/// One of KataGo's profiles, read from its name.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanProfile {
    name: String,
    /// KataGo's inverse ranks: 1 for 9d (and professionals) up to 29 for
    /// 20k, Black's then White's.
    inverse_rank: [i32; 2],
    time_control: TimeControl,
    /// Whether it is unknown if the games were rated (KGS's), rather than
    /// known rated (the professionals').
    rating_unknown: bool,
    /// The game's date as days after 1970-01-01.
    days: i64,
    source: usize,
}

/// The days from 1970-01-01 to `year`-`month`-`day` in the Gregorian
/// calendar (negative before).
fn days_since_epoch(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// KataGo's inverse rank of `text` (`9d` is 1, `1d` 9, `1k` 10, `20k` 29).
fn inverse_rank(text: &str) -> Option<i32> {
    let mut chars = text.chars();
    let kind = chars.next_back()?;
    let n: i32 = chars.as_str().parse().ok()?;
    match kind {
        'd' if (1..=9).contains(&n) => Some(10 - n),
        'k' if (1..=20).contains(&n) => Some(9 + n),
        _ => None,
    }
}

impl HumanProfile {
    /// The profile named `name` as KataGo names them: `rank_R` or
    /// `preaz_R` (a KGS game of 2020, or of 2016 before AlphaZero, both
    /// players of rank R, 20k to 9d), `rank_R1_R2` and `preaz_R1_R2`
    /// (Black's rank, then White's), `proyear_Y` (a professional game of
    /// year Y, 1800 to 2023).
    pub fn parse(name: &str) -> Result<HumanProfile, String> {
        let bad = || {
            format!(
                "'{name}' is not a human profile (rank_5k, rank_3k_1d, preaz_9d, proyear_1990: ranks 20k to 9d, years 1800 to 2023)"
            )
        };
        if let Some(year) = name.strip_prefix("proyear_") {
            let year: i64 = year.parse().map_err(|_| bad())?;
            let source = match year {
                1800..=2020 => SOURCE_GOGOD,
                2021..=2023 => SOURCE_GO4GO,
                _ => return Err(bad()),
            };
            return Ok(HumanProfile {
                name: name.to_string(),
                inverse_rank: [1, 1],
                time_control: TimeControl::Unknown,
                rating_unknown: false,
                days: days_since_epoch(year, 6, 1),
                source,
            });
        }
        let (ranks, days) = if let Some(ranks) = name.strip_prefix("rank_") {
            (ranks, days_since_epoch(2020, 3, 1))
        } else if let Some(ranks) = name.strip_prefix("preaz_") {
            (ranks, days_since_epoch(2016, 9, 1))
        } else {
            return Err(bad());
        };
        let inverse_rank = match ranks.split_once('_') {
            None => {
                let r = inverse_rank(ranks).ok_or_else(bad)?;
                [r, r]
            }
            Some((black, white)) => [
                inverse_rank(black).ok_or_else(bad)?,
                inverse_rank(white).ok_or_else(bad)?,
            ],
        };
        Ok(HumanProfile {
            name: name.to_string(),
            inverse_rank,
            time_control: TimeControl::ByoYomi {
                main_seconds: 1200.0,
                period_seconds: 30.0,
                periods: 5,
            },
            rating_unknown: true,
            days,
            source: SOURCE_KGS,
        })
    }

    /// The name it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes the metadata inputs for `to_move` on a board of `area`
    /// points into `row` (of [`METADATA_INPUTS`]).
    pub fn fill_row(&self, to_move: Color, area: usize, row: &mut [f32]) {
        const RANK_START: usize = 6;
        const RANK_LEN: usize = 34;
        const DATE_START: usize = 87;
        const DATE_LEN: usize = 32;
        row.fill(0.0);
        // Both players human, ranked, their ranks known.
        row[0] = 1.0;
        row[1] = 1.0;
        let (mover, other) = match to_move {
            Color::Black => (self.inverse_rank[0], self.inverse_rank[1]),
            Color::White => (self.inverse_rank[1], self.inverse_rank[0]),
        };
        for (start, inverse) in [(RANK_START, mover), (RANK_START + RANK_LEN, other)] {
            let ones = (inverse.max(0) as usize).min(RANK_LEN);
            row[start..start + ones].fill(1.0);
        }
        // Whether the game was unrated: 0.5 where unknown.
        row[74] = if self.rating_unknown { 0.5 } else { 0.0 };
        let (main, period, periods) = match self.time_control {
            TimeControl::Unknown => {
                row[75] = 1.0;
                (0.0, 0.0, 0)
            }
            TimeControl::ByoYomi {
                main_seconds,
                period_seconds,
                periods,
            } => {
                row[79] = 1.0;
                (main_seconds, period_seconds, periods)
            }
        };
        let canadian_moves = 0.0;
        row[82] = (0.4 * ((main.clamp(0.0, 3.0 * 86400.0) + 60.0).ln() - 6.5)) as f32;
        row[83] = (0.3 * ((period.clamp(0.0, 86400.0) + 1.0).ln() - 3.0)) as f32;
        row[84] = (0.5 * ((f64::from(periods.clamp(0, 50)) + 2.0).ln() - 1.5)) as f32;
        row[85] = (0.25 * ((canadian_moves + 2.0_f64).ln() - 1.5)) as f32;
        row[86] = (0.5 * (area as f64 / 361.0).ln()) as f32;
        // The date as phases of periods from a week up to 80,000 weeks.
        let factor = 80000f64.powf(1.0 / (DATE_LEN - 1) as f64);
        let mut period = 7.0;
        for i in 0..DATE_LEN {
            let turns = self.days as f64 / period;
            let angle = turns * std::f64::consts::TAU;
            row[DATE_START + 2 * i] = angle.cos() as f32;
            row[DATE_START + 2 * i + 1] = angle.sin() as f32;
            period *= factor;
        }
        row[151 + self.source] = 1.0;
    }
}

impl std::fmt::Display for HumanProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, to_move: Color, area: usize) -> Vec<f32> {
        let mut r = vec![f32::NAN; METADATA_INPUTS];
        HumanProfile::parse(name)
            .unwrap()
            .fill_row(to_move, area, &mut r);
        r
    }

    #[test]
    fn days_count_as_katagos_calendar() {
        assert_eq!(days_since_epoch(1970, 1, 1), 0);
        assert_eq!(days_since_epoch(2020, 3, 1), 18322);
        assert_eq!(days_since_epoch(2016, 9, 1), 17045);
        assert_eq!(
            days_since_epoch(2000, 3, 1) - days_since_epoch(2000, 2, 28),
            2
        );
        assert_eq!(
            days_since_epoch(1900, 3, 1) - days_since_epoch(1900, 2, 28),
            1
        );
        assert_eq!(days_since_epoch(1850, 6, 1), -43678);
    }

    #[test]
    fn ranks_fill_each_sides_run_of_ones_from_the_movers_side() {
        // 3k (inverse 12) for Black, 7d (inverse 3) for White.
        let black = row("rank_3k_7d", Color::Black, 361);
        let ones =
            |r: &[f32], start: usize| r[start..start + 34].iter().filter(|&&x| x == 1.0).count();
        assert_eq!((ones(&black, 6), ones(&black, 40)), (12, 3));
        let white = row("rank_3k_7d", Color::White, 361);
        assert_eq!((ones(&white, 6), ones(&white, 40)), (3, 12));
        assert_eq!(ones(&row("rank_20k", Color::Black, 361), 6), 29);
        assert_eq!(ones(&row("rank_9d", Color::Black, 361), 6), 1);
        // The board's area: 0 on 19x19, less on smaller boards.
        assert_eq!(black[86], 0.0);
        assert!(
            (row("rank_5k", Color::Black, 81)[86] - (0.5 * (81f64 / 361.0).ln()) as f32).abs()
                < 1e-7
        );
        // KGS byo-yomi for ranks, unknown time and GoGoD for a pro year.
        assert_eq!(
            (black[79], black[75], black[151 + SOURCE_KGS]),
            (1.0, 0.0, 1.0)
        );
        let pro = row("proyear_1990", Color::White, 361);
        assert_eq!((pro[79], pro[75], pro[151 + SOURCE_GOGOD]), (0.0, 1.0, 1.0));
        assert_eq!((black[74], pro[74]), (0.5, 0.0));
        assert_eq!(
            row("proyear_2022", Color::White, 361)[151 + SOURCE_GO4GO],
            1.0
        );
        assert!(black.iter().all(|x| x.is_finite()));
        // The date: the first phase is the day of the week.
        let turns = 18322.0 / 7.0 * std::f64::consts::TAU;
        assert!((black[87] - turns.cos() as f32).abs() < 1e-6);
    }

    #[test]
    fn names_read_as_katagos() {
        for good in [
            "rank_5k",
            "preaz_9d",
            "rank_20k",
            "rank_1k_1d",
            "proyear_1800",
            "proyear_2023",
        ] {
            assert_eq!(HumanProfile::parse(good).unwrap().name(), good);
        }
        for bad in [
            "",
            "5k",
            "rank_21k",
            "rank_10d",
            "rank_0k",
            "rank_",
            "rank_5k_",
            "rank_5k_3k_1d",
            "proyear_1799",
            "proyear_2024",
            "proyear_x",
            "preaz_k",
            "rank_5x",
        ] {
            let e = HumanProfile::parse(bad).unwrap_err();
            assert!(e.contains("is not a human profile"), "{bad}: {e}");
        }
    }

    proptest::proptest! {
        /// Any text is read or refused with a reason, never a panic.
        #[test]
        fn any_profile_name_is_read_or_refused(name in "\\PC{0,12}", tail in "(rank_|preaz_|proyear_)?[0-9]{0,3}[kdä€x]?") {
            let _ = HumanProfile::parse(&name);
            if let Err(why) = HumanProfile::parse(&tail) {
                proptest::prop_assert!(!why.is_empty());
            }
        }
    }
}
