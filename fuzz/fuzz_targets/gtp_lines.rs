//! Arbitrary bytes, split into lines, against a fresh engine: one reply per
//! line that holds a command, none for the others, ids echoed, no internal
//! error, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut engine = kosumi::tools::fuzzing::quick_engine(5);
    for line in data.split(|&b| b == b'\n') {
        let executed = kosumi::frontends::gtp::execute_ending(&mut engine, line);
        let reply = executed.as_ref().map(|(text, _)| text.clone());
        if let Err(msg) = kosumi::tools::fuzzing::check_framing(line, reply.as_deref()) {
            panic!("{msg}");
        }
        if executed.is_some_and(|(_, quit)| quit) {
            break;
        }
    }
});
