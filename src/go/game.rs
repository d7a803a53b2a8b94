//! The game: a board plus everything the board cannot know — the move
//! history, ko and superko, passes and pass stones, handicap, the side to move,
//! the end of the game, komi and the ruleset — with exact undo.
//!
//! Legality comes in layers: the board checks placement (occupied, suicide),
//! the game checks repetition under the ruleset's ko rule. Scoring lives in
//! `score`, move choice in `search`.

use crate::go::board::{Board, BoardSize, Color, Illegal, Point};
use crate::go::dice::{self, Dice};
use crate::go::rules::{Ko, Rules, Suicide};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// One thing that happened in the game, in order (for SGF and replay).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A move; `None` is a pass. The roll it was made under, if any.
    Move(Color, Option<Point>, Option<u32>),
    /// Stones put on the board outside the flow of moves (handicap, setup).
    Setup(Vec<(Color, Point)>),
}

/// Where a game stands: its size, rules, komi, actions and side to move —
/// what a kept search tree or judgement was made for.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub size: BoardSize,
    pub rules: Rules,
    pub komi: f64,
    pub actions: Vec<Action>,
    pub to_move: Color,
}

impl Standing {
    /// Whether `game` is this game played on: the same size, rules and
    /// komi, its actions a continuation of these.
    pub fn continued_by(&self, game: &Game) -> bool {
        self.size == game.size()
            && self.rules == game.rules
            && self.komi == game.komi
            && game.actions().starts_with(&self.actions)
    }

    /// Whether `game` stands here (no move since, the same side to move).
    pub fn is_where(&self, game: &Game) -> bool {
        self.continued_by(game)
            && self.to_move == game.to_move()
            && self.actions.len() == game.actions().len()
    }
}

/// The counts of a position that undo must restore, besides its board.
#[derive(Clone, Copy)]
struct Turn {
    to_move: Color,
    /// Passes each colour has made (pass stones, under rules that have them).
    passes: [u32; 2],
    consecutive_passes: u32,
    handicap: u32,
    /// The black moves that opened the game, as KataGo counts them.
    opening: Opening,
    actions: usize,
    /// Aléago: each player's roll waiting for its move.
    pending: [Option<u32>; 2],
}

/// The run of Black moves that opens a game, which KataGo counts as
/// handicap stones (`assumeMultipleStartingBlackMovesAreHandicap`: how
/// servers, Pachi's records and KaTrain give a free handicap): Black's
/// stones so far, a lone White pass among them not ending the run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Opening {
    /// Only Black has moved (or nobody yet).
    Black(Run),
    /// White has just passed after Black's moves.
    AfterWhitePass(Run),
    /// White has just made its first move.
    AfterWhiteMove(Run),
    /// The run is over (two White moves in a row: a problem being set up,
    /// no handicap).
    Over(Run),
}

/// What an opening run holds: Black's stones, and White's passes that a
/// Black stone followed (each hands Black a pass stone, which a
/// Japanese-style count weighs against the handicap's extra moves).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Run {
    stones: u32,
    white_passes: u32,
}

impl Opening {
    fn after(self, c: Color, mv: Option<Point>) -> Opening {
        let stone = u32::from(mv.is_some());
        match (self, c) {
            (Opening::Over(_), _) => self,
            (Opening::Black(r), Color::Black) => Opening::Black(Run {
                stones: r.stones + stone,
                ..r
            }),
            (Opening::AfterWhitePass(r), Color::Black) => Opening::Black(Run {
                stones: r.stones + stone,
                white_passes: r.white_passes + stone,
            }),
            (Opening::AfterWhiteMove(r), Color::Black) => Opening::Over(r),
            (Opening::Black(r), Color::White) if mv.is_none() => Opening::AfterWhitePass(r),
            (Opening::Black(r), Color::White) => Opening::AfterWhiteMove(r),
            (Opening::AfterWhitePass(_) | Opening::AfterWhiteMove(_), Color::White) => {
                Opening::Over(Run::default())
            }
        }
    }

    fn run(self) -> Run {
        match self {
            Opening::Black(r)
            | Opening::AfterWhitePass(r)
            | Opening::AfterWhiteMove(r)
            | Opening::Over(r) => r,
        }
    }
}

/// The position now: its board, counts and the generator of the rolls.
#[derive(Clone)]
struct State {
    board: Board,
    turn: Turn,
    /// Aléago: the generator of the rolls (restored by undo).
    rolls: ChaCha8Rng,
}

