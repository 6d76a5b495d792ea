//! Fuzz the stat-reuse fast path of the working-tree view: any sequence of
//! edits, renames, mode changes, touches, racy timestamps and staging, and
//! the view that trusts the index's stat data must name the same entries and
//! give the same digests (v1 and v2) as the view that reads every file.
//! Each input runs the real `git` in a temporary repository.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/worktree_ops.rs"]
mod worktree_ops;

use worktree_ops::{NAMES, Op, agree, prepared};

fuzz_target!(|data: &[u8]| {
    if data.len() < NAMES.len() {
        return;
    }
    let (seeds, ops) = data.split_at(NAMES.len());
    let (sandbox, reused) = prepared(seeds).expect("a settled sandbox");
    assert_eq!(reused, NAMES.len(), "settled files come from the index");
    // At most 40 operations: a longer input adds time, not coverage.
    for op in Op::from_bytes(&ops[..ops.len().min(120)]) {
        sandbox.apply(&op).expect("the operation applies");
        if let Err(e) = agree(&sandbox) {
            panic!("after {op:?}: {e}");
        }
    }
});
