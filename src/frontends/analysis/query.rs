//! One line of input to the analysis engine read into what it asks for: a
//! special action, or positions to analyse (one per requested turn, each
//! made from the query's game when it is searched), each field checked as
//! KataGo checks it, with the field named in the error.

use crate::frontends::katago_rules;
use crate::go::board::{BoardSize, Color, Point, point_at};
use crate::go::game::Game;
use crate::go::handicap;
use crate::go::rules::{Rules, check_komi};
use crate::go::vertex::{parse_color, parse_vertex};
use crate::nn::HumanProfile;
use crate::search::MoveRules;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A query kosumi cannot take: the message, the field at fault and the
/// query's id where known.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryError {
    pub message: String,
    pub field: Option<&'static str>,
    pub id: Option<String>,
}

impl QueryError {
    fn general(message: impl Into<String>) -> QueryError {
        QueryError {
            message: message.into(),
            field: None,
            id: None,
        }
    }
}

/// A query's field that was accepted but is not acted on, or is acted on
/// only in part.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub field: String,
    pub message: String,
}

/// Whose side the values are given from (KataGo's
/// `reportAnalysisWinratesAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Perspective {
    Black,
    White,
    #[value(name = "sidetomove")]
    SideToMove,
}

impl Perspective {
    /// +1 where values are Black's, −1 where White's, for a position with
    /// `to_move` to play.
    pub fn sign_for_black(self, to_move: Color) -> f64 {
        match (self, to_move) {
            (Perspective::Black, _) | (Perspective::SideToMove, Color::Black) => 1.0,
            _ => -1.0,
        }
    }
}

/// Actions other than analysis; each is answered by echoing the query.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    QueryVersion,
    ClearCache,
    QueryModels,
    /// `terminate` (with the id it names) or `terminate_all` (`None`),
    /// perhaps only for some turns.
    Terminate {
        target: Option<String>,
        turns: Option<Vec<usize>>,
    },
}

/// What an analysis query asks for besides its positions.
#[derive(Clone, Debug)]
pub struct Asked {
    pub id: String,
    pub max_visits: u64,
    pub max_time: Option<Duration>,
    pub report_every: Option<Duration>,
    pub ownership: bool,
    pub ownership_stdev: bool,
    pub moves_ownership: bool,
    pub moves_ownership_stdev: bool,
    pub policy: bool,
    pub pv_visits: bool,
    pub no_result: bool,
    /// The longest line after each move.
    pub pv_len: usize,
    pub perspective: Perspective,
    pub restrict: Option<MoveRules>,
    pub advantage: Advantage,
    /// How much wider than its values say the root is searched (KataGo's
    /// `wideRootNoise`).
    pub wide_root_noise: f64,
    /// The human-like profile the query asks for (`humanSLProfile`): the
    /// human-like net beside the network reports its policy under it.
    pub human_profile: Option<HumanProfile>,
}

/// KataGo's playout doubling advantage a query asks for
/// (`playoutDoublingAdvantage`, `playoutDoublingAdvantagePla` in
/// `overrideSettings`): the doublings of playouts `player` is assumed to
/// have over its opponent, the player to move of each position where none
/// is named. KaTrain's handicap AI asks for it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Advantage {
    pub doublings: f64,
    pub player: Option<Color>,
}

impl Advantage {
    /// The doublings White is assumed to have over Black in a position
    /// with `to_move` to play.
    pub fn for_white(&self, to_move: Color) -> f64 {
        self.player.unwrap_or(to_move).from_white() * self.doublings
    }
}

/// One position of a query: its turn number, its game, its priority.
#[derive(Clone)]
pub struct Position {
    pub turn: usize,
    /// The query's game, shared by its positions: each is made from it
    /// when it is searched, so that what waits in the queue is small.
    pub record: Arc<QueryGame>,
    pub priority: i64,
}

impl Position {
    /// The game at this position's turn.
    pub fn game(&self) -> Game {
        self.record.at(self.turn)
    }
}

/// A query's game: the board after the initial stones, and the moves.
pub struct QueryGame {
    start: Game,
    moves: Vec<(Color, Option<Point>)>,
}

