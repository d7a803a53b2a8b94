//! SGF in and out, through the sgf-parse crate: a game record's main line
//! (SZ, KM, HA, RU, AB/AW/AE, B/W, PL) becomes a [`Game`]; a game becomes an
//! FF\[4\] record with its setup stones, moves and result. Aléago games keep
//! their dice in private properties: `DI[1d6]` and `DX[name:value]...` (the
//! options) in the root, `DR[total]` on each move made under a roll, and
//! `DP[B:total]` for a roll still waiting for its move.

use crate::go::board::{BoardSize, Color, Point};
use crate::go::dice::Dice;
pub use crate::go::encoding::{Decoded, decode};
use crate::go::game::{Action, Game};
use crate::go::rules::Rules;
use crate::go::vertex::parse_color;
use sgf_parse::go::{Move, Point as SgfPoint, Prop};
use sgf_parse::{SgfNode, SgfProp, SimpleText};
use std::collections::HashSet;

fn to_point(game: &Game, p: &SgfPoint) -> Result<Option<Point>, String> {
    let size = game.size();
    let (x, y) = (p.x as usize, p.y as usize);
    if x < size.width && y < size.height {
        Ok(Some(game.board().point(x, size.height - 1 - y)))
    } else if x == 19 && y == 19 && size.longer() <= 19 {
        Ok(None) // `tt`, the old pass
    } else {
        Err(format!(
            "point {x},{y} is off the {} board",
            size.shape_name()
        ))
    }
}

fn from_point(game: &Game, p: Point) -> SgfPoint {
    let (x, y) = game.board().coords(p);
    SgfPoint {
        x: x as u8,
        y: (game.size().height - 1 - y) as u8,
    }
}

fn color_of(c: &sgf_parse::Color) -> Color {
    match c {
        sgf_parse::Color::Black => Color::Black,
        sgf_parse::Color::White => Color::White,
    }
}

/// The largest file `loadsgf` reads, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// The most nodes a record may hold (a 25×25 game needs a few thousand).
pub const MAX_NODES: usize = 100_000;
/// The deepest nesting of variations a record may hold.
pub const MAX_NESTING: usize = 1_000;
/// Stack of the thread that parses (the parsed tree is dropped recursively).
const PARSER_STACK: usize = 64 << 20;

/// Reads an SGF file: a regular file (not a FIFO, device or directory, which
/// could block or never end) of at most [`MAX_FILE_BYTES`], as text in its
/// own encoding ([`decode`]).
pub fn read_file(path: &str) -> Result<Decoded, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{path}: not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{path}: {} bytes, more than the {MAX_FILE_BYTES} read",
            meta.len()
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("{path}: more than the {MAX_FILE_BYTES} bytes read"));
    }
    decode(&bytes).map_err(|e| format!("{path}: {e}"))
}

