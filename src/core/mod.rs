//! The toolbox under the rules: seeded random numbers ([`random`]: SplitMix64
//! and the per-search variation of a seed) and options set by name with
//! typed errors ([`setting`]). Nothing here knows about Go.

pub mod random;
pub mod setting;
