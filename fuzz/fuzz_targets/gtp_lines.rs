//! Arbitrary bytes, split into lines, against a fresh engine: one reply per
//! line that holds a command, none for the others, ids echoed, no internal
//! error, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut engine = kosumi::fuzzing::quick_engine(5);
    for line in data.split(|&b| b == b'\n') {
        let reply = engine.execute(line);
        if let Err(msg) = kosumi::fuzzing::check_framing(line, reply.as_deref()) {
            panic!("{msg}");
        }
        if engine.wants_quit() {
            break;
        }
    }
});
