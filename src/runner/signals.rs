//! SIGINT and SIGTERM while checks run. The first signal sets a flag the
//! runner checks between steps and the supervisor checks every few
//! milliseconds: the check's process group is killed and the run recorded
//! as `interrupted`. A second signal ends the process at once, killing the
//! group being supervised first, so a runner always ends when asked twice
//! and never leaves a check running behind it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The process group being supervised (0: none).
static GROUP: AtomicI32 = AtomicI32::new(0);

/// Record the process group being supervised (`0` when it is gone).
pub fn supervising(pid: u32) {
    GROUP.store(i32::try_from(pid).unwrap_or(0), Ordering::SeqCst);
}

/// Install the handlers; the returned flag is set by the first signal.
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let seen = flag.clone();
        let action = move || {
            if seen.swap(true, Ordering::SeqCst) {
                let group = GROUP.load(Ordering::SeqCst);
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
