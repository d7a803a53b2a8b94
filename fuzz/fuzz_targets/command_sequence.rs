//! Command sequences mixing valid and invalid commands (three bytes a
//! command, read by `kosumi::tools::fuzzing::session_command`): after every error
//! the state is unchanged, and printsgf's record loads back to the same
//! position.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut size = kosumi::go::board::BoardSize::square(9);
    let commands: Vec<String> = data
        .chunks_exact(3)
        .take(200)
        .map(|c| {
            kosumi::tools::fuzzing::session_command(
                c[0] as usize,
                c[1] as usize * 7,
                c[2] as usize * 5,
                &mut size,
            )
        })
        .collect();
    let mut engine = kosumi::tools::fuzzing::quick_engine(9);
    if let Err(msg) = kosumi::tools::fuzzing::check_session(&mut engine, &commands, 10) {
        panic!("{msg}");
    }
});
