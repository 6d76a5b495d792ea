//! Running independent jobs on the available cores: scoped threads taking
//! job indices from a shared counter, results kept in job order, the first
//! error stopping everyone.

use super::{RepoError, Result};
use crate::codes::Code;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Threads worth starting for `jobs` jobs: at most the cores (and 8), at
/// least 16 jobs each.
fn threads_for(jobs: usize) -> usize {
    cores().clamp(1, 8).min(jobs.div_ceil(16)).max(1)
}

/// The cores this process may use, asked once: the answer reads the
/// cgroup's CPU quota from `/proc` and `/sys` on every call.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Run `work(index)` for every index in `0..jobs` on a few threads, each
/// with its own state from `init`. The first error stops everyone.
pub(crate) fn parallel<S: Send, T: Send>(
    jobs: usize,
    mut init: impl FnMut() -> S,
    work: impl Fn(&mut S, usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..jobs).map(|_| None).collect());
    let error: Mutex<Option<RepoError>> = Mutex::new(None);
    // States are made here (a gix repository is Send but not Sync) and
    // moved into their threads.
    let states: Vec<S> = (0..threads_for(jobs)).map(|_| init()).collect();
    std::thread::scope(|scope| {
        let (next, failed, results, error, work) = (&next, &failed, &results, &error, &work);
        for mut state in states {
            scope.spawn(move || {
                let mut local = Vec::new();
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs {
                        break;
                    }
                    match work(&mut state, i) {
                        Ok(value) => local.push((i, value)),
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            if let Ok(mut slot) = error.lock() {
                                slot.get_or_insert(e);
                            }
                        }
                    }
                }
                if let Ok(mut all) = results.lock() {
                    for (i, value) in local {
                        all[i] = Some(value);
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    let all = results
        .into_inner()
        .map_err(|_| RepoError::new(Code::internal_error, "a worker thread panicked"))?;
    all.into_iter()
        .map(|v| v.ok_or_else(|| RepoError::new(Code::internal_error, "a worker job was lost")))
        .collect()
}
