//! Aléago, the dice variant of Go: the dice specification and its
//! options, the concentric lines of the board, and which lines a rolled total
//! allows, in the order the no-room descent tries them.
//!
//! The dice are a constraint on top of the ruleset, not a second engine: the
//! game asks this module which lines a roll allows and keeps its ordinary
//! legality for the rest. Rolls themselves are drawn by the game from its own
//! ChaCha generator.

use crate::core::setting::{SettingError, on_off, on_off_word};
use crate::go::board::Color;
use crate::go::vertex::{color_name, parse_color};
use rand::RngExt;
use std::fmt;

/// Dice `NdM` and the variant's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dice {
    /// Number of dice, 1..=4.
    pub count: u32,
    /// Faces per die, 2..=20.
    pub faces: u32,
    /// The highest total also gives the lines no total reaches.
    pub bonus: bool,
    /// With two or more dice, the highest double gives the whole board.
    pub double_free: bool,
    /// This player never rolls and plays anywhere.
    pub exempt: Option<Color>,
    /// The opponent's next roll is drawn before the mover plays.
    pub crystal_ball: bool,
    /// The original mapping: the centre line is never playable, no bonus,
    /// no descent.
    pub original_mapping: bool,
    /// Referee mode: the engine rolls for every move of both sides, so a
    /// `play` from the controller (a person in a GUI) must obey a roll too.
    pub referee: bool,
}

/// A set of lines as a bit mask (bit `L` for line `L`; lines are 1..=13).
pub type Lines = u32;

/// All lines of any board.
pub const ALL_LINES: Lines = !0;

/// Why a dice spec was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// Not of the form `NdM`.
    NotASpec(String),
    /// Too many dice, or too few or too many faces.
    OutOfRange(String),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SpecError::NotASpec(s) => write!(f, "'{s}' is not a dice spec like 1d6"),
            SpecError::OutOfRange(s) => {
                write!(f, "'{s}' is out of range: 1 to 4 dice of 2 to 20 faces")
            }
        }
    }
}

impl std::error::Error for SpecError {}

impl Dice {
    /// Parses `NdM` (1 ≤ N ≤ 4, 2 ≤ M ≤ 20) with the default options: bonus
    /// on, except for 2d6 as in the seed's table.
    pub fn parse(spec: &str) -> Result<Dice, SpecError> {
        let lower = spec.to_ascii_lowercase();
        let not_a_spec = || SpecError::NotASpec(spec.to_string());
        let (n, m) = lower.split_once('d').ok_or_else(not_a_spec)?;
        let count: u32 = if n.is_empty() { Ok(1) } else { n.parse() }.map_err(|_| not_a_spec())?;
        let faces: u32 = m.parse().map_err(|_| not_a_spec())?;
        if !(1..=4).contains(&count) || !(2..=20).contains(&faces) {
            return Err(SpecError::OutOfRange(spec.to_string()));
        }
        Ok(Dice {
            count,
            faces,
            bonus: !(count == 2 && faces == 6),
            double_free: false,
            exempt: None,
            crystal_ball: false,
            original_mapping: false,
            referee: false,
        })
    }

    /// These dice with the options of `old` (the dice before a change:
    /// players may switch dice during a game): every option is
    /// kept, the bonus too where it was set away from the old dice's
    /// default.
    pub fn keeping_options_of(self, old: &Dice) -> Dice {
        let old_default = Dice::parse(&old.spec()).map_or(old.bonus, |d| d.bonus);
        Dice {
            bonus: if old.bonus == old_default {
                self.bonus
            } else {
                old.bonus
            },
            double_free: old.double_free,
            exempt: old.exempt,
            crystal_ball: old.crystal_ball,
            original_mapping: old.original_mapping,
            referee: old.referee,
            ..self
        }
    }

    pub fn spec(&self) -> String {
        format!("{}d{}", self.count, self.faces)
    }

    /// Lowest and highest total.
    pub fn range(&self) -> (u32, u32) {
        (self.count, self.count * self.faces)
    }

    /// Rolls the dice.
    pub fn roll(&self, rng: &mut impl rand::Rng) -> u32 {
        (0..self.count)
            .map(|_| rng.random_range(1..=self.faces))
            .sum()
    }

