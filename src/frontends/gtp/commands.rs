//! The command table: every GTP command kosumi answers, one entry each.
//! `list_commands` and `known_command` read this same table, so they always
//! agree with what is implemented.

use super::analyze::{self, Format};
use super::args::{arity, color, count, natural, point, seconds, vertex};
use super::error::{GtpError, engine_error, refusal};
use super::format::{board_diagram, decision_name, name, names, point_rows};
use super::parse::{check_komi, parse_float, parse_int};
use super::reply::{Answer, Reply};
use super::{dice, gogui_analysis, network, params, phantom};
use crate::engine::clock::{Clock, TimeSystem};
use crate::engine::{Engine, EngineError, Touch};
use crate::frontends::katago_rules;
use crate::go::board::{BoardSize, Color, Point};
use crate::go::game::Game;
use crate::go::rules::Rules;
use crate::go::score::Status;
use crate::go::sgf;
use crate::go::vertex::{color_name, color_title};

/// One GTP command: its name, what it touches (the engine's role permits
/// it or not) and its handler.
pub struct Command {
    pub name: &'static str,
    pub touch: Touch,
    pub run: fn(&mut Engine, &[&str]) -> Result<Answer, GtpError>,
}

/// A handler: `text` ones answer a reply's text, `answer` ones an
/// [`Answer`] (a move played, a stream, the end of the session).
macro_rules! handler {
    (text, $run:expr) => {{
        const RUN: fn(&mut Engine, &[&str]) -> Reply = $run;
        |e: &mut Engine, a: &[&str]| RUN(e, a).map(Answer::Text)
    }};
    (answer, $run:expr) => {
        $run
    };
}

macro_rules! table {
    ($($name:literal $touch:ident $kind:ident $run:expr),* $(,)?) => {
        &[$(Command { name: $name, touch: Touch::$touch, run: handler!($kind, $run) }),*]
    };
}

