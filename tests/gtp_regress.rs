//! Runs every `gtp-tests/*.tst` file as GoGui 1.6's `gogui-regress` reads
//! it (`net.sf.gogui.tools.regress.Regress`), so that a file passing here
//! passes there too: a fresh engine per file, started in the file's
//! folder; each line trimmed of the characters up to the space (Java's
//! `String.trim`), tabs sent as spaces, the whole line (its id included)
//! sent; a line `ID COMMAND` is a test, and a `#?` line after it checks
//! the reply: `#?` alone only that it is no error, `#? [PATTERN]` that the
//! reply matches PATTERN as a whole, with `!` first to negate it and `*`
//! after the closing bracket for a known failure. As gogui-regress does,
//! the text between the brackets is trimmed before it is read, the reply
//! is the full response from its first space on, trimmed, and the pattern
//! is compiled with MULTILINE and DOTALL. A pattern the Rust `regex`
//! crate refuses fails the file; Java's extras the crate lacks
//! (look-around, back-references) are therefore kept out of the files.
//!
//! Stricter than gogui-regress in one way: an error reply to any command,
//! numbered or not, fails the file (gogui-regress counts an unnumbered
//! command's error as an "other error" and goes on).

mod common;

use regex::Regex;
use std::path::Path;

/// What a `#?` line asks.
#[derive(Debug, PartialEq)]
enum Expectation {
    /// `#?` alone: no error.
    NoError,
    /// `#? [PATTERN]`: the reply matches (or, negated, does not).
    Pattern {
        pattern: String,
        negated: bool,
        known_failure: bool,
    },
}

/// One line of a test file as gogui-regress reads it.
#[derive(Debug, PartialEq)]
enum Line {
    Blank,
    Comment,
    /// A command: its id where the line starts with a number and a space
    /// (gogui-regress's `getId`), and the line as sent.
    Command {
        id: Option<i64>,
        sent: String,
    },
    Expect(Expectation),
}

/// Java's `String.trim`: every character up to U+0020 off both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// gogui-regress's `getId`: the number before the line's first space, if
/// the text before it reads as one.
fn command_id(line: &str) -> Option<i64> {
    let (first, _) = line.split_once(' ')?;
    first.parse::<i32>().ok().filter(|&n| n >= 0).map(i64::from)
}

/// One line, read as `Regress.handleLine` and `handleTest` read it; an
/// error is what gogui-regress would stop the file with.
fn read_line(raw: &str) -> Result<Line, String> {
    let line = java_trim(raw);
    if let Some(rest) = line.strip_prefix("#?") {
        let mut pattern = java_trim(rest);
        if pattern.is_empty() {
            return Ok(Line::Expect(Expectation::NoError));
        }
        let known_failure = match pattern.strip_suffix('*') {
            Some(p) => {
                pattern = p;
                true
            }
            None => false,
        };
        let inner = pattern
            .strip_prefix('[')
            .ok_or_else(|| format!("pattern has no opening bracket: {pattern}"))?
            .strip_suffix(']')
            .ok_or_else(|| format!("pattern has no closing bracket: {pattern}"))?;
        let inner = java_trim(inner);
        let (negated, pattern) = match inner.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, inner),
        };
        return Ok(Line::Expect(Expectation::Pattern {
            pattern: pattern.to_string(),
            negated,
            known_failure,
        }));
    }
    if line.is_empty() {
        return Ok(Line::Blank);
    }
    if line.starts_with('#') {
        return Ok(Line::Comment);
    }
    let sent = line.replace('\t', " ");
    Ok(Line::Command {
        id: command_id(&sent),
        sent,
    })
}

/// The reply a pattern is matched against: the full response from its
/// first space on, trimmed (`Regress.handleTest`); the full response is
/// the lines as written and the blank line that ends them.
fn reply_text(full: &str) -> &str {
    full.find(' ').map_or("", |i| java_trim(&full[i..]))
}

/// A pattern as `Pattern.compile(p, MULTILINE | DOTALL)` and
/// `Matcher.matches` (the whole reply) read it.
fn whole_match(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&format!(r"\A(?ms:{pattern})\z"))
}

