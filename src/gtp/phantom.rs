//! The phantom commands (issue 13): the engine as a referee whose game is
//! the true game (`phantom-new`, `phantom-option`, `phantom-try`,
//! `phantom-view`, `phantom-to_move`), or as the player of one seat whose
//! board is that seat's view (`phantom-seat`, `phantom-heard`, and
//! `genmove` choosing a try). Commands of the wrong role are refused, and
//! so are the commands that would change a refereed true game behind the
//! referee's back.

use super::commands::{arity, board_diagram, option_lines, vertex};
use super::{Engine, GtpError, Reply};
use crate::phantom::announcement::Line;
use crate::phantom::host::Host;
use crate::phantom::options::{Options, PRESETS};
use crate::phantom::player::{self, Player};
use crate::phantom::referee::Referee;
use crate::phantom::{Kind, seat_color};
use crate::vertex::{color_name, vertex_name};

/// The engine's part in a phantom game.
#[derive(Clone)]
pub enum Phantom {
    Referee(Referee),
    Player(Player),
    /// The referee and kosumi's seats, for a person at one seat (GoGui's
    /// ruler interface).
    Host(Box<Host>),
}

/// Commands that would play on a refereed true game without the referee.
const REFEREE_FORBIDS: &[&str] = &[
    "play",
    "genmove",
    "reg_genmove",
    "kgs-genmove_cleanup",
    "undo",
    "gg-undo",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "gogui-setup",
    "gogui-setup_player",
    "gogui-play_sequence",
    "aleago-dice",
];

/// Commands that start another game: the phantom game ends with them.
const NEW_GAME: &[&str] = &["clear_board", "boardsize", "loadsgf"];

/// Refuses a command the engine's phantom role forbids.
pub(super) fn guard(e: &Engine, name: &str) -> Result<(), GtpError> {
    let refereed = match e.phantom {
        Some(Phantom::Referee(_)) => true,
        // A person's tries come by `play`.
        Some(Phantom::Host(_)) => name != "play",
        _ => false,
    };
    if refereed && REFEREE_FORBIDS.contains(&name) {
        return Err(GtpError(format!(
            "a phantom game is refereed here: {name} would change the true game (use phantom-try, or clear_board to end it)"
        )));
    }
    if name.starts_with("gogui-rules_") && !matches!(e.phantom, Some(Phantom::Host(_))) {
        return Err(GtpError(
            "the gogui-rules commands answer only when kosumi hosts a phantom game (--phantom-human)".into(),
        ));
    }
    Ok(())
}

/// Whether `list_commands` lists a command now: GoGui's ruler commands only
/// while kosumi hosts a phantom game for a person (GoGui takes any program
/// that lists them for a ruler of another game than Go).
pub(super) fn listed(e: &Engine, name: &str) -> bool {
    !name.starts_with("gogui-rules_") || matches!(e.phantom, Some(Phantom::Host(_)))
}

/// After a command succeeded: a new game ends the phantom one, or, when
/// kosumi hosts one for a person, starts the next.
pub(super) fn after(e: &mut Engine, name: &str) {
    if NEW_GAME.contains(&name) {
        e.phantom = None;
        if e.config.phantom_host.is_some() {
            start_host(e);
        }
    }
}

/// The search settings of a phantom player's choice.
fn player_settings(e: &Engine, color: crate::board::Color) -> player::Settings {
    player::Settings {
        mode: e.config.phantom_mode,
        policy: e.config.phantom_policy,
        budget: e.budget(color),
        seed: e.search_seed(),
        max_nodes: e.config.max_nodes,
        patterns: e.config.patterns,
    }
}

/// Starts hosting a phantom game for a person (`--phantom-human`) on the
/// engine's current board: kosumi's seats try until it is the person's turn.
pub(crate) fn start_host(e: &mut Engine) {
    let Some((human, kind, options)) = e.config.phantom_host else {
        return;
    };
    e.game.set_dice(None);
    let mut host = Host::new(kind, options, human, &e.game, e.config.seed);
    e.searches += 1;
    let settings = player_settings(e, seat_color(human).opponent());
    let mut game = e.game.clone();
    host.play_others(&mut game, &settings, &e.stop);
    e.game = game;
    e.phantom = Some(Phantom::Host(Box::new(host)));
}

