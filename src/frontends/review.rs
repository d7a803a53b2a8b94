//! `kosumi review`: every position of a game record searched with the
//! network, and the record written back with what the search found: on
//! each node Black's win rate and score lead in the properties Sabaki
//! writes for its graph (`SBKV`, percent, and `SBKS`, points), and a
//! comment with the evaluation, the move the search prefers, the points
//! the played move lost and the expected line. GoGui shows the comments;
//! Sabaki the graph and the comments.
//!
//! A position's value is its best (most visited) move's: win rate and
//! score lead. A move's loss is the mover's score lead before it less the
//! mover's score lead after it (the next position's, turned round), as
//! KaTrain counts points lost.

use crate::core::random::nth_seed;
use crate::go::board::{BoardSize, Color, Point};
use crate::go::game::{Action, Game};
use crate::go::sgf::{Note, Record};
use crate::go::vertex::vertex_name;
use crate::nn::Evaluator;
use crate::search::{Budget, Report, SearchConfig, Watch, puct};
use std::sync::atomic::AtomicBool;

/// Reviews the record at `path` (its main line, under `template`'s rules
/// and komi where it sets none) with `net` as `how` says, a progress bar on
/// stderr, and writes the reviewed record to `out` whole or not at all;
/// why not, naming the record, where it does not read or the review cannot
/// be written.
pub fn review_file(
    path: &std::path::Path,
    out: &std::path::Path,
    template: &Game,
    net: &Evaluator,
    how: &SearchConfig,
) -> Result<(), String> {
    use std::io::Write;
    let read = crate::go::sgf::read_file(&path.to_string_lossy())?;
    let guessed = read.note();
    if let Some(note) = &guessed {
        crate::say!("review: {}: {note}", path.display());
    }
    let text = read.text;
    let record = crate::go::sgf::load_record(&text, template)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let start = std::time::Instant::now();
    let mut progress = |done: usize, total: usize| {
        let width = 30;
        let filled = done * width / total.max(1);
        let _ = write!(
            std::io::stderr(),
            "\rreview: [{}{}] {done}/{total} positions, {:.0} s",
            "#".repeat(filled),
            "-".repeat(width - filled),
            start.elapsed().as_secs_f64()
        );
        let _ = std::io::stderr().flush();
    };
    let found = review(&record.game, net, how, &mut progress);
    crate::say!();
    let mut notes = notes(&record, &found);
    // Where the encoding was a guess, the root's note says which.
    if let (Some(guessed), Some(root)) = (guessed, notes.first_mut()) {
        root.comment = format!("kosumi: {guessed}\n{}", root.comment);
    }
    let reviewed = crate::go::sgf::annotate_record(&text, &notes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // A review is a record kosumi reads again.
    let limit = crate::go::sgf::MAX_FILE_BYTES;
    if reviewed.len() as u64 > limit {
        return Err(format!(
            "{}: the review would be {} bytes, more than the {limit} kosumi reads; not written",
            path.display(),
            reviewed.len()
        ));
    }
    crate::core::files::write_atomically(out, reviewed.as_bytes()).map_err(|e| e.to_string())
}

/// What the search found in one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub to_move: Color,
    /// Black's win rate (0..1) and score lead.
    pub black_win_rate: f64,
    pub black_lead: f64,
    /// The move the search prefers (`None`: pass) and its line.
    pub best: Option<Point>,
    pub line: Vec<Option<Point>>,
    pub visits: u64,
}

/// Plays `action` of `game`'s record on `at`, as it was played.
fn replay(at: &mut Game, game: &Game, action: &Action) {
    // The record's own actions, already checked when it was read.
    let _ = match action {
        Action::Setup(stones) => at.setup(stones, game.handicap_set_up() > 0),
        Action::Move(c, mv, _) => at.play(*c, *mv),
    };
}

fn evaluated(report: &Report) -> Option<Evaluated> {
    let best = report.candidates.first().filter(|b| b.visits > 0)?;
    let black = if report.to_move == Color::Black {
        1.0
    } else {
        -1.0
    };
    let rate = if black > 0.0 {
        best.win_rate
    } else {
        1.0 - best.win_rate
    };
    Some(Evaluated {
        to_move: report.to_move,
        black_win_rate: rate,
        black_lead: black * best.score_lead.unwrap_or(0.0),
        best: best.mv,
        line: best.pv.clone(),
        visits: report.playouts,
    })
}

