//! The Mastermind family (contracts `mastermind.md`): task specs with their
//! declaration, acceptance and path rules, executor reports and their audit
//! tails, reference receipts (v1) and this project's tree receipts with the record
//! of what their check ran on.

pub mod argv_display;
pub mod audit_tail;
pub mod executor_report;
pub mod receipt;
pub mod spec;
pub mod territory;
pub mod tree_receipt;
