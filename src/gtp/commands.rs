//! The command table: every GTP command kosumi answers, one entry each.
//! `list_commands` and `known_command` read this same table, so they always
//! agree with what is implemented.

use super::analyze::{self, Format};
use super::parse::{check_komi, parse_color, parse_float, parse_int, parse_vertex, vertex_name};
use super::{Engine, GtpError, Reply, gogui_analysis, network, phantom};
use crate::board::{Cell, Color, Point};
use crate::clock::{Clock, TimeSystem};
use crate::rules::Rules;
use crate::score::Status;
use crate::search::Decision;
use crate::vertex::color_name;
use crate::{handicap, sgf};

/// One GTP command: its name and its handler.
pub struct Command {
    pub name: &'static str,
    pub run: fn(&mut Engine, &[&str]) -> Reply,
}

macro_rules! table {
    ($($name:literal => $run:expr),* $(,)?) => {
        &[$(Command { name: $name, run: $run }),*]
    };
}

pub static COMMANDS: &[Command] = table! {
    // required
    "protocol_version" => |_, a| { arity(a, 0)?; Ok("2".into()) },
    "name" => |_, a| { arity(a, 0)?; Ok("kosumi".into()) },
    "version" => |_, a| { arity(a, 0)?; Ok(env!("CARGO_PKG_VERSION").into()) },
    "known_command" => known_command,
    "list_commands" => |e, a| {
        arity(a, 0)?;
        Ok(COMMANDS.iter().map(|c| c.name).filter(|n| phantom::listed(e, n)).collect::<Vec<_>>().join("\n"))
    },
    "quit" => |e, a| { arity(a, 0)?; e.quit = true; Ok(String::new()) },
    "boardsize" => boardsize,
    "clear_board" => |e, a| { arity(a, 0)?; e.game = e.game.cleared(); Ok(String::new()) },
    "komi" => |e, a| {
        arity(a, 1)?;
        let k = parse_float(a[0]).and_then(check_komi).map_err(GtpError::syntax)?;
        e.set_komi(k);
        Ok(String::new())
    },
    "play" => play,
    "genmove" => |e, a| genmove(e, a, true, false),
    // tournament and regression
    "fixed_handicap" => fixed_handicap,
    "place_free_handicap" => place_free_handicap,
    "set_free_handicap" => set_free_handicap,
    "loadsgf" => loadsgf,
    "reg_genmove" => |e, a| genmove(e, a, false, false),
    "undo" => |e, a| { arity(a, 0)?; undo(e, 1) },
    "final_score" => |e, a| { arity(a, 0)?; Ok(e.score().result()) },
    "final_status_list" => final_status_list,
    "showboard" => |e, a| { arity(a, 0)?; Ok(showboard(e)) },
    "time_settings" => time_settings,
    "time_left" => time_left,
    // GNU Go compatible
    "captures" => |e, a| { arity(a, 1)?; let c = color(a[0])?; Ok(e.game.board().captures(c).to_string()) },
    "is_legal" => is_legal,
    "all_legal" => all_legal,
    "list_stones" => list_stones,
    "color" => point_color,
    "countlib" => countlib,
    "printsgf" => printsgf,
    // KGS
    "kgs-rules" => kgs_rules,
    "kgs-time_settings" => kgs_time_settings,
    "kgs-genmove_cleanup" => |e, a| genmove(e, a, true, true),
    "kgs-game_over" => |_, a| { arity(a, 0)?; log::info!("the server says the game is over"); Ok(String::new()) },
    // GoGui
    "gogui-analyze_commands" => |_, a| { arity(a, 0)?; Ok(ANALYZE_COMMANDS.trim().to_string()) },
    "gogui-interrupt" => |_, a| { arity(a, 0)?; Ok(String::new()) },
    "gogui-setup" => gogui_setup,
    "gogui-setup_player" => |e, a| { arity(a, 1)?; let c = color(a[0])?; e.game.set_to_move(c); Ok(String::new()) },
    "gogui-play_sequence" => play_sequence,
    "cputime" => |e, a| { arity(a, 0)?; Ok(format!("{:.3}", e.cpu_seconds())) },
    "gg-undo" => gg_undo,
    // analysis: Leela Zero's and KataGo's (Sabaki, Lizzie), and GoGui's
    "lz-analyze" => |e, a| analyze::analyze(e, a, Format::Lz),
    "kata-analyze" => |e, a| analyze::analyze(e, a, Format::Kata),
    "analyze" => |e, a| analyze::analyze(e, a, Format::Analyze),
    "lz-genmove_analyze" => |e, a| analyze::genmove_analyze(e, a, Format::Lz),
    "kata-genmove_analyze" => |e, a| analyze::genmove_analyze(e, a, Format::Kata),
    "genmove_analyze" => |e, a| analyze::genmove_analyze(e, a, Format::Analyze),
    "kosumi-candidates" => gogui_analysis::candidates,
    "kosumi-pv" => gogui_analysis::principal_variation,
    "kosumi-evaluation" => gogui_analysis::evaluation_text,
    // kosumi
    "kosumi-rules" => kosumi_rules,
    "kosumi-pass_stones" => |e, a| { arity(a, 1)?; let c = color(a[0])?; Ok(e.game.pass_stones(c).to_string()) },
    "kosumi-score" => kosumi_score,
    "kosumi-ownership" => |e, a| { arity(a, 0)?; Ok(ownership_board(e)) },
    // the network, as KataGo answers it
    "kata-raw-nn" => network::kata_raw_nn,
    "kosumi-gfx_ownership" => |e, a| { arity(a, 0)?; Ok(ownership_gfx(e)) },
    // Aléago
    "aleago-dice" => aleago_dice,
    "aleago-option" => aleago_option,
    "aleago-seed" => |e, a| { arity(a, 1)?; let n = parse_int(a[0]).map_err(GtpError::syntax)?; e.game.seed_rolls(n); Ok(String::new()) },
    "aleago-roll" => |e, a| { arity(a, 1)?; let c = color(a[0])?; roll(e, c) },
    "aleago-set_roll" => aleago_set_roll,
    "aleago-allowed" => aleago_allowed,
    "aleago-next_roll" => aleago_next_roll,
    "aleago-gfx" => aleago_gfx,
    // Phantom Go and Phantom Rengo
    "phantom-new" => phantom::phantom_new,
    "phantom-option" => phantom::phantom_option,
    "phantom-try" => phantom::phantom_try,
    "phantom-view" => phantom::phantom_view,
    "phantom-to_move" => phantom::phantom_to_move,
    "phantom-seat" => phantom::phantom_seat,
    "phantom-heard" => phantom::phantom_heard,
    // GoGui's ruler interface, while hosting a phantom game for a person
    "gogui-rules_game_id" => phantom::rules_game_id,
    "gogui-rules_board" => phantom::rules_board,
    "gogui-rules_board_size" => phantom::rules_board_size,
    "gogui-rules_legal_moves" => phantom::rules_legal_moves,
    "gogui-rules_side_to_move" => phantom::rules_side_to_move,
    "gogui-rules_captured_count" => phantom::rules_captured_count,
    "gogui-rules_final_result" => phantom::rules_final_result,
    "gogui-rules_board_gfx" => phantom::rules_board_gfx,
};

