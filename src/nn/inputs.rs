//! The network's inputs for a kosumi game: the 22 planes and 19 global
//! features of KataGo's input version 7 (`NNInputs::fillRowV7` in KataGo's
//! `nninputs.cpp`), the version its model 8 reads.
//!
//! Planes (one value per point, rows from the top as KataGo counts them):
//! 0 on board; 1, 2 the mover's and the opponent's stones; 3, 4, 5 stones of
//! chains with 1, 2, 3 liberties; 6 points banned by ko or superko; 9–13 the
//! last five moves; 14 stones laddered now, 15 and 16 one and two moves
//! ago; 17 the ataris that start a ladder on an opponent chain of two
//! liberties; 18, 19 the mover's and opponent's area (pass-alive stones and
//! territory, then the other stones) under area scoring. Planes 7, 8, 20 and
//! 21 belong to KataGo's encore, which kosumi does not play, and stay zero.
//!
//! Globals: 0–4 which of the last five moves were passes; 5 the komi from the
//! mover's side / 20; 6, 7 the ko rule; 8 multi-stone suicide; 9 territory
//! scoring; 10, 11 the group tax; 14 whether a pass would end the game;
//! 15, 16 the playout doubling advantage (KataGo's handicap play: the
//! mover is assumed 2^x times the opponent's playouts, so the network
//! values positions as a stronger player would); 18 the komi's parity
//! wave under area scoring.
//!
//! kosumi's rulesets map to KataGo's rule fields in [`NetRules::of`]. Pass
//! stones and White's extra pass (EGC, AGA) have no counterpart there; they
//! change only the Japanese-style count, not the area result the network
//! predicts, and are left out.

use super::area::AreaReader;
use super::ladder::LadderReader;
use super::ladder_memo::{BoardReadings, ChainReading, LadderMemo, Ladders, Points, WORDS};
use crate::go::board::{Board, BoardSize, Color, Point};
use crate::go::cell_set::{CellSet, Contents, Layout};
use crate::go::game::{Action, Game};
use crate::go::rules::{Ko, Rules, Scoring, Suicide};

/// Spatial planes of input version 7.
pub const SPATIAL: usize = 22;
/// Global features of input version 7.
pub const GLOBAL: usize = 19;
/// How far komi may stray beyond the board's area (KataGo's clip).
const KOMI_CLIP: f32 = 20.0;

/// The group tax of KataGo's rules (stones in seki, or every group's eyes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tax {
    None,
    Seki,
}

/// KataGo's rule fields, as the network reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetRules {
    pub ko: Ko,
    pub multi_stone_suicide: bool,
    pub territory: bool,
    pub tax: Tax,
    /// Whether a pass that would end the game may be made before the dead
    /// stones are captured (KataGo's `friendlyPassOk`): kosumi removes dead
    /// stones when it counts, so under area scoring it is.
    pub friendly_pass_ok: bool,
}

impl NetRules {
    /// The KataGo rules nearest to kosumi's: the same ko rule, suicide and
    /// scoring; Japanese-style territory scoring taxes seki as KataGo's
    /// `japanese` does. (KataGo's own `chinese` preset uses simple ko; kosumi's
    /// Chinese rules are positional superko, and the network is told so.)
    pub fn of(rules: &Rules) -> NetRules {
        let territory = rules.scoring == Scoring::Territory;
        NetRules {
            ko: rules.ko,
            multi_stone_suicide: rules.suicide != Suicide::Forbidden,
            territory,
            tax: if territory { Tax::Seki } else { Tax::None },
            friendly_pass_ok: !territory,
        }
    }
}

/// One position's inputs, in KataGo's orientation (no symmetry applied).
#[derive(Clone, Debug)]
pub struct Features {
    pub size: BoardSize,
    /// The `SPATIAL` planes, each the set of points (by KataGo's index)
    /// where it is one: every plane of input version 7 is zero or one at a
    /// point, so a board's planes take 2 KB rather than 32 KB of values.
    pub planes: [Points; SPATIAL],
    pub global: [f32; GLOBAL],
}

impl Features {
    pub fn new(size: BoardSize) -> Features {
        Features {
            size,
            planes: [[0; WORDS]; SPATIAL],
            global: [0.0; GLOBAL],
        }
    }

