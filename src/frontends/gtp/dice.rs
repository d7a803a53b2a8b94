//! The Aléago commands (`aleago-*`): the dice of the game, their options
//! and seed, the rolls, the points a roll allows and its drawing for GoGui.
//! They edit the plain game, which only plain Go has (phantom games roll
//! no dice).

use super::args::{arity, color};
use super::error::{GtpError, refusal};
use super::format::{names, option_lines};
use super::parse::parse_int;
use super::reply::Reply;
use crate::engine::Engine;
use crate::go::board::Color;
use crate::go::dice::Dice;
use crate::go::game::Game;
use crate::go::vertex::{color_name, vertex_name};

fn game(e: &mut Engine) -> Result<&mut Game, GtpError> {
    e.game_mut().map_err(refusal)
}

fn dice_of(game: &Game) -> Result<Dice, GtpError> {
    game.dice()
        .ok_or_else(|| GtpError("dice are off (aleago-dice SPEC turns them on)".into()))
}

pub(super) fn aleago_dice(e: &mut Engine, a: &[&str]) -> Reply {
    let game = game(e)?;
    match a {
        [] => Ok(game.dice().map_or("off".to_string(), |d| d.spec())),
        [spec] if spec.eq_ignore_ascii_case("off") => {
            game.set_dice(None);
            Ok(String::new())
        }
        [spec] => {
            let mut d = Dice::parse(spec).map_err(GtpError::syntax)?;
            if let Some(old) = game.dice() {
                d = d.keeping_options_of(&old);
            }
            game.set_dice(Some(d));
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected a dice spec like 1d6, or off")),
    }
}

pub(super) fn aleago_option(e: &mut Engine, a: &[&str]) -> Reply {
    let game = game(e)?;
    let mut d = dice_of(game)?;
    match a {
        [] => Ok(option_lines(&d.options())),
        [name, value] => {
            d.set_option(name, value).map_err(GtpError::syntax)?;
            game.set_dice(Some(d));
            Ok(String::new())
        }
        _ => Err(GtpError::syntax("expected an option name and a value")),
    }
}

fn exempt(c: Color) -> GtpError {
    GtpError(format!("{} is exempt from rolling", color_name(c)))
}

/// `c`'s roll for its next move, drawn now if none is pending.
pub(super) fn roll(e: &mut Engine, c: Color) -> Reply {
    let game = game(e)?;
    if !dice_of(game)?.rolls_for(c) {
        return Err(exempt(c));
    }
    Ok(game.roll(c).expect("dice on, not exempt").to_string())
}

pub(super) fn aleago_set_roll(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 2)?;
    let c = color(a[0])?;
    let game = game(e)?;
    let d = dice_of(game)?;
    let total = parse_int(a[1]).map_err(GtpError::syntax)?;
    let (lo, hi) = d.range();
    if !(lo as u64..=hi as u64).contains(&total) {
        return Err(GtpError::syntax(format!(
            "roll {total} is out of range {lo}..{hi} for {}",
            d.spec()
        )));
    }
    if !d.rolls_for(c) {
        return Err(exempt(c));
    }
    game.set_roll(c, Some(total as u32));
    Ok(String::new())
}

/// The points `c` may play: under its pending roll, drawn now if none is
/// (as `genmove` and analysis would; the roll stays for the move), or every
/// legal point where `c` is exempt from rolling.
pub(super) fn aleago_allowed(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let game = game(e)?;
    dice_of(game)?;
    game.roll(c);
    let points = game
        .allowed_points(c)
        .unwrap_or_else(|| game.legal_points(c));
    Ok(names(e, &points))
}

pub(super) fn aleago_next_roll(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    if !dice_of(game(e)?)?.crystal_ball {
        return Err(GtpError(
            "crystal ball is off (aleago-option crystal-ball on)".into(),
        ));
    }
    roll(e, c)
}

/// The rolled line for GoGui: the allowed points in green and a caption;
/// the roll is drawn now if none is pending (it stays for the move).
pub(super) fn aleago_gfx(e: &mut Engine, a: &[&str]) -> Reply {
    arity(a, 1)?;
    let c = color(a[0])?;
    let game = game(e)?;
    let d = dice_of(game)?;
    let Some(total) = game.roll(c) else {
        return Ok(format!(
            "TEXT {} is exempt from rolling: any move",
            color_name(c)
        ));
    };
    let size = game.size();
    let allowed = game.allowed_points(c).unwrap_or_default();
    let mut out = String::new();
    if !allowed.is_empty() {
        out.push_str("COLOR green");
        for &p in &allowed {
            out.push(' ');
            out.push_str(&vertex_name(Some(p), size));
        }
        out.push('\n');
    }
    let lines = d.line_sets(total, crate::go::board::top_line(size)).0[0];
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
