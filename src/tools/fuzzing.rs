//! The properties a hostile controller tests, as code shared by the
//! property tests (`tests/properties.rs`), the stress test
//! (`tests/stress.rs`) and the cargo-fuzz targets (`fuzz/`): a generator of
//! commands a controller could send, well-formed or not, and the checks run
//! after every reply — the framing of the reply, an error that leaves the
//! state as it was, and `printsgf` output that loads back to the same
//! position.

use crate::engine::Engine;
use crate::frontends::gtp::{execute, execute_ending, holds_command, leading_id};
use crate::go::board::{BoardSize, Color};
use crate::go::game::Game;

/// One GTP command built from the drawn numbers `kind`, `a` and `b`, on a
/// board of `size` (which `boardsize` changes, to squares and rectangles):
/// mostly the sessions a
/// controller could send, so that the engine's state goes where junk never
/// takes it, and some malformed commands among them.
pub fn session_command(kind: usize, a: usize, b: usize, size: &mut BoardSize) -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let color = if b.is_multiple_of(2) { "b" } else { "w" };
    let vertex = if a.is_multiple_of(23) {
        "pass".to_string()
    } else {
        format!(
            "{}{}",
            LETTERS[a % size.width] as char,
            b / 2 % size.height + 1
        )
    };
    match kind % 32 {
        0 => {
            const SIZES: [(usize, usize); 12] = [
                (2, 2),
                (3, 3),
                (5, 5),
                (7, 7),
                (9, 9),
                (9, 9),
                (13, 13),
                (19, 19),
                (25, 25),
                (13, 9),
                (5, 11),
                (25, 2),
            ];
            let (width, height) = SIZES[a % SIZES.len()];
            *size = BoardSize { width, height };
            if size.is_square() {
                format!("boardsize {width}")
            } else {
                format!("rectangular_boardsize {width} {height}")
            }
        }
        1 => "clear_board".into(),
        2..=5 => format!("play {color} {vertex}"),
        6 => format!("genmove {color}"),
        7 => format!("reg_genmove {color}"),
        8 => format!("kgs-genmove_cleanup {color}"),
        9 | 10 => "undo".into(),
        11 => format!("gg-undo {}", a % 3),
        12 => format!(
            "aleago-dice {}",
            ["off", "1d6", "1d4", "2d6", "1d8", "1d2", "3d4"][a % 7]
        ),
        13 => format!("aleago-set_roll {color} {}", a % 12 + 1),
        14 => format!("aleago-roll {color}"),
        15 => format!("aleago-allowed {color}"),
        16 => format!(
            "aleago-option {} {}",
            [
                "bonus",
                "double-free",
                "crystal-ball",
                "exempt",
                "mapping",
                "referee"
            ][a % 6],
            ["on", "off", "black", "none", "original", "standard"][b % 6]
        ),
        17 => {
            let presets: Vec<&str> = crate::go::rules::Rules::preset_names().collect();
            format!("kosumi-rules {}", presets[a % presets.len()])
        }
        18 => format!("komi {}", a % 9),
        19 => format!("time_settings {} {} {}", a % 5, b % 3, b % 2),
        20 => format!("time_left {color} {} {}", a % 30, b % 3),
        21 => format!("fixed_handicap {}", a % 9 + 1),
        22 => format!("gogui-setup {color} {vertex}"),
        23 => format!("gogui-setup_player {color}"),
        24 => [
            "final_score",
            "final_status_list dead",
            "kosumi-score",
            "showboard",
            "printsgf",
        ][a % 5]
            .into(),
        25 => format!("all_legal {color}"),
        26 => format!("place_free_handicap {}", a % 6),
        27 => format!("gogui-play_sequence {color} {vertex} {color} {vertex}"),
        // Malformed: each must be refused and change nothing.
        28 => [
            "play",
            "play b",
            "play x A1",
            "play b Z99",
            "play b I5",
            "boardsize 0",
            "boardsize 26",
            "komi nan",
            "komi 1e9",
            "fixed_handicap 1",
            "set_free_handicap A1",
            "aleago-dice 9d9",
            "aleago-set_roll b 0",
            "loadsgf /dev/zero",
            "loadsgf /nonexistent",
            "time_settings -1 0 0",
        ][a % 16]
            .into(),
        29 => format!("{} name", "9".repeat(a % 30 + 1)),
        30 => format!("is_legal {color} {vertex}"),
        31 if b.is_multiple_of(3) => format!("kosumi-pass_stones {color}"),
        // Analysis, well formed or not.
        31 if b % 3 == 1 => match a % 8 {
            0 => format!("kata-analyze {color} {} ownership true", a % 50),
            1 => format!("lz-analyze {color} interval {} maxmoves {}", a % 50, b % 5),
            2 => format!("analyze {color} 10 avoid {color} {vertex} {}", b % 3),
            3 => format!("kata-genmove_analyze {color} {}", a % 20),
            4 => format!("kosumi-candidates {color}"),
            5 => format!("kosumi-pv {color}"),
            6 => format!("kata-analyze {color} 10 allow {color} {vertex},{vertex} 1"),
            _ => [
                "kata-analyze b x",
                "lz-genmove_analyze",
                "analyze b 5 avoid",
            ][b % 3]
                .into(),
        },
        // Phantom games refereed on the true game.
        _ => match a % 6 {
            0 => format!("phantom-new {}", ["go", "rengo"][b % 2]),
            1 | 2 => format!("phantom-try {} {vertex}", b % 4 + 1),
            3 => format!("phantom-view {}", b % 4 + 1),
            4 => "phantom-to_move".into(),
            _ => format!("phantom-option ataris {}", ["on", "off"][b % 2]),
        },
    }
}