    /// Whether plane `plane` is one at point `pos` (KataGo's index).
    #[cfg(test)]
    pub fn at(&self, plane: usize, pos: usize) -> bool {
        self.planes[plane][pos / 64] >> (pos % 64) & 1 != 0
    }

    /// Each point's planes as one word, bit `c` plane `c`, by KataGo's
    /// index: the rows a backend reads are these bits as values.
    pub fn point_masks(&self, masks: &mut [u32]) {
        // The planes set at many points (the stones, their liberties, the
        // area) eight points at a time: each plane's byte of them spread
        // into eight lanes of a word (a lane a point, from a table),
        // shifted to the plane's bit in its lane, and the lanes of planes
        // 0–7 and 16–23 joined into the points' masks. The others (bans,
        // the last moves, ladders) hold a few points each: their points
        // are set one by one.
        const { assert!(SPATIAL <= 24 && DENSE_PLANES.len() == 8) };
        for (group, out) in masks.chunks_mut(8).enumerate() {
            let (word, shift) = (group / 8, group % 8 * 8);
            let mut lanes = [0u64; 3];
            for c in DENSE_PLANES {
                let byte = (self.planes[c][word] >> shift) as u8;
                lanes[c / 8] |= BYTE_LANES[byte as usize] << (c % 8);
            }
            for (i, mask) in out.iter_mut().enumerate() {
                let lane = |w: u64| (w >> (8 * i)) as u8 as u32;
                *mask = lane(lanes[0]) | lane(lanes[1]) << 8 | lane(lanes[2]) << 16;
            }
        }
        for (c, plane) in self.planes.iter().enumerate() {
            if DENSE_PLANES.contains(&c) {
                continue;
            }
            for (w, &bits) in plane.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let pos = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if let Some(mask) = masks.get_mut(pos) {
                        *mask |= 1 << c;
                    }
                }
            }
        }
    }
}

/// The planes [`Features::point_masks`] spreads eight points at a time:
/// those a typical board sets at many points.
const DENSE_PLANES: [usize; 8] = [0, 1, 2, 3, 4, 5, 18, 19];