fn host(e: &mut Engine) -> Result<&mut Host, GtpError> {
    match &mut e.phantom {
        Some(Phantom::Host(h)) => Ok(h),
        _ => Err(GtpError(
            "kosumi hosts no phantom game (--phantom-human SEAT)".into(),
        )),
    }
}

/// `play` while hosting: the person's try (an illegal try is no GTP error:
/// it is announced, and the person tries again).
pub(super) fn host_play(
    e: &mut Engine,
    color: crate::board::Color,
    mv: Option<crate::board::Point>,
) -> Option<Reply> {
    let Some(Phantom::Host(h)) = &e.phantom else {
        return None;
    };
    if color != h.human_color() {
        return Some(Err(GtpError::new(
            "illegal move",
            format!("the person plays seat {} only", h.human),
        )));
    }
    e.searches += 1;
    let settings = player_settings(e, color.opponent());
    let (mut game, mut h) = (e.game.clone(), h.clone());
    let reply = h
        .human_try(&mut game, mv, &settings, &e.stop)
        .map(|_| String::new())
        .map_err(|why| GtpError::new("illegal move", why));
    if reply.is_ok() {
        e.game = game;
        e.phantom = Some(Phantom::Host(h));
    }
    Some(reply)
}

/// `play` at a phantom player: a stone the seat learns of on its board
/// (a board-mate's move, or a stone a try revealed). The view's own
/// history may forbid it as a move (a view repeats positions the true
/// game never had, since captures clear it), so it stands as a setup
/// stone then; an occupied point stays an error. A pass is an ordinary
/// `play`.
pub(super) fn player_play(
    e: &mut Engine,
    color: crate::board::Color,
    mv: Option<crate::board::Point>,
) -> Option<Reply> {
    let (Some(Phantom::Player(_)), Some(p)) = (&e.phantom, mv) else {
        return None;
    };
    let mut view = e.game.clone();
    let reply = match view.play(color, Some(p)) {
        Ok(()) => Ok(String::new()),
        Err(why) => view
            .setup(&[(color, p)], false)
            .map(|_| String::new())
            .map_err(|_| GtpError::new("illegal move", why)),
    };
    if reply.is_ok() {
        e.game = view;
    }
    Some(reply)
}

pub(super) fn rules_game_id(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(match host(e)?.referee.kind {
        Kind::Go => "Phantomgo",
        Kind::Rengo => "Phantomrengo",
    }
    .into())
}

pub(super) fn rules_board_size(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    host(e)?;
    Ok(e.game.size().to_string())
}

