//! The phantom commands: refereeing (`phantom-new`, `phantom-try`,
//! `phantom-view`, `phantom-to_move`), playing a seat (`phantom-seat`,
//! `phantom-heard`, and `genmove` choosing a try), the conventions
//! (`phantom-option`), and GoGui's ruler interface to a game kosumi hosts
//! for a person (`gogui-rules_*`). The engine's role decides which of them
//! may run (the command table); these parse and format.

use super::args::{arity, vertex};
use super::error::{GtpError, engine_error};
use super::format::{board_diagram, option_lines, point_rows};
use super::reply::Reply;
use crate::engine::{Engine, Refusal};
use crate::go::vertex::{color_name, color_title, vertex_name};
use crate::phantom::announcement::Line;
use crate::phantom::host::Host;
use crate::phantom::options::{Options, PRESETS};
use crate::phantom::referee::Referee;
use crate::phantom::{Kind, seat_color};

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

/// A seat number of the engine's phantom game.
fn seat(e: &Engine, s: &str) -> Result<usize, GtpError> {
    let kind = e
        .phantom_kind()
        .ok_or_else(|| GtpError(Refusal::NoPhantomGame.to_string()))?;
    kind.seat(s).map_err(GtpError::syntax)
}

fn referee(e: &Engine) -> Result<&Referee, GtpError> {
    e.referee()
        .ok_or_else(|| GtpError(Refusal::NoReferee.to_string()))
}

fn host(e: &Engine) -> Result<&Host, GtpError> {
    e.host()
        .ok_or_else(|| GtpError(Refusal::NotHosting.to_string()))
}

pub(super) fn phantom_new(e: &mut Engine, a: &[&str]) -> Reply {
    if a.is_empty() || a.len() > 2 {
        return Err(GtpError::syntax(
            "expected go|rengo and an optional preset (seed, olympiad, openspiel)",
        ));
    }
    let kind = kind(a[0])?;
    let options = preset(a.get(1))?;
    e.referee_new(kind, options).map_err(engine_error)?;
    Ok(String::new())
}

pub(super) fn phantom_option(e: &mut Engine, a: &[&str]) -> Reply {
    match a {
        [] => {
            let options = e
                .phantom_options()
                .ok_or_else(|| GtpError(Refusal::NoPhantomGame.to_string()))?;
            Ok(option_lines(&options.list()))
        }
        [name, value] => {
            e.set_phantom_option(name, value).map_err(engine_error)?;
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
    let seat = seat(e, a[0])?;
    let announcement = e.referee_try(seat, mv).map_err(engine_error)?;
    Ok(announcement.lines(e.shown().size()).join("\n"))
}

pub(super) fn phantom_view(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() != 1 {
        return Err(GtpError::syntax("expected a seat"));
    }
    let seat = seat(e, a[0])?;
    let r = referee(e)?;
    Ok(format!(
        "{}Seat {seat} ({}), view of phantom {}",
        board_diagram(&r.view(seat).board()),
        color_title(seat_color(seat)),
        r.kind.name()
    ))
}

pub(super) fn phantom_to_move(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(referee(e)?
        .to_move()
        .map_or("end".into(), |s| s.to_string()))
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
    e.take_seat(seat, kind, options).map_err(engine_error)?;
    Ok(String::new())
}

pub(super) fn phantom_heard(e: &mut Engine, a: &[&str]) -> Reply {
    if a.len() < 2 {
        return Err(GtpError::syntax("expected a seat and an announcement line"));
    }
    let trier = seat(e, a[0])?;
    let line = Line::parse(&a[1..], e.shown().size()).map_err(GtpError::syntax)?;
    e.hear(trier, &line).map_err(engine_error)?;
    Ok(String::new())
}

pub(super) fn rules_game_id(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(match host(e)?.referee().kind {
        Kind::Go => "Phantomgo",
        Kind::Rengo => "Phantomrengo",
    }
    .into())
}

pub(super) fn rules_board_size(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(host(e)?.shown().size().to_string())
}

/// The person's view, rows from the top, `X`, `O` and `.`.
pub(super) fn rules_board(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let view = host(e)?.shown().board();
    Ok(point_rows(view, |p| {
        match view.color_at(p) {
            Some(crate::go::board::Color::Black) => "X",
            Some(crate::go::board::Color::White) => "O",
            None => ".",
        }
        .to_string()
    }))
}

/// The person's possible tries: every empty point of their view not
/// refused this turn, and pass; nothing once the game is over.
pub(super) fn rules_legal_moves(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    if h.referee().to_move().is_none() {
        return Ok(String::new());
    }
    let view = h.shown().board();
    let mut moves: Vec<String> = view
        .points()
        .filter(|&p| view.color_at(p).is_none() && !h.refused().contains(&p))
        .map(|p| vertex_name(Some(p), view.size()))
        .collect();
    moves.push("pass".into());
    Ok(moves.join(" "))
}

pub(super) fn rules_side_to_move(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(color_name(host(e)?.human_color()).into())
}

pub(super) fn rules_captured_count(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let b = host(e)?.shown().board();
    Ok(format!(
        "{} {}",
        b.captures(crate::go::board::Color::Black),
        b.captures(crate::go::board::Color::White)
    ))
}

pub(super) fn rules_final_result(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    Ok(match host(e)?.referee().result() {
        Some(r) => format!("{r} (the board now shows the true game)"),
        None => "the phantom game is not over".into(),
    })
}

/// Everything the person heard in the hosted game, a line each (numbered),
/// and the result once the game is over.
pub(super) fn announcements(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    let mut lines: Vec<String> = h
        .history()
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{}. {line}", i + 1))
        .collect();
    if let Some(result) = h.referee().result() {
        lines.push(format!("Result: {result}"));
    }
    if lines.is_empty() {
        lines.push("nothing heard yet".into());
    }
    Ok(lines.join("\n"))
}

/// What the person heard since their last try, as GoGui text, their
/// refused points marked and the captured points labelled `x`.
pub(super) fn rules_board_gfx(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 0)?;
    let h = host(e)?;
    let size = h.shown().size();
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
