//! Runs every `gtp-tests/*.tst` file the way gogui-regress does: a fresh
//! engine per file, started in the file's folder; numbered commands followed
//! by `#? [regex]` are checked (the regex must match the whole reply, `!`
//! negates it, a trailing `*` marks a known failure); an error reply fails.

mod common;

use regex::Regex;
use std::path::Path;

struct Case {
    id: String,
    command: String,
    expect: Option<(String, bool, bool)>, // (regex, negated, known failure)
}

fn parse_file(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("#?") {
            let rest = rest.trim();
            let known = rest.ends_with('*');
            let rest = rest.trim_end_matches('*').trim();
            let inner = rest
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .unwrap_or_else(|| panic!("bad expectation {line}"));
            let (negated, re) = match inner.strip_prefix('!') {
                Some(r) => (true, r),
                None => (false, inner),
            };
            let last = cases.last_mut().expect("#? after a command");
            last.expect = Some((re.to_string(), negated, known));
        } else if line.is_empty() || line.starts_with('#') {
            continue;
        } else {
            let (id, command) = match line.split_once(' ') {
                Some((n, c)) if n.chars().all(|c| c.is_ascii_digit()) => {
                    (n.to_string(), c.to_string())
                }
                _ if line.chars().all(|c| c.is_ascii_digit()) => (line.to_string(), String::new()),
                _ => (String::new(), line.to_string()),
            };
            cases.push(Case {
                id,
                command,
                expect: None,
            });
        }
    }
    cases
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
        let text = std::fs::read_to_string(file).unwrap();
        let mut engine = common::Engine::start(&[], &dir);
        for case in parse_file(&text) {
            let (ok, reply) = engine.command(&case.command);
            // gogui-regress matches the reply with surrounding white space cut.
            let reply = reply.trim();
            let name = format!(
                "{}:{} {}",
                file.file_name().unwrap().to_string_lossy(),
                case.id,
                case.command
            );
            let Some((re, negated, known)) = &case.expect else {
                continue;
            };
            let matched = ok
                && Regex::new(&format!("^(?s:{re})$"))
                    .unwrap_or_else(|e| panic!("{name}: bad regex {re}: {e}"))
                    .is_match(reply)
                    != *negated;
            match (matched, known) {
                (true, false) => passed += 1,
                (false, true) => expected_failures += 1,
                (true, true) => failed.push(format!("{name}: passed unexpectedly")),
                (false, false) => failed.push(format!(
                    "{name}: got {}{reply:?}, expected {}[{re}]",
                    if ok { "" } else { "error " },
                    if *negated { "not " } else { "" }
                )),
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
