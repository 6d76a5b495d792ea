//! Showing a check's output while it runs. The supervisor's readers hash
//! every byte and hand a copy here; one writer thread puts it on stderr, so
//! a terminal or pipe that stops reading never slows or blocks the check
//! (what cannot be shown in time is dropped, never waited for). Stdout of
//! the runner stays for its result (`--json`).
//!
//! Two styles:
//!
//! * [`Style::Raw`]: the bytes as the check wrote them (a developer's own
//!   check on their own terminal, colours and all);
//! * [`Style::Quoted`]: for output of code the change brings (`check --ci
//!   --rerun`): every line is prefixed, control characters are escaped, and
//!   on GitHub Actions the block is wrapped in `::stop-commands::` with a
//!   random token, so the output cannot issue workflow commands (GitHub
//!   documents this pair in "Workflow commands for GitHub Actions",
//!   "Stopping and starting workflow commands"), GitLab section markers or
//!   terminal escapes.

use std::io::Write;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Which of the child's streams a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Stdout,
    Stderr,
}

/// How output is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Style {
    Raw,
    /// Prefix every line with this label.
    Quoted {
        label: String,
    },
}

/// Where the readers send copies of what they read.
#[derive(Clone, Debug)]
pub struct Sender(mpsc::Sender<(Source, Vec<u8>)>);

impl Sender {
    /// Hand a chunk to the writer; never blocks.
    pub fn send(&self, source: Source, bytes: &[u8]) {
        let _ = self.0.send((source, bytes.to_vec()));
    }
}

/// A running echo: its sender and the writer thread.
pub struct Echo {
    sender: Option<Sender>,
    writer: JoinHandle<()>,
    done: mpsc::Receiver<()>,
}

/// Escape what could steer a terminal or a log parser: C0 controls but
/// tab, DEL, C1 controls, Unicode bidirectional overrides and invalid UTF-8
/// become visible `\xNN` / `\u{NNNN}` text; CR and LF become `\r` and `\n`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => out.push('\t'),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c if ('\u{80}'..='\u{9f}').contains(&c)
                    || ('\u{202a}'..='\u{202e}').contains(&c)
                    || ('\u{2066}'..='\u{2069}').contains(&c) =>
                {
                    out.push_str(&format!("\\u{{{:04x}}}", c as u32));
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The GitHub Actions stop/resume pair, when running there.
fn stop_commands() -> Option<String> {
    (std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true")).then(|| {
        let mut token = [0u8; 16];
        // Without randomness, a fixed token is still unguessable to output
        // produced before it was chosen; fall back rather than fail.
        let _ = getrandom::fill(&mut token);
        hex::encode(token)
    })
}

struct Quoter {
    label: String,
    pending: [Vec<u8>; 2],
    token: Option<String>,
    started: bool,
}

impl Quoter {
    fn line(&self, out: &mut impl Write, source: Source, line: &[u8]) {
        let marker = match source {
            Source::Stdout => "|",
            Source::Stderr => "!",
        };
        let _ = writeln!(out, "  {} {marker} {}", self.label, escape(line));
    }

    fn feed(&mut self, out: &mut impl Write, source: Source, bytes: &[u8]) {
        if !self.started {
            self.started = true;
            if let Some(token) = &self.token {
                let _ = writeln!(out, "::stop-commands::{token}");
            }
        }
        let index = source as usize;
        let mut pending = std::mem::take(&mut self.pending[index]);
        pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(offset) = pending[start..].iter().position(|&b| b == b'\n') {
            self.line(out, source, &pending[start..start + offset]);
            start += offset + 1;
        }
        pending.drain(..start);
        self.pending[index] = pending;
    }

    fn finish(&mut self, out: &mut impl Write) {
        for source in [Source::Stdout, Source::Stderr] {
            let rest = std::mem::take(&mut self.pending[source as usize]);
            if !rest.is_empty() {
                self.line(out, source, &rest);
            }
        }
        if self.started
            && let Some(token) = &self.token
        {
            let _ = writeln!(out, "::{token}::");
        }
    }
}

impl Echo {
    /// Start the writer thread.
    pub fn start(style: Style) -> Echo {
        let (tx, rx) = mpsc::channel::<(Source, Vec<u8>)>();
        let (done_tx, done) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let stderr = std::io::stderr();
            match style {
                Style::Raw => {
                    for (_, bytes) in rx {
                        let mut out = stderr.lock();
                        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                            break;
                        }
                    }
                }
                Style::Quoted { label } => {
                    let mut quoter = Quoter {
                        label,
                        pending: [Vec::new(), Vec::new()],
                        token: stop_commands(),
                        started: false,
                    };
                    for (source, bytes) in rx {
                        quoter.feed(&mut stderr.lock(), source, &bytes);
                    }
                    quoter.finish(&mut stderr.lock());
                }
            }
            let _ = done_tx.send(());
        });
        Echo {
            sender: Some(Sender(tx)),
            writer,
            done,
        }
    }

    /// A sender for the supervisor's readers.
    pub fn sender(&self) -> Option<Sender> {
        self.sender.clone()
    }

    /// Stop accepting output and wait up to `grace` for what was sent to be
    /// written (a reader that never drains our stderr cannot hold the run).
    pub fn finish(mut self, grace: Duration) {
        self.sender = None;
        let deadline = Instant::now() + grace;
        let left = deadline.saturating_duration_since(Instant::now());
        if self.done.recv_timeout(left).is_ok() {
            let _ = self.writer.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_could_steer_a_terminal_or_a_log() {
        assert_eq!(escape(b"plain\ttext"), "plain\ttext");
        assert_eq!(escape(b"a\nb\rc"), "a\\nb\\rc");
        assert_eq!(escape(b"\x1b[31mred"), "\\x1b[31mred");
        assert_eq!(escape(b"bad \xff byte"), "bad \\xff byte");
        assert_eq!(escape("rtl \u{202e}x".as_bytes()), "rtl \\u{202e}x");
        assert_eq!(escape("caf\u{e9}".as_bytes()), "caf\u{e9}");
    }

    #[test]
    fn quoted_lines_cannot_start_a_workflow_command() {
        let mut quoter = Quoter {
            label: "[unit]".into(),
            pending: [Vec::new(), Vec::new()],
            token: Some("t0k".into()),
            started: false,
        };
        let mut out = Vec::new();
        quoter.feed(&mut out, Source::Stdout, b"::error::forged\nhalf");
        quoter.feed(&mut out, Source::Stderr, b"\x1b]8;;x\x07 err\n");
        quoter.feed(&mut out, Source::Stdout, b" line\n::t0k::\n");
        quoter.finish(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "::stop-commands::t0k\n  [unit] | ::error::forged\n  [unit] ! \\x1b]8;;x\\x07 err\n  [unit] | half line\n  [unit] | ::t0k::\n::t0k::\n"
        );
        for line in text.lines().skip(1).take(4) {
            assert!(line.trim_start().starts_with("[unit]"), "{line}");
        }
    }
}
