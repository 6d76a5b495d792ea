//! Fuzz the strict YAML layer: parse, convert, and look up pointers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mastermind_hooks::contract::yaml;
use serde_json::Value;

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(map) => map.values().any(has_null),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((node, value)) = yaml::parse_strict(text) {
            // Every accepted document converts to JSON without nulls.
            assert!(!has_null(&value));
            let _ = node.line_of_pointer("/a/0/b");
        }
    }
});