/// Where a ChaCha generator stands, in 56 bytes rather than its buffer's 300.
#[derive(Clone, Copy)]
struct RollsAt {
    seed: [u8; 32],
    stream: u64,
    word: u128,
}

impl RollsAt {
    fn of(rng: &ChaCha8Rng) -> RollsAt {
        RollsAt {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word: rng.get_word_pos(),
        }
    }

    fn generator(&self) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(self.word);
        rng
    }
}

/// An earlier position: what undo restores and what the ko rules compare.
/// Its whole board is kept only for the latest few positions and every
/// [`CHECKPOINT_EVERY`]th one; the others are rebuilt by replaying the
/// actions from the checkpoint before them, so a game's history costs about
/// a hundred bytes a move rather than a board.
#[derive(Clone)]
struct Past {
    turn: Turn,
    rolls: RollsAt,
    board: Option<Box<Board>>,
}

/// How many of the latest earlier positions keep their boards as play goes
/// on (the network's inputs read the last two; undo mostly goes back a few).
const RECENT_BOARDS: usize = 8;
/// Every this many actions an earlier position keeps its board, so that a
/// board undo needs is at most this many actions from a kept one.
const CHECKPOINT_EVERY: usize = 64;

/// A game in progress.
#[derive(Clone)]
pub struct Game {
    pub rules: Rules,
    pub komi: f64,
    now: State,
    earlier: Vec<Past>,
    /// The hash of each earlier position, beside `earlier`: the ko rules
    /// read them side by side, eight bytes a position.
    earlier_hashes: Vec<u64>,
    actions: Vec<Action>,
    /// The dice in force for each action (parallel to `actions`), so that a
    /// record shows where they changed.
    action_dice: Vec<Option<Dice>>,
    /// Aléago dice, when the variant is on.
    dice: Option<Dice>,
}

impl Game {
    pub fn new(size: impl Into<BoardSize>, rules: Rules, komi: f64) -> Game {
        Game {
            rules,
            komi,
            now: State {
                board: Board::new(size),
                turn: Turn {
                    to_move: Color::Black,
                    passes: [0; 2],
                    consecutive_passes: 0,
                    handicap: 0,
                    opening: Opening::Black(Run::default()),
                    actions: 0,
                    pending: [None; 2],
                },
                rolls: ChaCha8Rng::seed_from_u64(0),
            },
            earlier: Vec::new(),
            earlier_hashes: Vec::new(),
            actions: Vec::new(),
            action_dice: Vec::new(),
            dice: None,
        }
    }

    /// The same settings (rules, komi, dice and their generator) on an empty
    /// board of `size`.
    pub fn resized(&self, size: BoardSize) -> Game {
        let mut g = Game::new(size, self.rules, self.komi);
        g.dice = self.dice;
        g.now.rolls = self.now.rolls.clone();
        g
    }

    /// The same settings on an empty board.
    pub fn cleared(&self) -> Game {
        self.resized(self.size())
    }

    /// This game's settings and public counts (rules, komi, captures,
    /// passes, handicap, the side to move) around a position of `stones`
    /// alone, with no history: what a seat of a phantom game is shown.
    /// The stones must be a subset of a legal position (no chain of them
    /// without a liberty); they are placed as they are.
    pub fn showing(&self, stones: &[(Color, Point)]) -> Game {
        let mut shown = Game::new(self.size(), self.rules, self.komi);
        for &(c, p) in stones {
            shown.now.board.place(c, p);
        }
        for c in [Color::Black, Color::White] {
            shown.now.board.add_captures(c, self.board().captures(c));
        }
        shown.now.turn = Turn {
            actions: 0,
            pending: [None; 2],
            ..self.now.turn
        };
        shown
    }

    /// This game as one that play goes on from: the same game, history
    /// and all, with the passes that ended it no longer ending it (a game
    /// ended by two passes, reopened to judge which stones would die, as
    /// KataGo's `conservativePass` does).
    pub fn continued(&self) -> Game {
        let mut game = self.clone();
        game.now.turn.consecutive_passes = 0;
        game
    }

    /// Where the game stands now.
    pub fn standing(&self) -> Standing {
        Standing {
            size: self.size(),
            rules: self.rules,
            komi: self.komi,
            actions: self.actions().to_vec(),
            to_move: self.to_move(),
        }
    }

