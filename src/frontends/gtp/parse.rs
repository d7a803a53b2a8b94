//! The GTP v2 input layer: preprocessing of raw 8-bit lines (control
//! characters, tabs, comments), splitting a line into id, command name and
//! arguments with nom, and the typed argument parsers handlers call (colour,
//! vertex, numbers).

pub use crate::go::rules::{MAX_KOMI, check_komi};
pub use crate::go::vertex::{parse_color, parse_vertex, vertex_name};
use nom::IResult;
use nom::Parser;
use nom::bytes::complete::take_while1;
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::{all_consuming, opt};
use nom::multi::separated_list0;
use nom::sequence::terminated;

/// One command line after preprocessing.
#[derive(Debug, PartialEq, Eq)]
pub struct CommandLine<'a> {
    /// The id as written (digits; echoed as written, leading zeros too).
    pub id: Option<&'a str>,
    pub name: &'a str,
    pub args: Vec<&'a str>,
}

/// GTP §2.2–2.9, on bytes: drop the ASCII control characters but HT and LF,
/// turn HT into a space, cut `#` comments, trim spaces. What is left is
/// decoded as UTF-8 with replacement characters, so junk never stops the
/// engine. Only ASCII counts as control or white space here, as in the GTP
/// specification: a line holding only U+00A0, U+3000 or U+0085 is not
/// empty and gets a reply. Returns the trimmed line (empty: the line is to
/// be ignored).
pub fn preprocess(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    for &b in raw {
        match b {
            b'#' => break,
            b'\t' => out.push(b' '),
            b if b < 0x20 || b == 0x7f => {}
            b => out.push(b),
        }
    }
    let text = String::from_utf8_lossy(&out);
    text.trim_matches(' ').to_string()
}

/// Whether a raw line holds a command once preprocessed, read in pieces:
/// `in_comment` carries over from the pieces before (a `#` comments out the
/// rest of the line). Used for lines too long to keep whole.
pub fn holds_command(piece: &[u8], in_comment: &mut bool) -> bool {
    for &b in piece {
        if *in_comment {
            return false;
        }
        match b {
            b'#' => *in_comment = true,
            b' ' | b'\t' => {}
            b if b < 0x20 || b == 0x7f => {}
            _ => return true,
        }
    }
    false
}

/// The numeric id a raw line starts with, as written (digits), if any.
pub fn leading_id(raw: &[u8]) -> Option<String> {
    let line = preprocess(raw);
    let digits: String = line.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &line[digits.len()..];
    (!digits.is_empty() && (rest.is_empty() || rest.starts_with(' '))).then_some(digits)
}

fn token(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c != ' ')(input)
}

fn id(input: &str) -> IResult<&str, &str> {
    terminated(digit1, space1).parse(input)
}

/// A command line that cannot be split: the id as written, if one was
/// parsed (the reply echoes it), and the reason.
#[derive(Debug, PartialEq, Eq)]
pub struct LineError {
    pub id: Option<String>,
    pub reason: String,
}

/// Splits a preprocessed, non-empty line into id, name and arguments.
pub fn command_line(line: &str) -> Result<CommandLine<'_>, LineError> {
    let parsed = all_consuming((
        opt(id),
        token,
        space0,
        separated_list0(space1, token),
        space0,
    ))
    .parse(line);
    let Ok((_, (id, name, _, args, _))) = parsed else {
        return Err(LineError {
            id: None,
            reason: "cannot parse the command line".into(),
        });
    };
    if id.is_none() && name.chars().all(|c| c.is_ascii_digit()) {
        // An id alone.
        return Err(LineError {
            id: Some(name.to_string()),
            reason: format!("no command after id {name}"),
        });
    }
    let id = match id.map(|d| (d, d.parse::<u64>())) {
        None => None,
        Some((d, Ok(_))) => Some(d),
        Some((_, Err(_))) => {
            return Err(LineError {
                id: id.map(str::to_string),
                reason: format!(
                    "id {} is too large (at most {})",
                    id.unwrap_or(""),
                    u64::MAX
                ),
            });
        }
    };
    Ok(CommandLine { id, name, args })
}

/// A GTP float: a finite decimal number.
/// A colour that opens the arguments (the analysis commands' and
/// `kata-raw-nn`'s optional first argument) and the arguments after it.
pub fn leading_color<'a, 'b>(
    args: &'a [&'b str],
) -> Option<(crate::go::board::Color, &'a [&'b str])> {
    let (first, rest) = args.split_first()?;
    parse_color(first).ok().map(|c| (c, rest))
}

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
        // Only ASCII is control or space: these lines are not empty.
        for only in ["\u{a0}", "\u{3000}", "\u{85}"] {
            assert_eq!(preprocess(only.as_bytes()), only);
        }
        assert_eq!(preprocess(b"\x01\x02 \t\r"), "");
    }

    #[test]
    fn long_lines_are_judged_piece_by_piece() {
        let mut in_comment = false;
        assert!(!holds_command(b"   \t  ", &mut in_comment));
        assert!(!holds_command(b"  # name", &mut in_comment));
        assert!(!holds_command(b"name", &mut in_comment), "still a comment");
        let mut in_comment = false;
        assert!(holds_command(b"   x", &mut in_comment));
        assert_eq!(leading_id(b"12 name"), Some("12".into()));
        assert_eq!(leading_id(b"12name"), None);
    }

    #[test]
    fn command_lines() {
        let c = command_line("12 play b  D4").unwrap();
        assert_eq!(c.id, Some("12"));
        assert_eq!(c.name, "play");
        assert_eq!(c.args, vec!["b", "D4"]);
        let c = command_line("list_commands").unwrap();
        assert_eq!((c.id, c.name, c.args.len()), (None, "list_commands", 0));
        assert_eq!(command_line("12").unwrap_err().id.as_deref(), Some("12"));
        let big = command_line("99999999999999999999999 name").unwrap_err();
        assert_eq!(big.id.as_deref(), Some("99999999999999999999999"));
        assert!(big.reason.contains("too large"), "{}", big.reason);
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
        assert_eq!(parse_color("WHITE"), Ok(crate::go::board::Color::White));
        assert!(parse_color("x").is_err());
    }
}
