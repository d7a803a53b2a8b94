//! The GTP v2 protocol adapter over the [`engine`](crate::engine): it reads
//! command lines (8-bit, any junk), dispatches them through the one
//! command table in `commands`, each handler parsing its arguments, making
//! one engine call and formatting the answer, and writes `=id result` or
//! `?id message` responses.
//!
//! The parts: `parse` (lines and arguments), `commands` (the table), the
//! handlers by family (`analyze`, `gogui_analysis`, `dice`, `phantom`,
//! `network`), `params` (KataGo's parameter store), `format` (boards and vertices as text), `reply` (answers,
//! errors, responses), `dispatch` (a line to a response), `serve` (the
//! stdin/stdout session), `input` (the reader thread) and `background`
//! (searches beside the protocol).

pub mod analyze;
mod args;
mod background;
mod commands;
mod dice;
mod dispatch;
mod error;
mod format;
mod gogui_analysis;
mod input;
mod network;
mod params;
mod parse;
mod phantom;
mod reply;
mod request;
mod serve;

pub use commands::{COMMANDS, Command};
pub use dispatch::{Response, dispatch, execute, execute_ending, too_long};
pub use error::GtpError;
pub use input::MAX_LINE;
pub use parse::{
    MAX_KOMI, check_komi, holds_command, leading_id, parse_color, parse_float, parse_int,
    parse_vertex, preprocess, vertex_name,
};
pub use reply::{Answer, Reply};
pub use serve::serve;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Config, Engine};
    use crate::go::rules::Rules;

    fn engine() -> Engine {
        Engine::new(Config::default(), Rules::default(), 9, None)
    }

    fn run(e: &mut Engine, line: &str) -> String {
        execute(e, line.as_bytes()).unwrap_or_default()
    }

    #[test]
    fn ids_are_echoed_and_errors_marked() {
        let mut e = engine();
        assert_eq!(run(&mut e, "7 name"), "=7 kosumi\n\n");
        assert_eq!(
            run(&mut e, "frobnicate"),
            "? unknown command: frobnicate\n\n"
        );
        assert_eq!(run(&mut e, "3 boardsize 0"), "?3 unacceptable size: 0\n\n");
        assert!(execute(&mut e, b"   # nothing").is_none());
    }

    #[test]
    fn multi_line_replies_have_no_empty_line() {
        let mut e = engine();
        let r = run(&mut e, "showboard");
        assert!(r.starts_with("= "));
        assert!(!r.trim_end().contains("\n\n"));
    }

    #[test]
    fn a_net_that_goes_nan_is_an_error_of_its_evaluations_never_a_number() {
        use crate::nn::model::ModelDesc;
        let desc = ModelDesc::parse(crate::nn::test_models::narrow(4, 1e30).as_bytes()).unwrap();
        let net = std::sync::Arc::new(crate::nn::Evaluator::new(&desc));
        let config = Config {
            network: Some(net.clone()),
            search: crate::search::SearchConfig {
                playouts: Some(20),
                ..Default::default()
            },
            ..Config::default()
        };
        let mut e = Engine::new(config, Rules::default(), 9, None);
        assert!(run(&mut e, "kata-raw-nn 0").starts_with("= "));
        assert!(run(&mut e, "play b E5").starts_with("= "));
        let raw = run(&mut e, "kata-raw-nn all");
        assert!(
            raw.starts_with("? ") && raw.contains("no finite evaluation"),
            "{raw}"
        );
        // The search drops every evaluation; the move comes from the Monte
        // Carlo search, a legal one.
        let reply = run(&mut e, "genmove w");
        let mv = reply
            .trim()
            .strip_prefix("= ")
            .unwrap_or_else(|| panic!("{reply}"));
        assert!(
            run(&mut e, &format!("color {mv}")).contains("white") || mv == "pass",
            "{mv}"
        );
        // The JSON engine answers an error for that position, and the
        // empty board's analysis with numbers.
        let settings = crate::frontends::analysis::Settings {
            defaults: crate::frontends::analysis::Defaults {
                max_visits: 10,
                max_time: None,
                perspective: crate::frontends::analysis::Perspective::White,
            },
            workers: 1,
            search: crate::search::SearchConfig::default(),
            human_network: None,
            reader_gone: None,
        };
        let queries = concat!(
            r#"{"id":"a","moves":[["B","E5"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9}"#,
            "\n",
            r#"{"id":"b","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9}"#,
            "\n"
        );
        let mut output = Vec::new();
        crate::frontends::analysis::serve(&mut queries.as_bytes(), &mut output, &net, &settings);
        let text = String::from_utf8(output).unwrap();
        assert!(!text.contains("null"), "{text}");
        let answers: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let a = answers.iter().find(|v| v["id"] == "a").unwrap();
        assert!(
            a["error"]
                .as_str()
                .unwrap()
                .contains("no finite evaluation"),
            "{a}"
        );
        let b = answers.iter().find(|v| v["id"] == "b").unwrap();
        assert!(b["rootInfo"]["winrate"].is_number(), "{b}");
    }
}
