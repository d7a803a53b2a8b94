//! The conventions of a phantom game as data: what a trier
//! learns of an illegal try, whether the others hear of it, what captures
//! and ataris are announced, when the game ends and what a repetition does.
//! Three presets (`seed`, `olympiad`, `openspiel`) and every option settable
//! alone.

use crate::core::setting::{SettingError, on_off, on_off_word};

/// What a trier learns of an illegal try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalInfo {
    /// The reason; on an occupied point its colour, and the stone is
    /// placed on the trier's view (the `seed` preset).
    Reason,
    /// Only "illegal" (Computer Olympiad).
    Nothing,
    /// The colour at the point, which appears in the trier's view; nothing
    /// else (OpenSpiel).
    Color,
}

/// What is announced of captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureInfo {
    /// The count to all; the points cleared on every view (the `seed`
    /// preset).
    Count,
    /// The points to all (Computer Olympiad).
    Points,
    /// The count to all; the points only to the victim and to a view that
    /// showed the stones (OpenSpiel).
    Victim,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every seat passes in a row (four in Rengo, two in Go).
    AllPass,
    /// Two passes in a row.
    TwoPasses,
    /// Two passes in a row, or 4·N² tries in all (OpenSpiel).
    TwoPassesOrTries,
}

/// How the referee counts the final position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Dead stones judged by an ownership estimate are removed first.
    Estimate,
    /// Every stone on the board counts as alive, as Tromp-Taylor rules
    /// count (OpenSpiel).
    AsItStands,
}

/// What a try that repeats a position does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// It is an illegal try (the ruleset's ko or superko).
    Illegal,
    /// A simple-ko retake is an illegal try; a move that repeats an
    /// earlier position otherwise is played, and the game ends drawn
    /// (OpenSpiel).
    Draw,
}

/// One phantom game's conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub preset: &'static str,
    pub illegal: IllegalInfo,
    /// Whether the other seats hear of an illegal try.
    pub tell_others: bool,
    pub captures: CaptureInfo,
    /// Whether ataris (self-atari too) are announced.
    pub ataris: bool,
    pub end: End,
    pub count: Count,
    pub repetition: Repetition,
    /// Rengo: partners share one view (each team sees its own stones),
    /// instead of one view per board.
    pub shared_view: bool,
}

/// The presets' names: the source document's conventions, the Computer
/// Olympiad's, and OpenSpiel's `phantom_go`.
pub const PRESETS: [&str; 3] = ["seed", "olympiad", "openspiel"];

impl Options {
    pub fn preset(name: &str) -> Option<Options> {
        let seed = Options {
            preset: "seed",
            illegal: IllegalInfo::Reason,
            tell_others: true,
            captures: CaptureInfo::Count,
            ataris: true,
            end: End::AllPass,
            count: Count::Estimate,
            repetition: Repetition::Illegal,
            shared_view: false,
        };
        Some(match name.to_ascii_lowercase().as_str() {
            "seed" => seed,
            "olympiad" => Options {
                preset: "olympiad",
                illegal: IllegalInfo::Nothing,
                tell_others: false,
                captures: CaptureInfo::Points,
                ataris: false,
                end: End::TwoPasses,
                ..seed
            },
            "openspiel" => Options {
                preset: "openspiel",
                illegal: IllegalInfo::Color,
                tell_others: true,
                captures: CaptureInfo::Victim,
                ataris: false,
                end: End::TwoPassesOrTries,
                count: Count::AsItStands,
                repetition: Repetition::Draw,
                ..seed
            },
            _ => return None,
        })
    }