    pub fn board(&self) -> &Board {
        &self.now.board
    }

    pub fn size(&self) -> BoardSize {
        self.now.board.size()
    }

    pub fn to_move(&self) -> Color {
        self.now.turn.to_move
    }

    pub fn set_to_move(&mut self, c: Color) {
        self.now.turn.to_move = c;
    }

    /// Pass stones `c` has handed to the opponent, White's extra pass
    /// included once the game has ended with Black's pass under rules that
    /// have it.
    /// The rules in force count: a change of rules during the game applies
    /// to the passes made before it, as it does to the komi and the count.
    pub fn pass_stones(&self, c: Color) -> u32 {
        if !self.rules.pass_stones {
            return 0;
        }
        self.now.turn.passes[c.index()] + u32::from(c == Color::White && self.white_extra_pass())
    }

    /// Whether White's extra pass applies now: the game is over, Black
    /// passed last, and the rules have the extra pass (AGA, EGC 2011).
    pub fn white_extra_pass(&self) -> bool {
        self.rules.white_extra_pass && self.is_over() && self.black_passed_last()
    }

    /// The handicap stones, as KataGo counts them: the black stones set up
    /// as a handicap and the Black moves that open the game (see
    /// [`Opening`]); one stone alone is no handicap.
    pub fn handicap(&self) -> u32 {
        let stones = self.now.turn.handicap + self.now.turn.opening.run().stones;
        if stones >= 2 { stones } else { 0 }
    }

    /// White's passes among the opening Black stones that a Black stone
    /// followed (see [`Opening`]).
    pub fn opening_white_passes(&self) -> u32 {
        self.now.turn.opening.run().white_passes
    }

    /// The stones set up as a handicap (`fixed_handicap`, `AB` in a
    /// record's root), without the opening Black moves.
    pub fn handicap_set_up(&self) -> u32 {
        self.now.turn.handicap
    }

    pub fn consecutive_passes(&self) -> u32 {
        self.now.turn.consecutive_passes
    }

    /// Two passes in a row end the game (more moves resume it).
    pub fn is_over(&self) -> bool {
        self.now.turn.consecutive_passes >= 2
    }

    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The dice in force for each action, parallel to [`Game::actions`].
    pub fn action_dice(&self) -> &[Option<Dice>] {
        &self.action_dice
    }