impl QueryGame {
    /// The game after the first `turn` moves (already checked legal).
    pub fn at(&self, turn: usize) -> Game {
        let mut game = self.start.clone();
        for &(c, mv) in &self.moves[..turn.min(self.moves.len())] {
            let _ = game.play(c, mv);
        }
        game
    }
}

/// A line read.
#[derive(Clone)]
pub enum Parsed {
    Action {
        echo: Map<String, Value>,
        action: Action,
    },
    Analyse {
        asked: Arc<Asked>,
        positions: Vec<Position>,
        warnings: Vec<Warning>,
    },
}

/// The engine's defaults for what a query leaves out.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub max_visits: u64,
    pub max_time: Option<Duration>,
    pub perspective: Perspective,
}

/// The most moves a query's game may have, and the most turns one query
/// may ask for (each turn is a game kept until searched).
const MAX_MOVES: usize = 10_000;
const MAX_TURNS: usize = 1_000;

/// The fields a query may hold, as KataGo's analysis engine reads them
/// (those kosumi takes, and those it answers "not supported" to).
const QUERY_FIELDS: &[&str] = &[
    "id",
    "action",
    "terminateId",
    "turnNumbers",
    "firstReportDuringSearchAfter",
    "moves",
    "initialStones",
    "initialPlayer",
    "rules",
    "komi",
    "boardXSize",
    "boardYSize",
    "analyzeTurns",
    "maxVisits",
    "analysisPVLen",
    "includeOwnership",
    "includeOwnershipStdev",
    "includeMovesOwnership",
    "includeMovesOwnershipStdev",
    "includePolicy",
    "includePVVisits",
    "includeNoResultValue",
    "avoidMoves",
    "allowMoves",
    "reportDuringSearchEvery",
    "priority",
    "priorities",
    "overrideSettings",
    "rootPolicyTemperature",
    "rootFpuReductionMax",
    "whiteHandicapBonus",
];

/// KataGo's analysis engine's root noise by default (`wideRootNoise`).
pub const DEFAULT_WIDE_ROOT_NOISE: f64 = 0.04;

/// KataGo's longest principal variation by default (`analysisPVLen`).
const DEFAULT_PV_LEN: usize = 15;

/// Reads one line.
pub fn parse(line: &str, defaults: &Defaults) -> Result<Parsed, QueryError> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| QueryError::general(format!("Could not parse json: {e}")))?;
    let Value::Object(object) = value else {
        return Err(QueryError::general("Query must be a JSON object"));
    };
    let id = match object.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => return Err(QueryError::general("Field 'id' must be a string")),
        None => return Err(QueryError::general("Request must have a string 'id' field")),
    };
    let fields = Fields {
        object: &object,
        id: &id,
    };
    if let Some(action) = object.get("action") {
        let action = match action.as_str() {
            Some("query_version") => Action::QueryVersion,
            Some("clear_cache") => Action::ClearCache,
            Some("query_models") => Action::QueryModels,
            Some("terminate") => Action::Terminate {
                target: Some(fields.string("terminateId")?.ok_or_else(|| {
                    fields.error("terminateId", "terminate needs a 'terminateId'")
                })?),
                turns: fields.turns("turnNumbers")?,
            },
            Some("terminate_all") => Action::Terminate {
                target: None,
                turns: fields.turns("turnNumbers")?,
            },
            _ => return Err(fields.error("action", "unknown action")),
        };
        return Ok(Parsed::Action {
            echo: object.clone(),
            action,
        });
    }
    fields.analysis(defaults)
}

/// The fields of one query, read with errors that name them.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    id: &'a str,
}

