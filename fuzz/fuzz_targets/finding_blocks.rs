//! Fuzz the finding blocks contract: any bytes, no panic, and a verdict.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::artifact::{self, Kind};

fuzz_target!(|data: &[u8]| {
    let checked = artifact::check(Kind::FindingBlocks, data);
    if data.is_empty() {
        assert!(checked.diagnostics.iter().any(|d| d.is_error()));
    }
});