/// Refuses records too large to parse safely: more than [`MAX_NODES`] nodes
/// or variations nested deeper than [`MAX_NESTING`] (counted outside
/// property values, whose `]` may be escaped).
fn check_shape(text: &str) -> Result<(), String> {
    let (mut nodes, mut depth, mut deepest) = (0usize, 0usize, 0usize);
    let (mut in_value, mut escaped) = (false, false);
    for b in text.bytes() {
        if in_value {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b']' => in_value = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'[' => in_value = true,
            b';' => nodes += 1,
            b'(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if nodes > MAX_NODES {
        return Err(format!("{nodes} nodes, more than the {MAX_NODES} accepted"));
    }
    if deepest > MAX_NESTING {
        return Err(format!(
            "variations nested {deepest} deep, more than the {MAX_NESTING} accepted"
        ));
    }
    Ok(())
}

/// Reads an SGF record into a new game. `template` gives the rules and komi
/// that the record does not set; a record without `SZ` is 19×19, the SGF
/// default. With `move_number`, stops just before that move (moves are
/// numbered from 1). Never touches `template`. Records over the limits of
/// size are refused before parsing, and the parsing runs on a thread of its
/// own with a large stack.
pub fn load(text: &str, template: &Game, move_number: Option<usize>) -> Result<Game, String> {
    load_on_stack(text, template, move_number).map(|r| r.game)
}

/// A whole record as read: the game of its main line, the result (`RE`)
/// it gives, if any, and for each node of the main line (the root first)
/// how many of the game's actions stand after it.
#[derive(Clone)]
pub struct Record {
    pub game: Game,
    pub result: Option<String>,
    pub actions_after_node: Vec<usize>,
}

/// [`load`] of the whole record.
pub fn load_record(text: &str, template: &Game) -> Result<Record, String> {
    load_on_stack(text, template, None)
}

/// The record read on a thread of its own with a large stack.
fn load_on_stack(
    text: &str,
    template: &Game,
    move_number: Option<usize>,
) -> Result<Record, String> {
    check_shape(text)?;
    let (text, template) = (text.to_string(), template.clone());
    std::thread::Builder::new()
        .name("sgf".into())
        .stack_size(PARSER_STACK)
        .spawn(move || load_parsed(&text, &template, move_number))
        .map_err(|e| format!("cannot start the parser: {e}"))?
        .join()
        .unwrap_or_else(|_| Err("the parser failed".into()))
}

fn load_parsed(text: &str, template: &Game, move_number: Option<usize>) -> Result<Record, String> {
    let roots = sgf_parse::go::parse(text).map_err(|e| format!("not an SGF game record: {e}"))?;
    let root = roots.into_iter().next().ok_or("no game in the file")?;
    let Start {
        mut game,
        result,
        komi_given,
        handicap,
    } = start(&root, template)?;
    let size = game.size();
    let mut moves_played = 0;
    let mut actions_after_node = Vec::new();
    for (index, node) in root.main_variation().enumerate() {
        // Dice changed during the game: DI (and DX) on the node of the
        // first action under the new dice.
        if index > 0 {
            change_dice(&mut game, node)?;
        }
        let content = NodeContent::read(&game, node)?;
        set_up(
            &mut game,
            content.setup,
            &content.erased,
            handicap.is_some(),
        )?;
        if let Some(c) = content.next_player {
            game.set_to_move(c);
        }
        let roll = match node.get_property("DR") {
            Some(Prop::Unknown(_, v)) => Some(parse_total(v.first(), &game)?),
            _ => None,
        };
        if let Some((c, mv)) = content.node_move {
            if move_number.is_some_and(|n| moves_played + 1 >= n) {
                game.set_to_move(c);
                game.set_roll(c, roll);
                break;
            }
            game.set_roll(c, roll);
            game.play_recorded(c, mv).map_err(|e| {
                format!(
                    "move {} ({} {}) is illegal: {e}",
                    moves_played + 1,
                    c.letter(),
                    crate::go::vertex::vertex_name(mv, size)
                )
            })?;
            moves_played += 1;
        }
        if let Some(Prop::Unknown(_, values)) = node.get_property("DP") {
            for v in values {
                let (c, t) = v
                    .split_once(':')
                    .ok_or_else(|| format!("DP[{v}]: expected colour:total"))?;
                let c = parse_color(c).map_err(|_| format!("DP[{v}]: bad colour"))?;
                game.set_roll(c, Some(parse_total(Some(&t.to_string()), &game)?));
            }
        }
        actions_after_node.push(game.actions().len());
    }
    if !komi_given && let Some(k) = game.rules.handicap_komi(game.handicap()) {
        game.komi = k;
    }
    Ok(Record {
        game,
        result,
        actions_after_node,
    })
}

/// What a record's root says: the empty game (size, rules, komi, dice),
/// the result, whether a komi was given, the handicap.
struct Start {
    game: Game,
    result: Option<String>,
    komi_given: bool,
    handicap: Option<i64>,
}

/// The game a record's root starts: its size, rules, komi (the ruleset's
/// where none is given) and dice; `template`'s where the root says none.
fn start(root: &SgfNode<Prop>, template: &Game) -> Result<Start, String> {
    let mut result = None;
    let mut size = BoardSize::square(19);
    let mut rules = template.rules;
    let mut komi = template.komi;
    let mut komi_given = false;
    let mut dice: Option<Dice> = None;
    for prop in root.properties() {
        match prop {
            Prop::RE(r) => result = Some(r.text.clone()),
            Prop::SZ((w, h)) => {
                size = BoardSize::new(*w as usize, *h as usize)
                    .map_err(|e| format!("SZ[{w}:{h}]: {e}"))?;
            }
            Prop::KM(k) => {
                komi = crate::go::rules::check_komi(*k).map_err(|e| format!("KM: {e}"))?;
                komi_given = true;
            }
            Prop::HA(n) if *n < 0 => return Err(format!("HA[{n}]: a negative handicap")),
            Prop::RU(r) => {
                if let Some(r) = Rules::from_sgf(&r.text) {
                    rules = r;
                }
            }
            Prop::Unknown(id, values) if id == "DI" => {
                let spec = values.first().map(String::as_str).unwrap_or("");
                dice = Some(Dice::parse(spec).map_err(|e| format!("DI: {e}"))?);
            }
            _ => {}
        }
    }
    if let (Some(d), Some(Prop::Unknown(_, values))) = (dice.as_mut(), root.get_property("DX")) {
        dice_options(d, values)?;
    }
    if !komi_given && rules != template.rules {
        komi = rules.default_komi;
    }
    let mut game = Game::new(size, rules, komi);
    game.set_dice(dice);
    let handicap = root.properties().find_map(|p| match p {
        Prop::HA(n) => Some(*n),
        _ => None,
    });
    Ok(Start {
        game,
        result,
        komi_given,
        handicap,
    })
}

/// The dice a node changes to (`DI`, with `DX`'s options; `DI[off]` none).
fn change_dice(game: &mut Game, node: &SgfNode<Prop>) -> Result<(), String> {
    let Some(Prop::Unknown(_, values)) = node.get_property("DI") else {
        return Ok(());
    };
    let spec = values.first().map(String::as_str).unwrap_or("");
    let mut changed = if spec.eq_ignore_ascii_case("off") {
        None
    } else {
        Some(Dice::parse(spec).map_err(|e| format!("DI: {e}"))?)
    };
    if let (Some(d), Some(Prop::Unknown(_, values))) = (changed.as_mut(), node.get_property("DX")) {
        dice_options(d, values)?;
    }
    game.set_dice(changed);
    Ok(())
}

/// What one node holds: setup stones, erased points, the player to move,
/// its move.
struct NodeContent {
    setup: Vec<(Color, Point)>,
    erased: Vec<Point>,
    next_player: Option<Color>,
    node_move: Option<(Color, Option<Point>)>,
}

impl NodeContent {
    fn read(game: &Game, node: &SgfNode<Prop>) -> Result<NodeContent, String> {
        let mut content = NodeContent {
            setup: Vec::new(),
            erased: Vec::new(),
            next_player: None,
            node_move: None,
        };
        for prop in node.properties() {
            match prop {
                Prop::AB(pts) | Prop::AW(pts) => {
                    let c = if matches!(prop, Prop::AB(_)) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    for p in pts {
                        let q = to_point(game, p)?.ok_or("setup stone on `tt`")?;
                        content.setup.push((c, q));
                    }
                }
                Prop::AE(pts) => {
                    for p in pts {
                        content.erased.push(to_point(game, p)?.ok_or("AE on `tt`")?);
                    }
                }
                Prop::PL(c) => content.next_player = Some(color_of(c)),
                Prop::B(m) | Prop::W(m) => {
                    let c = if matches!(prop, Prop::B(_)) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mv = match m {
                        Move::Pass => None,
                        Move::Move(p) => to_point(game, p)?,
                    };
                    // SGF allows one move a node; keeping one of two
                    // would lose a move without a word.
                    if content.node_move.is_some() {
                        return Err(format!(
                            "node {} holds two moves (B and W); SGF allows one a node",
                            game.move_count() + 1
                        ));
                    }
                    content.node_move = Some((c, mv));
                }
                Prop::Invalid(id, v)
                    if ["B", "W", "AB", "AW", "AE", "SZ", "KM", "HA"].contains(&id.as_str()) =>
                {
                    return Err(format!("invalid property {id}{v:?}"));
                }
                _ => {}
            }
        }
        Ok(content)
    }
}

/// Puts a node's setup on the game: the erased points cleared (before the
/// first move only), the stones placed; the first black stones on an
/// empty board, two at least, are the handicap where the record names one.
fn set_up(
    game: &mut Game,
    mut setup: Vec<(Color, Point)>,
    erased: &[Point],
    handicap_named: bool,
) -> Result<(), String> {
    if !erased.is_empty() {
        if game.move_count() > 0 {
            return Err("AE after the first move is not supported".into());
        }
        let mut stones: Vec<(Color, Point)> = game
            .board()
            .points()
            .filter(|p| !erased.contains(p))
            .filter_map(|p| game.board().color_at(p).map(|c| (c, p)))
            .collect();
        stones.append(&mut setup);
        let mut fresh = game.cleared();
        fresh
            .setup(&stones, false)
            .map_err(|e| format!("setup stones: {e}"))?;
        *game = fresh;
    }
    if !setup.is_empty() {
        // The handicap: the first black stones on an empty board, two at
        // least (passes may come before them, as GTP allows).
        let is_handicap = game.board().stone_count() == 0
            && game.handicap() == 0
            && handicap_named
            && setup.len() >= 2
            && setup.iter().all(|(c, _)| *c == Color::Black);
        game.setup(&setup, is_handicap)
            .map_err(|e| format!("setup stones: {e}"))?;
        if !is_handicap && setup.iter().all(|(c, _)| *c == Color::Black) && game.move_count() == 0 {
            game.set_to_move(Color::White);
        }
    }
    Ok(())
}

/// The record `text` again, every property, comment and variation kept,
/// with `notes[k]` added to the `k`-th node of its main line (the root
/// first): each note's properties replace those of the same name, and its
/// comment follows the node's own after a blank line.
pub fn annotate_record(text: &str, notes: &[Note]) -> Result<String, String> {
    check_shape(text)?;
    let (text, notes) = (text.to_string(), notes.to_vec());
    std::thread::Builder::new()
        .name("sgf".into())
        .stack_size(PARSER_STACK)
        .spawn(move || annotate_parsed(&text, &notes))
        .map_err(|e| format!("cannot start the parser: {e}"))?
        .join()
        .unwrap_or_else(|_| Err("the parser failed".into()))
}

fn annotate_parsed(text: &str, notes: &[Note]) -> Result<String, String> {
    let mut roots = sgf_parse::parse(text).map_err(|e| format!("not an SGF game record: {e}"))?;
    let Some(sgf_parse::GameTree::GoGame(root)) = roots.first_mut() else {
        return Err("no game of Go in the file".into());
    };
    // The text was decoded from the record's own encoding: it is written
    // as UTF-8, and says so.
    root.properties.retain(|p| p.identifier() != "CA");
    root.properties.push(Prop::CA(self::text("UTF-8")));
    // A square board's size as the record wrote it, SZ[19] (the crate
    // writes SZ[19:19], which older readers refuse).
    for p in root.properties.iter_mut() {
        if let Prop::SZ((w, h)) = p
            && w == h
        {
            *p = Prop::Unknown("SZ".into(), vec![w.to_string()]);
        }
    }
    let mut node = Some(root);
    for note in notes {
        let Some(n) = node else { break };
        for (id, value) in &note.properties {
            n.properties.retain(|p| p.identifier() != *id);
            n.properties
                .push(Prop::Unknown(id.clone(), vec![value.clone()]));
        }
        if !note.comment.is_empty() {
            let own = n.properties.iter_mut().find_map(|p| match p {
                Prop::C(t) => Some(t),
                _ => None,
            });
            match own {
                Some(t) => t.text = format!("{}\n\n{}", t.text, note.comment),
                None => n.properties.push(Prop::C(sgf_parse::Text {
                    text: note.comment.clone(),
                })),
            }
        }
        node = n.children.first_mut();
    }
    Ok(sgf_parse::serialize(&roots) + "\n")
}

/// Sets the dice options of `DX[name:value]...`.
fn dice_options(d: &mut Dice, values: &[String]) -> Result<(), String> {
    for v in values {
        let (name, value) = v
            .split_once(':')
            .ok_or_else(|| format!("DX[{v}]: expected name:value"))?;
        d.set_option(name, value).map_err(|e| format!("DX: {e}"))?;
    }
    Ok(())
}

/// `DI[spec]` and `DX[options]` for these dice (`DI[off]` for none).
fn dice_props(dice: Option<Dice>) -> Vec<Prop> {
    match dice {
        None => vec![Prop::Unknown("DI".into(), vec!["off".into()])],
        Some(d) => {
            let options = d
                .options()
                .iter()
                .map(|(n, v)| format!("{n}:{v}"))
                .collect();
            vec![
                Prop::Unknown("DI".into(), vec![d.spec()]),
                Prop::Unknown("DX".into(), options),
            ]
        }
    }
}

/// A roll total read from SGF, checked against the game's dice.
fn parse_total(v: Option<&String>, game: &Game) -> Result<u32, String> {
    let dice = game.dice().ok_or("a roll without DI dice")?;
    let t: u32 = v
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad roll {v:?}"))?;
    let (lo, hi) = dice.range();
    if !(lo..=hi).contains(&t) {
        return Err(format!("roll {t} out of range {lo}..{hi}"));
    }
    Ok(t)
}

fn text(s: &str) -> SimpleText {
    SimpleText {
        text: s.to_string(),
    }
}

/// What a record says at one node besides its move: a comment, and
/// properties of the writer's own (Sabaki's `SBKV` win rate and `SBKS`
/// score, say), each with one value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Note {
    pub comment: String,
    pub properties: Vec<(String, String)>,
}

