//! Fuzz the gate configuration parser: any bytes, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::config::Config;

fuzz_target!(|data: &[u8]| {
    let _ = Config::parse(data, "fuzz");
});