/// Each byte's eight bits as the lowest bits of a word's eight bytes,
/// lowest first.
const BYTE_LANES: [u64; 256] = {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte] |= ((byte as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// KataGo's index of a point: row from the top, then column.
pub fn position(board: &Board, p: Point) -> usize {
    let (x, y) = board.coords(p);
    let size = board.size();
    (size.height - 1 - y) * size.width + x
}

/// Makes the inputs; keeps the ladder reader's scratch board and lists between calls.
#[derive(Default)]
pub struct FeatureMaker {
    ladders: LadderReader,
    /// The last board's chains' readings (each chain once).
    solved: Vec<ChainReading>,
    /// The board before's readings, from the memo.
    earlier: BoardReadings,
    /// How many chains took an earlier board's reading.
    readings_reused: u64,
    /// The points a superko bans.
    banned: Vec<Point>,
    /// The hashes of the positions the mover may not make.
    forbidden: Vec<u64>,
    area: AreaReader,
}

impl FeatureMaker {
    /// Fills `f` for `to_move` in `game`. With `fresh` the position is seen
    /// as KataGo sees a position set up for another player than the one the
    /// history expects: no history, no ko. `advantage` is the mover's
    /// playout doublings over its opponent (0: an even match).
    pub fn fill(
        &mut self,
        game: &Game,
        to_move: Color,
        fresh: bool,
        advantage: f32,
        f: &mut Features,
    ) {
        self.fill_remembering(game, to_move, fresh, advantage, f, None);
    }

    /// [`FeatureMaker::fill`], each board's ladders taken from `memo`
    /// where it holds them and kept there where they are read.
    pub(crate) fn fill_remembering(
        &mut self,
        game: &Game,
        to_move: Color,
        fresh: bool,
        advantage: f32,
        f: &mut Features,
        memo: Option<&LadderMemo>,
    ) {
        let board = game.board();
        let size = board.size();
        if f.size != size {
            *f = Features::new(size);
        }
        let points = size.points();
        f.planes = [[0; WORDS]; SPATIAL];
        f.global = [0.0; GLOBAL];
        let rules = NetRules::of(&game.rules);
        let pla = to_move;
        let opp = pla.opponent();

        // A row of the board at a time, read off the sets of its contents
        // (no branch on the points, whose stones lie unpredictably); the
        // liberties' planes a stone at a time, with no branch on the
        // count.
        let contents = Contents::of(board);
        let by_colour = |c: Color| match c {
            Color::Black => &contents.black,
            Color::White => &contents.white,
        };
        let width = size.width;
        for (at, first) in board.rows_from_top() {
            let planes = &mut f.planes;
            let (mine, theirs) = (
                by_colour(pla).run(first, width),
                by_colour(opp).run(first, width),
            );
            Ladders::add_run(&mut planes[0], at, u32::MAX >> (32 - width), width);
            Ladders::add_run(&mut planes[1], at, mine, width);
            Ladders::add_run(&mut planes[2], at, theirs, width);
            let mut stones = mine | theirs;
            while stones != 0 {
                let x = stones.trailing_zeros() as usize;
                stones &= stones - 1;
                let libs = board.liberties(first + x as Point);
                let (word, bit) = ((at + x) / 64, (at + x) % 64);
                planes[3][word] |= u64::from(libs == 1) << bit;
                planes[4][word] |= u64::from(libs == 2) << bit;
                planes[5][word] |= u64::from(libs == 3) << bit;
            }
        }

        let mut set = |plane: usize, pos: usize| Ladders::add(&mut f.planes[plane], pos);

        // Ko and superko bans.
        if !fresh {
            let ko = board.ko().filter(|&(_, c)| c == pla).map(|(p, _)| p);
            if let Some(p) = ko {
                set(6, position(board, p));
            }
            if rules.ko != Ko::Simple {
                superko_banned(game, pla, ko, &mut self.banned, &mut self.forbidden);
                for &p in &self.banned {
                    set(6, position(board, p));
                }
            }
        }

        // Area under area scoring.
        if !rules.territory {
            let area = self.area.area(board, &contents, rules.multi_stone_suicide);
            for (at, first) in board.rows_from_top() {
                let (mine, theirs) = (
                    area.owned(pla).run(first, width),
                    area.owned(opp).run(first, width),
                );
                Ladders::add_run(&mut f.planes[18], at, mine, width);
                Ladders::add_run(&mut f.planes[19], at, theirs, width);
            }
        }

        // History: the last five moves (latest first), nothing when fresh.
        let mut recent = [None; 5];
        if !fresh {
            for (slot, m) in recent.iter_mut().zip(game.moves_since_setup()) {
                *slot = Some(m);
            }
        }
        let trailing_passes = recent
            .iter()
            .take_while(|m| matches!(m, Some((_, None))))
            .count();
        let pass_ends_phase = trailing_passes >= 1;
        let pass_ends_game = pass_ends_phase && !rules.territory;
        let suppress = pass_ends_game && rules.friendly_pass_ok && trailing_passes == 1;
        let max_turns = if suppress {
            0
        } else if pass_ends_game && trailing_passes >= 2 {
            1
        } else {
            5
        };
        let mut included = 0;
        for (back, m) in (1..=max_turns).zip(recent) {
            let Some((c, m)) = m else { break };
            let expected = if back % 2 == 1 { opp } else { pla };
            if c != expected {
                break;
            }
            included = back;
            match m {
                None => f.global[back - 1] = 1.0,
                Some(p) => Ladders::add(&mut f.planes[8 + back], position(board, p)),
            }
        }

        // Ladders now, one move ago and two moves ago (where the history
        // does not reach that far, the same board again: its plane is
        // copied). The board before is looked up first: its chains'
        // readings serve this board's where the move left them alone.
        let mut earlier = std::mem::take(&mut self.earlier);
        let earlier_found = match (memo, game.earlier_board(1)) {
            (Some(m), Some(b)) => m.get_readings(b, &mut earlier),
            _ => false,
        };
        let now = match memo.and_then(|m| m.get(board)) {
            Some(read) => read,
            None => {
                let changed = earlier_found
                    .then(|| earlier.changes(board, &contents))
                    .flatten();
                let from = changed.as_ref().map(|c| (&earlier, c));
                let read = self.ladders_of(board, &contents, from);
                if let Some(m) = memo {
                    m.put(board, &contents, read, &self.solved);
                }
                read
            }
        };
        let mut ladders = |board: &Board, earlier: Option<&Ladders>| match (earlier, memo) {
            (Some(read), _) => *read,
            (None, Some(m)) => m.get(board).unwrap_or_else(|| {
                let contents = Contents::of(board);
                let read = self.ladders_of(board, &contents, None);
                m.put(board, &contents, read, &self.solved);
                read
            }),
            (None, None) => self.ladders_of(board, &Contents::of(board), None),
        };
        let prev = game.earlier_board(1).filter(|_| included >= 1);
        let before = prev.map(|b| ladders(b, earlier_found.then_some(&earlier.ladders)));
        let before_that = game
            .earlier_board(2)
            .filter(|_| included >= 2)
            .map(|b| ladders(b, None));
        self.earlier = earlier;
        let or = |plane: &mut Points, set: &Points| {
            for (to, &from) in plane.iter_mut().zip(set) {
                *to |= from;
            }
        };
        or(&mut f.planes[14], &now.laddered);
        or(&mut f.planes[17], &now.working[opp.index()]);
        match before {
            Some(read) => or(&mut f.planes[15], &read.laddered),
            None => f.planes[15] = f.planes[14],
        }
        match before_that {
            Some(read) => or(&mut f.planes[16], &read.laddered),
            None => f.planes[16] = f.planes[15],
        }

        // Globals.
        let area_points = points as f32;
        let self_komi = (crate::go::score::area_komi(game, pla) as f32)
            .clamp(-area_points - KOMI_CLIP, area_points + KOMI_CLIP);
        f.global[5] = self_komi / 20.0;
        match rules.ko {
            Ko::Simple => {}
            Ko::Positional => {
                f.global[6] = 1.0;
                f.global[7] = 0.5;
            }
            Ko::Situational => {
                f.global[6] = 1.0;
                f.global[7] = -0.5;
            }
        }
        if rules.multi_stone_suicide {
            f.global[8] = 1.0;
        }
        if rules.territory {
            f.global[9] = 1.0;
        }
        if rules.tax == Tax::Seki {
            f.global[10] = 1.0;
        }
        if pass_ends_phase && !suppress {
            f.global[14] = 1.0;
        }
        // KataGo marks any advantage at all in 15: the network was trained
        // to play differently once it is set, however slightly.
        if advantage != 0.0 {
            f.global[15] = 1.0;
            f.global[16] = 0.5 * advantage;
        }
        if !rules.territory {
            f.global[18] = parity_wave(self_komi, points);
        }
    }

    /// `board`'s ladders, read chain by chain (KataGo's `iterLadders`): the
    /// stones of every laddered chain, and the ataris that ladder a chain
    /// of two liberties, by the chain's colour (plane 17 takes the
    /// opponent's). With `earlier`, an earlier board's readings and where
    /// this board differs from it: a chain whose reading there has a
    /// footprint clear of the changes takes that reading's outcome. Each
    /// chain's reading is left in `self.solved`.
    fn ladders_of(
        &mut self,
        board: &Board,
        contents: &Contents,
        earlier: Option<(&BoardReadings, &CellSet)>,
    ) -> Ladders {
        let mut read = Ladders::default();
        let mut solved = std::mem::take(&mut self.solved);
        solved.clear();
        let layout = Layout::of(board);
        // One copy of the board for all its chains.
        let mut reading = self.ladders.on(board);
        // The stones a row at a time, read off the board's contents (no
        // branch on the empty points).
        let size = board.size();
        for (at, first) in board.rows_from_top() {
            let runs = [&contents.black, &contents.white].map(|s| s.run(first, size.width));
            let mut stones = runs[0] | runs[1];
            while stones != 0 {
                let x = stones.trailing_zeros() as usize;
                stones &= stones - 1;
                let (p, pos) = (first + x as Point, at + x);
                let libs = board.liberties(p);
                if libs != 1 && libs != 2 {
                    continue;
                }
                let chain = board.chain(p);
                let laddered = match solved.iter().find(|r| r.chain == chain) {
                    Some(r) => r.laddered,
                    None => {
                        let reused = earlier
                            .and_then(|(readings, changed)| readings.reusable(chain, changed));
                        let r = match reused {
                            Some(r) => {
                                self.readings_reused += 1;
                                *r
                            }
                            None => {
                                let (laddered, working) = if libs == 1 {
                                    (reading.in_atari_is_laddered(p), [None; 2])
                                } else {
                                    let working = reading.two_liberties_working_moves(p);
                                    (working.iter().any(Option::is_some), working)
                                };
                                ChainReading {
                                    chain,
                                    laddered,
                                    working,
                                    footprint: reading.footprint(layout),
                                }
                            }
                        };
                        let c = match runs[0] >> x & 1 {
                            1 => Color::Black,
                            _ => Color::White,
                        };
                        for m in r.working.into_iter().flatten() {
                            Ladders::add(&mut read.working[c.index()], position(board, m));
                        }
                        solved.push(r);
                        r.laddered
                    }
                };
                if laddered {
                    Ladders::add(&mut read.laddered, pos);
                }
            }
        }
        self.solved = solved;
        read
    }
}

/// The empty points where `pla` may not play because the position would
/// repeat (the ko point excepted): KataGo's `superKoBanned`. Only a point
/// that held a stone before, or a suicide, can repeat a position. KataGo
/// never allows a one-stone suicide, so such a point is not banned for
/// repeating (kosumi's Tromp-Taylor rules allow it, and refuse it there as a
/// repetition of the position).
fn superko_banned(
    game: &Game,
    pla: Color,
    ko: Option<Point>,
    banned: &mut Vec<Point>,
    forbidden: &mut Vec<u64>,
) {
    let board = game.board();
    let katago_suicide = match game.rules.suicide {
        Suicide::Forbidden => Suicide::Forbidden,
        _ => Suicide::MultiStone,
    };
    let mut ever = [false; crate::go::board::MAX_POINTS];
    for a in game.actions() {
        match a {
            Action::Move(_, Some(p), _) => ever[*p as usize] = true,
            Action::Setup(stones) => stones.iter().for_each(|&(_, p)| ever[p as usize] = true),
            Action::Move(_, None, _) => {}
        }
    }
    game.collect_forbidden_hashes(pla, forbidden);
    // The forbidden hashes' top bits as a set of 4,096: a move whose hash
    // is not in it repeats none of them, with no scan of the list (and
    // none of the legality checks, which do not change what is kept).
    let mut maybe = [0u64; 64];
    let slot = |h: u64| ((h >> 58) as usize, h >> 52 & 63);
    for &h in forbidden.iter() {
        let (word, bit) = slot(h);
        maybe[word] |= 1 << bit;
    }
    let may_repeat = |h: u64| {
        let (word, bit) = slot(h);
        maybe[word] >> bit & 1 != 0
    };
    banned.clear();
    banned.extend(
        board
            .empty_points()
            .iter()
            .copied()
            .filter(|&p| Some(p) != ko && (ever[p as usize] || board.is_suicide(pla, p)))
            .filter(|&p| {
                let hash = board.hash_after(pla, p);
                may_repeat(hash) && forbidden.contains(&hash)
            })
            .filter(|&p| board.check(pla, p, katago_suicide).is_ok())
            .filter(|&p| board.check(pla, p, game.rules.suicide).is_ok()),
    );
}

/// KataGo's triangle wave of the komi around the komis that allow a draw on
/// a board of `points` points.
fn parity_wave(self_komi: f32, points: usize) -> f32 {
    let floor = if points.is_multiple_of(2) {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each point's mask holds bit `c` exactly where plane `c` holds the
    /// point, on boards whose points end inside a group of eight and not.
    #[test]
    fn a_points_mask_is_its_planes_bits() {
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(3);
        for size in [19, 9, 7, 25] {
            let mut f = Features::new(BoardSize::square(size));
            let points = size * size;
            for plane in f.planes.iter_mut() {
                for pos in 0..points {
                    if rng.random_bool(0.4) {
                        Ladders::add(plane, pos);
                    }
                }
            }
            let mut masks = vec![u32::MAX; points];
            f.point_masks(&mut masks);
            for (pos, &mask) in masks.iter().enumerate() {
                for c in 0..SPATIAL {
                    assert_eq!(mask >> c & 1 != 0, f.at(c, pos), "{size} {pos} {c}");
                }
                assert_eq!(mask >> SPATIAL, 0);
            }
        }
    }
    use crate::go::board::{Cell, Illegal};
    use crate::go::vertex::parse_vertex;

    fn play(game: &mut Game, moves: &[&str]) {
        for v in moves {
            let c = game.to_move();
            game.play(c, parse_vertex(v, game.size()).unwrap()).unwrap();
        }
    }

    #[test]
    fn the_ko_plane_holds_the_points_whose_move_would_repeat_a_position() {
        // Random games on small boards under positional superko, where
        // captures (and, under Tromp-Taylor's rules, suicides of several
        // stones) bring positions back: plane 6 holds exactly the points
        // where the mover's play is refused as a ko or a repetition.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut maker = FeatureMaker::default();
        let mut superko = 0;
        let mut suicides = 0;
        for ((width, height), rules) in [(4, 4), (5, 4), (5, 5)]
            .into_iter()
            .flat_map(|size| [(size, "chinese"), (size, "tromp-taylor")])
        {
            let size = BoardSize::new(width, height).unwrap();
            let mut f = Features::new(size);
            for _ in 0..40 {
                let mut game = Game::new(size, Rules::preset(rules).unwrap(), 7.5);
                for _ in 0..3 * width * height {
                    let pla = game.to_move();
                    maker.fill(&game, pla, false, 0.0, &mut f);
                    let board = game.board();
                    for p in board.points() {
                        // (Under positional superko a ko's retake is refused
                        // as a repetition too.)
                        // KataGo never plays a lone stone's suicide, so does
                        // not mark it, though Tromp-Taylor's rules refuse it
                        // as a repetition.
                        let refused = board.cell(p) == Cell::Empty
                            && matches!(
                                game.clone().play(pla, Some(p)),
                                Err(Illegal::Ko | Illegal::Superko)
                            )
                            && board.check(pla, p, Suicide::MultiStone).is_ok();
                        assert_eq!(f.at(6, position(board, p)), refused, "{rules} {p}");
                        superko += usize::from(refused);
                        suicides += usize::from(refused && board.is_suicide(pla, p));
                    }
                    let legal: Vec<Point> = board
                        .empty_points()
                        .iter()
                        .copied()
                        .filter(|&p| game.clone().play(pla, Some(p)).is_ok())
                        .collect();
                    let mv = (!legal.is_empty() && rng.random_range(0..10) > 0)
                        .then(|| legal[rng.random_range(0..legal.len())]);
                    game.play(pla, mv).unwrap();
                }
            }
        }
        assert!(superko > 20 && suicides > 0, "{superko} {suicides}");
    }

    #[test]
    fn the_points_from_the_top_come_in_katagos_order() {
        for (width, height) in [(9, 9), (19, 19), (13, 9), (2, 7)] {
            let board = Board::new(BoardSize::new(width, height).unwrap());
            let order: Vec<usize> = board
                .points_from_top()
                .map(|p| position(&board, p))
                .collect();
            assert_eq!(order, (0..width * height).collect::<Vec<_>>());
        }
    }

    #[test]
    fn ladders_from_the_memo_are_the_ladders_read_again() {
        // Random games on 9×9, 19×19 and a rectangle (kos and captures
        // among them): every position's inputs with the boards' ladders
        // from a memo the earlier positions filled (the two boards before
        // are found there; the board itself the second time; its chains'
        // readings reused from the board before where their footprints
        // allow) equal those read from scratch, bit for bit, and so do
        // those of a few other moves from each position (siblings in a
        // search, each reusing the same parent's readings); and the
        // ladder planes are not all empty, nor the reused readings few.
        use rand::{RngExt, SeedableRng};
        let memo = LadderMemo::default();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let (mut fresh, mut remembered) = (FeatureMaker::default(), FeatureMaker::default());
        let mut laddered = 0;
        for (width, height) in [(9, 9), (19, 19), (13, 9)] {
            let size = BoardSize::new(width, height).unwrap();
            let mut game = Game::new(size, Rules::default(), 7.5);
            let (mut a, mut b) = (Features::new(size), Features::new(size));
            for _ in 0..width * height {
                let c = game.to_move();
                let p = game
                    .board()
                    .point(rng.random_range(0..width), rng.random_range(0..height));
                let _ = game.play(c, Some(p));
                for to_move in [Color::Black, Color::White] {
                    fresh.fill(&game, to_move, false, 0.0, &mut a);
                    for _ in 0..2 {
                        remembered.fill_remembering(
                            &game,
                            to_move,
                            false,
                            0.0,
                            &mut b,
                            Some(&memo),
                        );
                        assert_eq!(a.planes, b.planes);
                        assert_eq!(a.global, b.global);
                    }
                }
                for _ in 0..3 {
                    let mut child = game.clone();
                    let q = child
                        .board()
                        .point(rng.random_range(0..width), rng.random_range(0..height));
                    if child.play(child.to_move(), Some(q)).is_ok() {
                        let to_move = child.to_move();
                        fresh.fill(&child, to_move, false, 0.0, &mut a);
                        remembered.fill_remembering(
                            &child,
                            to_move,
                            false,
                            0.0,
                            &mut b,
                            Some(&memo),
                        );
                        assert_eq!(a.planes, b.planes);
                    }
                }
                laddered += a.planes[14..18]
                    .iter()
                    .flatten()
                    .map(|w| w.count_ones() as usize)
                    .sum::<usize>();
            }
        }
        assert!(laddered > 100, "{laddered}");
        assert!(
            remembered.readings_reused > 1000,
            "{}",
            remembered.readings_reused
        );
    }

    #[test]
    fn stones_liberties_and_the_last_moves_land_on_their_planes() {
        let mut game = Game::new(9, Rules::preset("japanese").unwrap(), 6.5);
        play(&mut game, &["E5", "D5", "pass"]);
        let mut f = Features::new(9.into());
        FeatureMaker::default().fill(&game, Color::White, false, 0.0, &mut f);
        let at = |plane: usize, v: &str| {
            let p = parse_vertex(v, 9).unwrap().unwrap();
            f32::from(u8::from(f.at(plane, position(game.board(), p))))
        };
        assert_eq!(at(1, "D5"), 1.0, "White to move: its stone is plane 1");
        assert_eq!(at(2, "E5"), 1.0);
        assert_eq!(at(5, "E5"), 1.0, "three liberties");
        assert_eq!(f.global[0], 1.0, "Black's pass was the last move");
        assert_eq!(at(10, "D5"), 1.0, "White's D5 two moves ago");
        assert_eq!(at(11, "E5"), 1.0);
        // Territory scoring: one point per stone played folds into the komi.
        assert_eq!(f.global[5], (6.5 + 1.0 - 1.0) / 20.0);
        assert_eq!(f.global[9], 1.0);
        assert_eq!(f.global[14], 1.0, "a pass now ends the phase");
        assert_eq!(f.global[6], 0.0, "simple ko");

        // Under area scoring a pass that would end the game hides the
        // history (KataGo's friendly pass).
        let mut game = Game::new(9, Rules::default(), 7.5);
        play(&mut game, &["E5", "D5", "pass"]);
        FeatureMaker::default().fill(&game, Color::White, false, 0.0, &mut f);
        assert_eq!(f.global[0], 0.0);
        assert_eq!(f.global[14], 0.0);
        assert_eq!(f.global[6], 1.0, "positional superko");
        assert_eq!(f.global[5], 7.5 / 20.0);
        // Position 0 is A9, the top left.
        assert_eq!(
            position(game.board(), parse_vertex("A9", 9).unwrap().unwrap()),
            0
        );
    }

    #[test]
    fn the_komi_wave_peaks_half_a_point_above_a_drawable_komi() {
        // 9x9 has 81 points: odd komis can draw.
        assert_eq!(parity_wave(7.5, 81), 0.5);
        assert_eq!(parity_wave(7.0, 81), 0.0);
        assert_eq!(parity_wave(6.5, 81), -0.5);
        assert_eq!(parity_wave(8.0, 81), 0.0);
        assert_eq!(parity_wave(-7.5, 81), -0.5);
        // 8x8 has 64: even komis draw.
        assert_eq!(parity_wave(6.5, 64), 0.5);
        assert_eq!(parity_wave(7.5, 64), -0.5);
    }
}
