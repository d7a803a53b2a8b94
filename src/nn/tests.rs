//! The evaluator's door held to what it promises: the planes it reads
//! (the playout doubling advantage), its threads' floating-point mode,
//! nets narrower than their heads, a symmetric empty board, a pass timed
//! part by part (its products' operations counted), and a net whose outputs are not numbers refused at load.

use super::*;
use crate::go::board::Color;
use crate::go::game::Game;
use crate::go::rules::Rules;
use model::ModelDesc;

#[test]
fn a_profiled_pass_on_the_cpu_times_each_block_kind_and_head() {
    let net = Evaluator::embedded();
    let game = Game::new(9, Rules::default(), 7.5);
    let profile = net
        .profile_passes(&game, 1, std::time::Duration::ZERO)
        .unwrap();
    assert_eq!(profile.passes, 3);
    let parts: Vec<&str> = profile.parts.iter().map(|&(p, _)| p).collect();
    assert_eq!(
        parts,
        [
            "inputs (host)",
            "inputs layer",
            "residual block",
            "global pooling block",
            "trunk tip",
            "policy head",
            "value head",
            "ownership head"
        ]
    );
    // Each part's products' operations: together, the three passes'
    // products as a pass records them (the trunk tip, which multiplies
    // nothing, counts none).
    let mut request_out = [Evaluation::default()];
    let request = Request::of(&game);
    let pass: f64 = shapes_of(|| net.evaluate_batch(&[request], &mut request_out))
        .iter()
        .map(|s| s.flops() * s.calls as f64)
        .sum();
    let counted: f64 = profile.flops.iter().map(|&(_, f)| f).sum();
    assert_eq!(counted, 3.0 * pass);
    assert!(profile.flops("residual block").unwrap() > profile.flops("policy head").unwrap());
    assert_eq!(profile.flops("trunk tip").unwrap_or(0.0), 0.0);
    // A batch past the backend's largest is cut to it; the test
    // backend gives its pass whole.
    let (test, _) = test_backend::on_test_backend();
    let profile = test
        .profile_passes(&game, 100, std::time::Duration::ZERO)
        .unwrap();
    let parts: Vec<&str> = profile.parts.iter().map(|&(p, _)| p).collect();
    assert_eq!(parts, ["inputs (host)", "forward pass"]);
}

#[test]
fn the_network_reads_the_playout_doubling_advantage() {
    // Nine stones on 19×19, White to move: White, assumed much the
    // stronger, sees its deficit halved (KataGo's handicap play).
    let net = Evaluator::embedded();
    let mut game = Game::new(19, Rules::default(), 0.5);
    let stones: Vec<_> = crate::go::handicap::fixed(19.into(), 9)
        .unwrap()
        .into_iter()
        .map(|(x, y)| (Color::Black, game.board().point(x, y)))
        .collect();
    game.setup(&stones, true).unwrap();
    let lead = |white_advantage| {
        let request = Request {
            game: &game,
            to_move: Color::White,
            fresh: false,
            symmetry: 0,
            white_advantage,
        };
        net.evaluate(request).white_lead
    };
    let (even, stronger, weaker) = (lead(0.0), lead(2.75), lead(-1.0));
    assert!(even < -80.0, "{even}");
    assert!(stronger > even + 30.0, "{stronger} {even}");
    assert!(weaker < even, "{weaker} {even}");
}

#[test]
fn every_evaluating_thread_flushes_subnormals_inside_the_network_only() {
    use crate::nn::cpu::denormals::flushing;
    use crate::nn::cpu::network::FORWARD_FLUSHED;
    let net = Evaluator::embedded();
    let game = Game::new(9, Rules::default(), 7.5);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                assert!(!flushing());
                assert_eq!(FORWARD_FLUSHED.get(), None);
                let e = net.evaluate(Request {
                    game: &game,
                    to_move: Color::Black,
                    fresh: true,
                    symmetry: 0,
                    white_advantage: 0.0,
                });
                assert!(e.white_win.is_finite());
                assert_eq!(FORWARD_FLUSHED.get(), Some(true));
                assert!(!flushing(), "the thread's mode put back");
            });
        }
    });
}

