//! The engine's settings from the command line: how to search (one
//! [`SearchConfig`]), the network, the phantom conventions, pondering, and
//! what to draw for GoGui.

use crate::search::{self, SearchConfig};
use std::sync::Arc;

/// Search and engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// How every search of the engine runs.
    pub search: SearchConfig,
    /// Phantom player: how it searches, and its playout policy.
    pub phantom_mode: crate::phantom::player::Mode,
    pub phantom_policy: search::mc::Policy,
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
    /// The neural network (`None` with `--nn off`).
    pub network: Option<Arc<crate::nn::Evaluator>>,
    /// A second, human-like net beside it (KataGo's `-human-model`): a
    /// playing level draws its moves from this net's policy under the
    /// rank's profile, `kata-raw-human-nn` shows it, and the JSON engine
    /// reports its policy as `humanPolicy`.
    pub human_network: Option<Arc<crate::nn::Evaluator>>,
    /// Choose moves by the network's PUCT search where it applies (plain
    /// Go: no dice, no phantom role) instead of Monte Carlo.
    pub net_search: bool,
    /// What `version` answers in place of kosumi's own version, where the
    /// user asks (`--override-version`, KataGo's option of the same name,
    /// for clients that judge an engine by its version).
    pub version: Option<String>,
    /// What `name` answers in place of "kosumi", where the user asks
    /// (`--name`: Lizzie's KataGo mode is for a name starting "KataGo").
    pub name: Option<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            search: SearchConfig::default(),
            phantom_mode: crate::phantom::player::Mode::Auto,
            phantom_policy: search::mc::Policy::Light,
            phantom_host: None,
            ponder: false,
            live_gfx: false,
            network: None,
            human_network: None,
            net_search: false,
            version: None,
            name: None,
        }
    }
}