/// What GoGui shows in its Analyze menu (type/label/command).
const ANALYZE_COMMANDS: &str = "
string/Rules/kosumi-rules
string/Pass stones: black/kosumi-pass_stones b
string/Pass stones: white/kosumi-pass_stones w
string/Final score/final_score
string/Score details/kosumi-score
plist/Dead stones/final_status_list dead
plist/Seki stones/final_status_list seki
plist/All legal moves/all_legal %m
dboard/Ownership/kosumi-ownership
gfx/Ownership (influence)/kosumi-gfx_ownership
pspairs/Search: candidates (visits)/kosumi-candidates %m
var/Search: principal variation/kosumi-pv %m
string/Search: evaluation/kosumi-evaluation %m
none/Rules: Chinese/kosumi-rules chinese
none/Rules: EGC 2011/kosumi-rules egc2011
none/Rules: Japanese/kosumi-rules japanese
none/Rules: AGA/kosumi-rules aga
none/Rules: New Zealand/kosumi-rules new-zealand
none/Rules: Tromp-Taylor/kosumi-rules tromp-taylor
none/Rules: simple ko/kosumi-rules simple-ko
plist/Dice: allowed moves/aleago-allowed %m
gfx/Dice: rolled line/aleago-gfx %m
string/Dice: roll for the side to move/aleago-roll %m
string/Dice: spec/aleago-dice
";

