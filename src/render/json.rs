//! JSON output: the report as one pretty-printed object.

use crate::report::Report;

pub fn render(report: &Report) -> String {
    // A Report holds only strings, numbers, booleans and nulls.
    let mut text = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
        format!("{{\"version\":1,\"ok\":false,\"error\":\"cannot serialize report: {e}\"}}")
    });
    text.push('\n');
    text
}