impl Fields<'_> {
    fn error(&self, field: &'static str, message: impl Into<String>) -> QueryError {
        QueryError {
            message: message.into(),
            field: Some(field),
            id: Some(self.id.to_string()),
        }
    }

    fn string(&self, field: &'static str) -> Result<Option<String>, QueryError> {
        match self.object.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.error(field, "must be a string")),
        }
    }

    fn flag(&self, field: &'static str) -> Result<bool, QueryError> {
        match self.object.get(field) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.error(field, "must be a boolean")),
        }
    }

    fn integer(&self, field: &'static str, lo: i64, hi: i64) -> Result<Option<i64>, QueryError> {
        match self.object.get(field) {
            None => Ok(None),
            Some(v) => integer_in(v, lo, hi)
                .map(Some)
                .ok_or_else(|| self.error(field, format!("must be an integer from {lo} to {hi}"))),
        }
    }

    fn seconds(&self, field: &'static str) -> Result<Option<Duration>, QueryError> {
        seconds_in(self.object.get(field)).map_err(|m| self.error(field, m))
    }

    fn turns(&self, field: &'static str) -> Result<Option<Vec<usize>>, QueryError> {
        match self.object.get(field) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| integer_in(v, 0, 100_000).map(|n| n as usize))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| self.error(field, "must be a list of turn numbers")),
            Some(_) => Err(self.error(field, "must be a list of turn numbers")),
        }
    }

    /// A list of `[player, location]` pairs.
    fn stones(
        &self,
        field: &'static str,
        size: BoardSize,
    ) -> Result<Vec<(Color, Option<Point>)>, QueryError> {
        let Some(value) = self.object.get(field) else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(self.error(field, "must be a list of [player, location] pairs"));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let pair = item.as_array().filter(|a| a.len() == 2);
                let (Some(player), Some(location)) = (
                    pair.and_then(|a| a[0].as_str()),
                    pair.and_then(|a| a[1].as_str()),
                ) else {
                    return Err(self.error(field, format!("entry {i} is not [player, location]")));
                };
                let color = player_color(player).ok_or_else(|| {
                    self.error(field, format!("entry {i}: bad player '{player}'"))
                })?;
                let point = location_point(location, size)
                    .map_err(|m| self.error(field, format!("entry {i}: {m}")))?;
                Ok((color, point))
            })
            .collect()
    }

    /// `avoidMoves` and `allowMoves`: lists of `{player, moves, untilDepth}`.
    fn move_rules(&self, size: BoardSize) -> Result<Option<MoveRules>, QueryError> {
        let mut rules = MoveRules::default();
        let mut any = false;
        for field in ["avoidMoves", "allowMoves"] {
            let Some(value) = self.object.get(field) else {
                continue;
            };
            let Value::Array(entries) = value else {
                return Err(self.error(field, "must be a list of {player, moves, untilDepth}"));
            };
            for entry in entries {
                let player = entry
                    .get("player")
                    .and_then(Value::as_str)
                    .and_then(player_color)
                    .ok_or_else(|| self.error(field, "each entry needs a player B or W"))?;
                let depth = entry
                    .get("untilDepth")
                    .and_then(|v| integer_in(v, 1, 1_000_000))
                    .ok_or_else(|| self.error(field, "each entry needs a positive untilDepth"))?;
                let moves = entry
                    .get("moves")
                    .and_then(Value::as_array)
                    .ok_or_else(|| self.error(field, "each entry needs a list of moves"))?;
                let mut points = Vec::new();
                for m in moves {
                    let text = m
                        .as_str()
                        .ok_or_else(|| self.error(field, "moves must be strings"))?;
                    points.push(location_point(text, size).map_err(|e| self.error(field, e))?);
                }
                let rule = (player, points, depth as usize);
                if field == "avoidMoves" {
                    rules.avoid.push(rule);
                } else if rules.allow.is_some() {
                    return Err(self.error(field, "kosumi takes one allowMoves entry"));
                } else {
                    rules.allow = Some(rule);
                }
                any = true;
            }
        }
        Ok(any.then_some(rules))
    }

    /// How the query's positions are searched: the engine's defaults, then
    /// `overrideSettings` read by [`OVERRIDES`] (a setting kosumi lacks is a
    /// warning), then the query's own `maxVisits`.
    fn searching(
        &self,
        defaults: &Defaults,
        warnings: &mut Vec<Warning>,
    ) -> Result<Searching, QueryError> {
        let mut searching = Searching {
            max_visits: defaults.max_visits,
            max_time: defaults.max_time,
            perspective: defaults.perspective,
            advantage: Advantage::default(),
            wide_root_noise: DEFAULT_WIDE_ROOT_NOISE,
            human_profile: None,
        };
        let empty = Map::new();
        let overrides = match self.object.get("overrideSettings") {
            None => &empty,
            Some(Value::Object(o)) => o,
            Some(_) => return Err(self.error("overrideSettings", "must be an object")),
        };
        for (key, value) in overrides {
            // kosumi's network always reads the moves before the root, as
            // KataGo's does with this false (KaTrain's human strategy asks
            // so): nothing to warn of.
            if key == "ignorePreRootHistory" && value == &Value::Bool(false) {
                continue;
            }
            match OVERRIDES.iter().find(|o| o.name == key) {
                Some(o) => (o.read)(value, &mut searching)
                    .map_err(|m| self.error("overrideSettings", format!("{key}: {m}")))?,
                None => warnings.push(Warning {
                    field: "overrideSettings".into(),
                    message: format!("{key} is not a kosumi search setting; ignored"),
                }),
            }
        }
        // The query's own maxVisits last: it wins over overrideSettings', as
        // in KataGo.
        if let Some(v) = self.integer("maxVisits", 1, 1 << 40)? {
            searching.max_visits = v as u64;
        }
        Ok(searching)
    }

    /// The board's size, the rules and the komi.
    fn board(&self) -> Result<(BoardSize, Rules, f64), QueryError> {
        let x = self.integer("boardXSize", 2, 25)?;
        let y = self.integer("boardYSize", 2, 25)?;
        let (Some(x), Some(y)) = (x, y) else {
            let field = if x.is_none() {
                "boardXSize"
            } else {
                "boardYSize"
            };
            return Err(self.error(field, "required"));
        };
        let size =
            BoardSize::new(x as usize, y as usize).map_err(|e| self.error("boardYSize", e))?;
        let rules = match self.object.get("rules") {
            Some(value) => katago_rules::from_json(value).map_err(|e| self.error("rules", e.0))?,
            None => return Err(self.error("rules", "required")),
        };
        let komi = match self.object.get("komi") {
            None => rules.default_komi,
            Some(v) => v
                .as_f64()
                .ok_or_else(|| "must be a number".to_string())
                .and_then(|k| {
                    if !(-400.0..=400.0).contains(&k) {
                        Err("must be from -400 to 400".into())
                    } else if (k * 2.0).fract() != 0.0 {
                        // KataGo's analysis engine refuses these too.
                        Err(format!("{k} is not a multiple of 0.5"))
                    } else {
                        check_komi(k)
                    }
                })
                .map_err(|m| self.error("komi", m))?,
        };
        Ok((size, rules, komi))
    }

    /// The positions asked for: `game` set up with the initial stones,
    /// then played through `moves`, kept at each of `turns`.
    fn positions(
        &self,
        mut game: Game,
        initial: &[(Color, Option<Point>)],
        initial_player: Option<Color>,
        moves: &[(Color, Option<Point>)],
        turns: &[usize],
        priority_of: impl Fn(usize) -> i64,
    ) -> Result<Vec<Position>, QueryError> {
        let size = game.size();
        let stones: Vec<_> = initial
            .iter()
            .map(|&(c, p)| {
                p.map(|p| (c, p))
                    .ok_or_else(|| self.error("initialStones", "a stone cannot be a pass"))
            })
            .collect::<Result<_, _>>()?;
        if !stones.is_empty() {
            game.setup(&stones, handicap::stones_are_handicap(&stones))
                .map_err(|e| self.error("initialStones", e.to_string()))?;
        }
        let first = initial_player.or(moves.first().map(|m| m.0));
        if let Some(c) = first {
            game.set_to_move(c);
        }
        let record = Arc::new(QueryGame {
            start: game.clone(),
            moves: moves.to_vec(),
        });
        // Every move checked now, on one game: a query with an illegal move
        // is refused whole.
        for (turn, &(c, mv)) in moves.iter().enumerate() {
            game.play(c, mv).map_err(|e| {
                self.error(
                    "moves",
                    format!("Illegal move {turn}: {}: {e}", stone_name(c, mv, size)),
                )
            })?;
        }
        // One position a turn, as KataGo answers: a turn asked twice is
        // searched once, at the first asking's priority.
        let mut positions: Vec<Position> = Vec::new();
        for (k, &turn) in turns.iter().enumerate() {
            if positions.iter().all(|p| p.turn != turn) {
                positions.push(Position {
                    turn,
                    record: record.clone(),
                    priority: priority_of(k),
                });
            }
        }
        positions.sort_by_key(|p| p.turn);
        Ok(positions)
    }

    fn analysis(&self, defaults: &Defaults) -> Result<Parsed, QueryError> {
        let mut warnings = Vec::new();
        let (size, rules, komi) = self.board()?;
        let initial = self.stones("initialStones", size)?;
        let moves = self.stones("moves", size)?;
        if moves.len() > MAX_MOVES {
            return Err(self.error("moves", format!("more than {MAX_MOVES} moves")));
        }
        if !self.object.contains_key("moves") {
            return Err(self.error("moves", "required"));
        }
        let initial_player = match self.string("initialPlayer")? {
            Some(p) => Some(
                player_color(&p).ok_or_else(|| self.error("initialPlayer", "must be B or W"))?,
            ),
            None => None,
        };
        let turns = self
            .turns("analyzeTurns")?
            .unwrap_or_else(|| vec![moves.len()]);
        if turns.len() > MAX_TURNS {
            return Err(self.error(
                "analyzeTurns",
                format!("more than {MAX_TURNS} turns in one query"),
            ));
        }
        if let Some(&t) = turns.iter().find(|&&t| t > moves.len()) {
            return Err(self.error(
                "analyzeTurns",
                format!("turn {t} is past the {} moves", moves.len()),
            ));
        }
        let priorities = match self.object.get("priorities") {
            None => None,
            Some(Value::Array(list)) if list.len() == turns.len() => Some(
                list.iter()
                    .map(|v| integer_in(v, i64::from(i32::MIN), i64::from(i32::MAX)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| self.error("priorities", "must be integers"))?,
            ),
            Some(_) => {
                return Err(self.error(
                    "priorities",
                    "must be a list of integers as long as analyzeTurns",
                ));
            }
        };
        let priority = self
            .integer("priority", i64::from(i32::MIN), i64::from(i32::MAX))?
            .unwrap_or(0);

        let positions = self.positions(
            Game::new(size, rules, komi),
            &initial,
            initial_player,
            &moves,
            &turns,
            |k| priorities.as_ref().map_or(priority, |p| p[k]),
        )?;

        let searching = self.searching(defaults, &mut warnings)?;
        for field in [
            "rootPolicyTemperature",
            "rootFpuReductionMax",
            "whiteHandicapBonus",
            "firstReportDuringSearchAfter",
        ] {
            if self.object.contains_key(field) {
                warnings.push(Warning {
                    field: field.into(),
                    message: "not supported by kosumi; ignored".into(),
                });
            }
        }
        // KataGo's warning for a field no query has (`warnUnusedFields`).
        for key in self.object.keys() {
            if !QUERY_FIELDS.contains(&key.as_str()) {
                warnings.push(Warning {
                    field: key.clone(),
                    message: "Unexpected or unused field, do you have a typo?".into(),
                });
            }
        }
        let pv_len = self
            .integer("analysisPVLen", 0, 1000)?
            .map_or(DEFAULT_PV_LEN, |n| n as usize);
        let Searching {
            max_visits,
            max_time,
            perspective,
            advantage,
            wide_root_noise,
            human_profile,
        } = searching;
        let asked = Asked {
            id: self.id.to_string(),
            max_visits,
            max_time,
            report_every: self.seconds("reportDuringSearchEvery")?,
            ownership: self.flag("includeOwnership")?,
            ownership_stdev: self.flag("includeOwnershipStdev")?,
            moves_ownership: self.flag("includeMovesOwnership")?,
            moves_ownership_stdev: self.flag("includeMovesOwnershipStdev")?,
            policy: self.flag("includePolicy")?,
            pv_visits: self.flag("includePVVisits")?,
            no_result: self.flag("includeNoResultValue")?,
            pv_len,
            perspective,
            restrict: self.move_rules(size)?,
            advantage,
            wide_root_noise,
            human_profile,
        };
        Ok(Parsed::Analyse {
            asked: Arc::new(asked),
            positions,
            warnings,
        })
    }
}