pub(super) fn arity(args: &[&str], n: usize) -> Result<(), GtpError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(GtpError::syntax(format!(
            "expected {n} argument{}, got {}",
            if n == 1 { "" } else { "s" },
            args.len()
        )))
    }
}

pub(super) fn color(s: &str) -> Result<Color, GtpError> {
    parse_color(s).map_err(GtpError::syntax)
}

pub(super) fn vertex(e: &Engine, s: &str) -> Result<Option<Point>, GtpError> {
    parse_vertex(s, e.game.size()).map_err(GtpError::syntax)
}

/// A vertex that must be a point, not `pass`.
fn point(e: &Engine, s: &str) -> Result<Point, GtpError> {
    vertex(e, s)?.ok_or_else(|| GtpError::syntax("expected a point, not pass"))
}

fn name(e: &Engine, p: Point) -> String {
    vertex_name(Some(p), e.game.size())
}

/// Points as GTP vertices separated by spaces.
fn names(e: &Engine, points: &[Point]) -> String {
    points
        .iter()
        .map(|&p| name(e, p))
        .collect::<Vec<_>>()
        .join(" ")
}

fn known_command(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    Ok(COMMANDS
        .iter()
        .any(|c| c.name == a[0] && phantom::listed(e, c.name))
        .to_string())
}

fn boardsize(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let n = parse_int(a[0]).map_err(GtpError::syntax)?;
    if !(2..=crate::board::MAX_SIZE as u64).contains(&n) {
        return Err(GtpError::new("unacceptable size", n));
    }
    e.game = e.game.resized(n as usize);
    Ok(String::new())
}

fn play(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 2)?;
    let c = color(a[0])?;
    let mv = vertex(e, a[1])?;
    // Referee mode: a stone from the controller obeys a roll of kosumi's
    // (a pass is always allowed and needs none). An illegal stone leaves
    // the roll pending, so the player cannot roll again by erring.
    if let Some(reply) = phantom::host_play(e, c, mv) {
        return reply;
    }
    if let Some(reply) = phantom::player_play(e, c, mv) {
        return reply;
    }
    if mv.is_some() {
        referee_roll(e, c);
    }
    e.game.play(c, mv).map_err(|why| {
        // The roll the stone had to obey, which stays pending.
        let roll = match (e.game.pending_roll(c), e.game.dice()) {
            (Some(t), Some(d)) => format!(" ({} rolled {t} with {})", color_name(c), d.spec()),
            _ => String::new(),
        };
        GtpError::new("illegal move", format!("{why}{roll}"))
    })?;
    Ok(String::new())
}

/// Under the dice's referee mode, rolls for `c` if no roll is pending.
fn referee_roll(e: &mut Engine, c: Color) {
    if e.game.dice().is_some_and(|d| d.referee) {
        e.game.roll(c);
    }
}

fn genmove(e: &mut Engine, a: &[&str], commit: bool, cleanup: bool) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    if commit && let Some(reply) = phantom::player_genmove(e, c) {
        return reply;
    }
    if commit {
        let decision = e.choose_move(c, cleanup);
        return Ok(commit_move(e, c, decision));
    }
    // reg_genmove leaves the game exactly as it was (rolls included).
    let saved = e.game.clone();
    let decision = e.choose_move(c, cleanup);
    e.game = saved;
    Ok(match decision {
        Decision::Resign => "resign".to_string(),
        Decision::Pass => "pass".to_string(),
        Decision::Play(p) => name(e, p),
    })
}

/// Plays the engine's `decision` for `c` (nothing for a resignation),
/// asks to ponder after it, and names it.
pub(super) fn commit_move(e: &mut Engine, c: Color, decision: Decision) -> String {
    match decision {
        Decision::Resign => return "resign".to_string(),
        Decision::Pass => e.game.play(c, None).expect("pass is legal"),
        Decision::Play(p) => e.game.play(c, Some(p)).expect("search plays legal moves"),
    }
    e.ponder_wanted = true;
    match decision {
        Decision::Play(p) => name(e, p),
        _ => "pass".to_string(),
    }
}

