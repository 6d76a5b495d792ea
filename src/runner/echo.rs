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
//!   --rerun`): every line is prefixed with its source's label
//!   (`[task/check]`, so checks running in parallel stay apart), colour
//!   sequences are removed and other control characters escaped
//!   ([`plain`]), and on GitHub Actions everything the echo shows
//!   is wrapped in one `::stop-commands::` pair with a random token, so the
//!   output cannot issue workflow commands (GitHub documents this pair in
//!   "Workflow commands for GitHub Actions", "Stopping and starting workflow
//!   commands"), GitLab section markers or terminal escapes.
//!
//! One quoted echo serves any number of sources ([`Echo::source`]): a line
//! is written whole, never interleaved with another source's.

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
    /// Prefix every line with its source's label.
    Quoted,
}

enum Message {
    Open {
        key: usize,
        label: String,
    },
    Data {
        key: usize,
        source: Source,
        bytes: Vec<u8>,
    },
    Close {
        key: usize,
    },
}

/// Where the readers send copies of what they read (one source of an
/// echo); never blocks.
#[derive(Clone, Debug)]
pub struct Sender {
    tx: mpsc::Sender<Message>,
    key: usize,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Message")
    }
}

impl Sender {
    /// Hand a chunk to the writer; never blocks.
    pub fn send(&self, source: Source, bytes: &[u8]) {
        let _ = self.tx.send(Message::Data {
            key: self.key,
            source,
            bytes: bytes.to_vec(),
        });
    }

    /// The source is done: its last partial lines are shown.
    pub fn close(&self) {
        let _ = self.tx.send(Message::Close { key: self.key });
    }
}