    /// Sets an option by its GTP name (`bonus`, `double-free`, `exempt`,
    /// `crystal-ball`, `mapping`, `referee`).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        let on_off = |v: &str| on_off(name, v);
        match name.to_ascii_lowercase().as_str() {
            "bonus" => self.bonus = on_off(value)?,
            "double-free" | "double_free" => self.double_free = on_off(value)?,
            "crystal-ball" | "crystal_ball" => self.crystal_ball = on_off(value)?,
            "referee" => self.referee = on_off(value)?,
            "exempt" => {
                self.exempt = match value.to_ascii_lowercase().as_str() {
                    "none" => None,
                    _ => Some(parse_color(value).map_err(|_| {
                        SettingError::bad_value(name, value, "black, white or none")
                    })?),
                }
            }
            "mapping" => {
                self.original_mapping = match value.to_ascii_lowercase().as_str() {
                    "standard" => false,
                    "original" => true,
                    _ => return Err(SettingError::bad_value(name, value, "standard or original")),
                }
            }
            other => {
                return Err(SettingError::Unknown {
                    name: other.to_string(),
                    known: "bonus, double-free, exempt, crystal-ball, mapping, referee",
                });
            }
        }
        Ok(())
    }

    /// Every option as `(name, value)`, in the form `set_option` reads.
    pub fn options(&self) -> Vec<(&'static str, &'static str)> {
        let on_off = on_off_word;
        vec![
            ("bonus", on_off(self.bonus)),
            ("double-free", on_off(self.double_free)),
            ("exempt", self.exempt.map_or("none", color_name)),
            ("crystal-ball", on_off(self.crystal_ball)),
            (
                "mapping",
                if self.original_mapping {
                    "original"
                } else {
                    "standard"
                },
            ),
            ("referee", on_off(self.referee)),
        ]
    }

    /// Whether `c` rolls at all.
    pub fn rolls_for(&self, c: Color) -> bool {
        self.exempt != Some(c)
    }

    /// The sets of lines a `total` allows on a board whose highest line is
    /// `top`, in the order they are tried: the rolled lines first, then each
    /// line below, one at a time (the no-room descent). At most 14 sets.
    pub fn line_sets(&self, total: u32, top: u32) -> ([Lines; 14], usize) {
        let mut sets = [0; 14];
        let (low, high) = self.range();
        if self.count >= 2 && self.double_free && total == high {
            sets[0] = ALL_LINES;
            return (sets, 1);
        }
        if self.original_mapping {
            if total < top {
                sets[0] = 1 << total;
                return (sets, 1);
            }
            return (sets, 0);
        }
        let start = total.min(top);
        let mut first: Lines = 1 << start;
        if self.bonus && total == high {
            for line in (high + 1)..=top {
                first |= 1 << line;
            }
            for line in 1..low.min(top + 1) {
                first |= 1 << line;
            }
        }
        sets[0] = first;
        let mut n = 1;
        for line in (1..start).rev() {
            if first & (1 << line) == 0 {
                sets[n] = 1 << line;
                n += 1;
            }
        }
        (sets, n)
    }
}

pub use crate::go::board::{line, top_line};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::BoardSize;

    fn lines(mask: Lines) -> Vec<u32> {
        (1..=13).filter(|l| mask & (1 << l) != 0).collect()
    }

    #[test]
    fn parsing_specs() {
        let d = Dice::parse("2D6").unwrap();
        assert_eq!((d.count, d.faces, d.bonus), (2, 6, false));
        assert!(Dice::parse("1d6").unwrap().bonus);
        for bad in ["d", "0d6", "5d6", "1d1", "1d21", "x", "1d", "-1d6", "1d6x"] {
            assert!(Dice::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lines_are_concentric_squares() {
        let square = BoardSize::square;
        assert_eq!(line(square(13), 0, 5), 1);
        assert_eq!(line(square(13), 6, 6), 7);
        assert_eq!(line(square(13), 3, 10), 3);
        assert_eq!(top_line(square(13)), 7);
        assert_eq!(top_line(square(19)), 10);
        assert_eq!(top_line(square(8)), 4);
        let wide = BoardSize::new(13, 7).unwrap();
        assert_eq!(line(wide, 6, 3), 4, "the centre of 13x7: its short side's");
        assert_eq!(line(wide, 1, 3), 2);
        assert_eq!(top_line(wide), 4);
    }

    #[test]
    fn the_seeds_examples() {
        // 1d6 on 13x13: a 6 gives lines 6 and 7.
        let d = Dice::parse("1d6").unwrap();
        let (sets, n) = d.line_sets(6, 7);
        assert_eq!(lines(sets[0]), vec![6, 7]);
        assert_eq!(n, 6); // then 5, 4, 3, 2, 1
        assert_eq!(lines(sets[1]), vec![5]);
        // 2d4 on 19x19: an 8 gives lines 8, 9, 10 and 1.
        let d = Dice::parse("2d4").unwrap();
        let (sets, n) = d.line_sets(8, 10);
        assert_eq!(lines(sets[0]), vec![1, 8, 9, 10]);
        assert_eq!(lines(sets[n - 1]), vec![2]);
        // Without the bonus, a 3 on 1d6 is line 3 then 2 then 1.
        let d = Dice::parse("1d6").unwrap();
        let (sets, n) = d.line_sets(3, 7);
        assert_eq!((lines(sets[0]), n), (vec![3], 3));
        // A total above the highest line starts from the highest line.
        let d = Dice::parse("1d8").unwrap();
        assert_eq!(lines(d.line_sets(7, 5).0[0]), vec![5]);
    }

    #[test]
    fn options() {
        let mut d = Dice::parse("2d6").unwrap();
        assert_eq!(lines(d.line_sets(12, 10).0[0]), vec![10]);
        d.double_free = true;
        assert_eq!(d.line_sets(12, 10).0[0], ALL_LINES);
        let mut d = Dice::parse("1d6").unwrap();
        d.original_mapping = true;
        assert_eq!(d.line_sets(7, 7).1, 0);
        assert_eq!(
            d.line_sets(6, 7),
            ([1 << 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 1)
        );
        assert_eq!(d.line_sets(6, 6).1, 0); // the centre line is never playable
    }
}