fn require_empty_board(e: &Engine) -> Result<(), GtpError> {
    if e.game.board().stone_count() > 0 {
        Err(GtpError("board not empty".into()))
    } else {
        Ok(())
    }
}

fn stones_count(s: &str) -> Result<usize, GtpError> {
    parse_int(s)
        .map(|n| n.min(usize::MAX as u64) as usize)
        .map_err(GtpError::syntax)
}

fn place_handicap(e: &mut Engine, points: &[Point]) -> Reply {
    let stones: Vec<(Color, Point)> = points.iter().map(|&p| (Color::Black, p)).collect();
    e.game
        .setup(&stones, true)
        .map_err(|why| GtpError::new("illegal move", why))?;
    // EGC 2011 fixes the komi of a handicap game at N - 0.5; a `komi` the
    // controller sends after the handicap still has the last word.
    if let Some(k) = e.game.rules.handicap_komi(e.game.handicap()) {
        e.game.komi = k;
    }
    Ok(names(e, points))
}

fn fixed_handicap(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let n = stones_count(a[0])?;
    require_empty_board(e)?;
    let size = e.game.size();
    let coords = handicap::fixed(size, n).map_err(|m| GtpError(m.into()))?;
    let points: Vec<Point> = coords
        .into_iter()
        .map(|(x, y)| e.game.board().point(x, y))
        .collect();
    place_handicap(e, &points)
}

fn place_free_handicap(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let n = stones_count(a[0])?;
    require_empty_board(e)?;
    let points = handicap::free(e.game.board(), n).map_err(|m| GtpError(m.into()))?;
    place_handicap(e, &points)
}

fn set_free_handicap(e: &mut Engine, a: &[&str]) -> Reply {
    let mut points = Vec::new();
    for s in a {
        let p = point(e, s)?;
        if points.contains(&p) {
            return Err(GtpError::syntax(format!("repeated vertex {s}")));
        }
        points.push(p);
    }
    require_empty_board(e)?;
    let size = e.game.size();
    if points.len() < 2 || points.len() >= size * size {
        return Err(GtpError::new(
            "invalid number of stones",
            format!("{} on a {size}x{size} board", points.len()),
        ));
    }
    place_handicap(e, &points).map(|_| String::new())
}

fn loadsgf(e: &mut Engine, a: &[&str]) -> Reply {
    if a.is_empty() || a.len() > 2 {
        return Err(GtpError::syntax(
            "expected a file name and an optional move number",
        ));
    }
    let move_number = match a.get(1) {
        Some(s) => Some(parse_int(s).map_err(GtpError::syntax)? as usize),
        None => None,
    };
    let text = sgf::read_file(a[0]).map_err(|err| GtpError::new("cannot load file", err))?;
    let game = sgf::load(&text, &e.game, move_number)
        .map_err(|err| GtpError::new("cannot load file", err))?;
    e.game = game;
    Ok(match e.game.to_move() {
        Color::Black => "black".into(),
        Color::White => "white".into(),
    })
}

fn undo(e: &mut Engine, n: usize) -> Reply {
    let mut copy = e.game.clone();
    for _ in 0..n {
        if !copy.undo() {
            return Err(GtpError("cannot undo".into()));
        }
    }
    e.game = copy;
    Ok(String::new())
}

fn gg_undo(e: &mut Engine, a: &[&str]) -> Reply {
    let n = match a {
        [] => 1,
        [n] => stones_count(n)?,
        _ => return Err(GtpError::syntax("expected at most one argument")),
    };
    undo(e, n)
}

fn final_status_list(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let wanted = match a[0].to_ascii_lowercase().as_str() {
        "alive" => Status::Alive,
        "dead" => Status::Dead,
        "seki" => Status::Seki,
        other => return Err(GtpError::syntax(format!("unknown status '{other}'"))),
    };
    let status = e.statuses();
    let board = e.game.board();
    let mut lines = Vec::new();
    for p in board.points() {
        if board.color_at(p).is_some() && board.chain(p) == p && status[p as usize] == wanted {
            let mut stones: Vec<Point> = board.chain_stones(p).collect();
            stones.sort();
            lines.push(names(e, &stones));
        }
    }
    Ok(lines.join("\n"))
}