pub static COMMANDS: &[Command] = table! {
    // required
    "protocol_version" Nothing text |_, a| { arity(a, 0)?; Ok("2".into()) },
    "name" Nothing text |e, a| { arity(a, 0)?; Ok(e.config.name.clone().unwrap_or_else(|| "kosumi".into())) },
    "version" Nothing text |e, a| { arity(a, 0)?; Ok(e.config.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").into())) },
    "known_command" Nothing text known_command,
    "list_commands" Nothing text |e, a| {
        arity(a, 0)?;
        Ok(COMMANDS.iter().filter(|c| e.role().lists(c.touch)).map(|c| c.name).collect::<Vec<_>>().join("\n"))
    },
    "quit" Nothing answer |_, a| { arity(a, 0)?; Ok(Answer::Quit) },
    "boardsize" Restarts text boardsize,
    "rectangular_boardsize" Restarts text boardsize,
    "clear_board" Restarts text |e, a| { arity(a, 0)?; e.new_game(None); Ok(String::new()) },
    "komi" Settles text |e, a| {
        arity(a, 1)?;
        let k = parse_float(a[0]).and_then(check_komi).map_err(GtpError::syntax)?;
        e.set_komi(k);
        Ok(String::new())
    },
    "play" Moves text play,
    "genmove" Chooses answer |e, a| genmove(e, a, false),
    // tournament and regression
    "fixed_handicap" Edits text |e, a| { arity(a, 1)?; let n = natural(a[0])?; let p = e.fixed_handicap(n).map_err(engine_error)?; Ok(names(e, &p)) },
    "place_free_handicap" Edits text |e, a| { arity(a, 1)?; let n = natural(a[0])?; let p = e.free_handicap(n).map_err(engine_error)?; Ok(names(e, &p)) },
    "set_free_handicap" Edits text set_free_handicap,
    "loadsgf" Restarts text loadsgf,
    "reg_genmove" Searches text reg_genmove,
    "undo" Edits text |e, a| { arity(a, 0)?; e.undo(1).map_err(engine_error)?; Ok(String::new()) },
    "final_score" Counts text final_score,
    "final_status_list" Counts text final_status_list,
    "showboard" Reads text |e, a| { arity(a, 0)?; Ok(showboard(e.shown())) },
    "time_settings" Nothing text time_settings,
    "time_left" Nothing text time_left,
    // GNU Go compatible
    "captures" Reads text |e, a| { arity(a, 1)?; let c = color(a[0])?; Ok(e.shown().board().captures(c).to_string()) },
    "is_legal" Reads text is_legal,
    "all_legal" Reads text all_legal,
    "list_stones" Reads text list_stones,
    "color" Reads text point_color,
    "countlib" Reads text countlib,
    "printsgf" Reads text printsgf,
    // KGS
    "kgs-rules" Settles text kgs_rules,
    "kgs-time_settings" Nothing text kgs_time_settings,
    "kgs-genmove_cleanup" Chooses answer |e, a| genmove(e, a, true),
    "kgs-game_over" Nothing text |_, a| { arity(a, 0)?; log::info!("the server says the game is over"); Ok(String::new()) },
    // GoGui
    "gogui-analyze_commands" Nothing text |e, a| { arity(a, 0)?; Ok(analyze_commands(e)) },
    "gogui-interrupt" Nothing text |_, a| { arity(a, 0)?; Ok(String::new()) },
    "gogui-setup" Edits text gogui_setup,
    "gogui-setup_player" Edits text |e, a| { arity(a, 1)?; let c = color(a[0])?; e.game_mut().map_err(refusal)?.set_to_move(c); Ok(String::new()) },
    "gogui-play_sequence" Edits text play_sequence,
    "cputime" Nothing text |e, a| { arity(a, 0)?; Ok(format!("{:.3}", e.cpu_seconds())) },
    "gg-undo" Edits text gg_undo,
    // analysis: Leela Zero's and KataGo's (Sabaki, Lizzie), and GoGui's
    "lz-analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Lz, false),
    "kata-analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Kata, false),
    "analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Analyze, false),
    "lz-genmove_analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Lz, true),
    "kata-genmove_analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Kata, true),
    "genmove_analyze" Searches answer |e, a| analyze::analyze(e, a, Format::Analyze, true),
    "kosumi-candidates" Searches text gogui_analysis::candidates,
    "kosumi-pv" Searches text gogui_analysis::principal_variation,
    "kosumi-evaluation" Searches text gogui_analysis::evaluation_text,
    // kosumi
    "kosumi-rules" Settles text kosumi_rules,
    "kosumi-level" Nothing text params::kosumi_level,
    // KataGo's rules commands
    "kata-set-rules" Settles text kata_set_rules,
    "kata-get-rules" Reads text |e, a| { arity(a, 0)?; Ok(katago_rules::to_json(&e.shown().rules, e.shown().komi).to_string()) },
    "kosumi-pass_stones" Reads text |e, a| { arity(a, 1)?; let c = color(a[0])?; Ok(e.shown().pass_stones(c).to_string()) },
    "kosumi-score" Counts text kosumi_score,
    "kosumi-ownership" Counts text |e, a| { arity(a, 0)?; Ok(ownership_board(e)) },
    "kosumi-gfx_ownership" Counts text |e, a| { arity(a, 0)?; Ok(ownership_gfx(e)) },
    // the network, as KataGo answers it
    "kata-raw-nn" Searches text network::kata_raw_nn,
    "kata-raw-human-nn" Searches text network::kata_raw_human_nn,
    "kata-list-params" Nothing text |_, a| { arity(a, 0)?; Ok(params::param_names().join(" ")) },
    "kata-get-param" Nothing text params::kata_get_param,
    "kata-set-param" Nothing text params::kata_set_param,
    "kata-get-params" Nothing text |e, a| { arity(a, 0)?; Ok(params::params_json(e).to_string()) },
    "kata-set-params" Nothing text params::kata_set_params,
    // Aléago
    "aleago-dice" Edits text dice::aleago_dice,
    "aleago-option" Edits text dice::aleago_option,
    "aleago-seed" Edits text |e, a| { arity(a, 1)?; let n = parse_int(a[0]).map_err(GtpError::syntax)?; e.game_mut().map_err(refusal)?.seed_rolls(n); Ok(String::new()) },
    "aleago-roll" Edits text |e, a| { arity(a, 1)?; let c = color(a[0])?; dice::roll(e, c) },
    "aleago-set_roll" Edits text dice::aleago_set_roll,
    "aleago-allowed" Edits text dice::aleago_allowed,
    "aleago-next_roll" Edits text dice::aleago_next_roll,
    "aleago-gfx" Edits text dice::aleago_gfx,
    // Phantom Go and Phantom Rengo
    "phantom-new" StartsReferee text phantom::phantom_new,
    "phantom-option" PhantomOptions text phantom::phantom_option,
    "phantom-try" Referees text phantom::phantom_try,
    "phantom-view" Referees text phantom::phantom_view,
    "phantom-to_move" Referees text phantom::phantom_to_move,
    "phantom-seat" TakesSeat text phantom::phantom_seat,
    "phantom-heard" Hears text phantom::phantom_heard,
    // GoGui's ruler interface, while hosting a phantom game for a person
    "gogui-rules_game_id" Describes text phantom::rules_game_id,
    "gogui-rules_board" Hosts text phantom::rules_board,
    "gogui-rules_board_size" Describes text phantom::rules_board_size,
    "gogui-rules_legal_moves" Hosts text phantom::rules_legal_moves,
    "gogui-rules_side_to_move" Hosts text phantom::rules_side_to_move,
    "gogui-rules_captured_count" Hosts text phantom::rules_captured_count,
    "gogui-rules_final_result" Hosts text phantom::rules_final_result,
    "gogui-rules_board_gfx" Hosts text phantom::rules_board_gfx,
    "kosumi-phantom_log" Hosts text phantom::announcements,
};

/// The command a GoGui analyze entry runs (its third field's first word).
fn entry_command(entry: &str) -> &str {
    entry
        .splitn(3, '/')
        .nth(2)
        .and_then(|c| c.split_whitespace().next())
        .unwrap_or("")
}

/// GoGui's Analyze menu: the entries whose command the role permits now
/// (those marked `DICE` only while dice are on: without them they would
/// only fail; `LEVEL` only in plain Go with the network), and a menu entry
/// for each rules preset.
fn analyze_commands(e: &Engine) -> String {
    let dice = e.shown().dice().is_some();
    // A level plays plain Go from the network's policy.
    let levels = e.config.network.is_some() && e.phantom_kind().is_none();
    let permitted = |entry: &&str| {
        COMMANDS
            .iter()
            .find(|c| c.name == entry_command(entry))
            .is_some_and(|c| e.permits(c.touch).is_ok())
    };
    let presets: Vec<String> = Rules::preset_titles()
        .map(|(name, title)| format!("none/Rules: {title}/kosumi-rules {name}"))
        .collect();
    ANALYZE_COMMANDS
        .trim()
        .lines()
        .flat_map(|line| {
            match (
                line,
                line.strip_prefix("DICE "),
                line.strip_prefix("LEVEL "),
            ) {
                ("RULES PRESETS", ..) => presets.iter().map(String::as_str).collect(),
                (_, Some(entry), _) => dice.then_some(entry).into_iter().collect(),
                (_, _, Some(entry)) => levels.then_some(entry).into_iter().collect(),
                (entry, None, None) => vec![entry],
            }
        })
        .filter(permitted)
        .collect::<Vec<_>>()
        .join("\n")
}

/// What GoGui shows in its Analyze menu (type/label/command); `RULES
/// PRESETS` stands for an entry per preset of the rules table, `DICE`
/// marks an entry listed only while dice are on, `LEVEL` one listed only
/// where a playing level applies (plain Go with the network).
const ANALYZE_COMMANDS: &str = "
string/Rules/kosumi-rules
string/Pass stones: black/kosumi-pass_stones b
string/Pass stones: white/kosumi-pass_stones w
string/Final score/final_score
string/Score details/kosumi-score
LEVEL string/Playing level/kosumi-level
LEVEL none/Set playing level (30k to 9d, or max)/kosumi-level %s
plist/Dead stones/final_status_list dead
plist/Seki stones/final_status_list seki
plist/All legal moves/all_legal %m
dboard/Ownership/kosumi-ownership
gfx/Ownership (influence, area = ownership)/kosumi-gfx_ownership
pspairs/Search: candidates (visits)/kosumi-candidates %m
var/Search: principal variation/kosumi-pv %m
string/Search: evaluation/kosumi-evaluation %m
RULES PRESETS
string/Phantom: everything you heard/kosumi-phantom_log
DICE plist/Dice: allowed moves/aleago-allowed %m
DICE gfx/Dice: rolled line/aleago-gfx %m
DICE string/Dice: roll for the side to move/aleago-roll %m
string/Dice: spec/aleago-dice
";

fn known_command(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    Ok(COMMANDS
        .iter()
        .any(|c| c.name == a[0] && e.role().lists(c.touch))
        .to_string())
}

/// `boardsize` and KataGo's `rectangular_boardsize` alike, as KataGo reads
/// them: `19` (a square), `13:9` or `13 9` (columns, rows).
fn boardsize(e: &mut Engine, a: &[&str]) -> Reply {
    let sides: Vec<&str> = match a {
        [one] => one.split(':').collect(),
        [_, _] => a.to_vec(),
        _ => {
            return Err(GtpError::syntax(format!(
                "expected a size or columns and rows, got {} arguments",
                a.len()
            )));
        }
    };
    let (width, height) = match sides[..] {
        [n] => {
            let n = natural(n)?;
            (n, n)
        }
        [w, h] => (natural(w)?, natural(h)?),
        _ => return Err(GtpError::syntax(format!("invalid size {}", a[0]))),
    };
    let size = BoardSize::new(width, height)
        .map_err(|_| GtpError::new("unacceptable size", a.join(" ")))?;
    e.new_game(Some(size));
    Ok(String::new())
}

fn play(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 2)?;
    let c = color(a[0])?;
    let mv = vertex(e, a[1])?;
    e.play(c, mv).map_err(engine_error)?;
    Ok(String::new())
}

/// `genmove` and `kgs-genmove_cleanup`: the engine's move, played (with
/// GoGui's live graphics while thinking, if asked for).
fn genmove(e: &mut Engine, a: &[&str], cleanup: bool) -> Result<Answer, GtpError> {
    arity(a, 1)?;
    let c = color(a[0])?;
    let size = e.shown().size();
    let mut draw = |r: &crate::search::Report| gogui_analysis::draw_live(r, size);
    let watch = e
        .config
        .live_gfx
        .then(|| gogui_analysis::live_watch(&mut draw));
    let decision = e.genmove(c, cleanup, watch).map_err(engine_error)?;
    Ok(Answer::Moved(decision_name(e, decision)))
}

fn reg_genmove(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let decision = e.choose_only(c).map_err(engine_error)?;
    Ok(decision_name(e, decision))
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
    e.set_free_handicap(&points).map_err(engine_error)?;
    Ok(String::new())
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
    let read = sgf::read_file(a[0]).map_err(|err| GtpError::new("cannot load file", err))?;
    if let Some(note) = read.note() {
        log::warn!("{}: {note}", a[0]);
    }
    let game = sgf::load(&read.text, e.role().game(), move_number)
        .map_err(|err| GtpError::new("cannot load file", err))?;
    let to_move = game.to_move();
    e.load_game(game);
    Ok(color_name(to_move).into())
}

fn gg_undo(e: &mut Engine, a: &[&str]) -> Reply {
    let n = match a {
        [] => 1,
        [n] => natural(n)?,
        _ => return Err(GtpError::syntax("expected at most one argument")),
    };
    e.undo(n).map_err(engine_error)?;
    Ok(String::new())
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
    let board = e.shown().board();
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

fn showboard(game: &Game) -> String {
    let board = game.board();
    let mut out = board_diagram(board);
    out.push_str(&format!(
        "Black (X) captures {}, pass stones given {}\nWhite (O) captures {}, pass stones given {}\n",
        board.captures(Color::Black),
        game.pass_stones(Color::Black),
        board.captures(Color::White),
        game.pass_stones(Color::White),
    ));
    if let Some(d) = game.dice() {
        let pending = |c: Color| {
            game.pending_roll(c)
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
        color_title(game.to_move()),
        game.move_count() + 1,
        game.rules.name,
        game.komi
    ));
    out
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
        Some(p) => e.shown().check(c, p).is_ok(),
    };
    Ok(if legal { "1" } else { "0" }.into())
}

fn all_legal(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    Ok(names(e, &e.shown().legal_points(c)))
}

fn list_stones(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let board = e.shown().board();
    let stones: Vec<Point> = board
        .points()
        .filter(|&p| board.color_at(p) == Some(c))
        .collect();
    Ok(names(e, &stones))
}

fn point_color(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let p = point(e, a[0])?;
    Ok(e.shown()
        .board()
        .color_at(p)
        .map_or("empty", color_name)
        .into())
}

fn countlib(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let p = point(e, a[0])?;
    let board = e.shown().board();
    if board.color_at(p).is_none() {
        return Err(GtpError::syntax(format!("{} is empty", a[0])));
    }
    Ok(board.liberties(p).to_string())
}

fn printsgf(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() > 1 {
        return Err(GtpError::syntax("expected at most a file name"));
    }
    let game = e.shown();
    let result = match e.phantom_result() {
        Some(r) => Some(r.to_string()),
        None => game.is_over().then(|| e.score().result()),
    };
    let text = sgf::write(game, result.as_deref());
    match a.first() {
        Some(file) if *file != "-" => {
            // Whole or not at all: a failed write leaves the old file.
            crate::core::files::write_atomically(std::path::Path::new(file), text.as_bytes())
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
        [] => Ok(format!("{}\nkomi {}", e.shown().rules, e.shown().komi)),
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

/// KataGo's rules, by name or as JSON, mapped to kosumi's presets (the
/// `katago_rules` module); what no preset plays is refused by name.
fn kata_set_rules(e: &mut Engine, a: &[&str]) -> Reply {
    if a.is_empty() {
        return Err(GtpError::syntax("expected one rules name or a JSON object"));
    }
    let text = a.join(" ");
    let value = if text.starts_with('{') {
        serde_json::from_str(&text)
            .map_err(|err| GtpError::syntax(format!("rules JSON does not read: {err}")))?
    } else if a.len() == 1 {
        serde_json::Value::String(text)
    } else {
        return Err(GtpError::syntax("expected one rules name"));
    };
    let rules = katago_rules::from_json(&value).map_err(|err| GtpError::syntax(err.0))?;
    e.set_rules(rules);
    Ok(String::new())
}

/// The count of a finished game; of a game not over (with the network),
/// the search's estimate, as KataGo answers: counting the board as it
/// stands would hand the open areas to nobody.
fn final_score(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(match e.estimated_margin() {
        Some(margin) => crate::go::score::format_margin(margin),
        None => e.score().result(),
    })
}

fn kosumi_score(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let s = e.score();
    let estimate = e.estimated_margin().map(|m| {
        format!(
            "result {} (estimated: the game is not over; the counts below are of the board as it stands)\ncounted {}\n",
            crate::go::score::format_margin(m),
            s.result()
        )
    });
    let mut out = format!(
        "{}black {}\nwhite {}\nkomi {}\nhandicap_bonus {}",
        estimate.unwrap_or_else(|| format!("result {}\n", s.result())),
        s.black,
        s.white,
        s.komi,
        s.handicap_bonus
    );
    if let Some(j) = s.japanese_style_margin {
        out.push_str(&format!(
            "\njapanese_style {}",
            crate::go::score::format_margin(j)
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
    e.setup(&stones).map_err(engine_error)?;
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
    e.play_sequence(&moves).map_err(|(i, err)| match err {
        EngineError::Illegal { why, .. } => GtpError::new(
            "illegal move",
            format!("{} {}: {why}", a[2 * i], a[2 * i + 1]),
        ),
        other => engine_error(other),
    })?;
    Ok(String::new())
}

fn ownership_board(e: &Engine) -> String {
    let own = e.shown_ownership();
    point_rows(e.shown().board(), |p| format!("{:.2}", own[p as usize]))
}

/// The ownership as GoGui's influence map. GoGui draws a square whose side
/// grows with the value (0.62 of the field at 1), so its area grows with
/// the square; each value is sent as the signed square root, so that the
/// area of the square is the ownership (0.25 would otherwise be a speck).
fn ownership_gfx(e: &Engine) -> String {
    let own = e.shown_ownership();
    let board = e.shown().board();
    let mut out = String::from("INFLUENCE");
    for p in board.points() {
        let v = own[p as usize];
        let drawn = v.signum() * v.abs().sqrt();
        out.push_str(&format!(" {} {:.2}", name(e, p), drawn));
    }
    out
}