    /// Sets one option by name (`illegal`, `tell-others`, `captures`,
    /// `ataris`, `end`, `count`, `repetition`, `shared-view`).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SettingError> {
        let v = value.to_ascii_lowercase();
        let on_off = || on_off(name, value);
        let bad = |choices: &'static str| Err(SettingError::bad_value(name, value, choices));
        match name.to_ascii_lowercase().as_str() {
            "illegal" => {
                self.illegal = match v.as_str() {
                    "reason" => IllegalInfo::Reason,
                    "nothing" => IllegalInfo::Nothing,
                    "color" | "colour" => IllegalInfo::Color,
                    _ => return bad("reason, nothing or color"),
                }
            }
            "tell-others" => self.tell_others = on_off()?,
            "captures" => {
                self.captures = match v.as_str() {
                    "count" => CaptureInfo::Count,
                    "points" => CaptureInfo::Points,
                    "victim" => CaptureInfo::Victim,
                    _ => return bad("count, points or victim"),
                }
            }
            "ataris" => self.ataris = on_off()?,
            "end" => {
                self.end = match v.as_str() {
                    "all-pass" => End::AllPass,
                    "two-passes" => End::TwoPasses,
                    "two-passes-or-tries" => End::TwoPassesOrTries,
                    _ => return bad("all-pass, two-passes or two-passes-or-tries"),
                }
            }
            "count" => {
                self.count = match v.as_str() {
                    "estimate" => Count::Estimate,
                    "as-it-stands" => Count::AsItStands,
                    _ => return bad("estimate or as-it-stands"),
                }
            }
            "repetition" => {
                self.repetition = match v.as_str() {
                    "illegal" => Repetition::Illegal,
                    "draw" => Repetition::Draw,
                    _ => return bad("illegal or draw"),
                }
            }
            "shared-view" => self.shared_view = on_off()?,
            other => {
                return Err(SettingError::Unknown {
                    name: other.to_string(),
                    known: "illegal, tell-others, captures, ataris, end, count, repetition, shared-view",
                });
            }
        }
        Ok(())
    }

    /// Every option as `name value`, in the form `set` reads.
    pub fn list(&self) -> Vec<(&'static str, &'static str)> {
        let on_off = on_off_word;
        vec![
            (
                "illegal",
                match self.illegal {
                    IllegalInfo::Reason => "reason",
                    IllegalInfo::Nothing => "nothing",
                    IllegalInfo::Color => "color",
                },
            ),
            ("tell-others", on_off(self.tell_others)),
            (
                "captures",
                match self.captures {
                    CaptureInfo::Count => "count",
                    CaptureInfo::Points => "points",
                    CaptureInfo::Victim => "victim",
                },
            ),
            ("ataris", on_off(self.ataris)),
            (
                "end",
                match self.end {
                    End::AllPass => "all-pass",
                    End::TwoPasses => "two-passes",
                    End::TwoPassesOrTries => "two-passes-or-tries",
                },
            ),
            (
                "count",
                match self.count {
                    Count::Estimate => "estimate",
                    Count::AsItStands => "as-it-stands",
                },
            ),
            (
                "repetition",
                match self.repetition {
                    Repetition::Illegal => "illegal",
                    Repetition::Draw => "draw",
                },
            ),
            ("shared-view", on_off(self.shared_view)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_differ_as_the_table_says() {
        let seed = Options::preset("seed").unwrap();
        let olympiad = Options::preset("OLYMPIAD").unwrap();
        let openspiel = Options::preset("openspiel").unwrap();
        assert!(seed.ataris && seed.tell_others);
        assert_eq!(olympiad.illegal, IllegalInfo::Nothing);
        assert_eq!(openspiel.repetition, Repetition::Draw);
        assert!(Options::preset("kriegspiel").is_none());
    }

    #[test]
    fn every_listed_option_sets_back() {
        let mut o = Options::preset("openspiel").unwrap();
        let listed = o.list();
        let mut p = Options::preset("seed").unwrap();
        for (name, value) in listed {
            p.set(name, value).unwrap();
        }
        o.preset = p.preset;
        assert_eq!(o, p);
        assert!(p.set("captures", "all").is_err());
        assert!(p.set("colour", "on").is_err());
    }
}
