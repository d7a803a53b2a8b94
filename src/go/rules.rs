//! Rulesets as data: one [`Rules`] value of independent fields, and the named
//! presets (`chinese`, `egc2011`, `japanese`, `aga`,
//! `new-zealand`, `tromp-taylor`, `simple-ko`).
//!
//! Each field is read in one place: suicide by the board, ko by the game, pass
//! stones by the pass, scoring and the handicap bonus by the scorer. No preset
//! name is compared anywhere but in [`Rules::preset`].

use std::fmt;

/// What repetition a move may not cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ko {
    /// The position before the opponent's last move may not be recreated.
    Simple,
    /// No earlier whole-board position may be recreated.
    Positional,
    /// No earlier position with the same player to move may be recreated.
    Situational,
}

/// Which self-captures are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suicide {
    Forbidden,
    /// Suicide of two or more stones is legal, of one stone illegal.
    MultiStone,
    Allowed,
}

/// How the final position is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// Stones plus surrounded empty points.
    Area,
    /// Surrounded empty points plus prisoners.
    Territory,
}

/// Points White receives per handicap stone at scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandicapBonus {
    None,
    N,
    NMinusOne,
}

impl HandicapBonus {
    pub fn points(self, handicap: u32) -> f64 {
        match self {
            HandicapBonus::None => 0.0,
            HandicapBonus::N => handicap as f64,
            HandicapBonus::NMinusOne => handicap.saturating_sub(1) as f64,
        }
    }
}

/// A complete ruleset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// The preset's canonical name, or `custom`.
    pub name: &'static str,
    pub ko: Ko,
    pub suicide: Suicide,
    pub scoring: Scoring,
    /// A pass hands one stone to the opponent as a prisoner.
    pub pass_stones: bool,
    /// If Black passed last, White passes once more (one more pass stone).
    pub white_extra_pass: bool,
    pub handicap_bonus: HandicapBonus,
    pub default_komi: f64,
    /// Handicap games use komi N - 0.5 (reported, not imposed).
    pub handicap_komi_n_minus_half: bool,
}

/// One preset: its names (canonical first) and its value.
struct Preset {
    /// How people call it (menus).
    title: &'static str,
    names: &'static [&'static str],
    rules: Rules,
}

const fn rules(
    name: &'static str,
    ko: Ko,
    suicide: Suicide,
    scoring: Scoring,
    pass_stones: bool,
    handicap_bonus: HandicapBonus,
    default_komi: f64,
) -> Rules {
    Rules {
        name,
        ko,
        suicide,
        scoring,
        pass_stones,
        white_extra_pass: pass_stones,
        handicap_bonus,
        default_komi,
        handicap_komi_n_minus_half: false,
    }
}

use HandicapBonus as Hb;
use Ko::*;
use Scoring::*;
use Suicide::*;

const PRESETS: &[Preset] = &[
    Preset {
        title: "Chinese",
        names: &["chinese"],
        rules: rules("chinese", Positional, Forbidden, Area, false, Hb::N, 7.5),
    },
    Preset {
        title: "EGC 2011",
        names: &["egc2011", "ing-simplified", "ing_simplified"],
        rules: Rules {
            handicap_komi_n_minus_half: true,
            ..rules("egc2011", Positional, MultiStone, Area, true, Hb::None, 7.5)
        },
    },
    Preset {
        title: "Japanese",
        names: &["japanese"],
        rules: rules(
            "japanese",
            Simple,
            Forbidden,
            Territory,
            false,
            Hb::None,
            6.5,
        ),
    },
    Preset {
        title: "AGA",
        names: &["aga"],
        rules: rules(
            "aga",
            Situational,
            Forbidden,
            Area,
            true,
            Hb::NMinusOne,
            7.5,
        ),
    },
    Preset {
        title: "New Zealand",
        names: &["new-zealand", "new_zealand"],
        rules: rules(
            "new-zealand",
            Situational,
            MultiStone,
            Area,
            false,
            Hb::N,
            7.0,
        ),
    },
    Preset {
        title: "Tromp-Taylor",
        names: &["tromp-taylor", "tromp_taylor"],
        rules: rules(
            "tromp-taylor",
            Positional,
            Allowed,
            Area,
            false,
            Hb::None,
            7.5,
        ),
    },
    Preset {
        title: "simple ko",
        names: &["simple-ko", "simple_ko"],
        rules: rules("simple-ko", Simple, Forbidden, Area, false, Hb::None, 7.5),
    },
];

