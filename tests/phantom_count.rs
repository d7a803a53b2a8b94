//! One phantom game, one result: the referee's `end` announcement,
//! `final_score`, `final_status_list dead` and the record's `RE[]` come
//! from one count, with the network loaded (which counts plain games) or
//! not.

mod common;

use common::Engine;
use std::path::Path;

/// A generator for the tries (the test's own, so that the games are the
/// same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Plays random tries until the referee announces the end; its result.
fn play_to_the_end(e: &mut Engine, rng: &mut Lcg) -> String {
    const COLUMNS: &[u8] = b"ABCDEFGHJ";
    for n in 0..20_000u64 {
        let seat = e.ok("phantom-to_move");
        // Passes grow likelier as the game goes on.
        let vertex = if rng.below(1000) < 5 + n / 40 {
            "pass".to_string()
        } else {
            format!(
                "{}{}",
                COLUMNS[rng.below(9) as usize] as char,
                1 + rng.below(9)
            )
        };
        let heard = e.ok(&format!("phantom-try {seat} {vertex}"));
        if let Some(result) = heard.lines().find_map(|l| l.strip_prefix("end ")) {
            return result.to_string();
        }
    }
    panic!("no end after 20,000 tries");
}

#[test]
fn the_referees_end_and_every_count_after_it_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rng = Lcg(7);
    let mut differed_on_board = 0;
    for (kind, handicap, args) in [
        ("rengo", 2, &[][..]),
        ("rengo", 2, &[][..]),
        ("go", 0, &[][..]),
        ("go", 3, &[][..]),
        ("rengo", 0, &["--nn", "off"][..]),
    ] {
        let mut e = Engine::start(args, dir);
        e.ok("boardsize 9");
        e.ok("clear_board");
        if handicap > 0 {
            e.ok(&format!("fixed_handicap {handicap}"));
        }
        e.ok(&format!("phantom-new {kind}"));
        let end = play_to_the_end(&mut e, &mut rng);
        assert_eq!(e.ok("final_score"), end, "{kind} {handicap} {args:?}");
        let record = e.ok("printsgf");
        assert!(record.contains(&format!("RE[{end}]")), "{end}: {record}");
        let score = e.ok("kosumi-score");
        assert!(
            score.starts_with(&format!("result {end}\n")),
            "{end}: {score}"
        );
        // The dead stones listed are the ones the count removed: counting
        // the board as it stands differs exactly when some are listed.
        let dead = e.ok("final_status_list dead");
        if !dead.is_empty() {
            differed_on_board += 1;
        }
        assert!(e.finish().success());
    }
    // Random play leaves dead stones on the board to judge.
    assert!(differed_on_board >= 2, "{differed_on_board}");
}
