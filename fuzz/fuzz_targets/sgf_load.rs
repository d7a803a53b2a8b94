//! Arbitrary files for the SGF loader: each loads or is refused with a
//! reason; a record that loads is written again and loads back the same.
#![no_main]

use kosumi::go::game::Game;
use kosumi::go::rules::Rules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let template = Game::new(9, Rules::default(), 7.5);
    if let Ok(game) = kosumi::go::sgf::load(&text, &template, None)
        && let Err(msg) = kosumi::tools::fuzzing::check_record_round_trip(&game)
    {
        panic!("{msg}");
    }
});
