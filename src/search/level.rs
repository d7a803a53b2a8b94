//! Playing at a person's rank, as KaTrain's calibrated rank AI plays
//! (`RankStrategy` in katrain/core/ai.py, calibrated by KaTrain against
//! online ranks from 15k to 3d): from the network's policy alone, the move
//! is the best by policy among a few legal moves drawn at random, the
//! fewer the weaker the rank, the number given by KaTrain's formula of the
//! rank and of how full the board is. The policy's top move is played
//! outright where it is nearly forced (it or the top two hold most of the
//! policy), where a pass is among the top five, or where the drawn best is
//! less likely than a pass. Ranks outside KaTrain's calibrated span follow
//! the same formula; docs/strength.md has the ladder measured against GNU
//! Go and Pachi. With a human-like net (one that reads KataGo's game
//! metadata), the level is the net's profile of that rank instead, and the
//! move is drawn from the policy it gives, as KataGo's human-play
//! configuration draws it (`gtp_human5k_example.cfg`).

use crate::go::board::Point;
use crate::nn::HumanProfile;
use rand::seq::index::sample;
use rand::{Rng, RngExt};

/// A rank: KaTrain's `kyu_rank` (5k is 5, 1d is 0, 3d is −2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rank {
    kyu: f64,
}

/// The weakest and the strongest rank taken: 30k and 9d.
const WEAKEST_KYU: u32 = 30;
const STRONGEST_DAN: u32 = 9;

impl Rank {
    /// `5k`, `3d` or KataGo's profile form `rank_5k`; `max` (or `none`)
    /// for no level, the full search.
    pub fn parse(text: &str) -> Result<Option<Rank>, String> {
        let t = text.trim().to_ascii_lowercase();
        if t == "max" || t == "none" {
            return Ok(None);
        }
        let t = t.strip_prefix("rank_").unwrap_or(&t);
        let bad = || format!("'{text}' is not a rank (30k to 1k, 1d to 9d, or max)");
        // The last character is the kind (any letter, ASCII or not).
        let mut chars = t.chars();
        let kind = chars.next_back().ok_or_else(bad)?;
        let n: u32 = chars.as_str().parse().map_err(|_| bad())?;
        match kind {
            'k' if (1..=WEAKEST_KYU).contains(&n) => Ok(Some(Rank { kyu: f64::from(n) })),
            'd' if (1..=STRONGEST_DAN).contains(&n) => Ok(Some(Rank {
                kyu: 1.0 - f64::from(n),
            })),
            _ => Err(bad()),
        }
    }

    /// The human-like nets' profile of this rank: KGS games before
    /// AlphaZero (`preaz_5k`), as KataGo's human-play configuration has
    /// it; the profiles span 20k to 9d.
    pub fn human_profile(&self) -> Result<HumanProfile, String> {
        HumanProfile::parse(&format!("preaz_{}", self.name())).map_err(|_| {
            format!(
                "a human-like net plays ranks 20k to 9d (its profiles), not {}",
                self.name()
            )
        })
    }

    /// The rank as a player writes it (`5k`, `3d`).
    pub fn name(&self) -> String {
        if self.kyu >= 1.0 {
            format!("{}k", self.kyu)
        } else {
            format!("{}d", 1.0 - self.kyu)
        }
    }

    /// How many legal moves are drawn, of `legal` on a board of `squares`
    /// points (KaTrain's `RankStrategy.get_n_moves`, rounded as Python
    /// rounds, halves to even).
    pub fn moves_drawn(&self, legal: usize, squares: usize) -> usize {
        let kyu = self.kyu;
        let squares = squares as f64;
        let legal_share = legal as f64 / squares;
        let calibrated = 0.063015 + 0.7624 * squares / 10f64.powf(-0.05737 * kyu + 1.9482);
        let exponent = 3.002 * legal_share * legal_share - legal_share - 0.034889 * kyu - 0.5097;
        let modified = (0.3931 + 0.6559 * legal_share * (-(exponent * exponent)).exp()
            - 0.01093 * kyu)
            * calibrated;
        let n = squares * legal_share / (1.31165 * (modified + 1.0) - 0.082653);
        (n.round_ties_even().max(1.0)) as usize
    }

