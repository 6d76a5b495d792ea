//! Subagent returns and their ledger (contract B, "Subagent Return + Ledger
//! Schema"): the handover envelope and per-role returns (schema layer and
//! contract layer), finding blocks, the adversarial-findings ledger, and the
//! routing of a return by its dispatch description.
//! Every module is pure: bytes in, values and diagnostics out.

pub mod banned;
pub mod dispatch;
pub mod finding;
pub mod finding_blocks;
pub mod ledger;
pub mod returns;
pub mod routing;
pub mod rules;
