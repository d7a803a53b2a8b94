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
//! An error reply fails a numbered command (with or without a `#?` line),
//! as gogui-regress counts it an unexpected failure; an unnumbered
//! command's error is an "other error" there, printed as an Error that a
//! GoGui user reads as a failure, and fails here too: gogui-regress has no
//! way to expect an error, so refusals are checked in `tests/gtp_errors.rs`
//! and `tests/hostile.rs`.

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

/// What became of one command.
enum Verdict {
    Passed,
    KnownFailure,
    Failed(String),
    /// An unnumbered command's error: the case and the reply.
    OtherError(String),
    /// An unnumbered command's answer, with nothing asked of it.
    Nothing,
}

/// Judges a command's full response by the expectation after it (`#?`
/// alone where no `#?` line follows), as `Regress.handleLastResponse` and
/// `handleTest` do.
fn judge(case: &str, id: Option<i64>, full: &str, expectation: Expectation) -> Verdict {
    let error = full.starts_with('?');
    let Expectation::Pattern {
        pattern,
        negated,
        known_failure,
    } = expectation
    else {
        return match (id, error) {
            (Some(_), true) => Verdict::Failed(format!("{case}: error {full:?}")),
            (Some(_), false) => Verdict::Passed,
            (None, true) => Verdict::OtherError(format!("{case}: {}", full.trim_end())),
            (None, false) => Verdict::Nothing,
        };
    };
    let reply = reply_text(full);
    let re = whole_match(&pattern)
        .unwrap_or_else(|e| panic!("{case}: the pattern does not compile: {pattern}: {e}"));
    let matched = !error && re.is_match(reply) != negated;
    match (matched, known_failure) {
        (true, false) => Verdict::Passed,
        (false, true) => Verdict::KnownFailure,
        (true, true) => Verdict::Failed(format!("{case}: passed unexpectedly")),
        (false, false) => Verdict::Failed(format!(
            "{case}: got {}{reply:?}, expected {}[{pattern}]",
            if error { "error " } else { "" },
            if negated { "not " } else { "" }
        )),
    }
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
    let mut verdicts = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        // One search thread: the files pin moves to a seed.
        let mut engine = common::Engine::start(&["--threads", "1"], &dir);
        // The last command (its case name, id and full response) until a
        // `#?` line or the next command settles it.
        let mut last: Option<(String, Option<i64>, String)> = None;
        for (n, raw) in text.lines().enumerate() {
            let at = format!("{name}:{}", n + 1);
            match read_line(raw).unwrap_or_else(|e| panic!("{at}: gogui-regress stops here: {e}")) {
                Line::Blank | Line::Comment => {}
                Line::Command { id, sent } => {
                    if let Some((case, id, full)) = last.take() {
                        verdicts.push(judge(&case, id, &full, Expectation::NoError));
                    }
                    let full = format!("{}\n\n", engine.read_raw_after(&sent));
                    last = Some((format!("{at} {sent}"), id, full));
                }
                Line::Expect(expectation) => {
                    let Some((case, id, full)) = last.take() else {
                        panic!("{at}: response pattern without preceding test command");
                    };
                    verdicts.push(judge(&case, id, &full, expectation));
                }
            }
        }
        if let Some((case, id, full)) = last.take() {
            verdicts.push(judge(&case, id, &full, Expectation::NoError));
        }
        assert!(engine.finish().success());
    }
    let count = |f: fn(&Verdict) -> bool| verdicts.iter().filter(|v| f(v)).count();
    let failed: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Failed(why) => Some(why.as_str()),
            _ => None,
        })
        .collect();
    println!(
        "gtp-tests: {} passed, {} failed, {} known failures, {} errors of unnumbered commands",
        count(|v| matches!(v, Verdict::Passed)),
        failed.len(),
        count(|v| matches!(v, Verdict::KnownFailure)),
        count(|v| matches!(v, Verdict::OtherError(_))),
    );
    assert!(failed.is_empty(), "failures:\n{}", failed.join("\n"));
    // gogui-regress prints each as an "Error" a GoGui user reads as a
    // failure, and has no way to expect one: the refusals are checked in
    // tests/gtp_errors.rs instead.
    let errors: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::OtherError(what) => Some(what.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        errors.is_empty(),
        "errors of unnumbered commands:\n{}",
        errors.join("\n")
    );
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