impl Note {
    /// A note that is a comment alone.
    pub fn comment(text: impl Into<String>) -> Note {
        Note {
            comment: text.into(),
            properties: Vec::new(),
        }
    }

    /// The note as SGF properties (none for an empty note).
    fn props(&self) -> Vec<Prop> {
        let mut props: Vec<Prop> = self
            .properties
            .iter()
            .map(|(id, value)| Prop::Unknown(id.clone(), vec![value.clone()]))
            .collect();
        if !self.comment.is_empty() {
            props.push(Prop::C(sgf_parse::Text {
                text: self.comment.clone(),
            }));
        }
        props
    }
}

/// The game as an SGF record; `result` goes into RE.
pub fn write(game: &Game, result: Option<&str>) -> String {
    write_annotated(game, result, &Note::default(), &[])
}

/// The game as an SGF record with notes: `root_note` on the root and
/// `notes[i]` on the node of action `i`.
pub fn write_annotated(
    game: &Game,
    result: Option<&str>,
    root_note: &Note,
    notes: &[Note],
) -> String {
    let mut root = root_props(game, result);
    // The dice at the start in the root; where they changed, on the node
    // of the first action under the new dice (and on a last, empty node if
    // they changed after the last action).
    let start_dice = game.action_dice().first().copied().unwrap_or(game.dice());
    if start_dice.is_some() {
        root.extend(dice_props(start_dice));
    }
    let mut dice_before = start_dice;
    // Nodes after the root, each a list of properties.
    let mut nodes: Vec<Vec<Prop>> = Vec::new();
    for (index, (action, &dice)) in game.actions().iter().zip(game.action_dice()).enumerate() {
        let mut props = action_props(game, action);
        if dice != dice_before {
            props.extend(dice_props(dice));
            dice_before = dice;
        }
        // The first setup, before any move, belongs in the root (one AB and
        // one AW there at most; later setups get nodes of their own).
        let root_has_setup = root
            .iter()
            .any(|p| matches!(p, Prop::Unknown(id, _) if id == "AB" || id == "AW"));
        if nodes.is_empty() && matches!(action, Action::Setup(_)) && !root_has_setup {
            root.extend(props);
        } else {
            nodes.push(props);
        }
        if let Some(note) = notes.get(index) {
            match nodes.last_mut() {
                Some(last) => last.extend(note.props()),
                None => root.extend(note.props()),
            }
        }
    }
    close(game, dice_before, &mut root, &mut nodes);
    root.extend(root_note.props());
    let mut tail: Vec<SgfNode<Prop>> = Vec::new();
    for props in nodes.into_iter().rev() {
        tail = vec![SgfNode::new(props, tail, false)];
    }
    let root = SgfNode::new(root, tail, true);
    let mut out = root.serialize();
    out.push('\n');
    out
}

