//! Pass-alive areas as KataGo's network inputs read them (`Board::calculateArea`
//! in KataGo's `board.cpp`): Benson's algorithm finds each colour's
//! unconditionally alive chains and the regions they make safe; KataGo then
//! also gives a colour the empty regions only its stones border ("big
//! territories", safe when those stones are pass-alive) and, last, every
//! stone not otherwise claimed to its own colour. Under area scoring the
//! network sees the result as its "current territory" planes.
//!
//! The reader works on sets of the board's cells a word of bits at a time
//! ([`CellSet`]): the regions are the runs of each row's open cells joined
//! where runs of neighbouring rows share a column, and whether a chain is
//! vital to a region, or borders it, is one test of two sets.

use crate::go::board::{Board, Color, Point};
use crate::go::cell_set::{CellSet, Contents, Layout};
use std::ops::Range;

/// The owner of each point by colour: two disjoint sets of the board's
/// points.
#[derive(Clone, Copy, Default)]
pub struct Area {
    owned: [CellSet; 2],
}

impl Area {
    /// The owner of `p` (`None`: nobody's).
    #[cfg(test)]
    fn owner(&self, p: crate::go::board::Point) -> Option<Color> {
        [Color::Black, Color::White]
            .into_iter()
            .find(|c| self.owned[c.index()].contains(p))
    }

    /// The points `c` owns.
    pub fn owned(&self, c: Color) -> &CellSet {
        &self.owned[c.index()]
    }

    /// Gives `points` to `c`, whoever had them.
    fn give(&mut self, c: Color, points: &CellSet) {
        self.owned[c.index()] = self.owned[c.index()].or(points);
        let other = &mut self.owned[c.opponent().index()];
        *other = other.minus(points);
    }

    /// Gives `c` those of `points` nobody has.
    fn give_unowned(&mut self, c: Color, points: &CellSet) {
        let owned = self.owned[0].or(&self.owned[1]);
        self.owned[c.index()] = self.owned[c.index()].or(&points.minus(&owned));
    }
}

/// One maximal region of points empty or held by the opponent, with the
/// chains of the colour read that it is vital to.
struct Region {
    points: CellSet,
    /// The words of `points` that hold all its cells.
    words: Range<usize>,
    /// Indices (into the reader's chains) of the chains of `pla` next to
    /// every relevant point of the region; a vital chain is next to the
    /// region's first empty point, so there are at most four.
    vital_for: [usize; 4],
    vital: usize,
    /// Points not next to any stone of `pla`, counted up to 2.
    internal: u8,
    contains_opp: bool,
}

/// A run of a row's open cells (empty or the opponent's), and the run it
/// is joined to on the way to its region's first run.
#[derive(Clone, Copy)]
struct Run {
    first: Point,
    bits: u32,
    up: u32,
}

/// The run at the root of `i`'s tree of joined runs, halving the paths it
/// walks.
fn root(runs: &mut [Run], mut i: usize) -> usize {
    while runs[i].up as usize != i {
        let up = runs[i].up as usize;
        runs[i].up = runs[up].up;
        i = up;
    }
    i
}

/// A chain of the colour read that some region may be vital to: its
/// representative stone, its stones and the cells next to them (its
/// liberties and the stones it touches).
struct Chain {
    head: Point,
    stones: CellSet,
    around: CellSet,
}

/// KataGo's `calculateArea` with non-pass-alive stones, safe and unsafe big
/// territories all counted, read with buffers kept between calls (the
/// network's inputs read one a position, and allocate nothing once warm).
#[derive(Default)]
pub struct AreaReader {
    regions: Vec<Region>,
    /// The chains read: those next to a region each of whose relevant
    /// points is next to a stone of the colour read (no other region can
    /// be vital to a chain, and a chain with no vital region dies in
    /// Benson's first round whatever it is).
    chains: Vec<Chain>,
    vital_count: Vec<u32>,
    killed: Vec<bool>,
    borders_dead: Vec<bool>,
    runs: Vec<Run>,
    /// The region of each root run (`usize::MAX` before it has one).
    region_of: Vec<usize>,
}