impl Rules {
    /// The komi a handicap game of `stones` stones takes under these rules,
    /// where the rules fix one (EGC 2011: N - 0.5); `None` where the komi
    /// stays and White gets the handicap bonus instead.
    pub fn handicap_komi(&self, stones: u32) -> Option<f64> {
        (self.handicap_komi_n_minus_half && stones > 0).then_some(stones as f64 - 0.5)
    }

    /// The preset called `name` (case-insensitive, aliases accepted).
    pub fn preset(name: &str) -> Option<Rules> {
        Self::find_preset(name).map(|p| p.rules)
    }

    /// The canonical name of the preset `name` names (any of its names, any
    /// case).
    pub fn canonical_preset_name(name: &str) -> Option<&'static str> {
        Self::find_preset(name).map(|p| p.names[0])
    }

    fn find_preset(name: &str) -> Option<&'static Preset> {
        let name = name.to_ascii_lowercase();
        PRESETS.iter().find(|p| p.names.contains(&name.as_str()))
    }

    /// Each preset's canonical name and its title for people.
    pub fn preset_titles() -> impl Iterator<Item = (&'static str, &'static str)> {
        PRESETS.iter().map(|p| (p.names[0], p.title))
    }

    /// The canonical names of all presets.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|p| p.names[0])
    }

    /// The ruleset for an SGF `RU` value: a preset name, or the common
    /// spellings written by GUIs and servers.
    pub fn from_sgf(ru: &str) -> Option<Rules> {
        let lower = ru.trim().to_ascii_lowercase();
        let mapped = match lower.as_str() {
            "cn" | "chinese" => "chinese",
            "jp" | "japanese" => "japanese",
            "nz" | "new zealand" => "new-zealand",
            "egc" | "ing" | "egc2011" => "egc2011",
            "tt" | "tromp taylor" => "tromp-taylor",
            other => other,
        };
        Rules::preset(mapped)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        PRESETS[0].rules
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

impl fmt::Display for Rules {
    /// One `field value` per line, as `kosumi-rules` answers.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let ko = match self.ko {
            Simple => "simple",
            Positional => "positional",
            Situational => "situational",
        };
        let suicide = match self.suicide {
            Forbidden => "forbidden",
            MultiStone => "multi-stone",
            Allowed => "allowed",
        };
        let scoring = match self.scoring {
            Area => "area",
            Territory => "territory",
        };
        let bonus = match self.handicap_bonus {
            Hb::None => "0",
            Hb::N => "N",
            Hb::NMinusOne => "N-1",
        };
        writeln!(f, "name {}", self.name)?;
        writeln!(f, "ko {ko}")?;
        writeln!(f, "suicide {suicide}")?;
        writeln!(f, "scoring {scoring}")?;
        writeln!(f, "pass_stones {}", yes_no(self.pass_stones))?;
        writeln!(f, "white_extra_pass {}", yes_no(self.white_extra_pass))?;
        writeln!(f, "handicap_bonus {bonus}")?;
        if self.handicap_komi_n_minus_half {
            writeln!(f, "handicap_komi N-0.5")?;
        }
        write!(f, "default_komi {}", self.default_komi)
    }
}

/// The largest komi accepted, either way.
pub const MAX_KOMI: f64 = 1000.0;

/// A komi: finite and at most [`MAX_KOMI`] either way.
pub fn check_komi(k: f64) -> Result<f64, String> {
    if k.is_finite() && k.abs() <= MAX_KOMI {
        Ok(k)
    } else {
        Err(format!("komi {k} is not from -{MAX_KOMI} to {MAX_KOMI}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_table() {
        let egc = Rules::preset("ING-simplified").unwrap();
        assert_eq!(egc.name, "egc2011");
        assert_eq!(egc.suicide, MultiStone);
        assert!(egc.pass_stones && egc.white_extra_pass);
        let aga = Rules::preset("aga").unwrap();
        assert_eq!(aga.ko, Situational);
        assert_eq!(aga.handicap_bonus.points(4), 3.0);
        let nz = Rules::preset("new_zealand").unwrap();
        assert_eq!(nz.default_komi, 7.0);
        assert_eq!(Rules::preset("japanese").unwrap().scoring, Territory);
        assert!(Rules::preset("klingon").is_none());
        assert_eq!(Rules::preset_names().count(), 7);
        assert_eq!(Rules::default().name, "chinese");
    }

    #[test]
    fn sgf_names() {
        assert_eq!(Rules::from_sgf("Japanese").unwrap().name, "japanese");
        assert_eq!(Rules::from_sgf("NZ").unwrap().name, "new-zealand");
        assert_eq!(Rules::from_sgf("AGA").unwrap().name, "aga");
    }
}
