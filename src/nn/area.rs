//! Pass-alive areas as KataGo's network inputs read them (`Board::calculateArea`
//! in KataGo's `board.cpp`): Benson's algorithm finds each colour's
//! unconditionally alive chains and the regions they make safe; KataGo then
//! also gives a colour the empty regions only its stones border ("big
//! territories", safe when those stones are pass-alive) and, last, every
//! stone not otherwise claimed to its own colour. Under area scoring the
//! network sees the result as its "current territory" planes.

use crate::go::board::{Board, Cell, Color, MAX_POINTS, Point};

/// The owner of each point, indexed by `Point` (`None`: nobody's).
pub type Area = [Option<Color>; MAX_POINTS];

/// One maximal region of points empty or held by the opponent; its points
/// and vital chains are ranges of the reader's shared lists.
struct Region {
    points: std::ops::Range<usize>,
    /// The chains of `pla` every (relevant) point of the region touches.
    vital_for: std::ops::Range<usize>,
    /// Points not next to any stone of `pla`, counted up to 2.
    internal: u8,
    contains_opp: bool,
}

/// KataGo's `calculateArea` with non-pass-alive stones, safe and unsafe big
/// territories all counted, read with buffers kept between calls (the
/// network's inputs read one a position, and allocate nothing once warm).
#[derive(Default)]
pub struct AreaReader {
    regions: Vec<Region>,
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

impl AreaReader {
    /// The owner of each point. `multi_stone_suicide` is whether the rules
    /// let a chain fill its own last liberty (then regions are judged point
    /// by point, occupied or not).
    pub fn area(&mut self, board: &Board, multi_stone_suicide: bool) -> Area {
        let mut result: Area = [None; MAX_POINTS];
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
        result: &mut Area,
    ) {
        let opp = pla.opponent();
        let other = opp.cell();
        let mut region_of = [usize::MAX; MAX_POINTS];
        let AreaReader {
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
            regions.push(Region {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::vertex::parse_vertex;

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
        let a = AreaReader::default().area(&b, false);
        let at = |v: &str| a[parse_vertex(v, 7).unwrap().unwrap() as usize];
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
}