/// The index in `chains` of the chain through `p`, read from `board` the
/// first time it is asked for.
fn chain_index(chains: &mut Vec<Chain>, board: &Board, p: Point) -> usize {
    let head = board.chain(p);
    if let Some(i) = chains.iter().position(|c| c.head == head) {
        return i;
    }
    let mut chain = Chain {
        head,
        stones: CellSet::default(),
        around: CellSet::default(),
    };
    for s in board.chain_stones(p) {
        chain.stones.insert(s);
        for q in board.neighbors(s) {
            chain.around.insert(q);
        }
    }
    chains.push(chain);
    chains.len() - 1
}

impl AreaReader {
    /// The owner of each point of `board`, whose contents the caller has
    /// read. `multi_stone_suicide` is whether the rules let a chain fill
    /// its own last liberty (then regions are judged point by point,
    /// occupied or not).
    pub fn area(&mut self, board: &Board, contents: &Contents, multi_stone_suicide: bool) -> Area {
        let stones = [contents.black, contents.white];
        let empty = contents.empty;
        let mut area = Area::default();
        for c in [Color::Black, Color::White] {
            self.area_for(board, c, (&stones, &empty), multi_stone_suicide, &mut area);
        }
        for c in [Color::Black, Color::White] {
            area.give_unowned(c, &stones[c.index()]);
        }
        area
    }

