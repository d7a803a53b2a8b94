//! What the referee announces after a try, in kosumi's GTP grammar:
//! a first line (`accepted`, `pass`, `illegal occupied black|white`,
//! `illegal suicide`, `illegal ko`, or `illegal` where the reason is
//! hidden), then as they apply `atari self`, `atari black|white N`,
//! `captures black|white N V1 ... VN` and last `end RESULT`. Each line
//! reads back with [`Line::parse`], which is how a player takes them in
//! (`phantom-heard SEAT LINE`).

use crate::go::board::{BoardSize, Color, Point};
use crate::go::vertex::{color_name, parse_color, parse_vertex, vertex_name};

/// The first line: what became of the try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Accepted,
    Pass,
    /// The point holds a stone of this colour.
    Occupied(Color),
    Suicide,
    Ko,
    /// Illegal, the reason hidden by the preset.
    Illegal,
}

impl Outcome {
    pub fn is_illegal(self) -> bool {
        !matches!(self, Outcome::Accepted | Outcome::Pass)
    }
}

/// A line after the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// The new stone's chain has one liberty.
    AtariSelf,
    /// The move left this many chains of this colour in atari.
    Atari(Color, u32),
    /// This colour captured this many stones; the points, where told
    /// (under OpenSpiel's convention a seat may be told fewer, or none).
    Captures(Color, u32, Vec<Point>),
    /// The game ended with this result (`B+3.5`, `W+Resign`, `0`).
    End(String),
}

/// One line of an announcement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Outcome(Outcome),
    Item(Item),
}

/// An announcement: the outcome, then the items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    pub outcome: Outcome,
    pub items: Vec<Item>,
}

impl Outcome {
    pub fn line(self) -> String {
        match self {
            Outcome::Accepted => "accepted".into(),
            Outcome::Pass => "pass".into(),
            Outcome::Occupied(c) => format!("illegal occupied {}", color_name(c)),
            Outcome::Suicide => "illegal suicide".into(),
            Outcome::Ko => "illegal ko".into(),
            Outcome::Illegal => "illegal".into(),
        }
    }
}

impl Item {
    pub fn line(&self, size: BoardSize) -> String {
        match self {
            Item::AtariSelf => "atari self".into(),
            Item::Atari(c, n) => format!("atari {} {n}", color_name(*c)),
            Item::Captures(c, n, points) => {
                let mut s = format!("captures {} {n}", color_name(*c));
                for &p in points {
                    s.push(' ');
                    s.push_str(&vertex_name(Some(p), size));
                }
                s
            }
            Item::End(result) => format!("end {result}"),
        }
    }
}

impl Announcement {
    /// The lines, first the outcome.
    pub fn lines(&self, size: BoardSize) -> Vec<String> {
        std::iter::once(self.outcome.line())
            .chain(self.items.iter().map(|i| i.line(size)))
            .collect()
    }

    /// The lines as values, first the outcome (what [`Line::parse`] reads
    /// back from [`Announcement::lines`]).
    pub fn to_lines(&self) -> Vec<Line> {
        std::iter::once(Line::Outcome(self.outcome))
            .chain(self.items.iter().cloned().map(Line::Item))
            .collect()
    }

    /// The result, if the try ended the game.
    pub fn end(&self) -> Option<&str> {
        self.items.iter().find_map(|i| match i {
            Item::End(r) => Some(r.as_str()),
            _ => None,
        })
    }
}

impl Line {
    /// Reads one announcement line (words already split) on a board of
    /// `size`.
    pub fn parse(words: &[&str], size: BoardSize) -> Result<Line, String> {
        let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        let w: Vec<&str> = lower.iter().map(String::as_str).collect();
        let count = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| format!("'{s}' is not a count"))
        };
        Ok(match w.as_slice() {
            ["accepted"] => Line::Outcome(Outcome::Accepted),
            ["pass"] => Line::Outcome(Outcome::Pass),
            ["illegal"] => Line::Outcome(Outcome::Illegal),
            ["illegal", "suicide"] => Line::Outcome(Outcome::Suicide),
            ["illegal", "ko"] => Line::Outcome(Outcome::Ko),
            ["illegal", "occupied", c] => Line::Outcome(Outcome::Occupied(parse_color(c)?)),
            ["atari", "self"] => Line::Item(Item::AtariSelf),
            ["atari", c, n] => Line::Item(Item::Atari(parse_color(c)?, count(n)?)),
            ["captures", c, n, points @ ..] => {
                let n = count(n)?;
                if points.len() > n as usize {
                    return Err(format!("more than {n} captured points"));
                }
                let mut pts = Vec::new();
                for v in points {
                    pts.push(parse_vertex(v, size)?.ok_or("a captured point cannot be pass")?);
                }
                Line::Item(Item::Captures(parse_color(c)?, n, pts))
            }
            ["end", _] => Line::Item(Item::End(words[1].to_string())),
            _ => return Err(format!("not an announcement: '{}'", words.join(" "))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_back() {
        let size = BoardSize::square(9);
        let p = |v: &str| parse_vertex(v, size).unwrap().unwrap();
        let a = Announcement {
            outcome: Outcome::Accepted,
            items: vec![
                Item::AtariSelf,
                Item::Atari(Color::White, 2),
                Item::Captures(Color::Black, 2, vec![p("C3"), p("D3")]),
                Item::End("B+3.5".into()),
            ],
        };
        let lines = a.lines(size);
        assert_eq!(lines[3], "captures black 2 C3 D3");
        for (i, line) in lines.iter().enumerate() {
            let words: Vec<&str> = line.split(' ').collect();
            let back = Line::parse(&words, size).unwrap();
            let expected = if i == 0 {
                Line::Outcome(a.outcome)
            } else {
                Line::Item(a.items[i - 1].clone())
            };
            assert_eq!(back, expected);
        }
        assert_eq!(a.end(), Some("B+3.5"));
        for bad in [
            "illegal occupied green",
            "captures black 1 C3 D3",
            "atari",
            "hello",
        ] {
            let words: Vec<&str> = bad.split(' ').collect();
            assert!(Line::parse(&words, size).is_err(), "{bad}");
        }
    }
}