/// A board in `showboard`'s layout: letters, rows from the top with their
/// numbers, `X` Black, `O` White, `*` a ko point, and the letters again.
pub(super) fn board_diagram(board: &crate::board::Board) -> String {
    let n = board.size();
    let letters: String = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
        .chars()
        .take(n)
        .flat_map(|c| [' ', c])
        .collect();
    let mut out = format!("\n   {}\n", letters.trim_start());
    let ko = board.ko().map(|(p, _)| p);
    for y in (0..n).rev() {
        out.push_str(&format!("{:>2}", y + 1));
        for x in 0..n {
            let p = board.point(x, y);
            let ch = match board.cell(p) {
                Cell::Black => 'X',
                Cell::White => 'O',
                _ if Some(p) == ko => '*',
                _ => '.',
            };
            out.push(' ');
            out.push(ch);
        }
        out.push_str(&format!(" {}\n", y + 1));
    }
    out.push_str(&format!("   {}\n", letters.trim_start()));
    out
}

fn showboard(e: &Engine) -> String {
    let board = e.game.board();
    let mut out = board_diagram(board);
    out.push_str(&format!(
        "Black (X) captures {}, pass stones given {}\nWhite (O) captures {}, pass stones given {}\n",
        board.captures(Color::Black),
        e.game.pass_stones(Color::Black),
        board.captures(Color::White),
        e.game.pass_stones(Color::White),
    ));
    if let Some(d) = e.game.dice() {
        let pending = |c: Color| {
            e.game
                .pending_roll(c)
                .map_or("none".to_string(), |t| t.to_string())
        };
        out.push_str(&format!(
            "Dice {}: Black's roll {}, White's roll {}\n",
            d.spec(),
            pending(Color::Black),
            pending(Color::White)
        ));
    }
    out.push_str(&format!(
        "{} to move, move {}, rules {}, komi {}",
        if e.game.to_move() == Color::Black {
            "Black"
        } else {
            "White"
        },
        e.game.move_count() + 1,
        e.game.rules.name,
        e.game.komi
    ));
    out
}

fn seconds(s: &str) -> Result<f64, GtpError> {
    let v = parse_float(s).map_err(GtpError::syntax)?;
    if v < 0.0 {
        return Err(GtpError::syntax(format!("negative time {s}")));
    }
    Ok(v)
}

fn count(s: &str) -> Result<u32, GtpError> {
    let n = parse_int(s).map_err(GtpError::syntax)?;
    u32::try_from(n).map_err(|_| GtpError::syntax(format!("{s} is too large")))
}

fn time_settings(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 3)?;
    let (main, byo, stones) = (seconds(a[0])?, seconds(a[1])?, count(a[2])?);
    e.clock = Clock::gtp_settings(main, byo, stones);
    Ok(String::new())
}

fn time_left(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 3)?;
    let c = color(a[0])?;
    let (t, stones) = (seconds(a[1])?, count(a[2])?);
    e.clock.set_left(c.index(), t, stones);
    Ok(String::new())
}

fn kgs_time_settings(e: &mut Engine, a: &[&str]) -> Reply {
    let kind = a
        .first()
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    let system = match (kind.as_str(), a.len()) {
        ("none", 1) => TimeSystem::None,
        ("absolute", 2) => TimeSystem::Absolute {
            main: seconds(a[1])?,
        },
        ("byoyomi", 4) => TimeSystem::ByoYomi {
            main: seconds(a[1])?,
            period: seconds(a[2])?,
            periods: count(a[3])?,
        },
        ("canadian", 4) => TimeSystem::Canadian {
            main: seconds(a[1])?,
            period: seconds(a[2])?,
            stones: count(a[3])?,
        },
        _ => {
            return Err(GtpError::syntax(
                "expected none | absolute MAIN | byoyomi MAIN PERIOD PERIODS | canadian MAIN PERIOD STONES",
            ));
        }
    };
    e.clock = Clock::with_system(system);
    Ok(String::new())
}

