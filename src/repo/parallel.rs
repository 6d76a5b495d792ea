//! Running independent jobs on the available cores: scoped threads taking
//! batches of jobs in order, results kept in job order, the first error
//! stopping everyone.

use super::{RepoError, Result};
use crate::codes::Code;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Threads worth starting for `jobs` jobs: at most the cores (and 8), at
/// least 16 jobs each.
fn threads_for(jobs: usize) -> usize {
    cores().clamp(1, 8).min(jobs.div_ceil(16)).max(1)
}

/// The cores this process may use, asked once: the answer reads the
/// cgroup's CPU quota from `/proc` and `/sys` on every call.
pub(super) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Jobs a thread takes at a time: few enough that the threads finish
/// together, enough that taking them is rare.
const BATCH: usize = 32;

/// Run `work(index)` for every index in `0..jobs` on a few threads, each
/// with its own state from `init`. The first error stops everyone. Each
/// result is written once, straight into its place in the output; a single
/// thread's worth of jobs runs on the calling thread.
pub(crate) fn parallel<S: Send, T: Send>(
    jobs: usize,
    mut init: impl FnMut() -> S,
    work: impl Fn(&mut S, usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let threads = threads_for(jobs);
    if threads == 1 {
        let mut state = init();
        return (0..jobs).map(|i| work(&mut state, i)).collect();
    }
    let failed = AtomicBool::new(false);
    let error: Mutex<Option<RepoError>> = Mutex::new(None);
    let mut slots: Vec<Option<T>> = (0..jobs).map(|_| None).collect();
    // Batches of output slots, handed out in order; each slot belongs to
    // the one thread that took its batch.
    let batches = Mutex::new(slots.chunks_mut(BATCH).enumerate());
    // States are made here (a gix repository is Send but not Sync) and
    // moved into their threads.
    let states: Vec<S> = (0..threads).map(|_| init()).collect();
    std::thread::scope(|scope| {
        let (batches, failed, error, work) = (&batches, &failed, &error, &work);
        for mut state in states {
            scope.spawn(move || {
                loop {
                    let taken = match batches.lock() {
                        Ok(mut batches) => batches.next(),
                        Err(_) => None,
                    };
                    let Some((batch, slots)) = taken else {
                        break;
                    };
                    for (offset, slot) in slots.iter_mut().enumerate() {
                        if failed.load(Ordering::Relaxed) {
                            return;
                        }
                        match work(&mut state, batch * BATCH + offset) {
                            Ok(value) => *slot = Some(value),
                            Err(e) => {
                                failed.store(true, Ordering::Relaxed);
                                if let Ok(mut first) = error.lock() {
                                    first.get_or_insert(e);
                                }
                                return;
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    slots
        .into_iter()
        .map(|v| v.ok_or_else(|| RepoError::new(Code::internal_error, "a worker job was lost")))
        .collect()
}