/// What a query's settings say of how to search its positions.
struct Searching {
    max_visits: u64,
    max_time: Option<Duration>,
    perspective: Perspective,
    advantage: Advantage,
    wide_root_noise: f64,
    human_profile: Option<HumanProfile>,
}

/// A search setting a query may override, as KataGo names it in
/// `overrideSettings`, and how its value is read (the message names what
/// it must be).
struct Override {
    name: &'static str,
    read: fn(&Value, &mut Searching) -> Result<(), String>,
}

/// The settings `overrideSettings` may hold.
const OVERRIDES: &[Override] = &[
    Override {
        name: "maxVisits",
        read: |v, s| {
            s.max_visits = integer_in(v, 1, 1 << 40).ok_or("a positive integer")? as u64;
            Ok(())
        },
    },
    Override {
        name: "maxTime",
        read: |v, s| {
            s.max_time = seconds_in(Some(v))?;
            Ok(())
        },
    },
    Override {
        name: "playoutDoublingAdvantage",
        read: |v, s| {
            s.advantage.doublings = number_in(v, -3.0, 3.0)?;
            Ok(())
        },
    },
    Override {
        name: "playoutDoublingAdvantagePla",
        read: |v, s| {
            let player = v.as_str().and_then(|p| parse_color(p).ok());
            s.advantage.player = Some(player.ok_or("BLACK or WHITE")?);
            Ok(())
        },
    },
    Override {
        name: "wideRootNoise",
        read: |v, s| {
            s.wide_root_noise = number_in(v, 0.0, 5.0)?;
            Ok(())
        },
    },
    Override {
        name: "humanSLProfile",
        read: |v, s| {
            let name = v
                .as_str()
                .ok_or("a profile name (rank_5k, preaz_1d, proyear_1990)")?;
            s.human_profile = Some(HumanProfile::parse(name)?);
            Ok(())
        },
    },
    Override {
        name: "reportAnalysisWinratesAs",
        read: |v, s| {
            s.perspective = match v.as_str().map(|p| p.to_ascii_uppercase()).as_deref() {
                Some("BLACK") => Perspective::Black,
                Some("WHITE") => Perspective::White,
                Some("SIDETOMOVE") => Perspective::SideToMove,
                _ => return Err("BLACK, WHITE or SIDETOMOVE".into()),
            };
            Ok(())
        },
    },
];