    /// The moves played so far (passes included), without setup.
    pub fn moves(&self) -> impl Iterator<Item = (Color, Option<Point>)> + '_ {
        self.actions.iter().filter_map(|a| match a {
            Action::Move(c, m, _) => Some((*c, *m)),
            Action::Setup(_) => None,
        })
    }

    /// The board as it stood `back` actions ago (1: before the last move
    /// or setup), if the game goes back that far: always for 1 and 2 (what
    /// the network's inputs read), further back only where it was kept.
    pub fn earlier_board(&self, back: usize) -> Option<&Board> {
        let n = self.earlier.len();
        if back < 1 || back > n {
            return None;
        }
        let kept = self.earlier[n - back].board.as_deref();
        // Undo keeps the two boards the network's inputs read.
        debug_assert!(kept.is_some() || back > 2);
        kept
    }

    /// The moves since the last setup (handicap or `gogui-setup`), the
    /// latest first.
    pub fn moves_since_setup(&self) -> impl Iterator<Item = (Color, Option<Point>)> + '_ {
        self.actions.iter().rev().map_while(|a| match a {
            Action::Move(c, m, _) => Some((*c, *m)),
            Action::Setup(_) => None,
        })
    }

    pub fn move_count(&self) -> usize {
        self.moves().count()
    }

    pub fn last_move(&self) -> Option<(Color, Option<Point>)> {
        match self.actions.last() {
            Some(Action::Move(c, m, _)) => Some((*c, *m)),
            _ => None,
        }
    }

    /// Whether the last two moves were passes and Black's was the last one
    /// (then White's extra pass applies under the rules that have it).
    pub fn black_passed_last(&self) -> bool {
        matches!(self.last_move(), Some((Color::Black, None)))
    }

    /// Checks `color` playing `p` under every rule, without playing it.
    pub fn check(&self, color: Color, p: Point) -> Result<(), Illegal> {
        let board = &self.now.board;
        board.check(color, p, self.rules.suicide)?;
        self.repeats(color, board.hash_after(color, p))
    }

    /// The board after `color` plays `p`, if legal.
    fn after(&self, color: Color, p: Point) -> Result<Board, Illegal> {
        let board = &self.now.board;
        board.check(color, p, self.rules.suicide)?;
        let mut next = board.clone();
        next.place(color, p);
        debug_assert_eq!(next.hash(), board.hash_after(color, p));
        self.repeats(color, next.hash())?;
        Ok(next)
    }

    /// The hashes of the positions `color`'s move may not make under the
    /// game's ko rule: the last earlier one under simple ko; under
    /// positional superko this one and every earlier one; under situational
    /// superko those of them with `color`'s opponent to move.
    fn forbidden_hashes(&self, color: Color) -> impl Iterator<Item = u64> + '_ {
        let next_to_move = color.opponent();
        let (now, from) = match self.rules.ko {
            Ko::Simple => (None, self.earlier.len().saturating_sub(1)),
            Ko::Positional | Ko::Situational => {
                (Some((self.now.board.hash(), self.now.turn.to_move)), 0)
            }
        };
        let situational = self.rules.ko == Ko::Situational;
        // Only situational superko reads who was to move, a position's
        // record at a time; the others read the hashes alone.
        let earlier = self.earlier_hashes[from..].iter().enumerate();
        let now = now
            .filter(move |&(_, to_move)| !situational || to_move == next_to_move)
            .map(|(hash, _)| hash);
        now.into_iter().chain(
            earlier
                .filter(move |&(k, _)| {
                    !situational || self.earlier[from + k].turn.to_move == next_to_move
                })
                .map(|(_, &hash)| hash),
        )
    }

    /// Puts into `hashes` (cleared first) those of the positions `color`'s
    /// move may not make under the ko rule, side by side: many moves'
    /// hashes checked against them read one short list rather than the
    /// game's history each.
    pub fn collect_forbidden_hashes(&self, color: Color, hashes: &mut Vec<u64>) {
        hashes.clear();
        hashes.extend(self.forbidden_hashes(color));
    }

    /// Whether `color`'s move to the position of hash `hash` repeats one
    /// the ko rule forbids (the last one under simple ko).
    fn repeats(&self, color: Color, hash: u64) -> Result<(), Illegal> {
        let repeats = self.forbidden_hashes(color).any(|h| h == hash);
        if repeats {
            return Err(if self.rules.ko == Ko::Simple {
                Illegal::Ko
            } else {
                Illegal::Superko
            });
        }
        Ok(())
    }

    fn push(&mut self, action: Action) {
        // The position leaving the recent ones gives up its board unless it
        // is a checkpoint; its box then holds the position now.
        let n = self.earlier.len();
        let freed = (n >= RECENT_BOARDS && !(n - RECENT_BOARDS).is_multiple_of(CHECKPOINT_EVERY))
            .then(|| self.earlier[n - RECENT_BOARDS].board.take())
            .flatten();
        let board = match freed {
            Some(mut b) => {
                b.as_mut().clone_from(&self.now.board);
                b
            }
            None => Box::new(self.now.board.clone()),
        };
        self.earlier_hashes.push(self.now.board.hash());
        self.earlier.push(Past {
            turn: self.now.turn,
            rolls: RollsAt::of(&self.now.rolls),
            board: Some(board),
        });
        self.actions.truncate(self.now.turn.actions);
        self.action_dice.truncate(self.now.turn.actions);
        self.actions.push(action);
        self.action_dice.push(self.dice);
        self.now.turn.actions = self.actions.len();
    }

    /// Plays a stone or (with `None`) a pass for `color`. Under Aléago a
    /// pending roll of `color` must allow the point.
    pub fn play(&mut self, color: Color, mv: Option<Point>) -> Result<(), Illegal> {
        self.play_checked(color, mv, true)
    }

    /// [`Game::play`] for a move of a record, which is history rather than
    /// a proposal: as KataGo loads a record (`makeBoardMoveTolerant`), a
    /// move that repeats a position or is a suicide is played whatever
    /// the ko and suicide rules, so that a record made under other rules
    /// (or before the rules changed) loads; an occupied point is still
    /// refused.
    pub fn play_recorded(&mut self, color: Color, mv: Option<Point>) -> Result<(), Illegal> {
        self.play_checked(color, mv, false)
    }

    fn play_checked(
        &mut self,
        color: Color,
        mv: Option<Point>,
        by_rules: bool,
    ) -> Result<(), Illegal> {
        let roll = self.pending_roll(color);
        match mv {
            Some(p) => {
                let board = match by_rules {
                    true => self.after(color, p)?,
                    false => {
                        self.now.board.check(color, p, Suicide::Allowed)?;
                        let mut next = self.now.board.clone();
                        next.place(color, p);
                        next
                    }
                };
                if let Some(allowed) = self.allowed_points(color)
                    && !allowed.contains(&p)
                {
                    return Err(Illegal::NotOnRolledLine);
                }
                self.push(Action::Move(color, mv, roll));
                self.now.board = board;
                self.now.turn.consecutive_passes = 0;
            }
            None => {
                self.push(Action::Move(color, None, roll));
                self.now.board.clear_ko();
                self.now.turn.consecutive_passes += 1;
                self.now.turn.passes[color.index()] += 1;
            }
        }
        self.now.turn.pending[color.index()] = None;
        self.now.turn.to_move = color.opponent();
        self.now.turn.opening = self.now.turn.opening.after(color, mv);
        Ok(())
    }

    /// The Aléago dice, if the variant is on.
    pub fn dice(&self) -> Option<Dice> {
        self.dice
    }

    /// Turns the variant on (or off with `None`) or changes its options;
    /// clears the pending rolls, now and in the states undo goes back to:
    /// a roll drawn under other dice means nothing under these.
    pub fn set_dice(&mut self, dice: Option<Dice>) {
        self.dice = dice;
        self.now.turn.pending = [None; 2];
        for past in &mut self.earlier {
            past.turn.pending = [None; 2];
        }
    }

    /// Reseeds the generator of the rolls.
    pub fn seed_rolls(&mut self, seed: u64) {
        self.now.rolls = ChaCha8Rng::seed_from_u64(seed);
    }

    /// The roll waiting for `color`'s next move.
    pub fn pending_roll(&self, color: Color) -> Option<u32> {
        self.now.turn.pending[color.index()]
    }

    /// Under the dice's referee mode (kosumi rolls for every move of both
    /// sides), draws `color`'s roll unless one is pending; the roll.
    pub fn referee_roll(&mut self, color: Color) -> Option<u32> {
        if self.dice.is_some_and(|d| d.referee) {
            self.roll(color)
        } else {
            self.pending_roll(color)
        }
    }

    /// Rolls for `color`'s next move (a pending roll is answered again).
    /// `None` if the variant is off or `color` is exempt.
    pub fn roll(&mut self, color: Color) -> Option<u32> {
        let dice = self.dice.filter(|d| d.rolls_for(color))?;
        if let Some(t) = self.now.turn.pending[color.index()] {
            return Some(t);
        }
        let total = dice.roll(&mut self.now.rolls);
        self.now.turn.pending[color.index()] = Some(total);
        Some(total)
    }

    /// Sets `color`'s pending roll to a roll made elsewhere (`None` clears it).
    pub fn set_roll(&mut self, color: Color, total: Option<u32>) {
        self.now.turn.pending[color.index()] = total;
    }

    /// The points `color` may play under its pending roll (empty: only pass),
    /// or `None` when no roll constrains it.
    pub fn allowed_points(&self, color: Color) -> Option<Vec<Point>> {
        let dice = self.dice.filter(|d| d.rolls_for(color))?;
        let total = self.now.turn.pending[color.index()]?;
        let board = &self.now.board;
        let (sets, n) = dice.line_sets(total, dice::top_line(self.size()));
        for &lines in &sets[..n] {
            let points: Vec<Point> = board
                .empty_points()
                .iter()
                .copied()
                .filter(|&p| lines & (1 << board.line(p)) != 0 && self.check(color, p).is_ok())
                .collect();
            if !points.is_empty() {
                let mut points = points;
                points.sort_unstable();
                return Some(points);
            }
        }
        Some(Vec::new())
    }

    /// Puts stones on the board as one undoable step (handicap or setup).
    /// Fails, changing nothing, if a stone would be illegal (occupied, suicide).
    pub fn setup(&mut self, stones: &[(Color, Point)], handicap: bool) -> Result<(), Illegal> {
        let mut board = self.now.board.clone();
        for &(c, p) in stones {
            board.play(c, p, self.rules.suicide)?;
            if board.color_at(p) != Some(c) {
                return Err(Illegal::Suicide);
            }
        }
        board.clear_ko();
        self.push(Action::Setup(stones.to_vec()));
        self.now.board = board;
        // Stones set up among the moves, or White's, end the opening run
        // (KataGo: a set-up position with White stones is no handicap game).
        let opening = self.now.turn.opening;
        if opening != Opening::Black(Run::default())
            || stones.iter().any(|&(c, _)| c == Color::White)
        {
            self.now.turn.opening = Opening::Over(opening.run());
        }
        if handicap {
            self.now.turn.handicap += stones.len() as u32;
            self.now.turn.to_move = Color::White;
        }
        Ok(())
    }

    /// Takes back the last move or setup; false if there is none.
    pub fn undo(&mut self) -> bool {
        let Some(past) = self.earlier.pop() else {
            return false;
        };
        self.earlier_hashes.pop();
        let board = match past.board {
            Some(b) => *b,
            None => self.rebuilt(self.earlier.len()),
        };
        self.now = State {
            board,
            turn: past.turn,
            rolls: past.rolls.generator(),
        };
        self.actions.truncate(self.now.turn.actions);
        self.action_dice.truncate(self.now.turn.actions);
        // The network's inputs read the two boards before this one.
        let n = self.earlier.len();
        for k in n.saturating_sub(2)..n {
            if self.earlier[k].board.is_none() {
                self.earlier[k].board = Some(Box::new(self.rebuilt(k)));
            }
        }
        true
    }

    /// The board of earlier position `k` (before action `k`), replayed from
    /// the nearest kept board at or before it.
    fn rebuilt(&self, k: usize) -> Board {
        let from = (0..=k)
            .rev()
            .find(|&j| self.earlier.get(j).is_some_and(|p| p.board.is_some()))
            .expect("the first position keeps its board");
        let mut board = *self.earlier[from].board.clone().expect("a kept board");
        for action in &self.actions[from..k] {
            match action {
                Action::Move(c, Some(p), _) => {
                    board.place(*c, *p);
                }
                Action::Move(_, None, _) => board.clear_ko(),
                Action::Setup(stones) => {
                    for &(c, p) in stones {
                        board.place(c, p);
                    }
                    board.clear_ko();
                }
            }
        }
        board
    }

    /// Points where `color` may play now under every rule.
    pub fn legal_points(&self, color: Color) -> Vec<Point> {
        let board = &self.now.board;
        board
            .points()
            .filter(|&p| self.check(color, p).is_ok())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::vertex::parse_vertex;

    fn pt(g: &Game, v: &str) -> Point {
        parse_vertex(v, g.size()).unwrap().unwrap()
    }

    fn play(g: &mut Game, c: Color, v: &str) -> Result<(), Illegal> {
        let p = parse_vertex(v, g.size()).unwrap();
        g.play(c, p)
    }

    #[test]
    fn undo_after_a_change_of_dice_brings_back_no_roll_of_the_old_dice() {
        let mut g = Game::new(9, Rules::default(), 7.5);
        g.set_dice(Some(Dice::parse("1d8").unwrap()));
        g.set_roll(Color::Black, Some(7));
        assert!(g.allowed_points(Color::Black).is_some());
        let p = g.allowed_points(Color::Black).unwrap()[0];
        g.play(Color::Black, Some(p)).unwrap();
        g.set_dice(Some(Dice::parse("1d4").unwrap()));
        assert!(g.undo());
        // 7 cannot be rolled with 1d4: it must not come back.
        assert_eq!(g.pending_roll(Color::Black), None);
        let total = g.roll(Color::Black).unwrap();
        assert!((1..=4).contains(&total), "{total}");
    }

    /// A ko on 5×5: Black's last move captures at C3, and White may not
    /// retake at B3.
    const KO_MOVES: [(Color, &str); 9] = [
        (Color::Black, "B4"),
        (Color::White, "C4"),
        (Color::Black, "A3"),
        (Color::White, "D3"),
        (Color::Black, "B2"),
        (Color::White, "C2"),
        (Color::Black, "E5"),
        (Color::White, "B3"),
        (Color::Black, "C3"),
    ];

    fn ko_game(rules: &str) -> Game {
        let mut g = Game::new(5, Rules::preset(rules).unwrap(), 0.0);
        for (c, v) in KO_MOVES {
            play(&mut g, c, v).unwrap();
        }
        g
    }

    #[test]
    fn ko_cannot_be_retaken_at_once_under_every_rule() {
        for rules in Rules::preset_names() {
            let mut g = ko_game(rules);
            let err = play(&mut g, Color::White, "B3").unwrap_err();
            assert!(matches!(err, Illegal::Ko | Illegal::Superko), "{rules}");
            play(&mut g, Color::White, "E1").unwrap();
            play(&mut g, Color::Black, "A5").unwrap();
            play(&mut g, Color::White, "B3").unwrap();
        }
    }

    #[test]
    fn undo_restores_everything() {
        let mut g = ko_game("egc2011");
        let before = g.board().to_ascii();
        let hash = g.board().hash();
        play(&mut g, Color::White, "pass").unwrap();
        assert_eq!(g.pass_stones(Color::White), 1);
        assert!(g.undo());
        assert_eq!(g.pass_stones(Color::White), 0);
        assert_eq!(g.board().to_ascii(), before);
        assert_eq!(g.board().hash(), hash);
        assert_eq!(g.board().ko(), Some((pt(&g, "B3"), Color::White)));
        while g.undo() {}
        assert_eq!(g.board().stone_count(), 0);
        assert_eq!(g.board().captures(Color::Black), 0);
        assert!(g.actions().is_empty());
    }

    #[test]
    fn suicide_is_the_opponents_prisoners() {
        let mut g = Game::new(5, Rules::preset("tromp-taylor").unwrap(), 0.0);
        play(&mut g, Color::White, "B1").unwrap();
        play(&mut g, Color::White, "A2").unwrap();
        play(&mut g, Color::Black, "A1").unwrap_err(); // recreates the position
        play(&mut g, Color::White, "B2").unwrap();
        let mut h = Game::new(5, Rules::preset("new-zealand").unwrap(), 0.0);
        for v in ["B1", "B2", "A3"] {
            play(&mut h, Color::White, v).unwrap();
        }
        play(&mut h, Color::Black, "A1").unwrap();
        assert_eq!(play(&mut h, Color::Black, "C1"), Ok(()));
        assert_eq!(play(&mut h, Color::Black, "A2"), Ok(()));
        assert_eq!(h.board().captures(Color::White), 2);
    }

    #[test]
    fn positional_and_situational_superko_differ() {
        // Black's two-stone suicide recreates the position before A1, but with
        // White to move: a repeat for positional superko, not for situational.
        for (rules, legal) in [("egc2011", false), ("new-zealand", true)] {
            let mut g = Game::new(5, Rules::preset(rules).unwrap(), 0.0);
            for v in ["B1", "B2", "A3"] {
                play(&mut g, Color::White, v).unwrap();
            }
            play(&mut g, Color::Black, "A1").unwrap();
            play(&mut g, Color::White, "pass").unwrap();
            assert_eq!(play(&mut g, Color::Black, "A2").is_ok(), legal, "{rules}");
        }
    }

    #[test]
    fn the_forbidden_hashes_are_the_repeats_a_check_refuses() {
        // Random games on 4×4 (captures, kos and repeats galore) under each
        // ko rule: a legal placement is refused as a repeat exactly where
        // the position it makes is among the collected hashes.
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(5);
        let mut hashes = Vec::new();
        for rules in ["chinese", "new-zealand", "japanese", "tromp-taylor"] {
            let mut refused = 0;
            for _ in 0..20 {
                let mut g = Game::new(4, Rules::preset(rules).unwrap(), 0.5);
                for _ in 0..60 {
                    for c in [Color::Black, Color::White] {
                        g.collect_forbidden_hashes(c, &mut hashes);
                        let board = g.board();
                        for &p in board.empty_points() {
                            let repeats =
                                matches!(g.check(c, p), Err(Illegal::Ko | Illegal::Superko));
                            let placeable = board.check(c, p, g.rules.suicide).is_ok();
                            let forbidden = hashes.contains(&board.hash_after(c, p));
                            assert_eq!(repeats, placeable && forbidden, "{rules} {p}");
                            refused += usize::from(repeats);
                        }
                    }
                    let c = g.to_move();
                    let legal = g.legal_points(c);
                    let mv = (!legal.is_empty() && rng.random_range(0..8) > 0)
                        .then(|| legal[rng.random_range(0..legal.len())]);
                    g.play(c, mv).unwrap();
                }
            }
            assert!(refused > 0, "{rules}: no repeat refused");
        }
    }

    /// A long game with captures, passes and a setup, taken back move by
    /// move (with replays in between), shows at every step the board, ko,
    /// captures and counts it had, though most earlier boards are not kept.
    #[test]
    fn undo_far_back_restores_every_position() {
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(7);
        let mut g = Game::new(5, Rules::preset("egc2011").unwrap(), 0.5);
        let shot = |g: &Game| {
            (
                g.board().to_ascii(),
                g.board().hash(),
                g.board().ko(),
                g.board().captures(Color::Black),
                g.board().captures(Color::White),
                g.to_move(),
                g.pass_stones(Color::Black),
                g.actions().len(),
            )
        };
        let mut seen = vec![shot(&g)];
        // A ko taken, then a pass, which lifts the ko.
        for (c, v) in KO_MOVES.into_iter().chain([(Color::White, "pass")]) {
            play(&mut g, c, v).unwrap();
            seen.push(shot(&g));
        }
        assert!(seen[9].2.is_some() && seen[10].2.is_none());
        while seen.len() < 600 {
            let c = g.to_move();
            let free = g.legal_points(Color::Black);
            if seen.len() >= 40 && seen.len() % 40 == 0 && !free.is_empty() {
                g.setup(&[(Color::Black, free[0])], false).unwrap();
            } else {
                let legal = g.legal_points(c);
                let mv = (rng.random_range(0..4) > 0 && !legal.is_empty())
                    .then(|| legal[rng.random_range(0..legal.len())]);
                g.play(c, mv).unwrap();
            }
            seen.push(shot(&g));
        }
        assert!(g.board().captures(Color::Black) + g.board().captures(Color::White) > 20);
        let mut at = seen.len() - 1;
        while at > 0 {
            // Now and then a short excursion, taken back at once.
            if at % 17 == 0 {
                let c = g.to_move();
                for _ in 0..12 {
                    let legal = g.legal_points(c);
                    let _ = g.play(g.to_move(), legal.first().copied());
                }
                while g.actions().len() > at {
                    assert!(g.undo());
                }
                assert!(shot(&g) == seen[at], "after an excursion at {at}");
            }
            assert!(g.undo());
            at -= 1;
            assert!(shot(&g) == seen[at], "position {at}");
            for back in 1..=2.min(at) {
                assert!(g.earlier_board(back).is_some(), "{back} before {at}");
            }
        }
        assert!(!g.undo());
    }

    /// KataGo's `computeNumHandicapStones` with
    /// `assumeMultipleStartingBlackMovesAreHandicap`, case by case.
    #[test]
    fn opening_black_moves_count_as_handicap_as_katago_counts_them() {
        let cases: [(&[&str], u32); 8] = [
            (&["b D4", "b Q16", "b D16", "b Q4", "w K10", "b C3"], 4),
            (&["b D4", "w Q16", "b D16"], 0),
            (&["b D4", "w pass", "b Q16", "w pass", "b D16", "w K10"], 3),
            (&["b D4", "b pass", "b Q16", "w K10"], 2),
            (&["b D4", "b Q16", "w K10", "w K11"], 0),
            (&["b D4", "b Q16", "w pass", "w K11"], 0),
            (&["b D4", "b Q16", "w K10", "b C3", "w K11", "w K12"], 2),
            (&["w K10", "b D4", "b Q16"], 0),
        ];
        for (moves, handicap) in cases {
            let mut g = Game::new(19, Rules::preset("chinese").unwrap(), 0.5);
            for m in moves {
                let (c, v) = m.split_once(' ').unwrap();
                let c = if c == "b" { Color::Black } else { Color::White };
                play(&mut g, c, v).unwrap();
            }
            assert_eq!(g.handicap(), handicap, "{moves:?}");
            while g.undo() {}
            assert_eq!(g.handicap(), 0);
        }
        // Set-up handicap stones and opening moves add up.
        let mut g = Game::new(19, Rules::preset("chinese").unwrap(), 0.5);
        g.setup(
            &[(Color::Black, pt(&g, "D4")), (Color::Black, pt(&g, "Q16"))],
            true,
        )
        .unwrap();
        play(&mut g, Color::Black, "D16").unwrap();
        play(&mut g, Color::White, "K10").unwrap();
        assert_eq!((g.handicap(), g.handicap_set_up()), (3, 2));
    }
}
