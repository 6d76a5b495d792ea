//! `rerun.setup`: the commands from the protected configuration that
//! prepare a worktree of the landing before any check runs there (`[[npm,
//! ci]]`, `[[python3, -m, venv, .venv], [.venv/bin/pip, install, -r,
//! requirements.txt]]`). Each runs as a check does: argv directly (no
//! shell unless argv names one), stdin null, its own process group, the
//! output streamed with a `[setup]` prefix, a timeout (`setup_timeout_secs`,
//! bounded by what is left of the re-run's budget). A command that cannot
//! start, fails, or changes a file of the landing stops the re-run: nothing
//! can be judged there (`rerun_setup_failed`, exit 2).

use super::place::Place;
use super::{echo, execute, supervise};
use crate::codes::Code;
use crate::config::Rerun as RerunConfig;
use crate::contract::mastermind::argv_display::{RunDeclaration, display_command};
use crate::diagnostic::Diagnostic;
use crate::digest::file_memo::FileMemo;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// One setup command that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupRun {
    pub argv: Vec<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub duration_ms: u64,
}

/// The last lines of a stream's tail that say something, for a message:
/// colour removed and the rest escaped ([`echo::plain`]), as the log shows
/// them.
pub fn tail_lines(tail: &[u8], lines: usize) -> Vec<String> {
    let mut text: Vec<String> = tail
        .split(|&b| b == b'\n')
        .map(|l| echo::plain(l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|l| !l.trim().is_empty())
        .collect();
    text.drain(..text.len().saturating_sub(lines));
    text
}

fn refused(message: String, hint: &str) -> Diagnostic {
    Diagnostic::new(Code::rerun_setup_failed, message).with_hint(hint.to_string())
}

const HINT: &str = "Fix the command in `rerun.setup` of .mastermind/hooks.yaml on the protected branch, or what the change did to the files it reads (a lockfile, a manifest), then run the job again.";

/// Run every setup command in `place`, in order. `deadline` is the re-run's
/// budget; `environment` trims the commands' environment as a check's.
pub fn run(
    place: &Place,
    config: &RerunConfig,
    deadline: Option<Instant>,
    environment: execute::Environment,
    interrupt: &AtomicBool,
    echo: Option<&echo::Echo>,
) -> Result<Vec<SetupRun>, Diagnostic> {
    let mut done = Vec::new();
    for argv in &config.setup {
        let shown = echo::escape(display_command(argv).as_bytes());
        let declared = Duration::from_secs(config.setup_timeout_secs);
        let timeout = match deadline {
            None => declared,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(refused(
                        format!(
                            "the --rerun-timeout budget ran out before the setup command `{shown}`"
                        ),
                        HINT,
                    ));
                }
                left.min(declared)
            }
        };
        let run = RunDeclaration {
            id: "setup".to_string(),
            argv: argv.clone(),
            cwd: ".".to_string(),
            timeout_secs: config.setup_timeout_secs,
        };
        let prepared = execute::prepare(place.root(), &run, &mut FileMemo::none()).map_err(|e| {
            refused(
                format!("the setup command `{shown}` cannot start in {}: {e}", place.describe()),
                "Install the tool the setup command names in the CI job (before the gate), or fix `rerun.setup` in .mastermind/hooks.yaml on the protected branch.",
            )
        })?;
        let sender = echo.and_then(|e| e.source("[setup]"));
        if let Some(sender) = &sender {
            sender.send(echo::Source::Stderr, format!("$ {shown}\n").as_bytes());
        }
        let supervised = execute::start(
            &prepared,
            &run,
            timeout,
            interrupt,
            sender.clone(),
            environment,
            place.ceiling(),
        );
        if let Some(sender) = &sender {
            sender.close();
        }
        let supervised = supervised.map_err(|e| {
            refused(
                format!("the setup command `{shown}` could not be started: {e}"),
                HINT,
            )
        })?;
        let ran = SetupRun {
            argv: argv.clone(),
            exit_code: supervised.exit_code,
            signal: supervised.signal,
            duration_ms: u64::try_from(supervised.duration.as_millis()).unwrap_or(u64::MAX),
        };
        let why = if supervised.interrupted {
            Some("was interrupted".to_string())
        } else if supervised.timed_out {
            Some(format!(
                "took longer than {} s (`rerun.setup_timeout_secs`, or what was left of --rerun-timeout)",
                timeout.as_secs()
            ))
        } else if supervised.output_limit {
            Some(format!(
                "wrote more than {} bytes to a stream",
                supervise::STREAM_CAP
            ))
        } else if supervised.exit_code != Some(0) || supervised.signal.is_some() {
            Some(match (supervised.exit_code, supervised.signal) {
                (Some(code), _) => format!("exited {code}"),
                (None, Some(signal)) => format!("was killed by signal {signal}"),
                (None, None) => "ended without an exit status".to_string(),
            })
        } else {
            None
        };
        if let Some(why) = why {
            let mut tail = tail_lines(&supervised.stderr.tail, 8);
            if tail.is_empty() {
                tail = tail_lines(&supervised.stdout.tail, 8);
            }
            let ended = if tail.is_empty() {
                String::new()
            } else {
                format!("; its output ended with:\n    {}", tail.join("\n    "))
            };
            return Err(refused(
                format!(
                    "the setup command `{shown}` {why} in {}, so no check can be judged there{ended}",
                    place.describe()
                ),
                HINT,
            ));
        }
        let changes = place.verify();
        if !changes.is_empty() {
            return Err(refused(
                format!(
                    "the setup command `{shown}` changed files of the landing ({}), so the checks would not run on what lands",
                    changes.describe()
                ),
                "Make the setup command leave tracked files alone (`npm ci`, not `npm install`; a lockfile committed as the tool writes it), then run the job again.",
            ));
        }
        done.push(ran);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_non_blank_lines_plain() {
        assert_eq!(
            tail_lines(b"one\ntwo\n\n  \nthree \x1b[0m\x1b[2K\n\x1b[0m\r\n", 2),
            vec!["two".to_string(), "three \\x1b[2K".to_string()],
            "colour goes, other escapes are shown, a line of colour alone is blank"
        );
        assert!(tail_lines(b"", 3).is_empty());
    }
}
