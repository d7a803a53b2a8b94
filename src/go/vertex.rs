//! Colours and vertices as GTP writes them (`b`, `white`; `D4`, `pass`;
//! letters A–Z without I, any case), shared by the protocol, the SGF
//! loader's messages and the phantom announcements.

use crate::go::board::{BoardSize, Color, Point, coords_of, point_at};

/// The column letters, `I` left out.
pub const COLUMNS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// The GTP name of a colour: `black` or `white`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// A colour's name in a sentence's first word: `Black` or `White`.
pub fn color_title(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// `b`, `w`, `black`, `white`, any case.
pub fn parse_color(s: &str) -> Result<Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color '{s}'")),
    }
}

/// A vertex (`D4`, `pass`; letters A–Z without I, any case) on a board of
/// `size`. `Ok(None)` is a pass.
pub fn parse_vertex(s: &str, size: impl Into<BoardSize>) -> Result<Option<Point>, String> {
    let size = size.into();
    let lower = s.to_ascii_lowercase();
    if lower == "pass" {
        return Ok(None);
    }
    let mut chars = lower.chars();
    let letter = chars.next().ok_or("empty vertex")?;
    let digits = chars.as_str();
    if !letter.is_ascii_lowercase() || letter == 'i' {
        return Err(format!("invalid vertex '{s}'"));
    }
    let x = (letter as u8 - b'a') as usize - usize::from(letter > 'i');
    let y: usize = if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        digits
            .parse()
            .map_err(|_| format!("invalid vertex '{s}'"))?
    } else {
        return Err(format!("invalid vertex '{s}'"));
    };
    if x >= size.width || y == 0 || y > size.height {
        return Err(format!("vertex '{s}' is off the board"));
    }
    Ok(Some(point_at(size, x, y - 1)))
}

/// The GTP name of a point (`pass` for `None`).
pub fn vertex_name(p: Option<Point>, size: impl Into<BoardSize>) -> String {
    match p {
        None => "pass".into(),
        Some(p) => {
            let (x, y) = coords_of(size.into(), p);
            let letter = COLUMNS.as_bytes()[x] as char;
            format!("{letter}{}", y + 1)
        }
    }
}
