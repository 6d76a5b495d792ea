//! What a panic does. The same in every build: the `release` profile aborts
//! on panic (no unwinding tables to carry, a smaller binary), so a panic is
//! handled by the process's panic hook before the abort, never by
//! unwinding to a `catch_unwind`.
//!
//! * While a thread started with [`spawn_watched`] runs, a panic on any
//!   thread but its waiter (the watched thread, or a worker it started) is
//!   handed to the waiter (as [`Crashed`]) and the panicking thread stops
//!   there; the waiter decides what the crash means (the agent hook turns
//!   it into a "could not check" decision).
//! * Anywhere else the panic is reported as `internal_error` and the
//!   process exits 2: never 0, never a signal the caller cannot read.

use std::sync::{Mutex, mpsc};
use std::thread::ThreadId;

/// The message printed for a panic nobody waits for.
const INTERNAL_ERROR: &str = "error[internal_error]: mastermind-hooks hit an internal error; nothing was judged (exit 2). Please report it.";

/// The exit status of a panic nobody waits for (could not check).
const EXIT_CANNOT_CHECK: i32 = 2;

/// While a watched thread runs: its waiter's thread, and how to tell the
/// waiter that the work crashed.
type Watcher = (ThreadId, Box<dyn Fn() + Send>);

static WATCHER: Mutex<Option<Watcher>> = Mutex::new(None);

/// A watched thread panicked before it produced its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crashed;

/// Install the panic hook (once, at the start of `main`). The default
/// hook's message ("thread 'main' panicked at ...") is kept.
pub fn install_hook() {
    let print_panic = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        print_panic(info);
        let here = std::thread::current().id();
        let handed_over = match WATCHER.lock() {
            Ok(watcher) => match watcher.as_ref() {
                Some((waiter, notify)) if *waiter != here => {
                    notify();
                    true
                }
                _ => false,
            },
            Err(_) => false,
        };
        if handed_over {
            // The waiter owns the outcome now; this thread never returns
            // (returning would abort the process, or unwind in a debug
            // build). It ends with the process.
            loop {
                std::thread::park();
            }
        }
        eprintln!("{INTERNAL_ERROR}");
        std::process::exit(EXIT_CANNOT_CHECK);
    }));
}

/// Run `work` on a new thread named `name`. The receiver gets `Ok(value)`,
/// or `Err(Crashed)` if `work` panics (with [`install_hook`] installed;
/// without it, a panic drops the sender and the receiver sees the channel
/// closed, which callers treat the same way).
pub fn spawn_watched<T, F>(
    name: &str,
    work: F,
) -> std::io::Result<mpsc::Receiver<Result<T, Crashed>>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let on_crash = tx.clone();
    if let Ok(mut watcher) = WATCHER.lock() {
        *watcher = Some((
            std::thread::current().id(),
            Box::new(move || {
                let _ = on_crash.send(Err(Crashed));
            }),
        ));
    }
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let value = work();
            if let Ok(mut watcher) = WATCHER.lock() {
                *watcher = None;
            }
            let _ = tx.send(Ok(value));
        })?;
    Ok(rx)
}