/// A running echo: its sender and the writer thread.
pub struct Echo {
    tx: Option<mpsc::Sender<Message>>,
    next: std::sync::atomic::AtomicUsize,
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

/// A line of a check's output as a log or a message shows it: its colour
/// (SGR) sequences removed, then [`escape`]d, so a coloured line and the
/// same line uncoloured read the same wherever they are shown, and no other
/// escape sequence reaches the log.
pub fn plain(bytes: &[u8]) -> String {
    escape(&crate::render::escape::strip_sgr(bytes))
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

/// One labelled source of a quoted echo: its partial lines.
struct Quoted {
    label: String,
    pending: [Vec<u8>; 2],
}

/// Every source of a quoted echo, and the stop/resume pair around them.
struct Quoter {
    sources: std::collections::HashMap<usize, Quoted>,
    token: Option<String>,
    started: bool,
}

impl Quoter {
    fn new(token: Option<String>) -> Quoter {
        Quoter {
            sources: std::collections::HashMap::new(),
            token,
            started: false,
        }
    }

    fn line(out: &mut impl Write, label: &str, source: Source, line: &[u8]) {
        let marker = match source {
            Source::Stdout => "|",
            Source::Stderr => "!",
        };
        let _ = writeln!(out, "  {label} {marker} {}", plain(line));
    }

    fn open(&mut self, key: usize, label: String) {
        self.sources.insert(
            key,
            Quoted {
                label,
                pending: [Vec::new(), Vec::new()],
            },
        );
    }

    fn feed(&mut self, out: &mut impl Write, key: usize, source: Source, bytes: &[u8]) {
        if !self.started {
            self.started = true;
            if let Some(token) = &self.token {
                let _ = writeln!(out, "::stop-commands::{token}");
            }
        }
        let quoted = self.sources.entry(key).or_insert_with(|| Quoted {
            label: "[?]".to_string(),
            pending: [Vec::new(), Vec::new()],
        });
        let index = source as usize;
        let mut pending = std::mem::take(&mut quoted.pending[index]);
        pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(offset) = pending[start..].iter().position(|&b| b == b'\n') {
            Quoter::line(out, &quoted.label, source, &pending[start..start + offset]);
            start += offset + 1;
        }
        pending.drain(..start);
        quoted.pending[index] = pending;
    }

    fn close(&mut self, out: &mut impl Write, key: usize) {
        let Some(mut quoted) = self.sources.remove(&key) else {
            return;
        };
        for source in [Source::Stdout, Source::Stderr] {
            let rest = std::mem::take(&mut quoted.pending[source as usize]);
            if !rest.is_empty() {
                Quoter::line(out, &quoted.label, source, &rest);
            }
        }
    }

    fn finish(&mut self, out: &mut impl Write) {
        let mut keys: Vec<usize> = self.sources.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            self.close(out, key);
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
        let (tx, rx) = mpsc::channel::<Message>();
        let (done_tx, done) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let stderr = std::io::stderr();
            match style {
                Style::Raw => {
                    for message in rx {
                        let Message::Data { bytes, .. } = message else {
                            continue;
                        };
                        let mut out = stderr.lock();
                        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                            break;
                        }
                    }
                }
                Style::Quoted => {
                    let mut quoter = Quoter::new(stop_commands());
                    for message in rx {
                        match message {
                            Message::Open { key, label } => quoter.open(key, label),
                            Message::Data { key, source, bytes } => {
                                quoter.feed(&mut stderr.lock(), key, source, &bytes);
                            }
                            Message::Close { key } => quoter.close(&mut stderr.lock(), key),
                        }
                    }
                    quoter.finish(&mut stderr.lock());
                }
            }
            let _ = done_tx.send(());
        });
        Echo {
            tx: Some(tx),
            next: std::sync::atomic::AtomicUsize::new(0),
            writer,
            done,
        }
    }

    /// A sender for the supervisor's readers of one source, whose lines a
    /// quoted echo prefixes with `label`.
    pub fn source(&self, label: impl Into<String>) -> Option<Sender> {
        let tx = self.tx.clone()?;
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _ = tx.send(Message::Open {
            key,
            label: label.into(),
        });
        Some(Sender { tx, key })
    }

    /// A sender for a single unlabelled source (the raw style).
    pub fn sender(&self) -> Option<Sender> {
        self.source(String::new())
    }

    /// Stop accepting output and wait up to `grace` for what was sent to be
    /// written (a reader that never drains our stderr cannot hold the run).
    /// Senders still held elsewhere keep the writer open until dropped.
    pub fn finish(mut self, grace: Duration) {
        self.tx = None;
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
    fn coloured_output_reads_as_plain_text() {
        assert_eq!(
            plain(b"\x1b[32mPASS\x1b[39m src/x.test.ts"),
            "PASS src/x.test.ts"
        );
        assert_eq!(plain(b"\x1b[2J\x1b[31mred"), "\\x1b[2Jred");
        let mut quoter = Quoter::new(None);
        quoter.open(0, "[t/unit]".into());
        let mut out = Vec::new();
        quoter.feed(
            &mut out,
            0,
            Source::Stdout,
            b"\x1b[1m\x1b[31mFAIL\x1b[0m x\n",
        );
        assert_eq!(String::from_utf8(out).unwrap(), "  [t/unit] | FAIL x\n");
    }

    #[test]
    fn quoted_lines_cannot_start_a_workflow_command() {
        let mut quoter = Quoter::new(Some("t0k".into()));
        quoter.open(0, "[t/unit]".into());
        quoter.open(1, "[t/lint]".into());
        let mut out = Vec::new();
        quoter.feed(&mut out, 0, Source::Stdout, b"::error::forged\nhalf");
        quoter.feed(&mut out, 1, Source::Stdout, b"lint says\nlint half");
        quoter.feed(&mut out, 0, Source::Stderr, b"\x1b]8;;x\x07 err\n");
        quoter.feed(&mut out, 0, Source::Stdout, b" line\n::t0k::\n");
        quoter.close(&mut out, 0);
        quoter.finish(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "::stop-commands::t0k\n  [t/unit] | ::error::forged\n  [t/lint] | lint says\n  [t/unit] ! \\x1b]8;;x\\x07 err\n  [t/unit] | half line\n  [t/unit] | ::t0k::\n  [t/lint] | lint half\n::t0k::\n"
        );
        for line in text.lines().skip(1).take(6) {
            assert!(line.trim_start().starts_with("[t/"), "{line}");
        }
    }
}
