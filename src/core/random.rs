//! The fixed-formula randomness shared across the engine: SplitMix64 (the
//! Zobrist keys of the board and the pattern keys of the move predictor,
//! the same in every build) and the one way a seed is varied for the n-th
//! search, game or choice.

/// The golden-ratio increment of SplitMix64 (and of the seed variation).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64: the output for the generator state `x` (which then moves
/// on to `x + GAMMA`); usable at compile time.
pub const fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 sequence from `state`.
pub fn splitmix_sequence(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        let out = splitmix(state);
        state = state.wrapping_add(GAMMA);
        out
    }
}

/// The seed of the `n`-th search, game or choice made from `base`.
pub fn nth_seed(base: u64, n: u64) -> u64 {
    base ^ n.wrapping_mul(GAMMA)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_outputs() {
        // Vigna's splitmix64.c from state 0: the first two outputs.
        let mut next = splitmix_sequence(0);
        assert_eq!(next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn the_zeroth_seed_is_the_base_and_others_differ() {
        assert_eq!(nth_seed(42, 0), 42);
        assert_ne!(nth_seed(42, 1), nth_seed(42, 2));
    }
}
