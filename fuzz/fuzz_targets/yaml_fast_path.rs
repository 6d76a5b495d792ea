//! Fuzz the YAML fast path against serde-saphyr: wherever the fast path
//! builds a tree, it is serde-saphyr's (values, lines, spans), under both
//! scalar rules; wherever the parser rejects a text, serde-saphyr rejects
//! it too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::contract::yaml::{self, FastParse};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for leading_zero_as_strings in [true, false] {
        match yaml::parse_fast(text, leading_zero_as_strings) {
            FastParse::Tree(fast) => {
                let reference = yaml::parse_with_serde(text, leading_zero_as_strings)
                    .unwrap_or_else(|e| panic!("fast path answered, serde-saphyr failed: {}", e.message));
                // Debug text compares NaN with NaN, which PartialEq does not.
                assert_eq!(format!("{fast:?}"), format!("{reference:?}"));
            }
            FastParse::Malformed => {
                assert!(yaml::parse_with_serde(text, leading_zero_as_strings).is_err());
            }
            FastParse::Declined => {}
        }
    }
});
