//! The pure contract core: bytes in, typed values and diagnostics out. No git,
//! no disk, no clock, and nothing from the layers above (configuration comes
//! in as values). Grouped by family, over the parsing the families share:
//!
//! * [`mastermind`]: task specs, executor reports, audit tails, receipts;
//! * [`plastic`]: plastic completion reports, intents, savepoints, insights;
//! * [`subagent`]: subagent returns, finding blocks, the findings ledger;
//! * [`yaml`], [`sentinel`], [`text`]: strict YAML, sentinel blocks, text.
//!
//! Which file is which kind, and the dispatch over all of them, is
//! [`crate::artifact`].

pub mod mastermind;
pub mod plastic;
pub mod sentinel;
pub mod subagent;
pub mod text;
pub mod yaml;
