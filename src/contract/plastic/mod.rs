//! Plastic (contract A, `zalom/plastic`): the agent completion report and its
//! synthesized fallback, `## Insights` entries, and the savepoint ledger.
//! Every module is pure: bytes in, values and diagnostics out.

pub mod envelope;
pub mod fields;
pub mod insight;
pub mod intent;
pub mod labels;
pub mod payload;
pub mod report;
pub mod role;
pub mod savepoints;
pub mod synthesized;
pub mod timestamp;
pub mod values;
