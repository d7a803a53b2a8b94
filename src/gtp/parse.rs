//! The GTP v2 input layer: preprocessing of raw 8-bit lines (control
//! characters, tabs, comments), splitting a line into id, command name and
//! arguments with nom, and the typed argument parsers handlers call (colour,
//! vertex, numbers).

use crate::board::{Color, MAX_SIZE, Point};
use nom::IResult;
use nom::Parser;
use nom::bytes::complete::take_while1;
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::{all_consuming, map_res, opt};
use nom::multi::separated_list0;
use nom::sequence::terminated;

/// One command line after preprocessing.
#[derive(Debug, PartialEq, Eq)]
pub struct CommandLine<'a> {
    pub id: Option<u64>,
    pub name: &'a str,
    pub args: Vec<&'a str>,
}

/// GTP §2.2–2.9: drop control characters but HT and LF, turn HT into a space,
/// cut `#` comments. Bytes that are not ASCII are kept as replacement
/// characters, so junk never stops the engine. Returns the trimmed line
/// (empty: the line is to be ignored).
pub fn preprocess(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '#' => break,
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

fn token(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c != ' ')(input)
}

fn id(input: &str) -> IResult<&str, u64> {
    map_res(terminated(digit1, space1), str::parse::<u64>).parse(input)
}

/// Splits a preprocessed, non-empty line into id, name and arguments.
pub fn command_line(line: &str) -> Result<CommandLine<'_>, String> {
    let parsed = all_consuming((
        opt(id),
        token,
        space0,
        separated_list0(space1, token),
        space0,
    ))
    .parse(line);
    match parsed {
        Ok((_, (id, name, _, args, _))) => {
            if name.chars().all(|c| c.is_ascii_digit()) {
                // An id alone, or an id too large for u64.
                return Err(format!("no command after id {name}"));
            }
            Ok(CommandLine { id, name, args })
        }
        Err(_) => Err("cannot parse the command line".into()),
    }
}

/// `b`, `w`, `black`, `white`, any case.
pub fn parse_color(s: &str) -> Result<Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color '{s}'")),
    }
}

/// A vertex (`D4`, `pass`; letters A–Z without I, any case) on a board of
/// side `size`. `Ok(None)` is a pass.
pub fn parse_vertex(s: &str, size: usize) -> Result<Option<Point>, String> {
    let lower = s.to_ascii_lowercase();
    if lower == "pass" {
        return Ok(None);
    }
    let mut chars = lower.chars();
    let letter = chars.next().ok_or("empty vertex")?;
    let digits = chars.as_str();
    if !letter.is_ascii_lowercase() || letter == 'i' {
        return Err(format!("invalid vertex '{s}'"));
    }
    let x = (letter as u8 - b'a') as usize - usize::from(letter > 'i');
    let y: usize = if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        digits
            .parse()
            .map_err(|_| format!("invalid vertex '{s}'"))?
    } else {
        return Err(format!("invalid vertex '{s}'"));
    };
    if x >= size || y == 0 || y > size || size > MAX_SIZE {
        return Err(format!("vertex '{s}' is off the board"));
    }
    let stride = size + 2;
    Ok(Some((y * stride + x + 1) as Point))
}

/// The GTP name of a point (`pass` for `None`).
pub fn vertex_name(p: Option<Point>, size: usize) -> String {
    match p {
        None => "pass".into(),
        Some(p) => {
            let stride = size + 2;
            let (x, y) = (p as usize % stride - 1, p as usize / stride);
            let letter = b"ABCDEFGHJKLMNOPQRSTUVWXYZ"[x] as char;
            format!("{letter}{y}")
        }
    }
}

/// A GTP float: a finite decimal number.
pub fn parse_float(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && !s.contains(['i', 'I', 'n', 'N']) => Ok(v),
        _ => Err(format!("'{s}' is not a number")),
    }
}

/// A GTP int: an unsigned decimal integer.
pub fn parse_int(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{s}' is not an unsigned integer"));
    }
    s.parse::<u64>().map_err(|_| format!("'{s}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing() {
        assert_eq!(preprocess(b"  play\tb D4 # a comment\r\n"), "play b D4");
        assert_eq!(preprocess(b"# only a comment"), "");
        assert_eq!(preprocess(b"na\x01me\x7f"), "name");
        assert_eq!(preprocess(b"\xff\xfe name"), "\u{fffd}\u{fffd} name");
    }

    #[test]
    fn command_lines() {
        let c = command_line("12 play b  D4").unwrap();
        assert_eq!(c.id, Some(12));
        assert_eq!(c.name, "play");
        assert_eq!(c.args, vec!["b", "D4"]);
        let c = command_line("list_commands").unwrap();
        assert_eq!((c.id, c.name, c.args.len()), (None, "list_commands", 0));
        assert!(command_line("12").is_err());
        assert!(command_line("99999999999999999999999 name").is_err());
    }

    #[test]
    fn vertices() {
        assert_eq!(parse_vertex("A1", 19).unwrap(), Some(22));
        assert_eq!(parse_vertex("j1", 19), parse_vertex("J1", 19));
        assert_eq!(vertex_name(parse_vertex("T19", 19).unwrap(), 19), "T19");
        assert_eq!(vertex_name(parse_vertex("z25", 25).unwrap(), 25), "Z25");
        assert_eq!(parse_vertex("PASS", 9).unwrap(), None);
        for bad in ["I5", "J10", "A0", "A", "5A", "", "A-1", "Ä1", "A1x"] {
            assert!(parse_vertex(bad, 9).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_and_colors() {
        assert_eq!(parse_float("6.5"), Ok(6.5));
        assert_eq!(parse_float("-3"), Ok(-3.0));
        assert!(parse_float("nan").is_err());
        assert!(parse_float("inf").is_err());
        assert!(parse_int("-1").is_err());
        assert_eq!(parse_color("WHITE"), Ok(Color::White));
        assert!(parse_color("x").is_err());
    }
}