/// What the review found at one position: its evaluation with the side to
/// move that follows the record's last move (the graph's value, and what
/// the move into it is weighed by), and, where the record's next move is
/// by the same side again (a handicap given as moves), the evaluation with
/// that side to move (what its move is weighed against).
#[derive(Clone, Debug, Default)]
pub struct Reviewed {
    pub here: Option<Evaluated>,
    pub for_same_side: Option<Evaluated>,
}

impl Reviewed {
    /// The evaluation a move of `c` from here is weighed against.
    fn before_move_of(&self, c: Color) -> Option<&Evaluated> {
        [&self.for_same_side, &self.here]
            .into_iter()
            .flatten()
            .find(|e| e.to_move == c)
    }
}

/// Searches every position of `game` (before each action and after the
/// last), calling `progress(done, total)` after each. A position already
/// over (two passes) is not searched.
pub fn review(
    game: &Game,
    net: &Evaluator,
    how: &SearchConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Reviewed> {
    let total = game.actions().len() + 1;
    let stop = AtomicBool::new(false);
    // One tree, re-rooted from each position to the next.
    let mut tree = puct::NetTree::default();
    let mut found = Vec::with_capacity(total);
    let budget = Budget {
        playouts: Some(how.playouts.unwrap_or(1).max(1)),
        time: None,
    };
    let search = |at: &Game, n: usize, tree: &mut puct::NetTree| {
        if at.is_over() {
            return None;
        }
        let mut ignore = |_: &Report| {};
        let watch = Watch::quiet(None, &mut ignore);
        let outcome = puct::search_watched(
            at,
            net,
            puct::PuctParams::of(how, budget, nth_seed(how.seed, n as u64)),
            &stop,
            tree,
            Some(watch),
        );
        outcome.report.and_then(|r| evaluated(&r))
    };
    // The position before action `n`, moved on one action at a time.
    let mut at = Game::new(game.size(), game.rules, game.komi);
    for n in 0..total {
        if n > 0 {
            replay(&mut at, game, &game.actions()[n - 1]);
        }
        let here = search(&at, n, &mut tree);
        let for_same_side = match game.actions().get(n) {
            Some(&Action::Move(c, _, _)) if c != at.to_move() => {
                at.set_to_move(c);
                search(&at, n, &mut tree)
            }
            _ => None,
        };
        found.push(Reviewed {
            here,
            for_same_side,
        });
        progress(n + 1, total);
    }
    found
}

fn lead_text(black_lead: f64) -> String {
    if black_lead >= 0.0 {
        format!("B+{black_lead:.1}")
    } else {
        format!("W+{:.1}", -black_lead)
    }
}

/// The note of a position: Sabaki's graph properties and the comment.
/// `played` is the move that led here with the evaluation before it.
fn note(
    here: Option<&Evaluated>,
    played: Option<(Color, Option<Point>, &Evaluated)>,
    size: BoardSize,
) -> Note {
    let mut note = Note::default();
    let mut lines = Vec::new();
    if let Some(e) = here {
        note.properties = vec![
            ("SBKV".into(), format!("{:.2}", 100.0 * e.black_win_rate)),
            ("SBKS".into(), format!("{:.2}", e.black_lead)),
        ];
        lines.push(format!(
            "kosumi ({} visits): Black {:.1}%, {}",
            e.visits,
            100.0 * e.black_win_rate,
            lead_text(e.black_lead)
        ));
    }
    if let Some((c, mv, before)) = played {
        let side = if c == Color::Black { 1.0 } else { -1.0 };
        let name = format!("{} {}", c.letter(), vertex_name(mv, size));
        let best = vertex_name(before.best, size);
        match here {
            Some(after) if before.to_move == c && after.to_move != c => {
                let lost = side * (before.black_lead - after.black_lead);
                if before.best == mv {
                    lines.push(format!("{name}: kosumi's choice ({lost:.1} points lost)"));
                } else {
                    lines.push(format!(
                        "{name}: {lost:.1} points lost; kosumi's choice {best}"
                    ));
                }
            }
            _ => lines.push(format!("{name}; kosumi's choice {best}")),
        }
    }
    if let Some(e) = here {
        let line: Vec<String> = e.line.iter().map(|&p| vertex_name(p, size)).collect();
        lines.push(format!(
            "Best for {}: {}",
            if e.to_move == Color::Black {
                "Black"
            } else {
                "White"
            },
            line.join(" ")
        ));
    }
    note.comment = lines.join("\n");
    note
}

/// The record `text` (read as `record`) again, every property, comment
/// and variation of its own kept, with the review's note on each node of
/// its main line: the evaluation of the position after the node, and, on a
/// node that makes a move, what that move lost.
pub fn annotate(text: &str, record: &Record, found: &[Reviewed]) -> Result<String, String> {
    crate::go::sgf::annotate_record(text, &notes(record, found))
}

/// The review's note for each node of `record`'s main line, the root first.
fn notes(record: &Record, found: &[Reviewed]) -> Vec<Note> {
    let game = &record.game;
    let size = game.size();
    let mut before = 0;
    record
        .actions_after_node
        .iter()
        .map(|&after| {
            let here = found.get(after).and_then(|r| r.here.as_ref());
            let played = (after > before)
                .then(|| &game.actions()[after - 1])
                .and_then(|action| match action {
                    Action::Move(c, mv, _) => found
                        .get(after - 1)
                        .and_then(|r| r.before_move_of(*c))
                        .map(|b| (*c, *mv, b)),
                    Action::Setup(_) => None,
                });
            before = after;
            note(here, played, size)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Rules;

    #[test]
    fn a_blunder_is_marked_with_its_loss_and_the_records_own_content_is_kept() {
        let net = Evaluator::embedded();
        // Black's first stone on the edge at A1: a move that loses points.
        // The record's players, date, comments and a variation must stay.
        let text = "(;GM[1]FF[4]SZ[9]KM[7.5]PB[Honinbo]PW[Shusaku]DT[1846-09-11]\
                    C[a famous game];B[ai]C[first move]\
                    (;W[ee];B[cc])(;W[dd]C[a variation]))";
        let template = Game::new(19, Rules::default(), 7.5);
        let record = crate::go::sgf::load_record(text, &template).unwrap();
        assert_eq!(record.actions_after_node, vec![0, 1, 2, 3]);
        let how = SearchConfig {
            playouts: Some(32),
            seed: 1,
            ..Default::default()
        };
        let found = review(&record.game, &net, &how, &mut |_, _| {});
        assert_eq!(found.len(), 4);
        let (before, after) = (
            found[0].here.as_ref().unwrap(),
            found[1].here.as_ref().unwrap(),
        );
        assert!(
            before.black_lead > after.black_lead + 2.0,
            "{before:?} {after:?}"
        );
        let out = annotate(text, &record, &found).unwrap();
        for kept in [
            "PB[Honinbo]",
            "PW[Shusaku]",
            "DT[1846-09-11]",
            "a famous game",
            "first move",
            "W[dd]",
            "a variation",
        ] {
            assert!(out.contains(kept), "{kept} lost: {out}");
        }
        assert_eq!(out.matches("SBKV[").count(), 4, "{out}");
        assert!(out.contains("SBKS["), "{out}");
        assert!(out.contains("points lost; kosumi's choice"), "{out}");
        // The main line reads back as the same game.
        let back = crate::go::sgf::load_record(&out, &template).unwrap();
        assert_eq!(back.game.actions(), record.game.actions());
        // Reviewed twice, a node holds one SBKV still.
        let again = annotate(&out, &back, &found).unwrap();
        assert_eq!(again.matches("SBKV[").count(), 4, "{again}");
    }

    #[test]
    fn a_handicap_given_as_moves_is_weighed_against_the_movers_own_best() {
        let net = Evaluator::embedded();
        let text = "(;GM[1]FF[4]SZ[9]KM[0.5]RU[Chinese];B[cc];B[gg];B[cg];W[ee];B[gc])";
        let template = Game::new(9, Rules::default(), 7.5);
        let record = crate::go::sgf::load_record(text, &template).unwrap();
        assert_eq!(record.game.handicap(), 3);
        let how = SearchConfig {
            playouts: Some(16),
            seed: 1,
            ..Default::default()
        };
        let found = review(&record.game, &net, &how, &mut |_, _| {});
        // Before Black's second and third opening moves Black is searched
        // to move too, and each move is weighed by White to move after it.
        assert!(found[0].for_same_side.is_none());
        for (n, position) in found.iter().enumerate().take(3).skip(1) {
            assert_eq!(position.here.as_ref().unwrap().to_move, Color::White);
            let same = position.for_same_side.as_ref().unwrap();
            assert_eq!(same.to_move, Color::Black, "{n}");
        }
        assert!(found[3].for_same_side.is_none());
        let out = annotate(text, &record, &found).unwrap();
        for mv in ["B C7", "B G3", "B C3"] {
            // The record escapes the colon: `B C7\: 2.3 points lost; ...`.
            let at = out
                .find(&format!("{mv}\\:"))
                .unwrap_or_else(|| panic!("{mv}: {out}"));
            let comment = &out[at..at + 40];
            assert!(
                comment.contains("points lost") || comment.contains("kosumi's choice ("),
                "{comment}"
            );
        }
    }
}
