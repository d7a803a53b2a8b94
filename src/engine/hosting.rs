//! A hosted phantom game as a controller drives it: the person's tries in
//! the order `play` sent them, and the hosted game after each. GoGui's
//! ruler clears the board and replays the whole move list after every
//! move; a replayed try is answered from the record at no cost, and only a
//! new try reaches the referee. A try that differs from the record where
//! the controller has rewound (a variation in GoGui's tree) starts a branch
//! there. After its replay GoGui's ruler sends the new move once more: a
//! `play` repeating at once a new try that came right after a cleared
//! board and its replay is the same try. Anywhere else a repeated try is
//! another one (the person's second pass in a row, as GoGui's program
//! process hears it: one `play` a move, no replays). Tries are
//! judged when something reads the game, so that a
//! controller that only sends moves (GoGui's program, beside its ruler)
//! costs nothing.

use crate::core::random::splitmix;
use crate::go::board::{Color, Point};
use crate::phantom::host::Host;
use crate::phantom::player;
use std::sync::atomic::AtomicBool;

#[derive(Clone)]
pub struct Hosting {
    /// The hosted game before any of the person's tries, then after each
    /// one judged so far.
    states: Vec<Host>,
    /// The person's tries as `play` sent them; `states[k + 1]` follows
    /// `tries[k]`.
    tries: Vec<(Color, Option<Point>)>,
    /// The tries the controller has sent since it last cleared the board.
    cursor: usize,
    /// Whether the controller has cleared the board since the last new
    /// try (it replays then).
    rewound: bool,
    /// Whether the last `play` was a new try (not a replay) that came
    /// right after a cleared board and its replay: the try GoGui's ruler
    /// sends once more.
    last_new_after_rewind: bool,
}

impl Hosting {
    /// Hosting from `start` (kosumi's seats have tried up to the person's
    /// turn).
    pub fn new(start: Host) -> Hosting {
        Hosting {
            states: vec![start],
            tries: Vec::new(),
            cursor: 0,
            rewound: false,
            last_new_after_rewind: false,
        }
    }

    /// The hosted game at the controller's position (its last judged state
    /// up to there).
    pub fn current(&self) -> &Host {
        &self.states[self.cursor.min(self.states.len() - 1)]
    }

    /// The game before the person's first try.
    pub fn first(&self) -> &Host {
        &self.states[0]
    }

    /// Whether the person has tried yet.
    pub fn person_tried(&self) -> bool {
        !self.tries.is_empty()
    }

    /// The controller cleared the board: the tries it sends next are
    /// replayed from the record.
    pub fn rewind(&mut self) {
        self.cursor = 0;
        self.rewound = true;
        self.last_new_after_rewind = false;
    }

    /// Whether the tries up to the controller's position are all judged.
    pub fn caught_up(&self) -> bool {
        self.states.len() > self.cursor
    }

    /// A fingerprint of the person's first `n` tries: the seed of kosumi's
    /// answers to them, so that every process hosting the same game (GoGui
    /// runs a ruler and a program) answers the same tries alike.
    fn fingerprint(&self, n: usize) -> u64 {
        self.tries[..n].iter().fold(n as u64, |h, &(c, mv)| {
            let code = (c.index() as u64) << 16 | u64::from(mv.unwrap_or(u16::MAX));
            splitmix(h ^ splitmix(code))
        })
    }

    /// The person's try by `play`: a replay of the record, or a new try
    /// (judged later, by [`Hosting::catch_up`]). Refused at once where the
    /// game before it is known: not the person's colour, the game over, or
    /// a point their board shows a stone on.
    pub fn play(&mut self, color: Color, mv: Option<Point>) -> Result<(), String> {
        let host = self.current();
        if color != host.human_color() {
            return Err(format!(
                "the person plays seat {} only ({}): a record with the other colour's moves \
                 does not fit this hosted game; a new game (clear_board) starts it again",
                host.human,
                crate::go::vertex::color_name(host.human_color())
            ));
        }
        if self.tries.get(self.cursor) == Some(&(color, mv)) {
            self.cursor += 1;
            self.last_new_after_rewind = false;
            return Ok(());
        }
        // GoGui's ruler clears the board, replays the move list, sends the
        // new move and then sends it once more: the same try, not a second
        // one.
        if self.last_new_after_rewind
            && self.cursor == self.tries.len()
            && self.tries.last() == Some(&(color, mv))
        {
            self.last_new_after_rewind = false;
            return Ok(());
        }
        if self.caught_up() {
            if host.referee().result().is_some() {
                return Err("the phantom game is over".into());
            }
            if let Some(p) = mv
                && host.shown().board().color_at(p).is_some()
            {
                return Err("your board shows a stone there".into());
            }
        }
        self.tries.truncate(self.cursor);
        self.states.truncate(self.cursor + 1);
        self.tries.push((color, mv));
        self.cursor += 1;
        self.last_new_after_rewind = std::mem::take(&mut self.rewound);
        Ok(())
    }

    /// Judges the tries up to the controller's position that are not judged
    /// yet, kosumi's seats answering each. A try the referee refuses (the
    /// game over, not the person's turn) is dropped with those after it.
    pub fn catch_up<'n>(
        &mut self,
        mut settings: impl FnMut(u64) -> player::Settings<'n>,
        stop: &AtomicBool,
    ) {
        while self.states.len() <= self.cursor {
            let k = self.states.len() - 1;
            let (_, mv) = self.tries[k];
            let mut next = self.states[k].clone();
            match next.human_try(mv, &settings(self.fingerprint(k + 1)), stop) {
                Ok(_) => self.states.push(next),
                Err(e) => {
                    log::warn!("phantom host: the person's try {k}: {e}");
                    self.tries.truncate(k);
                    self.cursor = k;
                }
            }
        }
    }
}