fn is_legal(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 2)?;
    let c = color(a[0])?;
    let legal = match vertex(e, a[1])? {
        None => true,
        Some(p) => e.game.check(c, p).is_ok(),
    };
    Ok(if legal { "1" } else { "0" }.into())
}

fn all_legal(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    Ok(names(e, &e.game.legal_points(c)))
}

fn list_stones(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let board = e.game.board();
    let stones: Vec<Point> = board
        .points()
        .filter(|&p| board.color_at(p) == Some(c))
        .collect();
    Ok(names(e, &stones))
}

fn point_color(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let p = point(e, a[0])?;
    Ok(match e.game.board().color_at(p) {
        Some(Color::Black) => "black",
        Some(Color::White) => "white",
        None => "empty",
    }
    .into())
}

fn countlib(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let p = point(e, a[0])?;
    if e.game.board().color_at(p).is_none() {
        return Err(GtpError::syntax(format!("{} is empty", a[0])));
    }
    Ok(e.game.board().liberties(p).to_string())
}

fn printsgf(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() > 1 {
        return Err(GtpError::syntax("expected at most a file name"));
    }
    let result = e.game.is_over().then(|| e.score().result());
    let text = sgf::write(&e.game, result.as_deref());
    match a.first() {
        Some(file) if *file != "-" => {
            std::fs::write(file, &text)
                .map_err(|err| GtpError(format!("cannot write file {file}: {err}")))?;
            Ok(String::new())
        }
        _ => Ok(text),
    }
}

fn kgs_rules(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let rules =
        Rules::preset(a[0]).ok_or_else(|| GtpError::syntax(format!("unknown rules '{}'", a[0])))?;
    e.set_rules(rules);
    Ok(String::new())
}

