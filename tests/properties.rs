//! Property tests of the rules engine: random games never panic, incremental
//! liberties equal a recount, the hash equals a recomputation, play then undo
//! restores board and hash, and SGF survives write then load, on square and
//! rectangular boards; the GTP engine answers junk and well-formed sessions
//! without an internal error.

use kosumi::go::board::{Board, BoardSize, Color, Point};
use kosumi::go::game::Game;
use kosumi::go::rules::Rules;
use proptest::prelude::*;

/// A board of `width` columns and `height` rows.
fn rectangle(width: usize, height: usize) -> BoardSize {
    BoardSize::new(width, height).unwrap()
}

/// Plays the drawn moves where legal (index into the board's points; values
/// beyond the board are passes) and returns the game.
fn play_random(size: impl Into<BoardSize>, rules: &str, moves: &[u16]) -> Game {
    let mut g = Game::new(size, Rules::preset(rules).unwrap(), 7.5);
    let points: Vec<Point> = g.board().points().collect();
    for &m in moves {
        let c = g.to_move();
        let mv = points.get(m as usize).copied();
        if g.play(c, mv).is_err() {
            g.play(c, None).unwrap();
        }
    }
    g
}

fn check_board(b: &Board) {
    assert_eq!(b.hash(), b.recompute_hash());
    assert!(b.neighbor_counts_agree(), "{}", b.to_ascii());
    // The quick liberty count of a move against the move played out.
    for &p in b.empty_points() {
        for c in [Color::Black, Color::White] {
            if b.is_suicide(c, p) {
                continue;
            }
            let mut after = b.clone();
            let placed = after.place(c, p);
            let exact = after.liberties(p).min(4);
            let quick = b.liberties_after(c, p, 4);
            if placed.captured == 0 {
                assert_eq!(quick, exact, "{c:?} at {p}\n{}", b.to_ascii());
            } else {
                assert!(quick <= exact, "{c:?} at {p}\n{}", b.to_ascii());
            }
        }
    }
    for p in b.points() {
        if b.color_at(p).is_some() {
            assert_eq!(
                b.liberties(p),
                b.recount_liberties(p),
                "at {p}\n{}",
                b.to_ascii()
            );
            assert!(b.liberties(p) > 0);
        }
    }
}

