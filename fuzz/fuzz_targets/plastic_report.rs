//! Fuzz the plastic report contract: any bytes, no panic, and a verdict,
//! with the role read from the report and given as each role in turn.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::artifact::{self, Kind};

fuzz_target!(|data: &[u8]| {
    let checked = artifact::check(Kind::PlasticReport, data);
    if data.is_empty() {
        assert!(checked.diagnostics.iter().any(|d| d.is_error()));
    }
    for role in ["brainstorming", "spec", "planner", "executor", "reviewer"] {
        let _ = artifact::check_with_role(Kind::PlasticReport, data, Some(role));
    }
});
