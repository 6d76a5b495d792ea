//! Each distinct spec checked once per process. One gate run asks for the
//! same `spec.md` several times: which receipts are bookkeeping
//! ([`super::change::Bookkeeping`]), the task's own check, the declared
//! paths of each step of its history, the planning and contract policies.
//! The answer depends on the bytes alone, so it is kept by the bytes.

use crate::contract::mastermind::spec::{self, ParsedSpec};
use crate::diagnostic::Diagnostic;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A spec's parse and the findings of every spec rule on it.
pub type Checked = (ParsedSpec, Vec<Diagnostic>);

/// Specs are at most [`spec::MAX_SPEC_BYTES`]; a run with more distinct
/// ones than this (thousands of tasks) checks the rest each time rather
/// than hold them all.
const MAX_KEPT: usize = 256;

thread_local! {
    static CHECKED: RefCell<HashMap<Vec<u8>, Rc<Checked>>> = RefCell::new(HashMap::new());
}

/// [`spec::check`] of `bytes`, from the memo when these bytes were checked
/// before.
pub fn check(bytes: &[u8]) -> Rc<Checked> {
    if let Some(known) = CHECKED.with_borrow(|memo| memo.get(bytes).cloned()) {
        return known;
    }
    let checked = Rc::new(spec::check(bytes));
    CHECKED.with_borrow_mut(|memo| {
        if memo.len() < MAX_KEPT {
            memo.insert(bytes.to_vec(), Rc::clone(&checked));
        }
    });
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_give_the_same_answer_once() {
        let spec = b"---\nid: t\n---\n# Task\n";
        let first = check(spec);
        let second = check(spec);
        assert!(Rc::ptr_eq(&first, &second));
        assert_eq!(*first, spec::check(spec));
        let other = check(b"no front matter\n");
        assert!(!Rc::ptr_eq(&first, &other));
        assert_eq!(*other, spec::check(b"no front matter\n"));
    }
}