#[test]
fn gtp_regression_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gtp-tests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tst"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .tst files in {}", dir.display());
    let (mut passed, mut failed, mut expected_failures) = (0, Vec::new(), 0);
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let mut engine = common::Engine::start(&[], &dir);
        // The last command's id, line and full response, until a `#?`
        // line or the next command takes it.
        let mut last: Option<(Option<i64>, String, String)> = None;
        for (n, raw) in text.lines().enumerate() {
            let line = read_line(raw)
                .unwrap_or_else(|e| panic!("{name}:{}: gogui-regress stops here: {e}", n + 1));
            match line {
                Line::Blank | Line::Comment => {}
                Line::Command { id, sent } => {
                    let full = format!("{}\n\n", engine.read_raw_after(&sent));
                    if full.starts_with('?') {
                        failed.push(format!("{name}:{}: {sent}: error {full:?}", n + 1));
                    }
                    last = Some((id, sent, full));
                }
                Line::Expect(expectation) => {
                    let Some((id, sent, full)) = last.take() else {
                        panic!(
                            "{name}:{}: response pattern without preceding test command",
                            n + 1
                        );
                    };
                    let Expectation::Pattern {
                        pattern,
                        negated,
                        known_failure,
                    } = expectation
                    else {
                        passed += 1;
                        continue;
                    };
                    let reply = reply_text(&full);
                    let re = whole_match(&pattern).unwrap_or_else(|e| {
                        panic!(
                            "{name}:{}: the pattern does not compile: {pattern}: {e}",
                            n + 1
                        )
                    });
                    let matched = !full.starts_with('?') && re.is_match(reply) != negated;
                    let case = format!("{name}:{} {sent}", id.unwrap_or(-1));
                    match (matched, known_failure) {
                        (true, false) => passed += 1,
                        (false, true) => expected_failures += 1,
                        (true, true) => failed.push(format!("{case}: passed unexpectedly")),
                        (false, false) => failed.push(format!(
                            "{case}: got {reply:?}, expected {}[{pattern}]",
                            if negated { "not " } else { "" }
                        )),
                    }
                }
            }
        }
        assert!(engine.finish().success());
    }
    println!(
        "gtp-tests: {passed} passed, {} failed, {expected_failures} known failures",
        failed.len()
    );
    assert!(failed.is_empty(), "failures:\n{}", failed.join("\n"));
}

#[test]
fn lines_are_read_as_gogui_regress_reads_them() {
    // The brackets' content is trimmed: a pattern that starts with ` *`
    // starts with a dangling `*`, which Java refuses and so does the crate.
    let Ok(Line::Expect(Expectation::Pattern { pattern, .. })) = read_line("#? [ *A B]") else {
        panic!("not a pattern");
    };
    assert_eq!(pattern, "*A B");
    assert!(whole_match(&pattern).is_err());
    assert_eq!(
        read_line("  #? [!x|y]*  ").unwrap(),
        Line::Expect(Expectation::Pattern {
            pattern: "x|y".into(),
            negated: true,
            known_failure: true,
        })
    );
    assert_eq!(read_line("#?").unwrap(), Line::Expect(Expectation::NoError));
    assert!(read_line("#? x").unwrap_err().contains("opening bracket"));
    assert!(read_line("#? [x").unwrap_err().contains("closing bracket"));
    assert_eq!(
        read_line("10\tplay b C3").unwrap(),
        Line::Command {
            id: Some(10),
            sent: "10 play b C3".into(),
        }
    );
    assert_eq!(
        read_line("clear_board").unwrap(),
        Line::Command {
            id: None,
            sent: "clear_board".into(),
        }
    );
    // The reply: from the full response's first space on, trimmed, so a
    // board's leading spaces are gone; DOTALL and whole-reply matching.
    let full = "=40 \n   A B C\n 3 . . . 3\n\n";
    assert_eq!(reply_text(full), "A B C\n 3 . . . 3");
    assert!(
        whole_match("A B C\n 3 .*")
            .unwrap()
            .is_match(reply_text(full))
    );
    assert!(!whole_match("B C.*").unwrap().is_match(reply_text(full)));
    assert!(whole_match("^ 3.*").unwrap().is_match(" 3 x"));
    assert_eq!(reply_text("=10\n\n"), "");
}
