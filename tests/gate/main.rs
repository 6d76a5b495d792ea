//! The gate and what it stands on, on real repositories made with the `git`
//! binary: every mode end to end, attribution of commits to tasks, one
//! verdict everywhere, attacks by a hostile agent, faults, verification
//! receipts and their runner, `--rerun`, the server-side gate, the
//! identity conditions the platform or a key vouches for (pushers, actors,
//! signers), planning as findings, the defaults, and the digests and tree
//! views underneath.
//!
//! One test binary: `cargo test --test gate [filter]`.

#[path = "../common/mod.rs"]
mod common;

mod actors;
mod adoption;
mod adversarial;
mod agent_returns;
mod attribution;
mod bulk_merges;
mod corners;
mod criss_cross;
mod defaults;
mod derived_base;
mod digest_v2;
mod faults;
mod freshness;
mod gate;
mod local_merge;
mod one_verdict;
mod parallel;
mod person;
mod planning;
mod protected_target;
mod pushers;
mod receipts;
mod receive;
mod require_on_base;
mod rerun;
mod rerun_projects;
mod runner;
mod shapes;
mod signers;
mod snapshot_v1;
mod trust;
mod untracked_walk;
mod verification_dir;
mod where_work_lands;
mod who_plans;
mod work_in_progress;