    /// The policy share above which the top move is played outright, and
    /// the share of the top two above which it is (KaTrain's overrides).
    fn overrides(&self, legal: usize, squares: usize) -> (f64, f64) {
        let filled = (squares - legal.min(squares)) as f64 / squares as f64;
        (
            0.8 * (1.0 - 0.5 * filled),
            0.85 + (0.02 * (self.kyu - 8.0)).max(0.0),
        )
    }
}

/// The move a player of `rank` chooses from `policy`: each legal move
/// (`None` a pass) with the network's probability, on a board of `squares`
/// points.
pub fn choose(
    policy: &[(Option<Point>, f32)],
    squares: usize,
    rank: Rank,
    rng: &mut impl Rng,
) -> Option<Point> {
    let mut ranked: Vec<(Option<Point>, f32)> = policy.to_vec();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(top, top_p) = ranked.first()?;
    let pass_p = ranked
        .iter()
        .find(|(m, _)| m.is_none())
        .map_or(0.0, |&(_, p)| p);
    let legal: Vec<(Point, f32)> = ranked
        .iter()
        .filter_map(|&(m, p)| m.filter(|_| p > 0.0).map(|m| (m, p)))
        .collect();
    let (single, pair) = rank.overrides(legal.len(), squares);
    let second_p = ranked.get(1).map_or(0.0, |&(_, p)| p);
    let pass_in_top_five = ranked.iter().take(5).any(|(m, _)| m.is_none());
    if pass_in_top_five || f64::from(top_p) > single || f64::from(top_p + second_p) > pair {
        return top;
    }
    let n = rank.moves_drawn(legal.len(), squares).min(legal.len());
    // Drawn uniformly without replacement; `legal` is best first, so the
    // smallest index drawn is the best move drawn.
    let best = sample(rng, legal.len(), n).into_iter().min();
    match best.map(|i| legal[i]) {
        Some((m, p)) if p >= pass_p => Some(m),
        _ => top,
    }
}

/// KataGo's temperature of the move drawn from a human-like net's policy
/// (`chosenMoveTemperatureEarly` 0.85 falling to `chosenMoveTemperature`
/// 0.70, by half every 80 moves on 19×19, faster on smaller boards) and
/// the share below which it applies (`chosenMoveTemperatureOnlyBelowProb`).
const HUMAN_TEMPERATURE_EARLY: f64 = 0.85;
const HUMAN_TEMPERATURE: f64 = 0.70;
const HUMAN_TEMPERATURE_HALFLIFE: f64 = 80.0;
const HUMAN_TEMPERATURE_BELOW: f64 = 0.01;

/// The temperature at move `turn` on a board of `squares` points
/// (KataGo's `interpolateEarly`).
pub fn human_temperature(turn: usize, squares: usize) -> f64 {
    let halflives = turn as f64 / HUMAN_TEMPERATURE_HALFLIFE * 19.0 / (squares as f64).sqrt();
    HUMAN_TEMPERATURE + (HUMAN_TEMPERATURE_EARLY - HUMAN_TEMPERATURE) * 0.5f64.powf(halflives)
}