fn kosumi_rules(e: &mut Engine, a: &[&str]) -> Reply {
    match a {
        [] => Ok(format!("{}\nkomi {}", e.game.rules, e.game.komi)),
        [name] => {
            let rules = Rules::preset(name).ok_or_else(|| {
                GtpError::syntax(format!(
                    "unknown rules '{name}' (known: {})",
                    Rules::preset_names().collect::<Vec<_>>().join(", ")
                ))
            })?;
            e.set_rules(rules);
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected at most one preset name")),
    }
}

fn kosumi_score(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let s = e.score();
    let mut out = format!(
        "result {}\nblack {}\nwhite {}\nkomi {}\nhandicap_bonus {}",
        s.result(),
        s.black,
        s.white,
        s.komi,
        s.handicap_bonus
    );
    if let Some(j) = s.japanese_style_margin {
        out.push_str(&format!(
            "\njapanese_style {}",
            crate::score::format_margin(j)
        ));
    }
    Ok(out)
}

fn gogui_setup(e: &mut Engine, a: &[&str]) -> Reply {
    if !a.len().is_multiple_of(2) {
        return Err(GtpError::syntax("expected pairs of color and point"));
    }
    let mut stones = Vec::new();
    for pair in a.chunks(2) {
        stones.push((color(pair[0])?, point(e, pair[1])?));
    }
    e.game
        .setup(&stones, false)
        .map_err(|why| GtpError::new("illegal move", why))?;
    Ok(String::new())
}

fn play_sequence(e: &mut Engine, a: &[&str]) -> Reply {
    if !a.len().is_multiple_of(2) {
        return Err(GtpError::syntax("expected pairs of color and vertex"));
    }
    let mut moves = Vec::new();
    for pair in a.chunks(2) {
        moves.push((color(pair[0])?, vertex(e, pair[1])?));
    }
    let mut copy = e.game.clone();
    for (i, &(c, mv)) in moves.iter().enumerate() {
        copy.play(c, mv).map_err(|why| {
            GtpError::new(
                "illegal move",
                format!("{} {}: {why}", a[2 * i], a[2 * i + 1]),
            )
        })?;
    }
    e.game = copy;
    Ok(String::new())
}

fn dice_of(e: &Engine) -> Result<crate::dice::Dice, GtpError> {
    e.game
        .dice()
        .ok_or_else(|| GtpError("dice are off (aleago-dice SPEC turns them on)".into()))
}

fn aleago_dice(e: &mut Engine, a: &[&str]) -> Reply {
    match a {
        [] => Ok(e.game.dice().map_or("off".to_string(), |d| d.spec())),
        [spec] if spec.eq_ignore_ascii_case("off") => {
            e.game.set_dice(None);
            Ok(String::new())
        }
        [spec] => {
            let mut d = crate::dice::Dice::parse(spec).map_err(GtpError::syntax)?;
            if let Some(old) = e.game.dice() {
                d = d.keeping_options_of(&old);
            }
            e.game.set_dice(Some(d));
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected a dice spec like 1d6, or off")),
    }
}

/// Options as `name value`, one a line (`aleago-option`, `phantom-option`).
pub(super) fn option_lines(options: &[(&str, &str)]) -> String {
    options
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn aleago_option(e: &mut Engine, a: &[&str]) -> Reply {
    let mut d = dice_of(e)?;
    match a {
        [] => Ok(option_lines(&d.options())),
        [name, value] => {
            d.set_option(name, value).map_err(GtpError::syntax)?;
            e.game.set_dice(Some(d));
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected an option name and a value")),
    }
}

fn roll(e: &mut Engine, c: Color) -> Reply {
    let d = dice_of(e)?;
    if !d.rolls_for(c) {
        return Err(GtpError(format!(
            "{} is exempt from rolling",
            color_name(c)
        )));
    }
    Ok(e.game.roll(c).expect("dice on, not exempt").to_string())
}

fn aleago_set_roll(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 2)?;
    let c = color(a[0])?;
    let d = dice_of(e)?;
    let total = parse_int(a[1]).map_err(GtpError::syntax)?;
    let (lo, hi) = d.range();
    if !(lo as u64..=hi as u64).contains(&total) {
        return Err(GtpError::syntax(format!(
            "roll {total} is out of range {lo}..{hi} for {}",
            d.spec()
        )));
    }
    if !d.rolls_for(c) {
        return Err(GtpError(format!(
            "{} is exempt from rolling",
            color_name(c)
        )));
    }
    e.game.set_roll(c, Some(total as u32));
    Ok(String::new())
}

fn aleago_allowed(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    dice_of(e)?;
    referee_roll(e, c);
    let points = e
        .game
        .allowed_points(c)
        .ok_or_else(|| GtpError(format!("no roll pending for {}", color_name(c))))?;
    Ok(names(e, &points))
}

fn aleago_next_roll(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let d = dice_of(e)?;
    if !d.crystal_ball {
        return Err(GtpError(
            "crystal ball is off (aleago-option crystal-ball on)".into(),
        ));
    }
    roll(e, c)
}

fn aleago_gfx(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let d = dice_of(e)?;
    referee_roll(e, c);
    let Some(total) = e.game.pending_roll(c) else {
        return Ok(format!("TEXT no roll pending for {}", color_name(c)));
    };
    let allowed = e.game.allowed_points(c).unwrap_or_default();
    let mut out = String::new();
    if !allowed.is_empty() {
        out.push_str("COLOR green");
        for &p in &allowed {
            out.push(' ');
            out.push_str(&name(e, p));
        }
        out.push('\n');
    }
    let lines = d.line_sets(total, crate::dice::top_line(e.game.size())).0[0];
    let rolled: Vec<String> = (1..=13)
        .filter(|l| lines & (1 << l) != 0)
        .map(|l| l.to_string())
        .collect();
    out.push_str(&format!(
        "TEXT {} rolled {total} ({}): line {}{}",
        color_name(c),
        d.spec(),
        rolled.join(", "),
        if allowed.is_empty() {
            ", no room: pass"
        } else {
            ""
        }
    ));
    Ok(out)
}

fn ownership_board(e: &Engine) -> String {
    let own = e.ownership();
    let board = e.game.board();
    let n = board.size();
    (0..n)
        .rev()
        .map(|y| {
            (0..n)
                .map(|x| format!("{:.2}", own[board.point(x, y) as usize]))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ownership_gfx(e: &Engine) -> String {
    let own = e.ownership();
    let board = e.game.board();
    let mut out = String::from("INFLUENCE");
    for p in board.points() {
        out.push_str(&format!(" {} {:.2}", name(e, p), own[p as usize]));
    }
    out
}
