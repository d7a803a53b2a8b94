//! `kosumi review` on a record: the reviewed record written where asked,
//! with Sabaki's graph properties and a comment on every node and the
//! record's own content kept, and whatever would lose the user's files or
//! review nothing refused before any search, the files left as they were.

use std::path::Path;
use std::process::{Command, Output};

/// `kosumi review --visits VISITS --out OUT GAME`, run to its end.
fn review_into(visits: &str, out: &Path, game: &Path) -> Output {
    review(&[
        "--visits".as_ref(),
        visits.as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        game.as_os_str(),
    ])
}

#[test]
fn a_record_is_written_back_with_the_review() {
    let dir = std::env::temp_dir().join(format!("kosumi-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("game.sgf");
    std::fs::write(
        &game,
        "(;GM[1]FF[4]SZ[9]KM[7]RU[Japanese]RE[W+3];B[ee];W[cc];B[gc];W[tt])",
    )
    .unwrap();
    let out = dir.join("reviewed.sgf");
    let status = review_into("16", &out, &game);
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(String::from_utf8_lossy(&status.stderr).contains("5/5 positions"));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("SBKV[").count(), 5, "{text}");
    assert_eq!(text.matches("SBKS[").count(), 5, "{text}");
    assert!(
        text.contains("RU[Japanese]")
            && text.contains("KM[7]")
            && text.contains("RE[W+3]")
            && text.contains("SZ[9]"),
        "{text}"
    );
    assert!(text.contains("W C7"), "{text}");
    let bad = dir.join("bad.sgf");
    std::fs::write(&bad, "not a record").unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .arg("review")
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not an SGF game record"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn review(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .arg("review")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn what_would_lose_the_users_files_is_refused_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("kosumi-review-safe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("game.sgf");
    let record = "(;GM[1]FF[4]SZ[9]PB[Alice]C[kept];B[ee];W[cc])";
    std::fs::write(&game, record).unwrap();
    let earlier = dir.join("earlier.sgf");
    std::fs::write(&earlier, "an earlier review").unwrap();
    let refused = |args: &[&std::ffi::OsStr], why: &str| {
        let out = review(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(err.contains(why), "{args:?}: {err}");
        // Refused before the first position is searched.
        assert!(
            !err.contains(" positions, "),
            "{args:?} searched first: {err}"
        );
        assert_eq!(std::fs::read_to_string(&game).unwrap(), record);
        assert_eq!(
            std::fs::read_to_string(&earlier).unwrap(),
            "an earlier review"
        );
    };
    let g = game.as_os_str();
    // The record itself as the output, by the same path or another one.
    refused(&[g, "--out".as_ref(), g], "the record itself");
    let other_spelling = dir.join(".").join("game.sgf");
    refused(
        &[g, "--out".as_ref(), other_spelling.as_os_str()],
        "the record itself",
    );
    // A folder or a FIFO as the output.
    refused(
        &[g, "--out".as_ref(), dir.as_os_str()],
        "not a regular file",
    );
    let fifo = dir.join("fifo");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        refused(
            &[g, "--out".as_ref(), fifo.as_os_str()],
            "not a regular file",
        );
    }
    // A link as the output (the write would not follow it).
    #[cfg(unix)]
    {
        let link = dir.join("link.sgf");
        std::os::unix::fs::symlink(&earlier, &link).unwrap();
        refused(
            &[g, "--out".as_ref(), link.as_os_str()],
            "not a regular file",
        );
        std::fs::remove_file(&link).unwrap();
    }
    // Budgets that judge nothing, rules that do not exist.
    refused(&[g, "--visits".as_ref(), "0".as_ref()], "at least 2 visits");
    refused(&[g, "--visits".as_ref(), "1".as_ref()], "at least 2 visits");
    let frob = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(["--rules", "frob", "review"])
        .arg(&game)
        .output()
        .unwrap();
    assert!(!frob.status.success());
    assert!(String::from_utf8_lossy(&frob.stderr).contains("unknown rules 'frob'"));
    // A place that cannot be written: an error, the earlier review kept.
    let nowhere = dir.join("no-such-folder").join("r.sgf");
    let out = review(&[
        g,
        "--visits".as_ref(),
        "4".as_ref(),
        "--out".as_ref(),
        nowhere.as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write") && !err.contains(" positions, "),
        "{err}"
    );
    // Over an earlier review, the new one whole.
    let out = review(&[
        g,
        "--visits".as_ref(),
        "4".as_ref(),
        "--out".as_ref(),
        earlier.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&earlier).unwrap();
    assert!(
        text.contains("PB[Alice]") && text.contains("kept") && text.contains("SBKV["),
        "{text}"
    );
    // Nothing but the files the test made is left in the folder.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.retain(|n| n != "fifo");
    assert_eq!(names, ["earlier.sgf", "game.sgf"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_record_in_shift_jis_is_reviewed_into_utf8_and_a_read_only_out_is_refused() {
    let dir = std::env::temp_dir().join(format!("kosumi-review-sjis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("game.sgf");
    // 井山裕太 against 一力遼, a comment with 表 (whose second byte in
    // Shift_JIS is a backslash).
    let text =
        "(;GM[1]FF[4]CA[Shift_JIS]SZ[9]KM[6.5]PB[井山裕太]PW[一力遼]C[表の対局];B[ee];W[cc])";
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
    std::fs::write(&game, &bytes).unwrap();
    let out = dir.join("reviewed.sgf");
    let status = review_into("4", &out, &game);
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let written = std::fs::read_to_string(&out).expect("UTF-8");
    for kept in ["PB[井山裕太]", "PW[一力遼]", "表の対局", "CA[UTF-8]"] {
        assert!(written.contains(kept), "{kept}: {written}");
    }
    assert!(
        !written.contains("Shift_JIS") && !written.contains('\u{fffd}'),
        "{written}"
    );
    // The input is as it was.
    assert_eq!(std::fs::read(&game).unwrap(), bytes.as_ref());
    // A review file the user made read-only is refused before any search.
    let mut locked = std::fs::metadata(&out).unwrap().permissions();
    locked.set_readonly(true);
    std::fs::set_permissions(&out, locked).unwrap();
    let again = review_into("4", &out, &game);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("read-only") && !err.contains("positions"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    let mut open = std::fs::metadata(&out).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    open.set_readonly(false);
    std::fs::set_permissions(&out, open).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_record_that_names_no_encoding_is_read_in_the_one_detected_and_says_so() {
    let dir = std::env::temp_dir().join(format!("kosumi-review-guess-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = dir.join("game.sgf");
    // Shift_JIS, as older Japanese programs wrote it, with no CA[].
    let text = "(;GM[1]FF[4]SZ[9]KM[6.5]PB[井山裕太]PW[一力遼]\
                C[第48期棋聖戦の第一局。素晴らしい対局でした];B[ee];W[cc])";
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
    std::fs::write(&game, &bytes).unwrap();
    let out = dir.join("reviewed.sgf");
    let done = review_into("4", &out, &game);
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{err}");
    assert!(err.contains("read as Shift_JIS, detected"), "{err}");
    let written = std::fs::read_to_string(&out).expect("UTF-8");
    for kept in ["PB[井山裕太]", "PW[一力遼]", "素晴らしい対局", "CA[UTF-8]"] {
        assert!(written.contains(kept), "{kept}: {written}");
    }
    assert!(written.contains("read as Shift_JIS"), "{written}");
    assert_eq!(std::fs::read(&game).unwrap(), bytes.as_ref());
    std::fs::remove_dir_all(&dir).unwrap();
}
