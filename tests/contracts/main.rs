//! The contracts, pure: the parsers and validators of every document the
//! gate reads, held to their grammars (properties), to realistic documents
//! (the corpus and the seeds' worked examples), to plastic's real ledgers
//! and to the reference subagent-return schemas. No repository, no binary.
//!
//! One test binary: `cargo test --test contracts [filter]`.

mod contract_properties;
mod contracts_corpus;
mod fuzz_seeds;
mod plastic_fixtures;
mod plastic_prose;
mod properties;
mod schema_differential;
mod seed_examples;
mod subagent_schema_equivalence;
mod yaml_fast_path;
