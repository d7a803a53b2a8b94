//! Move prediction from learned patterns: each feature of a move (see
//! [`features`]) has a strength γ fitted to strong players' moves by
//! minorization-maximization (Coulom 2007, in the
//! tool `kosumi train-patterns`, `src/tools/train_patterns.rs`), and a move's
//! probability is the product of its features' strengths over the sum of
//! those products for every legal move. The trained table ships in the
//! repository (`src/knowledge/prediction/model.bin`) and is built into the binary.

pub mod features;
pub mod spatial;

use crate::go::board::Point;
use features::{Position, TACTICAL};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Pattern names are Zobrist hashes, already uniform: the map uses them as
/// they are instead of hashing them again.
#[derive(Default)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Names = HashMap<u64, u32, BuildHasherDefault<NameHasher>>;

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"KOSUMIP1";

/// Feature strengths and the spatial patterns they name.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// γ of every feature: the tactical ones, then one per pattern.
    pub gammas: Vec<f32>,
    /// Pattern name (hash) to feature number.
    pub patterns: Names,
}

impl Model {
    /// A model of the patterns `names` (features `TACTICAL..`), every γ 1.
    pub fn new(names: &[u64]) -> Model {
        Model {
            gammas: vec![1.0; TACTICAL as usize + names.len()],
            patterns: names
                .iter()
                .enumerate()
                .map(|(i, &h)| (h, TACTICAL + i as u32))
                .collect(),
        }
    }

    /// The model built into the binary.
    pub fn embedded() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            Model::from_bytes(include_bytes!("model.bin")).expect("the built-in model is valid")
        })
    }

    /// All features of `p` (tactical, then the pattern) into `out`.
    pub fn features(&self, pos: &Position, p: Point, out: &mut Vec<u32>) {
        features::tactical(pos, p, out);
        let known = |h| self.patterns.contains_key(&h);
        if let Some(name) = features::largest_known(pos, p, known) {
            out.push(self.patterns[&name]);
        }
    }

    /// The strength of a move with `features`: the product of their γ.
    pub fn strength(&self, features: &[u32]) -> f32 {
        features.iter().map(|&f| self.gammas[f as usize]).product()
    }

    /// The table as bytes: magic, pattern count, γ (f32), names (u64),
    /// little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut names = vec![0u64; self.patterns.len()];
        for (&h, &f) in &self.patterns {
            names[(f - TACTICAL) as usize] = h;
        }
        let mut out = MAGIC.to_vec();
        out.extend((names.len() as u32).to_le_bytes());
        for g in &self.gammas {
            out.extend(g.to_le_bytes());
        }
        for h in names {
            out.extend(h.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Model, String> {
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or("not a kosumi pattern table")?;
        let count = u32::from_le_bytes(rest.get(..4).ok_or("truncated")?.try_into().unwrap());
        let count = count as usize;
        let features = TACTICAL as usize + count;
        let want = 4 + 4 * features + 8 * count;
        if rest.len() != want {
            return Err(format!("{} bytes where {want} were expected", rest.len()));
        }
        let gammas: Vec<f32> = rest[4..4 + 4 * features]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        if gammas.iter().any(|g| !g.is_finite() || *g <= 0.0) {
            return Err("a strength is not a positive number".into());
        }
        let names: Vec<u64> = rest[4 + 4 * features..]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let mut model = Model::new(&names);
        model.gammas = gammas;
        Ok(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_as_written_and_nonsense_is_refused() {
        let mut m = Model::new(&[11, 22, 33]);
        m.gammas[3] = 2.5;
        m.gammas[TACTICAL as usize + 1] = 0.25;
        let bytes = m.to_bytes();
        assert_eq!(Model::from_bytes(&bytes).unwrap(), m);
        assert!(Model::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(Model::from_bytes(b"nonsense").is_err());
        // A move's pattern feature is the largest known pattern around it.
        let board = crate::go::board::Board::new(9);
        let p = board.point(4, 4);
        let pos = Position::new(&board, crate::go::board::Color::Black, None, None);
        let names = features::spatial(&pos, p);
        let known = Model::new(&[names[0], names[1], names[2], 7]);
        let mut found = Vec::new();
        known.features(&pos, p, &mut found);
        assert_eq!(found.last(), Some(&(TACTICAL + 2)));
        Model::new(&[5]).features(&pos, p, &mut found);
        assert!(found.iter().all(|&f| f < TACTICAL), "{found:?}");
    }

    #[test]
    fn the_built_in_table_loads() {
        let m = Model::embedded();
        assert!(m.patterns.len() > 100);
        assert!(m.gammas.iter().all(|g| g.is_finite() && *g > 0.0));
    }
}