/// Everything a controller can observe of the engine's state, for
/// comparing before and after a command: the board and counters, the
/// record with its rolls, the rules and komi, the dice and their options.
pub fn state_summary(engine: &mut Engine) -> String {
    let record = crate::go::sgf::write(engine.shown(), None);
    let mut out = record;
    for query in ["showboard", "kosumi-rules", "aleago-dice", "aleago-option"] {
        out.push('\n');
        out.push_str(&execute(engine, query.as_bytes()).unwrap_or_default());
    }
    out
}

/// Checks one reply against the line that caused it: a reply exactly when
/// the line holds a command, `=` or `?`, the id echoed, one blank line at
/// the end and none inside.
pub fn check_framing(line: &[u8], reply: Option<&str>) -> Result<(), String> {
    let mut in_comment = false;
    let wants_reply = holds_command(line, &mut in_comment);
    let Some(reply) = reply else {
        return if wants_reply {
            Err(format!("no reply to {line:?}"))
        } else {
            Ok(())
        };
    };
    if !wants_reply {
        return Err(format!("a reply to a line with no command: {line:?}"));
    }
    if !(reply.starts_with('=') || reply.starts_with('?')) {
        return Err(format!("reply starts neither = nor ?: {reply:?}"));
    }
    let body = reply
        .strip_suffix("\n\n")
        .ok_or_else(|| format!("reply does not end with a blank line: {reply:?}"))?;
    if body.contains("\n\n") {
        return Err(format!("a blank line inside the reply: {reply:?}"));
    }
    // An id is followed by the text (`=5 text`) or, opening a streamed
    // analysis reply, by the line break (`=5` and the info lines).
    if let Some(id) = leading_id(line)
        && !reply[1..].starts_with(&format!("{id} "))
        && !reply[1..].starts_with(&format!("{id}\n"))
    {
        return Err(format!("id {id} not echoed: {reply:?}"));
    }
    if reply.contains("internal error") {
        return Err(format!("internal error on {line:?}"));
    }
    Ok(())
}

/// Checks that `printsgf`'s record loads back to the same position: the
/// board, the side to move, komi, rules, handicap, pass stones, captures,
/// the dice and the pending rolls.
pub fn check_record_round_trip(game: &Game) -> Result<(), String> {
    let text = crate::go::sgf::write(game, None);
    let template = Game::new(19, crate::go::rules::Rules::default(), 7.5);
    let back = crate::go::sgf::load(&text, &template, None)
        .map_err(|e| format!("printsgf wrote what loadsgf refuses ({e}): {text}"))?;
    let observe = |g: &Game| {
        let both = [Color::Black, Color::White];
        format!(
            "{}\nto move {:?}, komi {}, rules {}, handicap {}, pass stones {:?}, captures {:?}, dice {:?}, rolls {:?}",
            g.board().to_ascii(),
            g.to_move(),
            g.komi,
            g.rules.name,
            g.handicap(),
            both.map(|c| g.pass_stones(c)),
            both.map(|c| g.board().captures(c)),
            g.dice(),
            both.map(|c| g.pending_roll(c)),
        )
    };
    let (was, is) = (observe(game), observe(&back));
    if was == is {
        Ok(())
    } else {
        Err(format!(
            "printsgf does not load back to the same game:\nwas {was}\nis  {is}\nrecord {text}"
        ))
    }
}

/// Runs commands on `engine`, checking after each: the framing, that an
/// error changed nothing (but for the roll a referee draws for a refused
/// stone, which stays pending on purpose), and every `round_trip_every`
/// commands (and at the end) that the record loads back.
pub fn check_session(
    engine: &mut Engine,
    commands: &[String],
    round_trip_every: usize,
) -> Result<(), String> {
    for (i, command) in commands.iter().enumerate() {
        let before = state_summary(engine);
        let executed = execute_ending(engine, command.as_bytes());
        let reply = executed.as_ref().map(|(text, _)| text.as_str());
        check_framing(command.as_bytes(), reply)?;
        let quits = executed.as_ref().is_some_and(|&(_, quit)| quit);
        let reply = reply.unwrap_or_default();
        let referee_roll = reply.contains(" rolled ");
        if reply.starts_with('?') && !referee_roll {
            let after = state_summary(engine);
            if after != before {
                return Err(format!(
                    "{command:?} failed ({}) but changed the state:\nbefore {before}\nafter  {after}",
                    reply.trim_end()
                ));
            }
        }
        if round_trip_every > 0 && (i + 1) % round_trip_every == 0 {
            check_record_round_trip(engine.shown())
                .map_err(|e| format!("after {command:?}: {e}"))?;
        }
        if quits {
            break;
        }
    }
    check_record_round_trip(engine.shown())
}

/// A small engine for checks: few playouts, a small tree.
pub fn quick_engine(size: usize) -> Engine {
    Engine::new(
        crate::engine::Config {
            search: crate::search::SearchConfig {
                playouts: Some(30),
                max_nodes: 2000,
                chooser: crate::search::ChooserPolicy {
                    ownership_playouts: 20,
                    ..Default::default()
                },
                ..Default::default()
            },
            ..Default::default()
        },
        crate::go::rules::Rules::default(),
        size,
        None,
    )
}