/// The root's properties: the format, the board, komi, rules, handicap
/// and result.
fn root_props(game: &Game, result: Option<&str>) -> Vec<Prop> {
    let size = game.size();
    // SZ[19] for a square board rather than the crate's SZ[19:19], for
    // older readers; SZ[13:9] (columns, rows) for another.
    let size_text = if size.is_square() {
        size.width.to_string()
    } else {
        format!("{}:{}", size.width, size.height)
    };
    let mut root = vec![
        Prop::FF(4),
        Prop::GM(1),
        Prop::CA(text("UTF-8")),
        Prop::AP((text("kosumi"), text(env!("CARGO_PKG_VERSION")))),
        Prop::Unknown("SZ".into(), vec![size_text]),
        Prop::KM(game.komi),
        Prop::RU(text(game.rules.name)),
    ];
    if game.handicap() >= 2 {
        root.push(Prop::HA(game.handicap() as i64));
    }
    if let Some(r) = result {
        root.push(Prop::RE(text(r)));
    }
    root
}

/// An action's properties: a move (and its roll), or setup stones in the
/// order they were placed.
fn action_props(game: &Game, action: &Action) -> Vec<Prop> {
    match action {
        Action::Setup(stones) => {
            // In the order they were placed (the crate's AB/AW hold
            // sets, written in no fixed order): the same game always
            // gives the same record.
            let pick = |c: Color| -> Vec<String> {
                let mut seen = HashSet::new();
                stones
                    .iter()
                    .filter(|(sc, _)| *sc == c)
                    .map(|&(_, p)| from_point(game, p))
                    .filter(|p| seen.insert(*p))
                    .map(|p| format!("{}{}", (b'a' + p.x) as char, (b'a' + p.y) as char))
                    .collect()
            };
            let (b, w) = (pick(Color::Black), pick(Color::White));
            let mut props = Vec::new();
            if !b.is_empty() {
                props.push(Prop::Unknown("AB".into(), b));
            }
            if !w.is_empty() {
                props.push(Prop::Unknown("AW".into(), w));
            }
            props
        }
        Action::Move(c, mv, roll) => {
            let m = match mv {
                None => Move::Pass,
                Some(p) => Move::Move(from_point(game, *p)),
            };
            let mut props = vec![match c {
                Color::Black => Prop::B(m),
                Color::White => Prop::W(m),
            }];
            if let Some(t) = roll {
                props.push(Prop::Unknown("DR".into(), vec![t.to_string()]));
            }
            props
        }
    }
}