#[test]
fn nets_narrower_than_their_heads_evaluate_without_a_fault() {
    // A trunk and heads of one or two channels, narrower than the
    // value head's three outputs and the scores' six: every buffer
    // holds what is written to it.
    for width in [1, 2, 5] {
        let desc = ModelDesc::parse(test_models::narrow(width, 0.0).as_bytes())
            .unwrap_or_else(|e| panic!("width {width}: {e}"));
        let net = Evaluator::new(&desc);
        let mut game = Game::new(9, Rules::default(), 7.5);
        game.play(Color::Black, Some(game.board().point(4, 4)))
            .unwrap();
        for batch in [1, 3] {
            let requests: Vec<Request> = (0..batch)
                .map(|symmetry| Request {
                    game: &game,
                    to_move: Color::White,
                    fresh: true,
                    symmetry,
                    white_advantage: 0.0,
                })
                .collect();
            let mut out = vec![Evaluation::default(); batch];
            net.evaluate_batch(&requests, &mut out);
            for e in &out {
                assert!(
                    e.white_win.is_finite() && e.white_lead.is_finite(),
                    "width {width}"
                );
            }
        }
    }
}

#[test]
fn the_empty_board_gets_a_symmetric_policy_and_an_even_game() {
    let net = Evaluator::embedded();
    let game = Game::new(9, Rules::default(), 7.5);
    let evals: Vec<Evaluation> = (0..SYMMETRIES)
        .map(|s| {
            net.evaluate(Request {
                game: &game,
                to_move: Color::Black,
                fresh: false,
                symmetry: s,
                white_advantage: 0.0,
            })
        })
        .collect();
    for e in &evals {
        let total: f32 = e.policy.iter().sum::<f32>() + e.pass;
        assert!((total - 1.0).abs() < 1e-4);
        // The tengen and the 3-3 points are likely, the corners not.
        assert!(e.policy[40] > e.policy[0] * 10.0);
        assert!((0.2..0.8).contains(&e.white_win), "{}", e.white_win);
        // On an empty board every symmetry sees the same position; the
        // net is nearly, not exactly, symmetric.
        assert!((e.white_win - evals[0].white_win).abs() < 0.02);
    }
    // A batch gives what one at a time gives.
    let requests: Vec<Request> = (0..3)
        .map(|s| Request {
            game: &game,
            to_move: Color::Black,
            fresh: false,
            symmetry: s,
            white_advantage: 0.0,
        })
        .collect();
    let mut batch = vec![Evaluation::default(); 3];
    net.evaluate_batch(&requests, &mut batch);
    for (s, e) in batch.iter().enumerate() {
        assert!((e.white_win - evals[s].white_win).abs() < 1e-5);
    }
}

#[test]
fn a_net_whose_outputs_are_not_finite_is_refused_at_load() {
    use std::io::Read;
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(EMBEDDED_MODEL)
        .read_to_end(&mut text)
        .unwrap();
    // The score head's biases 3·10³⁸: finite weights, scores that are
    // not (KataGo scales them by 20). They are the last block but one.
    let blocks: Vec<usize> = text
        .windows(5)
        .enumerate()
        .filter(|(_, w)| *w == b"@BIN@")
        .map(|(i, _)| i + 5)
        .collect();
    let at = blocks[blocks.len() - 2];
    let huge = 3e38f32.to_le_bytes();
    for w in text[at..at + 4 * 4].chunks_exact_mut(4) {
        w.copy_from_slice(&huge);
    }
    let path = std::env::temp_dir().join(format!("kosumi-nan-{}.bin", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let err = Evaluator::load(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(err.to_string().contains("not finite"), "{err}");
}

#[test]
fn the_door_fails_what_a_faulty_net_gives_and_marks_each_kind_said() {
    use std::sync::atomic::Ordering::Relaxed;
    let net = Evaluator::embedded().with_faults(1.0, 3);
    let game = Game::new(9, Rules::default(), 7.5);
    for symmetry in 0..SYMMETRIES * 4 {
        let e = net.evaluate(Request {
            game: &game,
            to_move: Color::Black,
            fresh: false,
            symmetry: symmetry % SYMMETRIES,
            white_advantage: 0.0,
        });
        assert!(e.failed && e.is_finite(), "a neutral stand-in, marked");
    }
    let said = [
        &net.passes.counts.pass_failure_said,
        &net.passes.counts.not_finite_said,
    ];
    assert!(said.iter().any(|flag| flag.load(Relaxed)));
    // Unsaid (the load's probe, whose refusal says it), the flags are as
    // they were after.
    let quiet = Evaluator::embedded().with_faults(1.0, 3);
    quiet.passes.unsaid(|| {
        quiet.evaluate(Request {
            game: &game,
            to_move: Color::Black,
            fresh: false,
            symmetry: 0,
            white_advantage: 0.0,
        })
    });
    assert!(!quiet.passes.counts.not_finite_said.load(Relaxed));
    assert!(!quiet.passes.counts.pass_failure_said.load(Relaxed));
}