/// An integer from `lo` to `hi` (a float with no fraction counts).
fn integer_in(v: &Value, lo: i64, hi: i64) -> Option<i64> {
    let n = v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
            .map(|f| f as i64)
    })?;
    (lo..=hi).contains(&n).then_some(n)
}

/// A number from `lo` to `hi`.
fn number_in(v: &Value, lo: f64, hi: f64) -> Result<f64, String> {
    v.as_f64()
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| format!("a number from {lo} to {hi}"))
}

/// Seconds, positive and at most a day.
fn seconds_in(v: Option<&Value>) -> Result<Option<Duration>, String> {
    match v {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 && s <= 86_400.0 => Ok(Some(Duration::from_secs_f64(s))),
            _ => Err("must be seconds, more than 0 and at most 86400".into()),
        },
    }
}

/// A player as KataGo reads one (`B`, `w`, `black`, `WHITE`, …).
fn player_color(s: &str) -> Option<Color> {
    parse_color(s).ok()
}

/// A location as KataGo writes it: a vertex (`C4`, `pass`) or `(x,y)`
/// from the top left.
fn location_point(s: &str, size: BoardSize) -> Result<Option<Point>, String> {
    if let Some(inner) = s.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        let xy: Vec<_> = inner
            .split(',')
            .map(|t| t.trim().parse::<usize>())
            .collect();
        return match xy[..] {
            [Ok(x), Ok(y)] if x < size.width && y < size.height => {
                Ok(Some(point_at(size, x, size.height - 1 - y)))
            }
            _ => Err(format!("bad location '{s}'")),
        };
    }
    parse_vertex(s, size)
}

