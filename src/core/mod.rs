//! The toolbox under the rules: seeded random numbers ([`random`]: SplitMix64
//! and the per-search variation of a seed), options set by name with typed
//! errors ([`setting`]), the user's files written whole or not at all
//! ([`files`]), how many threads run at once ([`concurrency`]) and what
//! differs between operating systems ([`os`]). Nothing here knows about Go.

pub mod concurrency;
pub mod files;
pub mod os;
pub mod random;
pub mod setting;
