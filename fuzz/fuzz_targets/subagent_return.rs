//! Fuzz the subagent return contract: any bytes, no panic, and a verdict,
//! judged by its own `handover.role`, as the envelope alone, and by a
//! dispatch description taken from the input's first line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::contract::subagent::dispatch::{self, DispatchRoute};
use mastermind_hooks::artifact::{self, Kind};

fuzz_target!(|data: &[u8]| {
    let checked = artifact::check(Kind::SubagentReturn, data);
    if data.is_empty() {
        assert!(checked.diagnostics.iter().any(|d| d.is_error()));
    }
    let _ = artifact::check_with_role(Kind::SubagentReturn, data, Some("handover"));
    let (first, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let description = String::from_utf8_lossy(first);
    let outcome = dispatch::check_dispatched(rest, &description);
    // A routed schema return that is empty never passes.
    if rest.is_empty() && matches!(outcome.route, DispatchRoute::Schema(_)) {
        assert!(outcome.diagnostics.iter().any(|d| d.is_error()));
    }
});
