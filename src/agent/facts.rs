//! What the pre-tool guard asks git before it judges a command: the git
//! directory, the directory git runs hooks from (`core.hooksPath`
//! followed) and the aliases, as git reads them in the session's working
//! directory. Every git process has a deadline and is killed when it passes
//! it (a configuration `include.path` naming a FIFO makes git wait for a
//! writer forever), so the guard answers within its own deadline: "could
//! not check" is a refusal, never a silent pass.

use super::guard::Context;
use super::guard::paths::{Places, normalize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How often a running git is looked at.
const POLL: Duration = Duration::from_millis(5);

/// What went wrong asking git.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FactsError {
    /// git did not finish before the deadline (and was killed).
    Deadline { command: String },
    /// git could not be started.
    Spawn { command: String, error: String },
}

impl std::fmt::Display for FactsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FactsError::Deadline { command } => write!(
                f,
                "`{command}` did not finish before the guard's deadline (a configuration include that never answers, such as a FIFO, or a slow network file system), so it was stopped"
            ),
            FactsError::Spawn { command, error } => write!(f, "cannot run `{command}`: {error}"),
        }
    }
}

/// Run `git ARGS` in `cwd` until `deadline`: its stdout on exit status 0,
/// `None` on another status.
pub fn git(cwd: &Path, args: &[&str], deadline: Instant) -> Result<Option<Vec<u8>>, FactsError> {
    run(Path::new("git"), args, cwd, deadline)
}

/// Run `program ARGS` in `cwd` until `deadline` (killed past it): its
/// stdout on exit status 0, `None` on another status.
pub fn run(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    deadline: Instant,
) -> Result<Option<Vec<u8>>, FactsError> {
    let shown = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| FactsError::Spawn {
            command: shown.clone(),
            error: e.to_string(),
        })?;
    let reader = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = out.read_to_end(&mut bytes);
            bytes
        })
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let Some(status) = status else {
        return Err(FactsError::Deadline { command: shown });
    };
    let bytes = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    Ok(status.success().then_some(bytes))
}

/// What a binary answers to the handshake the settings' command makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// mastermind-hooks speaking the settings' protocol.
    Speaks { version: String },
    /// mastermind-hooks that does not speak it (an older version).
    Older { version: String },
    /// Something else (`--version` says so).
    Foreign { said: String },
    /// It cannot be run.
    Unrunnable { why: String },
}

/// Ask `binary` as the settings' command does: `--version`, then
/// `agent-hook handshake`.
pub fn handshake(binary: &Path, deadline: Instant) -> Handshake {
    let dir = std::env::temp_dir();
    // Its first line, bounded: what a foreign program says is shown as is.
    let version = match run(binary, &["--version"], &dir, deadline) {
        Ok(Some(out)) => String::from_utf8_lossy(&out)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .chars()
            .take(120)
            .collect(),
        Ok(None) => String::new(),
        Err(e) => return Handshake::Unrunnable { why: e.to_string() },
    };
    if !version.starts_with("mastermind-hooks ") {
        return Handshake::Foreign { said: version };
    }
    match run(binary, &["agent-hook", "handshake"], &dir, deadline) {
        Ok(Some(out))
            if String::from_utf8_lossy(&out).trim() == super::settings::handshake_line() =>
        {
            Handshake::Speaks { version }
        }
        _ => Handshake::Older { version },
    }
}

/// Parse `git config -z --get-regexp '^alias\.'`: each entry is
/// `alias.NAME\nVALUE\0`; names in lower case, as git compares them.
pub fn parse_aliases(bytes: &[u8]) -> Vec<(String, String)> {
    bytes
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (key, value) = entry.split_once('\n')?;
            let name = key.get("alias.".len()..)?;
            Some((name.to_ascii_lowercase(), value.to_string()))
        })
        .collect()
}

/// Parse `git rev-parse --absolute-git-dir --git-path hooks` run in `cwd`.
pub fn parse_places(bytes: &[u8], cwd: &Path, home: Option<PathBuf>) -> Places {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.lines();
    let git_dir = lines.next().map(|l| normalize(&cwd.join(l)));
    let hooks_dir = lines.next().map(|l| normalize(&cwd.join(l)));
    Places {
        home,
        git_dir,
        hooks_dir,
    }
}

/// Everything the guard needs about `cwd`, within `deadline`.
pub fn gather(cwd: &Path, home: Option<PathBuf>, deadline: Instant) -> Result<Context, FactsError> {
    let places = match git(
        cwd,
        &["rev-parse", "--absolute-git-dir", "--git-path", "hooks"],
        deadline,
    )? {
        Some(bytes) => parse_places(&bytes, cwd, home),
        // Not a repository: nothing of git's to protect but by name.
        None => Places {
            home,
            ..Places::default()
        },
    };
    let aliases = git(
        cwd,
        &["config", "-z", "--get-regexp", r"^alias\."],
        deadline,
    )?
    .map(|bytes| parse_aliases(&bytes))
    .unwrap_or_default();
    Ok(Context {
        cwd: Some(normalize(cwd)),
        places,
        aliases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_handshake_tells_this_binary_from_an_older_one_and_a_stranger() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        let soon = || Instant::now() + Duration::from_secs(10);
        let this = script(
            "this",
            &format!(
                "case \"$1\" in --version) echo \"mastermind-hooks 1.0.0\";; *) echo \"{}\";; esac\n",
                super::super::settings::handshake_line()
            ),
        );
        assert_eq!(
            handshake(&this, soon()),
            Handshake::Speaks {
                version: "mastermind-hooks 1.0.0".into()
            }
        );
        let older = script(
            "older",
            "case \"$1\" in --version) echo \"mastermind-hooks 0.0.1\";; *) exit 2;; esac\n",
        );
        assert!(matches!(handshake(&older, soon()), Handshake::Older { .. }));
        let stranger = script("stranger", "echo \"stranger 2.0\"\necho \"more lines\"\n");
        assert_eq!(
            handshake(&stranger, soon()),
            Handshake::Foreign {
                said: "stranger 2.0".into()
            }
        );
    }

    #[test]
    fn parses_what_git_says() {
        assert_eq!(
            parse_aliases(b"alias.CI\ncommit -n\0alias.st\nstatus\0"),
            [
                ("ci".to_string(), "commit -n".to_string()),
                ("st".to_string(), "status".to_string())
            ]
        );
        let places = parse_places(b"/r/.git\n.husky/_\n", Path::new("/r/sub"), None);
        assert_eq!(places.git_dir, Some(PathBuf::from("/r/.git")));
        assert_eq!(places.hooks_dir, Some(PathBuf::from("/r/sub/.husky/_")));
    }

    #[cfg(unix)]
    #[test]
    fn a_git_that_hangs_is_stopped_at_the_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        run(&["init", "-q"]);
        let fifo = dir.path().join("include.fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        run(&["config", "include.path", fifo.to_str().unwrap()]);
        let started = Instant::now();
        let answer = gather(dir.path(), None, started + Duration::from_millis(300));
        assert!(
            matches!(answer, Err(FactsError::Deadline { .. })),
            "{answer:?}"
        );
    }
}
