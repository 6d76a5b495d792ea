//! Supervising one child process: its own process group, stdin null,
//! stdout and stderr read concurrently (counted and hashed, never kept),
//! a timeout and an output cap that kill the whole group, cooperative
//! interruption, and a group kill when the child ends so no member of its
//! group outlives the run. The group is killed while the leader is still a
//! zombie (waited for with `WNOWAIT`), so its id cannot have been reused.
//! Readers can hand a copy of what they read to an [`echo`](super::echo)
//! (never more than the cap; the copy never blocks them), and keep the last
//! [`TAIL_BYTES`] of each stream, so a failure can be shown where it is
//! reported.

use super::echo;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Largest stream a run may produce.
pub const STREAM_CAP: u64 = 1024 * 1024;
/// How much of the end of each stream is kept.
pub const TAIL_BYTES: usize = 4096;
/// How long readers may take to see end-of-file after the group is gone
/// (longer means a detached process escaped the group and holds a pipe).
const DRAIN_GRACE: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(10);

/// One captured stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    pub bytes: u64,
    pub sha256: String,
    /// End-of-file was reached without error.
    pub complete: bool,
    /// The last [`TAIL_BYTES`] the stream carried within the cap.
    pub tail: Vec<u8>,
}

impl Stream {
    fn lost() -> Stream {
        Stream {
            bytes: 0,
            sha256: String::new(),
            complete: false,
            tail: Vec::new(),
        }
    }
}

/// Keep the last [`TAIL_BYTES`] of what `tail` and `more` hold together.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= TAIL_BYTES {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - TAIL_BYTES..]);
        return;
    }
    let overflow = (tail.len() + more.len()).saturating_sub(TAIL_BYTES);
    tail.drain(..overflow);
    tail.extend_from_slice(more);
}

/// How a supervised run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Supervised {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub output_limit: bool,
    pub interrupted: bool,
    pub stdout: Stream,
    pub stderr: Stream,
    pub duration: Duration,
}

fn reader(
    mut pipe: impl Read + Send + 'static,
    over: Arc<AtomicBool>,
    done: mpsc::Sender<()>,
    echo: Option<(echo::Sender, echo::Source)>,
) -> std::thread::JoinHandle<Stream> {
    std::thread::spawn(move || {
        let mut hasher = Sha256::new();
        let mut bytes = 0u64;
        let mut tail = Vec::with_capacity(TAIL_BYTES);
        let mut buffer = vec![0u8; 64 * 1024];
        let complete = loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break true,
                Ok(n) => {
                    bytes += n as u64;
                    if bytes > STREAM_CAP {
                        // Keep draining so the child never blocks on a
                        // full pipe before it is killed.
                        over.store(true, Ordering::SeqCst);
                    } else {
                        hasher.update(&buffer[..n]);
                        keep_tail(&mut tail, &buffer[..n]);
                        if let Some((echo, source)) = &echo {
                            echo.send(*source, &buffer[..n]);
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break false,
            }
        };
        let _ = done.send(());
        Stream {
            bytes,
            sha256: hex::encode(hasher.finalize()),
            complete,
            tail,
        }
    })
}

/// Kill every process of the group `pgid`.
pub fn kill_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid)
        && pgid > 1
    {
        // SAFETY: kill has no memory-safety preconditions; a negative pid
        // addresses the process group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Block until `pid` has exited, without reaping it.
fn wait_exited_no_reap(pid: u32) {
    let pid = libc::id_t::from(pid);
    loop {
        // SAFETY: siginfo_t is plain data; waitid writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer to a local siginfo_t; WNOWAIT leaves the
        // child waitable for Child::wait.
        let rc =
            unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if rc == 0 {
            return;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// Spawn `command` in its own process group and supervise it. `Err` means
/// the process could not be started.
pub fn run(
    mut command: Command,
    timeout: Duration,
    interrupt: &AtomicBool,
    echo: Option<echo::Sender>,
) -> std::io::Result<Supervised> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    // From before the spawn until the group is recorded, a signal only sets
    // the flag (polled below, which kills the group): the child may run
    // before this thread learns its pid, and a runner ended there would
    // leave the check running behind it.
    let spawning = super::signals::defer();
    let mut child: Child = command.spawn()?;
    let pid = child.id();
    super::signals::supervising(pid);
    drop(spawning);
    let over = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel();
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        kill_group(pid);
        super::signals::supervising(0);
        let _ = child.wait();
        return Err(std::io::Error::other("the child's pipes were not created"));
    };
    let out = reader(
        out,
        over.clone(),
        done_tx.clone(),
        echo.clone().map(|e| (e, echo::Source::Stdout)),
    );
    let err = reader(
        err,
        over.clone(),
        done_tx,
        echo.map(|e| (e, echo::Source::Stderr)),
    );
    let (exit_tx, exit_rx) = mpsc::channel();
    std::thread::spawn(move || {
        wait_exited_no_reap(pid);
        let _ = exit_tx.send(());
    });
    let deadline = started + timeout;
    let (mut timed_out, mut output_limit, mut interrupted) = (false, false, false);
    loop {
        match exit_rx.recv_timeout(POLL) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let killed = timed_out || output_limit || interrupted;
        if !killed {
            if Instant::now() >= deadline {
                timed_out = true;
            } else if over.load(Ordering::SeqCst) {
                output_limit = true;
            } else if interrupt.load(Ordering::SeqCst) {
                interrupted = true;
            }
            if timed_out || output_limit || interrupted {
                kill_group(pid);
            }
        }
    }
    // The leader has exited but is not reaped: its group id is still ours.
    kill_group(pid);
    super::signals::supervising(0);
    let status = child.wait()?;
    let duration = started.elapsed();
    // Readers see end-of-file once every holder of the pipes is gone.
    let grace = Instant::now() + DRAIN_GRACE;
    let mut finished = 0;
    while finished < 2 {
        let left = grace.saturating_duration_since(Instant::now());
        if left.is_zero() || done_rx.recv_timeout(left).is_err() {
            break;
        }
        finished += 1;
    }
    let collect = |handle: std::thread::JoinHandle<Stream>, finished_all: bool| {
        if finished_all || handle.is_finished() {
            handle.join().unwrap_or_else(|_| Stream::lost())
        } else {
            // A process that left the group holds the pipe; give up on it.
            Stream::lost()
        }
    };
    let all = finished == 2;
    let stdout = collect(out, all);
    let stderr = collect(err, all);
    output_limit |= over.load(Ordering::SeqCst);
    Ok(Supervised {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        output_limit,
        interrupted,
        stdout,
        stderr,
        duration,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes_of_a_stream() {
        let mut tail = Vec::new();
        keep_tail(&mut tail, b"abc");
        keep_tail(&mut tail, b"def");
        assert_eq!(tail, b"abcdef");
        let long = vec![b'x'; TAIL_BYTES + 10];
        keep_tail(&mut tail, &long);
        assert_eq!(tail.len(), TAIL_BYTES);
        keep_tail(&mut tail, b"end");
        assert_eq!(tail.len(), TAIL_BYTES);
        assert!(tail.ends_with(b"xxend"));
    }
}
