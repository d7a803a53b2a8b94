//! The engine's settings from the command line: the search's budget and
//! threads, the seed, resigning, the network, the phantom and Aléago
//! conventions, and what to draw for GoGui.

use crate::search::{self, Planning};
use std::sync::Arc;

/// Search and engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// Playouts per move, if fixed.
    pub playouts: Option<u64>,
    /// Seconds per move, if fixed.
    pub time: Option<f64>,
    pub threads: usize,
    pub seed: u64,
    /// Resign when the win rate falls below this (0 never resigns).
    pub resign: f64,
    pub max_nodes: usize,
    /// Playouts for the ownership estimate used in scoring.
    pub ownership_playouts: usize,
    /// Aléago: how the search plans for the rolls below the root.
    pub dice_planning: Planning,
    /// Phantom player: how it searches, and its playout policy.
    pub phantom_mode: crate::phantom::player::Mode,
    pub phantom_policy: search::Policy,
    /// Host a phantom game for a person at this seat (GoGui's ruler
    /// interface): the seat, Go or Rengo, the conventions.
    pub phantom_host: Option<(
        usize,
        crate::phantom::Kind,
        crate::phantom::options::Options,
    )>,
    /// Search on the opponent's time after each move played by `genmove`
    /// (stopped by the next input).
    pub ponder: bool,
    /// Write GoGui's live graphics (`gogui-gfx:` on stderr) while thinking.
    pub live_gfx: bool,
    /// Let the learned move patterns add to the search's priors.
    pub patterns: bool,
    /// The neural network (`None` with `--nn off`).
    pub network: Option<Arc<crate::nn::Evaluator>>,
    /// Choose moves by the network's PUCT search where it applies (plain
    /// Go: no dice, no phantom role) instead of Monte Carlo.
    pub net_search: bool,
    /// What `version` answers in place of kosumi's own version, where the
    /// user asks (`--override-version`, KataGo's option of the same name,
    /// for clients that judge an engine by its version).
    pub version: Option<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            playouts: None,
            time: None,
            threads: 1,
            seed: 0,
            resign: 0.1,
            max_nodes: 4_000_000,
            ownership_playouts: 1000,
            dice_planning: Planning::Chance,
            phantom_mode: crate::phantom::player::Mode::Auto,
            phantom_policy: search::Policy::Light,
            phantom_host: None,
            ponder: false,
            live_gfx: false,
            patterns: true,
            network: None,
            net_search: false,
            version: None,
        }
    }
}
