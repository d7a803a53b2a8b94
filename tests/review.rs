//! `kosumi review` on a record: the reviewed record written where asked,
//! with Sabaki's graph properties and a comment on every node, and a
//! record that does not read refused with the reason.

use std::process::Command;

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
    let status = Command::new(env!("CARGO_BIN_EXE_kosumi"))
        .args(["review", "--visits", "16", "--out"])
        .arg(&out)
        .arg(&game)
        .output()
        .unwrap();
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
        text.contains("RU[japanese]") && text.contains("KM[7]") && text.contains("RE[W+3]"),
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