fn stone_name(c: Color, mv: Option<Point>, size: BoardSize) -> String {
    format!(
        "{} {}",
        c.letter(),
        crate::go::vertex::vertex_name(mv, size)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULTS: Defaults = Defaults {
        max_visits: 500,
        max_time: None,
        perspective: Perspective::Black,
    };

    fn analyse(line: &str) -> (Arc<Asked>, Vec<Position>, Vec<Warning>) {
        match parse(line, &DEFAULTS).unwrap() {
            Parsed::Analyse {
                asked,
                positions,
                warnings,
            } => (asked, positions, warnings),
            Parsed::Action { .. } => panic!("an action, not an analysis"),
        }
    }

    #[test]
    fn a_query_gives_one_position_per_turn() {
        let (asked, positions, warnings) = analyse(
            r#"{"id":"foo","initialStones":[["B","Q4"],["B","C4"]],"moves":[["W","P5"],["B","P6"]],"rules":"tromp-taylor","komi":7.5,"boardXSize":19,"boardYSize":19,"analyzeTurns":[0,1,2],"overrideSettings":{"maxVisits":40,"wideRootNoise":0.04}}"#,
        );
        assert_eq!(asked.max_visits, 40);
        assert_eq!(asked.perspective, Perspective::Black);
        let turns: Vec<_> = positions.iter().map(|p| p.turn).collect();
        assert_eq!(turns, [0, 1, 2]);
        assert_eq!(positions[0].game().to_move(), Color::White);
        assert_eq!(positions[0].game().handicap(), 2);
        assert_eq!(positions[2].game().to_move(), Color::White);
        assert_eq!(positions[2].game().move_count(), 2);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(asked.advantage, Advantage::default());
        assert_eq!(asked.wide_root_noise, 0.04);
    }

    #[test]
    fn the_playout_doubling_advantage_is_read_for_a_player() {
        let query = |o: &str| {
            format!(
                r#"{{"id":"a","rules":"chinese","boardXSize":9,"boardYSize":9,"moves":[],"overrideSettings":{{{o}}}}}"#
            )
        };
        // KaTrain's handicap AI: Black assumed 1.5 doublings stronger.
        let (asked, _, warnings) = analyse(&query(
            r#""playoutDoublingAdvantage":1.5,"playoutDoublingAdvantagePla":"BLACK""#,
        ));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(asked.advantage.for_white(Color::White), -1.5);
        assert_eq!(asked.advantage.for_white(Color::Black), -1.5);
        // No player named: the player to move.
        let (asked, _, _) = analyse(&query(r#""playoutDoublingAdvantage":-1"#));
        assert_eq!(asked.advantage.for_white(Color::White), -1.0);
        assert_eq!(asked.advantage.for_white(Color::Black), 1.0);
        for bad in [
            r#""playoutDoublingAdvantage":4"#,
            r#""playoutDoublingAdvantage":"x""#,
            r#""playoutDoublingAdvantagePla":"EMPTY""#,
            r#""wideRootNoise":-0.1"#,
            r#""wideRootNoise":"wide""#,
        ] {
            let err = parse(&query(bad), &DEFAULTS).err().expect("an error");
            assert_eq!(err.field, Some("overrideSettings"), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_field() {
        let field = |line: &str| parse(line, &DEFAULTS).err().expect("an error").field;
        let base = r#""id":"a","rules":"chinese","boardXSize":9,"boardYSize":9"#;
        assert_eq!(field(&format!(r#"{{{base}}}"#)), Some("moves"));
        assert_eq!(
            field(&format!(r#"{{{base},"moves":[["B","E5"],["W","E5"]]}}"#)),
            Some("moves")
        );
        assert_eq!(
            field(&format!(r#"{{{base},"moves":[["B","Z5"]]}}"#)),
            Some("moves")
        );
        assert_eq!(
            field(&format!(r#"{{{base},"moves":[],"analyzeTurns":[1]}}"#)),
            Some("analyzeTurns")
        );
        assert_eq!(
            field(r#"{"id":"a","rules":"stone_scoring","boardXSize":9,"boardYSize":9,"moves":[]}"#),
            Some("rules")
        );
        assert_eq!(
            field(r#"{"id":"a","rules":"chinese","boardXSize":9,"boardYSize":26,"moves":[]}"#),
            Some("boardYSize")
        );
        assert_eq!(
            field(&format!(r#"{{{base},"moves":[],"komi":1000}}"#)),
            Some("komi")
        );
        assert_eq!(
            field(&format!(r#"{{{base},"moves":[],"komi":7.3}}"#)),
            Some("komi")
        );
        assert_eq!(field("[1,2]"), None);
        assert_eq!(field(r#"{"action":"query_version"}"#), None);
        assert_eq!(
            field(r#"{"id":"t","action":"terminate"}"#),
            Some("terminateId")
        );
    }

    #[test]
    fn actions_are_read() {
        let line = r#"{"id":"t","action":"terminate","terminateId":"foo","turnNumbers":[1,2]}"#;
        let Ok(Parsed::Action { action, echo }) = parse(line, &DEFAULTS) else {
            panic!("not read as an action")
        };
        assert_eq!(
            action,
            Action::Terminate {
                target: Some("foo".into()),
                turns: Some(vec![1, 2])
            }
        );
        assert_eq!(echo["terminateId"], "foo");
    }

    use proptest::prelude::*;

    /// Pieces a query is made of, right and wrong.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(r#""id":"p""#.to_string()),
            Just(r#""rules":"chinese""#.to_string()),
            Just(r#""rules":{"ko":"SIMPLE"}"#.to_string()),
            Just(r#""boardXSize":9"#.to_string()),
            Just(r#""boardYSize":9"#.to_string()),
            Just(r#""boardYSize":-3"#.to_string()),
            Just(r#""komi":1e308"#.to_string()),
            Just(r#""moves":[["B","E5"],["W","(8,8)"],["B","pass"]]"#.to_string()),
            Just(r#""moves":[["B","Z99"]]"#.to_string()),
            Just(r#""initialStones":[["W","A1"],["W","A1"]]"#.to_string()),
            Just(r#""analyzeTurns":[0,3,1]"#.to_string()),
            Just(
                r#""avoidMoves":[{"player":"B","moves":["E5","pass"],"untilDepth":2}]"#.to_string()
            ),
            Just(r#""allowMoves":[{"player":"W","moves":[],"untilDepth":0}]"#.to_string()),
            Just(
                r#""overrideSettings":{"maxTime":0,"reportAnalysisWinratesAs":"WHITE"}"#
                    .to_string()
            ),
            Just(r#""action":"terminate""#.to_string()),
            Just(r#""priorities":[1]"#.to_string()),
            "[a-zA-Z\\\"{}\\[\\],:0-9 ]{0,12}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Any line is read without a panic: an action, positions (one a
        /// turn asked for) or an error whose field, if named, is a field
        /// of the protocol.
        #[test]
        fn any_line_is_read_or_refused(pieces in proptest::collection::vec(piece(), 0..8)) {
            let line = format!("{{{}}}", pieces.join(","));
            match parse(&line, &DEFAULTS) {
                Ok(Parsed::Analyse { positions, .. }) => prop_assert!(!positions.is_empty()),
                Ok(Parsed::Action { .. }) => {}
                Err(e) => prop_assert!(e.field.is_none_or(|f| f.chars().all(|c| c.is_ascii_alphabetic()))),
            }
        }
    }

    #[test]
    fn locations_read_as_katago_writes_them() {
        let (_, positions, _) = analyse(
            r#"{"id":"a","rules":"japanese","boardXSize":9,"boardYSize":9,"moves":[["B","(0,0)"],["W","pass"]],"initialPlayer":"B"}"#,
        );
        let game = &positions[0].game();
        let a9 = game.board().point(0, 8);
        assert_eq!(game.board().color_at(a9), Some(Color::Black));
        assert_eq!(game.to_move(), Color::Black);
    }

    #[test]
    fn the_querys_own_max_visits_wins_over_override_settings() {
        let defaults = Defaults {
            max_visits: 500,
            max_time: None,
            perspective: Perspective::Black,
        };
        let base = r#""moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9"#;
        let visits = |extra: &str| match parse(&format!(r#"{{"id":"a",{base}{extra}}}"#), &defaults)
        {
            Ok(Parsed::Analyse { asked, .. }) => asked.max_visits,
            _ => panic!("{extra}"),
        };
        assert_eq!(
            visits(r#","maxVisits":5,"overrideSettings":{"maxVisits":50}"#),
            5
        );
        assert_eq!(visits(r#","overrideSettings":{"maxVisits":50}"#), 50);
        assert_eq!(visits(""), 500);
    }
}