    fn area_for(
        &mut self,
        board: &Board,
        pla: Color,
        (stones, empty): (&[CellSet; 2], &CellSet),
        multi_stone_suicide: bool,
        area: &mut Area,
    ) {
        let layout = Layout::of(board);
        let own = &stones[pla.index()];
        let opp = &stones[pla.opponent().index()];
        let open = empty.or(opp);
        let next_to_own = own.widened(layout);
        let AreaReader {
            regions,
            chains,
            vital_count,
            killed,
            borders_dead,
            runs,
            region_of,
        } = self;

        // The regions: the runs of each row's open cells, each joined to
        // the runs of the row above that share a column with it (the
        // union of the runs' trees), a region's set made of its runs.
        runs.clear();
        let width = board.size().width;
        let mut above = 0..0;
        for y in 0..board.size().height {
            let first = board.point(0, y);
            let mut open_bits = open.run(first, width);
            let start = runs.len();
            while open_bits != 0 {
                let low = open_bits & open_bits.wrapping_neg();
                let bits = open_bits & !(open_bits + low);
                open_bits &= !bits;
                let at = runs.len();
                runs.push(Run {
                    first,
                    bits,
                    up: at as u32,
                });
                for j in above.clone() {
                    if runs[j].bits & bits != 0 {
                        let (a, b) = (root(runs, j), root(runs, at));
                        runs[a.max(b)].up = a.min(b) as u32;
                    }
                }
            }
            above = start..runs.len();
        }
        regions.clear();
        region_of.clear();
        region_of.resize(runs.len(), usize::MAX);
        for i in 0..runs.len() {
            let (r, run) = (root(runs, i), runs[i]);
            let words = run.first as usize / 64..(run.first as usize + 31) / 64 + 1;
            if region_of[r] == usize::MAX {
                region_of[r] = regions.len();
                regions.push(Region {
                    points: CellSet::default(),
                    words: words.clone(),
                    vital_for: [0; 4],
                    vital: 0,
                    internal: 0,
                    contains_opp: false,
                });
            }
            let region = &mut regions[region_of[r]];
            region.points.add_run(run.first, run.bits);
            region.words = region.words.start.min(words.start)..region.words.end.max(words.end);
        }

        // Each region's vital chains: those next to its first empty point
        // that are next to every relevant point of it (none where one of
        // them is next to no stone of pla).
        chains.clear();
        for region in regions.iter_mut() {
            region.words.end = region.words.end.min(layout.words());
            let (points, words) = (region.points, region.words.clone());
            let relevant = if multi_stone_suicide {
                points
            } else {
                points.and(empty)
            };
            region.internal = points.count_outside_to_two(&next_to_own, &words);
            region.contains_opp = points.meets_over(opp, &words);
            let Some(start) = points.and(empty).first() else {
                // Only stones, none of them with a liberty: no board a
                // game makes, and no region (nothing grows it).
                region.points = CellSet::default();
                continue;
            };
            if relevant.within_over(&next_to_own, &words) {
                for q in board.neighbors(start) {
                    if !own.contains(q) {
                        continue;
                    }
                    let i = chain_index(chains, board, q);
                    if !region.vital_for[..region.vital].contains(&i)
                        && relevant.within_over(&chains[i].around, &words)
                    {
                        region.vital_for[region.vital] = i;
                        region.vital += 1;
                    }
                }
            }
        }

        // Benson: chains of pla with fewer than two vital regions die, and
        // the regions they border stop counting for anyone, until nothing
        // changes.
        vital_count.clear();
        vital_count.resize(chains.len(), 0);
        for r in regions.iter() {
            for &i in &r.vital_for[..r.vital] {
                vital_count[i] += 1;
            }
        }
        killed.clear();
        killed.resize(chains.len(), false);
        borders_dead.clear();
        borders_dead.resize(regions.len(), false);
        // A round kills every chain short of two vital regions, then
        // the regions next to any of them stop counting; the chains left
        // are the same in any order of killing (a chain's count only
        // falls), so a round reads each region once against the cells
        // around all the chains it killed (the killed stones widened).
        // The first round kills every chain not read too: none has a
        // vital region.
        let mut dying_stones = *own;
        for chain in chains.iter() {
            dying_stones = dying_stones.minus(&chain.stones);
        }
        loop {
            for (i, chain) in chains.iter().enumerate() {
                if killed[i] || vital_count[i] >= 2 {
                    continue;
                }
                killed[i] = true;
                dying_stones = dying_stones.or(&chain.stones);
            }
            if dying_stones.is_empty() {
                break;
            }
            let dying = dying_stones.widened(layout);
            dying_stones = CellSet::default();
            for (r, region) in regions.iter().enumerate() {
                if !borders_dead[r] && region.points.meets_over(&dying, &region.words) {
                    borders_dead[r] = true;
                    for &v in &region.vital_for[..region.vital] {
                        vital_count[v] -= 1;
                    }
                }
            }
        }

        // The regions lie apart from each other and from the stones, so
        // what each gives can be given all at once.
        let (mut given, mut unowned) = (CellSet::default(), CellSet::default());
        for (chain, _) in chains.iter().zip(killed.iter()).filter(|(_, k)| !**k) {
            given = given.or(&chain.stones);
        }
        let at_least_one_pla = !own.is_empty();
        for (region, dead) in regions.iter().zip(borders_dead.iter()) {
            let alive_border = !dead && at_least_one_pla;
            if alive_border && (region.internal <= 1 || !region.contains_opp) {
                given.take_in(&region.points, &region.words);
            } else if !region.contains_opp && at_least_one_pla {
                unowned.take_in(&region.points, &region.words);
            }
        }
        area.give(pla, &given);
        area.give_unowned(pla, &unowned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::{Cell, MAX_POINTS};
    use crate::go::vertex::parse_vertex;
    use rand::{RngExt, SeedableRng, rngs::SmallRng};

    /// The owner of each point, indexed by `Point`.
    type PointArea = [Option<Color>; MAX_POINTS];

    /// Pass-alive areas on random boards (sizes, rectangles, both suicide
    /// rules, eyes made by filling most of a colour's points) are those of
    /// a reading a point at a time.
    #[test]
    fn the_sets_reading_gives_each_point_the_owner_a_point_by_point_reading_does() {
        let mut rng = SmallRng::seed_from_u64(41);
        let (mut reader, mut points) = (AreaReader::default(), PointReader::default());
        let (mut owned, mut alive) = (0, 0);
        for round in 0..600 {
            let (width, height) =
                [(19, 19), (9, 9), (5, 5), (13, 9), (7, 11), (25, 25), (2, 3)][round % 7];
            let mut board = Board::new(crate::go::board::BoardSize::new(width, height).unwrap());
            // Boards nearly full of one colour make pass-alive groups with
            // the other's stones dead in their eyes.
            let fill = rng.random_range(0.2..0.95);
            let black = [0.5, 0.8, 0.9][round % 3];
            for _ in 0..(fill * (width * height) as f64) as usize {
                let p = board.point(rng.random_range(0..width), rng.random_range(0..height));
                let c = if rng.random_bool(black) {
                    Color::Black
                } else {
                    Color::White
                };
                if board
                    .check(c, p, crate::go::rules::Suicide::Forbidden)
                    .is_ok()
                {
                    board.place(c, p);
                }
            }
            for multi in [false, true] {
                let sets = reader.area(&board, &Contents::of(&board), multi);
                let expected = points.area(&board, multi);
                for p in board.points() {
                    assert_eq!(sets.owner(p), expected[p as usize], "{width}x{height} {p}");
                    owned +=
                        usize::from(expected[p as usize].is_some() && board.cell(p) == Cell::Empty);
                    alive += usize::from(
                        board.cell(p) == Cell::Empty
                            && expected[p as usize].is_some()
                            && fill > 0.7,
                    );
                }
            }
        }
        assert!(owned > 1000 && alive > 100, "{owned} {alive}");
    }

    #[test]
    fn a_group_with_two_real_eyes_owns_its_eyes_and_a_lone_stone_only_itself() {
        let b = Board::from_ascii(
            ". X . X O . .
             X X X X O . .
             O O O O O . .
             . . . . . . .
             . . . . . X .
             . . . . . . .
             . . . . . . .",
        );
        let a = AreaReader::default().area(&b, &Contents::of(&b), false);
        let at = |v: &str| a.owner(parse_vertex(v, 7).unwrap().unwrap());
        // Black's corner group has two eyes, A7 and C7: pass-alive.
        assert_eq!(at("A7"), Some(Color::Black));
        assert_eq!(at("C7"), Some(Color::Black));
        assert_eq!(at("B6"), Some(Color::Black));
        // The lone black stone is not pass-alive but is its owner's stone;
        // the open space around it is nobody's.
        assert_eq!(at("F3"), Some(Color::Black));
        assert_eq!(at("G1"), None);
        assert_eq!(at("D4"), None);
    }

    /// One maximal region of points empty or held by the opponent; its points
    /// and vital chains are ranges of the reader's shared lists.
    struct PointRegion {
        points: std::ops::Range<usize>,
        /// The chains of `pla` every (relevant) point of the region touches.
        vital_for: std::ops::Range<usize>,
        /// Points not next to any stone of `pla`, counted up to 2.
        internal: u8,
        contains_opp: bool,
    }

    /// The same reading a point at a time: regions grown point by point,
    /// each point's chains looked at one by one.
    #[derive(Default)]
    pub(super) struct PointReader {
        regions: Vec<PointRegion>,
        points: Vec<Point>,
        vital_for: Vec<Point>,
        /// The vital chains of the region being grown.
        growing: Vec<Point>,
        heads: Vec<Point>,
        killed: Vec<bool>,
        borders_dead: Vec<bool>,
    }

    fn touches_chain(board: &Board, p: Point, pla: Color, head: Point) -> bool {
        board
            .neighbors(p)
            .iter()
            .any(|&q| board.color_at(q) == Some(pla) && board.chain(q) == head)
    }

    impl PointReader {
        /// The owner of each point. `multi_stone_suicide` is whether the rules
        /// let a chain fill its own last liberty (then regions are judged point
        /// by point, occupied or not).
        pub(super) fn area(&mut self, board: &Board, multi_stone_suicide: bool) -> PointArea {
            let mut result: PointArea = [None; MAX_POINTS];
            for c in [Color::Black, Color::White] {
                self.area_for(board, c, multi_stone_suicide, &mut result);
            }
            for p in board.points() {
                if result[p as usize].is_none() {
                    result[p as usize] = board.color_at(p);
                }
            }
            result
        }

        fn area_for(
            &mut self,
            board: &Board,
            pla: Color,
            multi_stone_suicide: bool,
            result: &mut PointArea,
        ) {
            let opp = pla.opponent();
            let other = opp.cell();
            let mut region_of = [usize::MAX; MAX_POINTS];
            let PointReader {
                regions,
                points,
                vital_for,
                growing,
                heads,
                killed,
                borders_dead,
            } = self;
            regions.clear();
            vital_for.clear();
            // Room for every point, each taken once: a point joins a region by
            // being written past the regions' end and the end moved on only
            // where it is new, with no branch on what the board holds.
            points.resize(MAX_POINTS, 0);
            let mut count = 0;
            let mut at_least_one_pla = false;
            let own = pla.cell();
            // Regions in KataGo's order: rows from the top, each from the left.
            for start in board.points_from_top() {
                // One branch, seldom taken: where a new region starts (an empty
                // point no region has reached yet).
                let cell = board.cell(start);
                at_least_one_pla |= cell == own;
                if (cell != Cell::Empty) | (region_of[start as usize] != usize::MAX) {
                    continue;
                }
                let index = regions.len();
                growing.clear();
                for q in board.neighbors(start) {
                    if board.color_at(q) == Some(pla) && !growing.contains(&board.chain(q)) {
                        growing.push(board.chain(q));
                    }
                }
                let first = count;
                points[count] = start;
                count += 1;
                let (mut internal, mut contains_opp) = (0u8, false);
                region_of[start as usize] = index;
                let mut next = first;
                while next < count {
                    let p = points[next];
                    next += 1;
                    let cell = board.cell(p);
                    if !growing.is_empty() && (multi_stone_suicide || cell == Cell::Empty) {
                        growing.retain(|&h| touches_chain(board, p, pla, h));
                    }
                    internal += u8::from(internal < 2 && board.neighbors_of_color(pla, p) == 0);
                    contains_opp |= cell == other;
                    for q in board.neighbors(p) {
                        let cell = board.cell(q);
                        let joins = ((cell == Cell::Empty) | (cell == other))
                            & (region_of[q as usize] == usize::MAX);
                        let at = &mut region_of[q as usize];
                        *at = if joins { index } else { *at };
                        points[count] = q;
                        count += usize::from(joins);
                    }
                }
                let vital_first = vital_for.len();
                vital_for.extend_from_slice(growing);
                regions.push(PointRegion {
                    points: first..count,
                    vital_for: vital_first..vital_for.len(),
                    internal,
                    contains_opp,
                });
            }

            // Benson: chains of pla with fewer than two vital regions die, and the
            // regions they border stop counting for anyone, until nothing changes.
            // The chains of pla by their heads, each point written past the
            // list's end and the end moved on only where it is one.
            heads.resize(MAX_POINTS, 0);
            let mut chains = 0;
            for p in board.points() {
                heads[chains] = p;
                chains += usize::from((board.cell(p) == own) & (board.chain(p) == p));
            }
            heads.truncate(chains);
            let mut vital_count = [0u32; MAX_POINTS];
            for r in regions.iter() {
                for &h in &vital_for[r.vital_for.clone()] {
                    vital_count[h as usize] += 1;
                }
            }
            killed.clear();
            killed.resize(heads.len(), false);
            borders_dead.clear();
            borders_dead.resize(regions.len(), false);
            loop {
                let mut changed = false;
                for (i, &h) in heads.iter().enumerate() {
                    if killed[i] || vital_count[h as usize] >= 2 {
                        continue;
                    }
                    killed[i] = true;
                    changed = true;
                    for s in board.chain_stones(h) {
                        for q in board.neighbors(s) {
                            let r = region_of[q as usize];
                            let cell = board.cell(q);
                            if r != usize::MAX
                                && !borders_dead[r]
                                && (cell == Cell::Empty || cell.color() == Some(opp))
                            {
                                borders_dead[r] = true;
                                for &v in &vital_for[regions[r].vital_for.clone()] {
                                    vital_count[v as usize] -= 1;
                                }
                            }
                        }
                    }
                }
                if !changed {
                    break;
                }
            }

            for (i, &h) in heads.iter().enumerate() {
                if !killed[i] {
                    for s in board.chain_stones(h) {
                        result[s as usize] = Some(pla);
                    }
                }
            }
            for (r, region) in regions.iter().enumerate() {
                let alive_border = !borders_dead[r] && at_least_one_pla;
                let mark = alive_border && (region.internal <= 1 || !region.contains_opp);
                if mark {
                    for &p in &points[region.points.clone()] {
                        result[p as usize] = Some(pla);
                    }
                } else if !region.contains_opp && at_least_one_pla {
                    for &p in &points[region.points.clone()] {
                        if result[p as usize].is_none() {
                            result[p as usize] = Some(pla);
                        }
                    }
                }
            }
        }
    }
}
