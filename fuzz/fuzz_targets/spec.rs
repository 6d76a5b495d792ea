//! Fuzz the spec contract: any bytes, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::artifact::{self, Kind};

fuzz_target!(|data: &[u8]| {
    // No panic, whatever the bytes; an empty file is a valid (legacy or
    // empty) document of this kind, so no verdict is asserted.
    let _ = artifact::check(Kind::Spec, data);
});
