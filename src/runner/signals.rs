//! SIGINT and SIGTERM while checks run, so that a runner always ends when
//! asked and never leaves a check running behind it:
//!
//! * while a check runs, the first signal sets a flag the supervisor polls
//!   every few milliseconds: the check's process group is killed and the
//!   run recorded as `interrupted`;
//! * inside a [`Deferred`] section (writing a receipt or a checkout, which
//!   never block), the flag is honoured when the section ends;
//! * anywhere else (reading the working tree, where git's own ignore-file
//!   reads can block on a FIFO), the first signal ends the process at once:
//!   the receipt stays `pending`, which never counts;
//! * a second signal always ends the process at once, killing the group
//!   being supervised first.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

/// The process group being supervised (0: none).
static GROUP: AtomicI32 = AtomicI32::new(0);
/// How many deferred sections are open.
static DEFERRED: AtomicUsize = AtomicUsize::new(0);

/// Record the process group being supervised (`0` when it is gone).
pub fn supervising(pid: u32) {
    GROUP.store(i32::try_from(pid).unwrap_or(0), Ordering::SeqCst);
}

/// A section in which a first signal only sets the flag; ends on drop.
pub struct Deferred(());

/// Open a deferred section.
pub fn defer() -> Deferred {
    DEFERRED.fetch_add(1, Ordering::SeqCst);
    Deferred(())
}

impl Drop for Deferred {
    fn drop(&mut self) {
        DEFERRED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Install the handlers; the returned flag is set by the first signal.
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let seen = flag.clone();
        let action = move || {
            let again = seen.swap(true, Ordering::SeqCst);
            let group = GROUP.load(Ordering::SeqCst);
            let busy = group > 1 || DEFERRED.load(Ordering::SeqCst) > 0;
            if again || !busy {
                // SAFETY: kill and _exit are async-signal-safe and take
                // plain integers.
                unsafe {
                    if group > 1 {
                        libc::kill(-group, libc::SIGKILL);
                    }
                    libc::_exit(128 + signal);
                }
            }
        };
        // SAFETY: the action only touches atomics and calls
        // async-signal-safe functions.
        unsafe { signal_hook::low_level::register(signal, action) }?;
    }
    Ok(flag)
}