/// What the record needs after its last action so that a reload goes on
/// as the game does: the dice changed last, the side to move, White's
/// extra pass, rolls waiting for a move.
fn close(game: &Game, dice_before: Option<Dice>, root: &mut Vec<Prop>, nodes: &mut Vec<Vec<Prop>>) {
    if game.dice() != dice_before {
        nodes.push(dice_props(game.dice()));
    }
    // The side to move, where replaying the record would not give it (a
    // controller's gogui-setup_player, or setup stones last): PL on a last
    // node without a move (the loader applies PL before a node's move).
    let implied = match game.actions().last() {
        Some(Action::Move(c, _, _)) => Some(c.opponent()),
        _ => None,
    };
    if implied != Some(game.to_move()) {
        let pl = Prop::PL(match game.to_move() {
            Color::Black => sgf_parse::Color::Black,
            Color::White => sgf_parse::Color::White,
        });
        let ends_with_move = matches!(game.actions().last(), Some(Action::Move(..)))
            && nodes
                .last()
                .is_some_and(|n| n.iter().any(|p| matches!(p, Prop::B(_) | Prop::W(_))));
        match nodes.last_mut() {
            Some(last) if !ends_with_move => last.push(pl),
            Some(_) => nodes.push(vec![pl]),
            None => root.push(pl),
        }
    }
    // White's extra pass is no move of the record (a reloaded game gives
    // it again): the last node says it was handed over, with the totals.
    if game.white_extra_pass()
        && let Some(last) = nodes.last_mut()
    {
        last.push(Prop::C(sgf_parse::Text {
            text: format!(
                "White's extra pass: one more pass stone to Black. Pass stones handed over: Black {}, White {}.",
                game.pass_stones(Color::Black),
                game.pass_stones(Color::White)
            ),
        }));
    }
    // Rolls waiting for a move, so a reloaded game continues with them.
    let pending: Vec<String> = [Color::Black, Color::White]
        .iter()
        .filter_map(|&c| game.pending_roll(c).map(|t| format!("{}:{t}", c.letter())))
        .collect();
    if !pending.is_empty() {
        let prop = Prop::Unknown("DP".into(), pending);
        match nodes.last_mut() {
            Some(last) => last.push(prop),
            None => root.push(prop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::vertex::parse_vertex;

    #[test]
    fn write_then_load_gives_the_same_game() {
        let mut g = Game::new(9, Rules::preset("japanese").unwrap(), 6.5);
        let stones: Vec<(Color, Point)> = ["C3", "G7"]
            .iter()
            .map(|v| (Color::Black, parse_vertex(v, 9).unwrap().unwrap()))
            .collect();
        g.setup(&stones, true).unwrap();
        for (c, v) in [
            (Color::White, "E5"),
            (Color::Black, "pass"),
            (Color::White, "D4"),
        ] {
            g.play(c, parse_vertex(v, 9).unwrap()).unwrap();
        }
        let text = write(&g, None);
        assert!(text.contains("SZ[9]") && text.contains("HA[2]") && text.contains("RU[japanese]"));
        let back = load(&text, &Game::new(19, Rules::default(), 7.5), None).unwrap();
        assert_eq!(back.board().to_ascii(), g.board().to_ascii());
        assert_eq!(back.komi, 6.5);
        assert_eq!(back.rules.name, "japanese");
        assert_eq!(back.handicap(), 2);
        assert_eq!(back.to_move(), Color::Black);
        let early = load(&text, &back, Some(2)).unwrap();
        assert_eq!(early.board().stone_count(), 3);
        assert_eq!(early.to_move(), Color::Black);
    }

    #[test]
    fn a_node_with_two_moves_is_refused_naming_it() {
        let g = Game::new(9, Rules::default(), 7.5);
        let Err(err) = load_record("(;SZ[9];B[ee];B[gg]W[cc])", &g) else {
            panic!("two moves in a node read");
        };
        assert!(err.contains("node 2 holds two moves"), "{err}");
        assert!(load("(;SZ[9];W[cc]B[ee])", &g, None).is_err());
        assert!(load_record("(;SZ[9];B[ee];W[cc])", &g).is_ok());
    }

    /// A record is history: a move repeating a position its ko rule
    /// forbids, or a suicide its rules forbid, loads as it was played (as
    /// KataGo loads a record), though the same move played live is
    /// refused; an occupied point is not (`nonsense_is_refused`).
    #[test]
    fn a_records_repeats_and_suicides_load_as_played() {
        let g = Game::new(9, Rules::default(), 7.5);
        // B2 taken by White's three stones and retaken: the position after
        // the first move again, a repeat under New Zealand's superko.
        let repeat = "(;SZ[2]KM[7]RU[new-zealand];B[ba];W[bb];W[aa];W[ab];B[ba])";
        let back = load(repeat, &g, None).unwrap();
        assert_eq!(back.board().stone_count(), 1);
        let mut live = load(repeat, &g, Some(5)).unwrap();
        let b2 = back.board().point(1, 1);
        assert_eq!(live.board().stone_count(), 3);
        assert!(live.play(Color::Black, Some(b2)).is_err());
        // White's lone stone in Black's eye, a suicide the Japanese rules
        // forbid: it is taken off.
        let suicide = "(;SZ[3]RU[japanese];B[ab];B[ba];B[bc];B[cb];W[bb])";
        let back = load(suicide, &g, None).unwrap();
        assert_eq!(back.board().stone_count(), 4);
        let mut live = load(suicide, &g, Some(5)).unwrap();
        assert!(
            live.play(Color::White, Some(back.board().point(1, 1)))
                .is_err()
        );
    }

    #[test]
    fn nonsense_is_refused() {
        let g = Game::new(9, Rules::default(), 7.5);
        assert!(load("(;SZ[9];B[ee", &g, None).is_err());
        assert!(load("hello", &g, None).is_err());
        assert!(load("(;SZ[9];B[ee];W[ee])", &g, None).is_err());
        assert!(load("(;SZ[99])", &g, None).is_err());
        for bad in [
            "(;SZ[9]KM[nan])",
            "(;SZ[9]KM[inf])",
            "(;SZ[9]KM[-inf])",
            "(;SZ[9]HA[-1])",
            "(;SZ[9]KM[x])",
            "(;SZ[9]KM[1001])",
        ] {
            let err = load(bad, &g, None).err().unwrap_or_default();
            assert!(err.contains("KM") || err.contains("HA"), "{bad}: {err}");
        }
    }

    #[test]
    fn dice_changed_during_the_game_load_back() {
        let template = Game::new(9, Rules::default(), 7.5);
        for later in [Some("3d4"), None] {
            let mut g = template.clone();
            g.set_dice(Some(Dice::parse("1d3").unwrap()));
            g.set_roll(Color::Black, Some(1));
            g.play(Color::Black, parse_vertex("A1", 9).unwrap())
                .unwrap();
            g.set_dice(later.map(|d| Dice::parse(d).unwrap()));
            g.play(Color::White, parse_vertex("E5", 9).unwrap())
                .unwrap();
            let text = write(&g, None);
            let back = load(&text, &template, None).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(back.dice(), g.dice(), "{text}");
            assert_eq!(back.action_dice(), g.action_dice(), "{text}");
            assert_eq!(back.board().to_ascii(), g.board().to_ascii());
            // A change after the last move comes back too.
            g.set_dice(Some(Dice::parse("1d6").unwrap()));
            let text = write(&g, None);
            assert_eq!(
                load(&text, &template, None).unwrap().dice(),
                g.dice(),
                "{text}"
            );
        }
    }

    #[test]
    fn one_black_stone_is_no_handicap_and_the_record_loads_back() {
        // Found by the fuzzer: HA[2] with a single AB made a handicap of 1,
        // which printsgf cannot write (HA[1] is no SGF handicap).
        let g = Game::new(9, Rules::default(), 7.5);
        let game = load("(;SZ[9]HA[2]AB[gc];W[ee])", &g, None).unwrap();
        assert_eq!(game.handicap(), 0);
        crate::tools::fuzzing::check_record_round_trip(&game).unwrap();
    }

    #[test]
    fn a_record_without_size_is_19x19() {
        let g = Game::new(9, Rules::default(), 7.5);
        let back = load("(;KM[6.5];B[ss])", &g, None).unwrap();
        assert_eq!(back.size(), 19.into());
        assert_eq!(back.komi, 6.5);
    }

    #[test]
    fn deep_records_load_or_are_refused_without_overflowing_the_stack() {
        let g = Game::new(9, Rules::default(), 7.5);
        let deep = format!("(;SZ[9]{})", ";".repeat(MAX_NODES - 1));
        assert!(load(&deep, &g, None).is_ok());
        let deeper = format!("(;SZ[9]{})", ";".repeat(150_000));
        assert!(
            load(&deeper, &g, None)
                .err()
                .unwrap_or_default()
                .contains("nodes")
        );
        let nested = format!(
            "(;SZ[9]{}{})",
            "(;".repeat(MAX_NESTING - 1),
            ")".repeat(MAX_NESTING - 1)
        );
        assert!(load(&nested, &g, None).is_ok());
        let too_nested = format!("(;SZ[9]{}{})", "(;".repeat(5000), ")".repeat(5000));
        assert!(
            load(&too_nested, &g, None)
                .err()
                .unwrap_or_default()
                .contains("nested")
        );
        // Brackets and semicolons inside values are not structure.
        let comment = format!("(;SZ[9]C[{}\\]{}])", "(;".repeat(200_000), ";");
        assert!(load(&comment, &g, None).is_ok());
    }

    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        for path in ["/dev/zero", "/dev/urandom", "/tmp", "/no/such/file"] {
            assert!(read_file(path).is_err(), "{path}");
        }
    }

    /// Records as Asian servers and older European programs write them,
    /// each in its own encoding, named by `CA[]`.
    const ENCODED: &[(&str, &str)] = &[
        (
            "GB2312",
            "PB[柯洁]PW[朴廷桓]EV[第22届三星杯决赛]C[黑中盘胜。这是一盘精彩的对局]",
        ),
        ("Big5", "PB[柯潔]PW[朴廷桓]EV[三星杯決賽]C[黑中盤勝]"),
        (
            "Shift_JIS",
            "PB[井山裕太]PW[一力遼]EV[第48期棋聖戦]C[黒の中押し勝ち。表ソフト能]",
        ),
        ("EUC-KR", "PB[신진서]PW[박정환]EV[한국바둑리그]C[흑 불계승]"),
        (
            "ISO-8859-1",
            "PB[Jörg Müller]PW[François Lévêque]C[Très belle partie]",
        ),
    ];

    fn record(label: &str, props: &str) -> String {
        format!("(;GM[1]FF[4]CA[{label}]SZ[9]KM[7.5]{props};B[ee];W[cc]C[ok])")
    }

    #[test]
    fn a_record_is_read_in_the_encoding_its_ca_names_and_written_as_utf8() {
        let g = Game::new(19, Rules::default(), 7.5);
        for &(label, props) in ENCODED {
            let text = record(label, props);
            let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
            let (bytes, _, unmappable) = encoding.encode(&text);
            assert!(!unmappable, "{label}");
            assert_ne!(&bytes[..], text.as_bytes(), "{label}: not re-encoded");
            let decoded = decode(&bytes).unwrap().text;
            assert_eq!(decoded, text, "{label}");
            // Loaded, and written back as UTF-8 saying so, every name kept.
            let loaded = load_record(&decoded, &g).unwrap();
            assert_eq!(loaded.game.actions().len(), 2);
            let written = annotate_record(&decoded, &[]).unwrap();
            assert!(written.contains("CA[UTF-8]"), "{written}");
            assert_eq!(written.matches("CA[").count(), 1, "{written}");
            for name in props.split(['[', ']']).skip(1).step_by(2) {
                assert!(written.contains(name), "{label}: {name} lost in {written}");
            }
            assert!(!written.contains('\u{fffd}'), "{written}");
        }
    }
}