const PRESETS: [&str; 7] = [
    "chinese",
    "egc2011",
    "japanese",
    "aga",
    "new-zealand",
    "tromp-taylor",
    "simple-ko",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn liberties_and_hash_stay_exact(width in 2usize..10, height in 2usize..10, rules in 0usize..7, moves in prop::collection::vec(0u16..110, 0..250)) {
        let g = play_random(rectangle(width, height), PRESETS[rules], &moves);
        check_board(g.board());
    }

    #[test]
    fn play_then_undo_restores_everything(width in 2usize..8, height in 2usize..8, rules in 0usize..7, moves in prop::collection::vec(0u16..70, 1..120)) {
        let mut g = play_random(rectangle(width, height), PRESETS[rules], &moves);
        let mut snapshots = Vec::new();
        let mut replay = g.clone();
        while replay.undo() {
            snapshots.push((replay.board().to_ascii(), replay.board().hash()));
        }
        for (ascii, hash) in snapshots {
            prop_assert!(g.undo());
            prop_assert_eq!(g.board().to_ascii(), ascii);
            prop_assert_eq!(g.board().hash(), hash);
            check_board(g.board());
        }
        prop_assert!(!g.undo());
        prop_assert_eq!(g.board().stone_count(), 0);
        prop_assert_eq!(g.board().captures(Color::Black) + g.board().captures(Color::White), 0);
        prop_assert_eq!(g.pass_stones(Color::Black) + g.pass_stones(Color::White), 0);
    }

    #[test]
    fn a_scratch_copy_plays_on_like_a_clone(width in 2usize..10, height in 2usize..10, other in 2usize..20, split in 0usize..250, moves in prop::collection::vec(0u16..110, 0..250), lines in 0usize..4) {
        // The scratch board held another game of another size before; the
        // scratch board, the copied one, both or neither keep line lists.
        let size = rectangle(width, height);
        let mut scratch = play_random(other, "chinese", &moves).board().clone();
        scratch.keep_lines(lines & 1 != 0);
        let split = split.min(moves.len());
        let g = play_random(size, "tromp-taylor", &moves[..split]);
        let mut source = g.board().clone();
        source.keep_lines(lines & 2 != 0);
        scratch.copy_from(&source);
        // Line lists are taken back (rebuilt) on the scratch board half way
        // through, or at the end.
        let rebuild_at = split + (moves.len() - split) / 2;
        let mut clone = g.board().clone();
        let points: Vec<Point> = clone.points().collect();
        let mut c = g.to_move();
        for (k, &m) in moves.iter().enumerate().skip(split) {
            if k == rebuild_at {
                scratch.keep_lines(true);
            }
            if let Some(&p) = points.get(m as usize)
                && clone.cell(p) == kosumi::go::board::Cell::Empty
            {
                prop_assert_eq!(clone.place(c, p), scratch.place(c, p));
            }
            c = c.opponent();
        }
        scratch.keep_lines(true);
        prop_assert_eq!(scratch.to_ascii(), clone.to_ascii());
        prop_assert_eq!(scratch.hash(), clone.hash());
        prop_assert_eq!(scratch.ko(), clone.ko());
        prop_assert_eq!(scratch.empty_points().len(), clone.empty_points().len());
        for line in 1..=kosumi::go::board::top_line(size) as usize {
            let mut a = scratch.empty_points_on_line(line).to_vec();
            let mut b = clone.empty_points_on_line(line).to_vec();
            a.sort_unstable();
            b.sort_unstable();
            prop_assert_eq!(a, b);
        }
        check_board(&scratch);
    }

    #[test]
    fn sgf_survives_write_then_load(width in 2usize..10, height in 2usize..10, moves in prop::collection::vec(0u16..110, 0..120)) {
        let g = play_random(rectangle(width, height), "tromp-taylor", &moves);
        let text = kosumi::go::sgf::write(&g, None);
        let back = kosumi::go::sgf::load(&text, &Game::new(19, Rules::default(), 0.0), None).unwrap();
        prop_assert_eq!(back.size(), g.size());
        prop_assert_eq!(back.board().to_ascii(), g.board().to_ascii());
        prop_assert_eq!(back.move_count(), g.move_count());
        prop_assert_eq!(back.to_move(), g.to_move());
    }

    #[test]
    fn gtp_never_panics_on_junk(lines in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..30)) {
        let mut e = kosumi::engine::Engine::new(kosumi::engine::Config { search: kosumi::search::SearchConfig { playouts: Some(50), ..Default::default() }, ..Default::default() }, Rules::default(), 5, None);
        for l in lines {
            if let Some(r) = kosumi::frontends::gtp::execute(&mut e, &l) {
                prop_assert!(r.starts_with('=') || r.starts_with('?'));
                prop_assert!(r.ends_with("\n\n"));
            }
        }
    }

    #[test]
    fn gtp_never_panics_on_command_like_input(cmds in prop::collection::vec((0usize..kosumi::frontends::gtp::COMMANDS.len(), prop::collection::vec("[a-zA-Z0-9.-]{0,4}", 0..4)), 0..30)) {
        let mut e = kosumi::engine::Engine::new(kosumi::engine::Config { search: kosumi::search::SearchConfig { playouts: Some(30), chooser: kosumi::search::ChooserPolicy { ownership_playouts: 20, ..Default::default() }, ..Default::default() }, ..Default::default() }, Rules::default(), 5, None);
        for (i, args) in cmds {
            let name = kosumi::frontends::gtp::COMMANDS[i].name;
            if ["quit", "printsgf", "loadsgf"].contains(&name) { continue; }
            let line = format!("{name} {}", args.join(" "));
            let r = kosumi::frontends::gtp::execute(&mut e, line.as_bytes()).unwrap();
            prop_assert!(!r.contains("internal error"), "{}: {}", line, r);
        }
    }
}

