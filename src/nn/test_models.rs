//! Model files written for the tests, in KataGo's text form: nets of any
//! width, and nets that overflow once a stone is down.

/// A version 16 model in KataGo's text form with every layer `width`
/// channels wide (a nested bottleneck, a global-pooling block, four
/// policy channels, six scores), weights from a fixed sequence; where
/// `stone_weight` is not 0, the first convolution's weights from the
/// stone planes (inputs 1 and 2) are that: huge, such a net is finite on
/// an empty board and overflows once a stone is down.
pub(crate) fn narrow(width: usize, stone_weight: f32) -> String {
    let mut out = Vec::new();
    let mut next = 0u32;
    let mut floats = |n: usize| {
        (0..n)
            .map(|_| {
                next = next.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                format!("{:.4}", ((next >> 16) % 200) as f32 / 1000.0 - 0.1)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let w = width;
    let mut conv = |out: &mut Vec<String>, name: &str, size: usize, cin: usize, cout: usize| {
        out.push(format!("{name} {size} {size} {cin} {cout} 1 1"));
        out.push(floats(size * size * cin * cout));
    };
    let bn = |out: &mut Vec<String>, name: &str, c: usize| {
        out.push(format!("{name} {c} 1e-5 1 1"));
        out.push(vec!["0"; c].join(" "));
        out.push(vec!["1"; c].join(" "));
        out.push(vec!["1"; c].join(" "));
        out.push(vec!["0.1"; c].join(" "));
    };
    let act = |out: &mut Vec<String>, name: &str| out.push(format!("{name} ACTIVATION_MISH"));
    let dense = |out: &mut Vec<String>, name: &str, cin: usize, cout: usize| {
        out.push(format!("{name} {cin} {cout}"));
        out.push(vec!["0.05"; cin * cout].join(" "));
    };
    let bias = |out: &mut Vec<String>, name: &str, c: usize| {
        out.push(format!("{name} {c}"));
        out.push(vec!["0.01"; c].join(" "));
    };
    out.push("narrow 16 22 19".to_string());
    out.push("20 20 20 20 40 0.25 150".into());
    out.push("0 0 0 0 0 0 0 0".into());
    out.push(format!("trunk 2 {w} {w} {w} 0 {w}"));
    out.push("0 0 0 0 0 0".into());
    conv(&mut out, "conv_spatial", 3, 22, w);
    if stone_weight != 0.0 {
        // The file's order: row, column, input plane, output channel.
        let weights: Vec<String> = (0..9 * 22 * w)
            .map(|i| {
                let plane = i / w % 22;
                if plane == 1 || plane == 2 {
                    format!("{stone_weight:e}")
                } else {
                    "0.01".to_string()
                }
            })
            .collect();
        *out.last_mut().expect("the weights' line") = weights.join(" ");
    }
    dense(&mut out, "linear_global", 19, w);
    out.push("nested_bottleneck_block nbt 2".into());
    bn(&mut out, "nbt.pre.norm", w);
    act(&mut out, "nbt.pre.act");
    conv(&mut out, "nbt.pre.conv", 1, w, w);
    out.push("ordinary_block nbt.0".into());
    bn(&mut out, "nbt.0.norm1", w);
    act(&mut out, "nbt.0.act1");
    conv(&mut out, "nbt.0.conv1", 3, w, w);
    bn(&mut out, "nbt.0.norm2", w);
    act(&mut out, "nbt.0.act2");
    conv(&mut out, "nbt.0.conv2", 3, w, w);
    out.push("gpool_block nbt.1".into());
    bn(&mut out, "nbt.1.norm1", w);
    act(&mut out, "nbt.1.act1");
    conv(&mut out, "nbt.1.conv1r", 3, w, w);
    conv(&mut out, "nbt.1.conv1g", 3, w, w);
    bn(&mut out, "nbt.1.normg", w);
    act(&mut out, "nbt.1.actg");
    dense(&mut out, "nbt.1.linear_g", 3 * w, w);
    bn(&mut out, "nbt.1.norm2", w);
    act(&mut out, "nbt.1.act2");
    conv(&mut out, "nbt.1.conv2", 3, w, w);
    bn(&mut out, "nbt.post.norm", w);
    act(&mut out, "nbt.post.act");
    conv(&mut out, "nbt.post.conv", 1, w, w);
    out.push("ordinary_block b1".into());
    bn(&mut out, "b1.norm1", w);
    act(&mut out, "b1.act1");
    conv(&mut out, "b1.conv1", 3, w, w);
    bn(&mut out, "b1.norm2", w);
    act(&mut out, "b1.act2");
    conv(&mut out, "b1.conv2", 3, w, w);
    bn(&mut out, "norm_trunkfinal", w);
    act(&mut out, "act_trunkfinal");
    out.push("policy_head".into());
    conv(&mut out, "p1", 1, w, w);
    conv(&mut out, "g1", 1, w, w);
    bn(&mut out, "g1.norm", w);
    act(&mut out, "g1.act");
    dense(&mut out, "gpool_to_bias", 3 * w, w);
    bn(&mut out, "p1.norm", w);
    act(&mut out, "p1.act");
    conv(&mut out, "p2", 1, w, 4);
    dense(&mut out, "gpool_to_pass", 3 * w, w);
    bias(&mut out, "pass_bias", w);
    act(&mut out, "pass_act");
    dense(&mut out, "gpool_to_pass2", w, 4);
    out.push("value_head".into());
    conv(&mut out, "v1", 1, w, w);
    bn(&mut out, "v1.norm", w);
    act(&mut out, "v1.act");
    dense(&mut out, "v2", 3 * w, w);
    bias(&mut out, "v2.bias", w);
    act(&mut out, "v2.act");
    dense(&mut out, "v3", w, 3);
    bias(&mut out, "v3.bias", 3);
    dense(&mut out, "sv3", w, 6);
    bias(&mut out, "sv3.bias", 6);
    conv(&mut out, "ownership", 1, w, 1);
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use crate::go::board::Color;
    use crate::go::game::Game;
    use crate::go::rules::Rules;
    use crate::nn::model::ModelDesc;
    use crate::nn::{Evaluator, Request};

    #[test]
    fn an_overflowing_net_is_finite_on_the_empty_board_only() {
        let net = Evaluator::new(&ModelDesc::parse(super::narrow(4, 1e30).as_bytes()).unwrap());
        let mut game = Game::new(9, Rules::default(), 7.5);
        let eval = |game: &Game| {
            net.evaluate(Request {
                game,
                to_move: game.to_move(),
                fresh: true,
                symmetry: 0,
                white_advantage: 0.0,
            })
        };
        assert!(!eval(&game).failed);
        game.play(Color::Black, Some(game.board().point(4, 4)))
            .unwrap();
        // Failed at the evaluator's door, and every number of the
        // stand-in finite: an even game, the legal moves equally likely.
        let failed = eval(&game);
        assert!(failed.failed && failed.is_finite());
        assert_eq!((failed.white_win, failed.white_lead), (0.5, 0.0));
        let legal: Vec<f32> = failed
            .policy
            .iter()
            .copied()
            .filter(|&p| p != -1.0)
            .collect();
        assert_eq!(legal.len(), 80);
        assert!(legal.iter().all(|&p| p == failed.pass));
    }
}