/// The person's view, rows from the top, `X`, `O` and `.`.
pub(super) fn rules_board(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    let view = h.referee.view(h.human).board();
    let n = view.size();
    Ok((0..n)
        .rev()
        .map(|y| {
            (0..n)
                .map(|x| match view.color_at(view.point(x, y)) {
                    Some(crate::board::Color::Black) => "X",
                    Some(crate::board::Color::White) => "O",
                    None => ".",
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The person's possible tries: every empty point of their view not
/// refused this turn, and pass; nothing once the game is over.
pub(super) fn rules_legal_moves(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let size = e.game.size();
    let h = host(e)?;
    if h.referee.to_move().is_none() {
        return Ok(String::new());
    }
    let view = h.referee.view(h.human).board();
    let mut moves: Vec<String> = view
        .points()
        .filter(|&p| view.color_at(p).is_none() && !h.refused().contains(&p))
        .map(|p| vertex_name(Some(p), size))
        .collect();
    moves.push("pass".into());
    Ok(moves.join(" "))
}

pub(super) fn rules_side_to_move(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    Ok(color_name(h.human_color()).into())
}

pub(super) fn rules_captured_count(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    host(e)?;
    let b = e.game.board();
    Ok(format!(
        "{} {}",
        b.captures(crate::board::Color::Black),
        b.captures(crate::board::Color::White)
    ))
}

pub(super) fn rules_final_result(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    Ok(match h.referee.result() {
        Some(r) => format!("{r} (the true board is shown by showboard)"),
        None => "the phantom game is not over".into(),
    })
}

/// What the person heard since their last try, as GoGui text, their
/// refused points marked and the captured points labelled `x`.
pub(super) fn rules_board_gfx(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let size = e.game.size();
    let h = host(e)?;
    let mut out = String::new();
    if !h.refused().is_empty() {
        out.push_str("MARK");
        for &p in h.refused() {
            out.push(' ');
            out.push_str(&vertex_name(Some(p), size));
        }
        out.push('\n');
    }
    // The points of the stones captured since the person's last try, marked
    // on the board (GoGui may clear the status line soon after a move).
    if !h.captured().is_empty() {
        out.push_str("LABEL");
        for &p in h.captured() {
            out.push_str(&format!(" {} x", vertex_name(Some(p), size)));
        }
        out.push('\n');
    }
    let text = if h.heard().is_empty() {
        format!("Your turn (seat {})", h.human)
    } else {
        h.heard().join("; ")
    };
    out.push_str(&format!("TEXT {text}"));
    Ok(out)
}

fn preset(name: Option<&&str>) -> Result<Options, GtpError> {
    let name = name.copied().unwrap_or("seed");
    Options::preset(name).ok_or_else(|| {
        GtpError::syntax(format!(
            "unknown preset '{name}' (known: {})",
            PRESETS.join(", ")
        ))
    })
}

fn kind(s: &str) -> Result<Kind, GtpError> {
    Kind::parse(s).map_err(GtpError::syntax)
}

/// Why the engine has no referee to hand out: its role, or no phantom game.
fn no_referee(phantom: &Option<Phantom>) -> GtpError {
    GtpError(
        match phantom {
            Some(Phantom::Host(_)) => {
                "this engine hosts a phantom game for a person: their tries come by play"
            }
            Some(Phantom::Player(_)) => "this engine is a phantom player, not the referee",
            _ => "no phantom game is refereed (phantom-new go|rengo)",
        }
        .into(),
    )
}

fn referee(e: &mut Engine) -> Result<&mut Referee, GtpError> {
    match &mut e.phantom {
        Some(Phantom::Referee(r)) => Ok(r),
        other => Err(no_referee(other)),
    }
}

/// The referee, for commands that only read it (a host's too).
fn referee_read(e: &mut Engine) -> Result<&Referee, GtpError> {
    match &e.phantom {
        Some(Phantom::Host(h)) => Ok(&h.referee),
        Some(Phantom::Referee(r)) => Ok(r),
        other => Err(no_referee(other)),
    }
}

/// Phantom games roll no dice.
fn no_dice(e: &Engine) -> Result<(), GtpError> {
    match e.game.dice() {
        Some(_) => Err(GtpError(
            "phantom games roll no dice (aleago-dice off first)".into(),
        )),
        None => Ok(()),
    }
}

pub(super) fn phantom_new(e: &mut Engine, a: &[&str]) -> Reply {
    if a.is_empty() || a.len() > 2 {
        return Err(GtpError::syntax(
            "expected go|rengo and an optional preset (seed, olympiad, openspiel)",
        ));
    }
    let kind = kind(a[0])?;
    let options = preset(a.get(1))?;
    no_dice(e)?;
    let mut r = Referee::new(kind, options, &e.game);
    r.seed = e.config.seed;
    e.phantom = Some(Phantom::Referee(r));
    Ok(String::new())
}

pub(super) fn phantom_option(e: &mut Engine, a: &[&str]) -> Reply {
    let options = match &mut e.phantom {
        Some(Phantom::Referee(r)) => &mut r.options,
        Some(Phantom::Host(h)) => &mut h.referee.options,
        Some(Phantom::Player(p)) => &mut p.options,
        None => {
            return Err(GtpError(
                "no phantom game (phantom-new or phantom-seat first)".into(),
            ));
        }
    };
    match a {
        [] => Ok(option_lines(&options.list())),
        [name, value] => {
            let mut changed = *options;
            changed.set(name, value).map_err(GtpError::syntax)?;
            *options = changed;
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected an option name and a value")),
    }
}

pub(super) fn phantom_try(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() != 2 {
        return Err(GtpError::syntax("expected a seat and a vertex or pass"));
    }
    let mv = vertex(e, a[1])?;
    let size = e.game.size();
    let mut game = e.game.clone();
    let r = referee(e)?;
    let seat = r.kind.seat(a[0]).map_err(GtpError::syntax)?;
    let mut judged = r.clone();
    let announcement = judged.try_move(&mut game, seat, mv).map_err(GtpError)?;
    *r = judged;
    e.game = game;
    Ok(announcement.lines(size).join("\n"))
}

pub(super) fn phantom_view(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() != 1 {
        return Err(GtpError::syntax("expected a seat"));
    }
    let r = referee_read(e)?;
    let seat = r.kind.seat(a[0]).map_err(GtpError::syntax)?;
    let view = r.view(seat).board();
    Ok(format!(
        "{}Seat {seat} ({}), view of phantom {}",
        board_diagram(&view),
        if seat_color(seat) == crate::board::Color::Black {
            "Black"
        } else {
            "White"
        },
        r.kind.name()
    ))
}

pub(super) fn phantom_to_move(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let r = referee_read(e)?;
    Ok(r.to_move().map_or("end".into(), |s| s.to_string()))
}

pub(super) fn phantom_seat(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() < 2 || a.len() > 3 {
        return Err(GtpError::syntax(
            "expected a seat, go|rengo and an optional preset",
        ));
    }
    let kind = kind(a[1])?;
    let seat = kind.seat(a[0]).map_err(GtpError::syntax)?;
    let options = preset(a.get(2))?;
    if matches!(e.phantom, Some(Phantom::Referee(_))) {
        return Err(GtpError(
            "this engine referees a phantom game; clear_board first".into(),
        ));
    }
    no_dice(e)?;
    e.phantom = Some(Phantom::Player(Player::new(seat, kind, options, &e.game)));
    Ok(String::new())
}

pub(super) fn phantom_heard(e: &mut Engine, a: &[&str]) -> Reply {
    let Some(Phantom::Player(p)) = &e.phantom else {
        return Err(GtpError(
            "this engine is no phantom player (phantom-seat first)".into(),
        ));
    };
    if a.len() < 2 {
        return Err(GtpError::syntax("expected a seat and an announcement line"));
    }
    let trier = p.kind.seat(a[0]).map_err(GtpError::syntax)?;
    let line = Line::parse(&a[1..], e.game.size()).map_err(GtpError::syntax)?;
    let (mut player, mut view) = (p.clone(), e.game.clone());
    player.hear(&mut view, trier, &line).map_err(|why| {
        GtpError(format!(
            "contradicts what seat {} knows: {why}",
            player.seat
        ))
    })?;
    e.phantom = Some(Phantom::Player(player));
    e.game = view;
    Ok(String::new())
}

/// `genmove` of a phantom player: a try for its seat, put on its view.
pub(super) fn player_genmove(e: &mut Engine, color: crate::board::Color) -> Option<Reply> {
    let Some(Phantom::Player(p)) = &e.phantom else {
        return None;
    };
    if color != p.color() {
        return Some(Err(GtpError::syntax(format!(
            "seat {} plays {}",
            p.seat,
            color_name(p.color())
        ))));
    }
    e.searches += 1;
    let settings = player_settings(e, color);
    let Some(Phantom::Player(p)) = &mut e.phantom else {
        return None;
    };
    let mv = p.choose_try(&mut e.game, &settings, &e.stop);
    Some(Ok(vertex_name(mv, e.game.size())))
}