/// The embedded net, loaded once for the property tests that need one.
fn shared_net() -> std::sync::Arc<kosumi::nn::Evaluator> {
    static NET: std::sync::OnceLock<std::sync::Arc<kosumi::nn::Evaluator>> =
        std::sync::OnceLock::new();
    NET.get_or_init(|| std::sync::Arc::new(kosumi::nn::Evaluator::embedded()))
        .clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every command's arguments read as any UTF-8 (letters of several
    /// bytes, a digit before one, marks alone): refused with a reason or
    /// taken, never a panic (the dispatcher's "internal error"), with the
    /// network loaded so that the readers behind it (levels, profiles,
    /// symmetries) are reached.
    #[test]
    fn every_reader_takes_any_utf8(cmds in prop::collection::vec((0usize..kosumi::frontends::gtp::COMMANDS.len(), prop::collection::vec(prop_oneof!["\\PC{0,6}", "[0-9]{1,2}[kdä€ß日]", "[a-z_]{1,8}[ä€]?", "[0-9.]{1,4}"], 0..4)), 0..24)) {
        let config = kosumi::engine::Config {
            network: Some(shared_net()),
            search: kosumi::search::SearchConfig { playouts: Some(8), chooser: kosumi::search::ChooserPolicy { ownership_playouts: 8, ..Default::default() }, ..Default::default() },
            ..Default::default()
        };
        let mut e = kosumi::engine::Engine::new(config, Rules::default(), 5, None);
        for (i, args) in cmds {
            let name = kosumi::frontends::gtp::COMMANDS[i].name;
            if ["quit", "printsgf", "loadsgf"].contains(&name) { continue; }
            let line = format!("{name} {}", args.join(" "));
            let Some(r) = kosumi::frontends::gtp::execute(&mut e, line.as_bytes()) else { continue };
            prop_assert!(!r.contains("internal error"), "{}: {}", line, r);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gtp_never_panics_in_well_formed_sessions(cmds in prop::collection::vec((0usize..28, 0usize..1000, 0usize..1000), 0..80)) {
        let mut e = kosumi::engine::Engine::new(kosumi::engine::Config { search: kosumi::search::SearchConfig { playouts: Some(40), max_nodes: 2000, chooser: kosumi::search::ChooserPolicy { ownership_playouts: 20, ..Default::default() }, ..Default::default() }, ..Default::default() }, Rules::default(), 9, None);
        let mut size = kosumi::go::board::BoardSize::square(9);
        for (kind, a, b) in cmds {
            let line = kosumi::tools::fuzzing::session_command(kind, a, b, &mut size);
            let r = kosumi::frontends::gtp::execute(&mut e, line.as_bytes()).unwrap();
            prop_assert!(!r.contains("internal error"), "{}: {}", line, r);
        }
    }
}

/// In alternating games under EGC 2011 (and AGA), the area count and the
/// Japanese-style count (territory + prisoners + pass stones) agree, in
/// handicap games too (EGC's komi N - 0.5, AGA's bonus N - 1).
#[test]
fn egc_area_and_japanese_style_counts_agree_in_alternating_games() {
    use kosumi::go::score::{Status, score};
    let mut rng_state = 12345u64;
    let mut next = || {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        rng_state
    };
    for game_no in 0..200 {
        let size = 3 + game_no % 5;
        let rules = Rules::preset(if game_no % 3 == 2 { "aga" } else { "egc2011" }).unwrap();
        let mut g = Game::new(size, rules, 7.5);
        let points: Vec<Point> = g.board().points().collect();
        // Every other game a handicap of 2 to 4 stones, White moving next.
        let handicap = if game_no % 2 == 1 { 2 + next() % 3 } else { 0 };
        let stones: Vec<(Color, Point)> = points
            .iter()
            .step_by(2)
            .take(handicap as usize)
            .map(|&p| (Color::Black, p))
            .collect();
        // Every fourth game gives it as Black moves (KataGo counts those as
        // handicap stones too), the others as set-up stones.
        if game_no % 4 == 3 {
            for &(c, p) in &stones {
                g.play(c, Some(p)).unwrap();
            }
            g.komi = rules.handicap_komi(g.handicap()).unwrap_or(0.5);
            assert_eq!(g.handicap(), handicap as u32, "game {game_no}");
        } else if stones.len() >= 2 && g.setup(&stones, true).is_ok() {
            g.komi = rules.handicap_komi(g.handicap()).unwrap_or(0.5);
        }
        for _ in 0..(next() % 80) {
            let c = g.to_move();
            let mv = if next() % 6 == 0 {
                None
            } else {
                Some(points[(next() as usize) % points.len()])
            };
            if g.play(c, mv).is_err() {
                g.play(c, None).unwrap();
            }
        }
        // End the game with two passes (Black may pass last).
        let c = g.to_move();
        g.play(c, None).unwrap();
        g.play(c.opponent(), None).unwrap();
        let status = vec![Status::Alive; kosumi::go::board::MAX_POINTS];
        let s = score(&g, &status);
        assert_eq!(
            Some(s.margin),
            s.japanese_style_margin,
            "game {game_no}\n{}",
            g.board().to_ascii()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Under Aléago every allowed point is a legal move without dice, lies on
    /// the rolled lines or below them, and the allowed set is empty only when
    /// no line from the rolled one down has a legal point.
    #[test]
    fn dice_allowed_moves_are_legal_moves(size in 3usize..14, faces in 2u32..8, moves in prop::collection::vec(0u16..200, 0..120), total_seed in 0u32..100) {
        let mut g = play_random(size, "chinese", &moves);
        let dice = kosumi::go::dice::Dice::parse(&format!("1d{faces}")).unwrap();
        g.set_dice(Some(dice));
        let total = 1 + total_seed % faces;
        let c = g.to_move();
        g.set_roll(c, Some(total));
        let allowed = g.allowed_points(c).unwrap();
        let legal = g.legal_points(c);
        let top = kosumi::go::dice::top_line(size.into());
        for &p in &allowed {
            prop_assert!(legal.contains(&p));
            prop_assert!(g.board().line(p) <= total.min(top) || total == faces);
        }
        if allowed.is_empty() {
            prop_assert!(legal.iter().all(|&p| g.board().line(p) > total.min(top)));
        }
        // Playing an allowed point succeeds; a legal point off the allowed set fails.
        if let Some(&p) = allowed.first() {
            let mut h = g.clone();
            prop_assert!(h.play(c, Some(p)).is_ok());
        }
        if let Some(&p) = legal.iter().find(|p| !allowed.contains(p)) {
            let mut h = g.clone();
            prop_assert_eq!(h.play(c, Some(p)), Err(kosumi::go::board::Illegal::NotOnRolledLine));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The fuzz target `command_sequence` as a property: valid and invalid
    /// commands mixed; an error leaves the state unchanged, and printsgf
    /// loads back to the same position.
    #[test]
    fn errors_change_nothing_and_records_load_back(cmds in prop::collection::vec((0usize..32, 0usize..1000, 0usize..1000), 0..60)) {
        let mut e = kosumi::tools::fuzzing::quick_engine(9);
        let mut size = kosumi::go::board::BoardSize::square(9);
        let commands: Vec<String> = cmds
            .into_iter()
            .map(|(kind, a, b)| kosumi::tools::fuzzing::session_command(kind, a, b, &mut size))
            .collect();
        if let Err(e) = kosumi::tools::fuzzing::check_session(&mut e, &commands, 5) {
            prop_assert!(false, "{}", e);
        }
    }

    /// The fuzz target `gtp_lines` as a property: any bytes, one reply per
    /// line that holds a command, none for the others, ids echoed.
    #[test]
    fn framing_holds_for_any_bytes(lines in prop::collection::vec(prop::collection::vec(prop_oneof![any::<u8>(), Just(b'#'), Just(b' '), Just(b'5'), Just(0xc2), Just(0xa0)], 0..24), 0..24)) {
        let mut e = kosumi::tools::fuzzing::quick_engine(5);
        for line in lines {
            if line.contains(&b'\n') {
                continue;
            }
            let executed = kosumi::frontends::gtp::execute_ending(&mut e, &line);
            let reply = executed.as_ref().map(|(text, _)| text.clone());
            if let Err(msg) = kosumi::tools::fuzzing::check_framing(&line, reply.as_deref()) {
                prop_assert!(false, "{}", msg);
            }
            if executed.is_some_and(|(_, quit)| quit) {
                break;
            }
        }
    }

    /// The fuzz target `sgf_load` as a property: any text, and valid
    /// records cut or spliced, load or are refused, never panic.
    #[test]
    fn the_sgf_loader_takes_any_text(text in "\\PC{0,200}", cut in 0usize..400, splice in "[();\\[\\]A-Za-z0-9:\\\\]{0,12}") {
        let template = Game::new(9, Rules::default(), 7.5);
        let _ = kosumi::go::sgf::load(&text, &template, None);
        let record = "(;FF[4]SZ[9]KM[6.5]RU[japanese]HA[2]AB[cc][gg];W[ee]DR[3];B[dd]C[a \\] b];W[]PL[B](;B[aa])(;B[bb]))";
        let at = cut.min(record.len());
        if record.is_char_boundary(at) {
            let spliced = format!("{}{}{}", &record[..at], splice, &record[at..]);
            let _ = kosumi::go::sgf::load(&spliced, &template, Some(cut % 5));
        }
    }
}
