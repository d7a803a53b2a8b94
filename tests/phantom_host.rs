//! A person's seat in a phantom game, through GoGui's ruler interface: the
//! commands GoGui sends a ruler (`gogui-rules_*` after each `play`), as a
//! session against the built binary.

mod common;

use common::Engine;
use std::path::Path;

fn host(args: &[&str]) -> Engine {
    Engine::start(args, Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn a_person_plays_white_and_sees_only_their_view() {
    let mut e = host(&["--size", "9", "--phantom-human", "2", "--playouts", "300"]);
    let commands = e.ok("list_commands");
    assert!(commands.contains("gogui-rules_legal_moves"));
    assert_eq!(e.ok("gogui-rules_game_id"), "Phantomgo");
    assert_eq!(e.ok("gogui-rules_board_size"), "9");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    // GoGui's Analyze menu offers only what the host permits.
    let menu = e.ok("gogui-analyze_commands");
    assert!(menu.contains("all_legal"), "{menu}");
    for hidden in [
        "final_score",
        "kosumi-ownership",
        "kosumi-candidates",
        "final_status_list",
    ] {
        assert!(!menu.contains(hidden), "{hidden} offered: {menu}");
    }
    // Black (kosumi) has tried already: a stone on the true board, none on
    // the person's view, which every reading command reads.
    let board = e.ok("gogui-rules_board");
    assert_eq!(board.lines().count(), 9);
    assert!(!board.contains('X') && !board.contains('O'), "{board}");
    assert_eq!(e.ok("list_stones b"), "");
    assert!(!e.ok("showboard").contains(" X"));
    let legal = e.ok("gogui-rules_legal_moves");
    assert_eq!(legal.split(' ').count(), 82, "every point and pass");
    assert_eq!(e.ok("all_legal b").split(' ').count(), 81);
    for refused in [
        "final_score",
        "kosumi-ownership",
        "kosumi-candidates b",
        "phantom-view 1",
    ] {
        assert!(e.err(refused).contains("hosts"), "{refused}");
    }
    // The person tries points in order until one holds a black stone:
    // refused, the stone revealed, still their turn, the point no longer
    // offered; each accepted try shows on their view.
    let mut revealed = None;
    for _ in 0..60 {
        let next = e
            .ok("gogui-rules_legal_moves")
            .split(' ')
            .next()
            .unwrap()
            .to_string();
        e.ok(&format!("play w {next}"));
        if e.ok("gogui-rules_board_gfx")
            .contains("illegal occupied black")
        {
            revealed = Some(next);
            break;
        }
        assert_eq!(e.ok(&format!("color {next}")), "white");
    }
    let black = revealed.expect("a black stone found within 60 tries");
    assert_eq!(e.ok(&format!("color {black}")), "black");
    assert!(e.ok("list_stones b").split(' ').any(|v| v == black));
    assert!(e.ok("gogui-rules_board").contains('X'));
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    assert!(
        !e.ok("gogui-rules_legal_moves")
            .split(' ')
            .any(|v| v == black)
    );
    assert!(e.err("play b A1").contains("seat 2"));
    assert!(e.err("genmove b").contains("hosts"));
    // A new game starts a new phantom game.
    e.ok("clear_board");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "white");
    assert!(!e.ok("gogui-rules_board").contains('O'));
    assert!(e.finish().success());
}

#[test]
fn without_a_person_the_ruler_commands_are_not_listed() {
    let mut e = host(&["--size", "9"]);
    assert!(!e.ok("list_commands").contains("gogui-rules"));
    assert_eq!(e.ok("known_command gogui-rules_board"), "false");
    assert!(e.err("gogui-rules_board").contains("hosts"));
    assert!(e.finish().success());
}

#[test]
fn the_playing_level_is_offered_in_plain_go_only() {
    let mut plain = host(&["--size", "9"]);
    assert!(plain.ok("gogui-analyze_commands").contains("/kosumi-level"));
    assert!(plain.finish().success());
    let mut hosted = host(&["--size", "9", "--phantom-human", "2"]);
    assert!(!hosted.ok("gogui-analyze_commands").contains("kosumi-level"));
    assert!(hosted.finish().success());
}

#[test]
fn rengo_with_the_person_at_seat_three() {
    let mut e = host(&[
        "--size",
        "7",
        "--phantom-human",
        "3",
        "--phantom-kind",
        "rengo",
        "--playouts",
        "200",
    ]);
    assert_eq!(e.ok("gogui-rules_game_id"), "Phantomrengo");
    assert_eq!(e.ok("gogui-rules_side_to_move"), "black");
    assert!(e.err("phantom-to_move").contains("hosts"));
    let mut passes = 0;
    // The person passes until the game ends (kosumi's seats play on).
    while !e.ok("gogui-rules_legal_moves").is_empty() && passes < 400 {
        e.ok("play b pass");
        passes += 1;
    }
    assert!(e.ok("gogui-rules_final_result").contains('+'));
    assert!(e.finish().success());
}

/// Hosted Go and Rengo games, the person trying random points of their
/// board: after every try, no reading command shows a stone the person
/// cannot see (a refusal is fine), and the commands that would (counting,
/// analysis, the referee's views) are refused.
#[test]
fn no_reading_command_reveals_a_hidden_stone() {
    use kosumi::engine::{Config, Engine};
    use kosumi::frontends::gtp::{COMMANDS, execute, vertex_name};
    use kosumi::go::board::Color;
    use kosumi::go::rules::Rules;
    use kosumi::phantom::{Kind, options::Options};
    use kosumi::search::{ChooserPolicy, SearchConfig};
    use rand::{RngExt, SeedableRng};

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut answers = 0;
    for (kind, human, size) in [(Kind::Go, 1, 7), (Kind::Go, 2, 7), (Kind::Rengo, 3, 7)] {
        let config = Config {
            search: SearchConfig {
                playouts: Some(30),
                chooser: ChooserPolicy {
                    ownership_playouts: 20,
                    ..ChooserPolicy::default()
                },
                ..SearchConfig::default()
            },
            phantom_host: Some((human, kind, Options::preset("seed").unwrap())),
            ..Config::default()
        };
        let mut e = Engine::new(config, Rules::default(), size, None);
        e.start_host();
        let me = if human % 2 == 1 { "b" } else { "w" };
        for _ in 0..60 {
            let legal = execute(&mut e, b"gogui-rules_legal_moves").unwrap();
            let legal: Vec<String> = legal[2..].split_whitespace().map(String::from).collect();
            if legal.is_empty() {
                break;
            }
            let pick = &legal[rng.random_range(0..legal.len())];
            execute(&mut e, format!("play {me} {pick}").as_bytes()).unwrap();
            // The try is judged when something reads the game.
            e.catch_up();
            let host = e.host().expect("hosting");
            if host.referee().result().is_some() {
                break;
            }
            let truth = host.truth().board().clone();
            let view = host.referee().view(human).clone();
            let hidden: Vec<String> = truth
                .points()
                .filter(|&p| truth.color_at(p).is_some() && view.at(p).is_none())
                .map(|p| vertex_name(Some(p), size))
                .collect();
            for command in COMMANDS {
                let line = match command.name {
                    "list_stones" | "captures" | "all_legal" | "kosumi-pass_stones" => {
                        format!("{} b\n{} w", command.name, command.name)
                    }
                    "color" | "countlib" => hidden
                        .iter()
                        .map(|v| format!("{} {v}", command.name))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    "is_legal" => hidden
                        .iter()
                        .map(|v| format!("is_legal b {v}\nis_legal w {v}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    "quit" | "play" | "genmove" | "boardsize" | "clear_board" | "loadsgf"
                    | "komi" | "kosumi-rules" | "kgs-rules" | "printsgf" => continue,
                    name if name.starts_with("gogui-rules_") => name.to_string(),
                    name => format!("{name} b"),
                };
                for line in line.lines() {
                    let reply = execute(&mut e, line.as_bytes()).unwrap();
                    answers += 1;
                    if reply.starts_with('?') {
                        continue;
                    }
                    for v in &hidden {
                        let shown_as_stone = reply
                            .split(|c: char| !c.is_ascii_alphanumeric())
                            .any(|w| w.eq_ignore_ascii_case(v))
                            && !line.contains(v.as_str())
                            // Legal points are empty on the view; what was
                            // heard names points of past captures.
                            && !["all_legal", "gogui-rules_legal_moves", "gogui-rules_board_gfx"]
                                .contains(&command.name);
                        assert!(!shown_as_stone, "{line} names hidden {v}: {reply}");
                    }
                    if line.starts_with("color ") {
                        assert_eq!(reply.trim(), "= empty", "{line}");
                    }
                    if line.starts_with("countlib ") {
                        panic!("{line} answered {reply} for an empty point");
                    }
                }
            }
            // The board drawn holds exactly the person's view.
            let drawn = execute(&mut e, b"showboard").unwrap();
            let stones = drawn.matches(" X").count() + drawn.matches(" O").count();
            let seen = view.count(Color::Black) + view.count(Color::White);
            assert_eq!(stones, seen, "{drawn}");
        }
    }
    println!("{answers} answers checked");
    assert!(answers > 1000, "{answers} answers checked");
}

/// GoGui's ruler clears the board and replays the whole move list after
/// every move: replayed tries are answered from the record (the game does
/// not change), a new try after them is judged, and a different try where
/// the replay stopped starts a branch from there.
#[test]
fn replays_are_answered_from_the_record() {
    let args = [
        "--size",
        "9",
        "--phantom-human",
        "2",
        "--playouts",
        "100",
        "--seed",
        "3",
    ];
    let mut e = host(&args);
    let first = |e: &mut Engine| {
        e.ok("gogui-rules_legal_moves")
            .split(' ')
            .find(|v| *v != "pass")
            .unwrap()
            .to_string()
    };
    let a = first(&mut e);
    e.ok(&format!("play w {a}"));
    let after_a = (e.ok("gogui-rules_board"), e.ok("gogui-rules_board_gfx"));
    let b = first(&mut e);
    e.ok(&format!("play w {b}"));
    let after_b = (e.ok("gogui-rules_board"), e.ok("gogui-rules_board_gfx"));
    // The replay: the same boards at each step, nothing tried anew.
    for _ in 0..3 {
        e.ok("clear_board");
        e.ok(&format!("play w {a}"));
        assert_eq!(
            (e.ok("gogui-rules_board"), e.ok("gogui-rules_board_gfx")),
            after_a
        );
        e.ok(&format!("play w {b}"));
        assert_eq!(
            (e.ok("gogui-rules_board"), e.ok("gogui-rules_board_gfx")),
            after_b
        );
    }
    // A program that only sends moves (GoGui's, beside its ruler) plays the
    // same game, judged when it is read.
    let mut program = host(&args);
    program.ok(&format!("play w {a}"));
    program.ok(&format!("play w {b}"));
    assert_eq!(program.ok("gogui-rules_board"), after_b.0);
    assert!(program.finish().success());
    // A new try after the replay is judged; a branch where the replay
    // stopped replaces what followed.
    let c = first(&mut e);
    e.ok(&format!("play w {c}"));
    assert!(
        e.ok("gogui-rules_board_gfx")
            .contains(&format!("seat 2) {c}"))
    );
    e.ok("clear_board");
    e.ok(&format!("play w {a}"));
    let other = e
        .ok("gogui-rules_legal_moves")
        .split(' ')
        .find(|v| *v != "pass" && *v != b)
        .unwrap()
        .to_string();
    e.ok(&format!("play w {other}"));
    assert!(
        e.ok("gogui-rules_board_gfx")
            .contains(&format!("seat 2) {other}"))
    );
    assert_eq!(e.ok(&format!("color {b}")), "empty");
    assert!(e.finish().success());
}

/// The stream GoGui's ruler code sends in a 40-click game (recorded, see
/// the file's header), replayed: every command answered, the person's
/// board after every command exactly their view, and each click judged
/// once although GoGui replays the whole game several times per click.
#[test]
fn gogui_s_ruler_stream_plays_one_try_per_click() {
    use kosumi::engine::{Config, Engine};
    use kosumi::frontends::gtp::execute;
    use kosumi::go::rules::Rules;
    use kosumi::phantom::{Kind, options::Options};
    use kosumi::search::SearchConfig;

    let stream = include_str!("data/gogui_ruler_stream.gtp");
    let config = Config {
        search: SearchConfig {
            playouts: Some(300),
            seed: 4,
            ..SearchConfig::default()
        },
        phantom_host: Some((2, Kind::Go, Options::preset("seed").unwrap())),
        ..Config::default()
    };
    let mut e = Engine::new(config, Rules::default(), 9, None);
    e.start_host();
    let mut clicks = 0;
    let mut since_clear = 0;
    let mut refused = 0;
    let mut previous = "";
    for line in stream.lines().filter(|l| !l.starts_with('#')) {
        let reply = execute(&mut e, line.as_bytes()).unwrap_or_default();
        assert!(!reply.contains("internal error"), "{line}: {reply}");
        if line.starts_with("clear_board") {
            since_clear = 0;
        } else if line.starts_with("play") && line != previous {
            // (GoGui sends the new move once more after its replay.)
            since_clear += 1;
            clicks = clicks.max(since_clear);
            refused += usize::from(reply.starts_with('?'));
        }
        if line.starts_with("play") {
            previous = line;
        }
        e.catch_up();
        let host = e.host().expect("hosting");
        if host.referee().result().is_none() {
            let view = host.referee().view(2);
            let shown = host.shown().board();
            assert!(
                shown.points().all(|p| shown.color_at(p) == view.at(p)),
                "after {line}"
            );
        }
    }
    let host = e.host().expect("hosting");
    let tries = host
        .history()
        .iter()
        .filter(|l| l.starts_with("White (seat 2)"))
        .count();
    assert_eq!(clicks, 40);
    // A click kosumi refused (its choices changed since the recording) is
    // no try; every other click is exactly one.
    assert!(
        tries <= clicks && tries + refused >= clicks,
        "{tries} tries for {clicks} clicks"
    );
}

/// GoGui runs two processes on a hosted game, its ruler and its program,
/// and asks the program for "everything you heard"; the ruler also sees
/// the person go back in the game tree, branch and come back. kosumi's
/// answers to the person's tries are a function of the game so far (a
/// fixed budget, seeds from the tries), so both processes tell the same
/// game, whatever clock each has and whatever else each was asked, and the
/// main line's answers stay what they were.
#[test]
fn two_processes_hosting_one_game_hear_the_same_answers() {
    let tries = ["E5", "C3", "G7", "C7", "G3", "D4", "F6", "E3", "pass"];
    let start = |time: &str| {
        host(&[
            "--size",
            "9",
            "--phantom-human",
            "2",
            "--playouts",
            "400",
            "--time",
            time,
        ])
    };
    let play = |e: &mut Engine, moves: &[&str]| {
        for t in moves {
            // A refused try is the person's to retry: move on.
            let _ = e.command(&format!("play w {t}"));
        }
    };
    // The program: each try once.
    let mut program = start("2");
    play(&mut program, &tries);
    let heard = program.ok("kosumi-phantom_log");
    assert!(program.finish().success());
    // The ruler: the first five tries, back to the third and a branch
    // there, then the main line replayed whole (as GoGui's ruler does),
    // reading the board after each step.
    let mut ruler = start("0.05");
    play(&mut ruler, &tries[..5]);
    ruler.ok("clear_board");
    play(&mut ruler, &tries[..2]);
    play(&mut ruler, &["J1"]);
    ruler.ok("gogui-rules_board");
    ruler.ok("clear_board");
    play(&mut ruler, &tries);
    ruler.ok("gogui-rules_board");
    assert_eq!(ruler.ok("kosumi-phantom_log"), heard);
    assert!(heard.lines().count() > 8, "{heard}");
    assert!(ruler.finish().success());
}

/// GoGui's program process hears each of the person's tries once, with no
/// replay between them: after the board was cleared at the start, three
/// passes in a row are three tries (only GoGui's ruler, which clears the
/// board and replays before a new try, sends that try twice).
#[test]
fn passes_in_a_row_are_each_a_try() {
    let mut e = host(&["--size", "9", "--phantom-human", "2", "--playouts", "100"]);
    e.ok("clear_board");
    e.ok("play w E5");
    for _ in 0..3 {
        e.ok("play w pass");
    }
    let log = e.ok("kosumi-phantom_log");
    let passes = log.lines().filter(|l| l.contains("(seat 2): pass")).count();
    assert_eq!(passes, 3, "{log}");
    // The ruler's pattern: a cleared board, the replay, the new try, and
    // the same try once more: one try.
    e.ok("clear_board");
    e.ok("play w E5");
    for _ in 0..3 {
        e.ok("play w pass");
    }
    e.ok("play w C3");
    e.ok("play w C3");
    let log = e.ok("kosumi-phantom_log");
    assert_eq!(
        log.lines().filter(|l| l.contains("(seat 2) C3")).count(),
        1,
        "{log}"
    );
    assert!(e.finish().success());
}