/// The move drawn from a human-like net's `policy` (each legal move, `None`
/// a pass, with the probability the profile gives) at move `turn` on a
/// board of `squares` points: a pass where the policy's most likely move
/// is a pass, otherwise a move drawn from the policy without the pass, the
/// moves under 1% of it tempered as KataGo's `chooseIndexWithTemperature`
/// tempers them.
pub fn choose_human(
    policy: &[(Option<Point>, f32)],
    turn: usize,
    squares: usize,
    rng: &mut impl Rng,
) -> Option<Point> {
    let top = policy.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    // The likeliest move a pass: pass.
    top.0?;
    let moves = || policy.iter().filter(|(m, p)| m.is_some() && *p > 0.0);
    let max = f64::from(moves().map(|&(_, p)| p).fold(0.0, f32::max));
    let sum: f64 = moves().map(|&(_, p)| f64::from(p)).sum();
    let temperature = human_temperature(turn, squares);
    let threshold = (HUMAN_TEMPERATURE_BELOW.ln() + sum.ln() - max.ln()).min(0.0);
    let weight = |p: f32| {
        let log = (f64::from(p) / max).ln();
        if log > threshold {
            log.exp()
        } else {
            ((log - threshold) / temperature + threshold).exp()
        }
    };
    let total: f64 = moves().map(|&(_, p)| weight(p)).sum();
    let mut draw = rng.random::<f64>() * total;
    let mut chosen = None;
    for &(m, p) in moves() {
        chosen = m;
        draw -= weight(p);
        if draw < 0.0 {
            break;
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn rank(text: &str) -> Rank {
        Rank::parse(text).unwrap().unwrap()
    }

    #[test]
    fn ranks_read_as_players_and_katago_write_them() {
        assert_eq!(rank("5k").kyu, 5.0);
        assert_eq!(rank("1d").kyu, 0.0);
        assert_eq!(rank("rank_3d").kyu, -2.0);
        assert_eq!(rank("30K").name(), "30k");
        assert_eq!(rank("9d").name(), "9d");
        assert_eq!(Rank::parse("max"), Ok(None));
        for bad in [
            "0k", "31k", "10d", "5", "k", "dan", "", "rank_", "-1k", "1.5k",
        ] {
            let e = Rank::parse(bad).unwrap_err();
            assert!(e.contains("is not a rank"), "{bad}: {e}");
        }
    }

    #[test]
    fn moves_drawn_are_katrains() {
        // (size, KaTrain's kyu_rank, legal moves, KaTrain's n_moves) from
        // KaTrain 1.x's own RankStrategy.get_n_moves.
        let katrain = [
            (9, 30.0, 81, 3),
            (9, 15.0, 81, 18),
            (9, 10.0, 40, 13),
            (9, 5.0, 20, 10),
            (9, 0.0, 60, 30),
            (9, -8.0, 81, 57),
            (13, 20.0, 84, 9),
            (13, 5.0, 169, 57),
            (13, -2.0, 42, 20),
            (19, 30.0, 180, 6),
            (19, 15.0, 361, 23),
            (19, 10.0, 90, 14),
            (19, 5.0, 361, 75),
            (19, 1.0, 270, 54),
            (19, 0.0, 361, 114),
            (19, -2.0, 180, 50),
            (19, -8.0, 361, 181),
            (19, 5.0, 5, 1),
        ];
        for (size, kyu, legal, n) in katrain {
            let r = Rank { kyu };
            assert_eq!(r.moves_drawn(legal, size * size), n, "{size} {kyu} {legal}");
        }
    }

    /// A policy of `count` legal points (probabilities falling), and pass.
    fn falling_policy(count: usize, pass: f32) -> Vec<(Option<Point>, f32)> {
        let weights: Vec<f32> = (0..count).map(|i| 1.0 / (i as f32 + 2.0)).collect();
        let total: f32 = weights.iter().sum::<f32>() / (1.0 - pass);
        let mut policy: Vec<(Option<Point>, f32)> = weights
            .iter()
            .enumerate()
            .map(|(i, w)| (Some(i as Point + 100), w / total))
            .collect();
        policy.push((None, pass));
        policy
    }

    #[test]
    fn the_best_of_the_drawn_moves_follows_the_draw_distribution() {
        // 300 legal moves on 19x19 at 10k: 10 drawn; the i-th best is
        // played with probability C(299 − i, 9) / C(300, 10).
        let policy = falling_policy(300, 0.0);
        let r = rank("10k");
        let n = r.moves_drawn(300, 361);
        let mut rng = SmallRng::seed_from_u64(3);
        let draws = 20_000;
        let mut counts = vec![0usize; 300];
        for _ in 0..draws {
            let m = choose(&policy, 361, r, &mut rng).unwrap();
            counts[(m - 100) as usize] += 1;
        }
        let choose_k = |a: usize, b: usize| -> f64 {
            (0..b).map(|j| (a - j) as f64 / (b - j) as f64).product()
        };
        for i in [0, 1, 5, 20] {
            let expected = choose_k(299 - i, n - 1) / choose_k(300, n) * draws as f64;
            let seen = counts[i] as f64;
            assert!(
                (seen - expected).abs() < 4.0 * expected.sqrt() + 5.0,
                "{i}: {seen} {expected}"
            );
        }
        // Stronger ranks draw more and play the top moves more often.
        let top_share = |r: Rank, rng: &mut SmallRng| {
            (0..2000)
                .filter(|_| choose(&policy, 361, r, rng) == Some(100))
                .count()
        };
        let weak = top_share(rank("20k"), &mut rng);
        let strong = top_share(rank("3d"), &mut rng);
        assert!(strong > 2 * weak, "{weak} {strong}");
    }

    #[test]
    fn a_human_nets_move_is_drawn_from_its_tempered_policy() {
        // KataGo's schedule: 0.85 at the start, 0.775 after 80 moves on
        // 19x19, the same after 80·9/19 moves on 9x9, towards 0.70.
        assert!((human_temperature(0, 361) - 0.85).abs() < 1e-12);
        assert!((human_temperature(80, 361) - 0.775).abs() < 1e-12);
        assert!((human_temperature(80 * 9 / 19, 81) - 0.775).abs() < 0.01);
        assert!((human_temperature(2000, 361) - 0.70).abs() < 1e-6);
        // Shares 0.5, 0.3, 0.195 and 0.005 (below 1%: tempered), and a pass.
        let policy = [
            (Some(100), 0.5),
            (Some(101), 0.3),
            (Some(102), 0.195),
            (Some(103), 0.005),
            (None, 0.0),
        ];
        let t = human_temperature(0, 361);
        let threshold = (0.01f64 / 0.5).ln();
        let tempered = (((0.005f64 / 0.5).ln() - threshold) / t + threshold).exp() * 0.5;
        let total = 0.995 + tempered;
        let mut rng = SmallRng::seed_from_u64(5);
        let draws = 40_000;
        let mut counts = [0usize; 4];
        for _ in 0..draws {
            let m = choose_human(&policy, 0, 361, &mut rng).unwrap();
            counts[(m - 100) as usize] += 1;
        }
        for (i, p) in [0.5, 0.3, 0.195, tempered].iter().enumerate() {
            let expected = p / total * draws as f64;
            let seen = counts[i] as f64;
            assert!(
                (seen - expected).abs() < 4.0 * expected.sqrt() + 5.0,
                "{i}: {seen} {expected}"
            );
        }
        // The tempered move is drawn less often than its share.
        assert!(tempered < 0.005);
        // A pass the policy's most likely move: passed; otherwise never.
        let ending = [(Some(100), 0.2), (None, 0.8)];
        assert_eq!(choose_human(&ending, 200, 361, &mut rng), None);
        let open = [(Some(100), 0.6), (None, 0.4)];
        assert!((0..100).all(|_| choose_human(&open, 200, 361, &mut rng) == Some(100)));
        assert_eq!(choose_human(&[(None, 1.0)], 0, 81, &mut rng), None);
        assert_eq!(choose_human(&[], 0, 81, &mut rng), None);
    }

    #[test]
    fn a_rank_names_the_human_profile_of_its_rank() {
        assert_eq!(rank("5k").human_profile().unwrap().name(), "preaz_5k");
        assert_eq!(rank("9d").human_profile().unwrap().name(), "preaz_9d");
        assert_eq!(rank("20k").human_profile().unwrap().name(), "preaz_20k");
        let e = rank("25k").human_profile().unwrap_err();
        assert!(e.contains("20k to 9d"), "{e}");
    }

    #[test]
    fn a_forced_move_or_a_likely_pass_is_played_outright() {
        let mut rng = SmallRng::seed_from_u64(1);
        // The top move holds 90% on an empty board (above 0.8): played.
        let mut policy = falling_policy(80, 0.0);
        policy[0].1 = 0.9;
        for _ in 0..50 {
            assert_eq!(choose(&policy, 81, rank("25k"), &mut rng), Some(100));
        }
        // A pass among the top five: the top move (here the pass).
        let mut ending = falling_policy(3, 0.5);
        ending.iter_mut().take(3).for_each(|m| m.1 = 0.1);
        assert_eq!(choose(&ending, 81, rank("25k"), &mut rng), None);
        // No legal move: pass.
        assert_eq!(choose(&[(None, 1.0)], 81, rank("5k"), &mut rng), None);
        assert_eq!(choose(&[], 81, rank("5k"), &mut rng), None);
    }

    proptest::proptest! {
        /// Any text is a rank or refused naming itself, never a panic
        /// (a letter of several bytes at the end included).
        #[test]
        fn any_text_is_a_rank_or_refused(text in "\\PC{0,8}", number in 0u32..40, letter in "[kdKDä€ß]") {
            if let Err(why) = Rank::parse(&text) {
                proptest::prop_assert!(why.contains("is not a rank"));
            }
            let composed = format!("{number}{letter}");
            match Rank::parse(&composed) {
                Ok(rank) => proptest::prop_assert!(rank.is_some() && "kdKD".contains(letter.as_str())),
                Err(why) => proptest::prop_assert!(why.contains(&composed)),
            }
        }
    }
}
