//! The hook shims: POSIX `sh` templates embedded from `hooks/`, rendered with
//! the binary's absolute path, and recognised again by their marker line.
//!
//! A shim is ours when one of its first lines is exactly
//! `# mastermind-hooks shim v<N>`; `N` is the shim version, raised whenever
//! the template changes in a way an installed shim should pick up.

use super::Hook;
use std::path::{Path, PathBuf};

/// The version of the shims this binary writes.
pub const SHIM_VERSION: u32 = 2;

const MARKER_PREFIX: &str = "# mastermind-hooks shim v";
const PLACEHOLDER: &str = "@MASTERMIND_HOOKS_BINARY@";
const BINARY_LINE: &[u8] = b"bin=";
const HOOK_LINE: &[u8] = b"hook=";
/// The marker must be among the first lines (right after the `#!` line).
const MARKER_WITHIN_LINES: usize = 8;

fn template(hook: Hook) -> &'static str {
    match hook {
        Hook::PreCommit => include_str!("../../hooks/pre-commit"),
        Hook::PrePush => include_str!("../../hooks/pre-push"),
        Hook::PreMergeCommit => include_str!("../../hooks/pre-merge-commit"),
    }
}

/// The shim for `hook`, running the binary at `binary` (absolute path
/// bytes), or, when `binary` is empty, `mastermind-hooks` from PATH (the
/// portable form for a hooks directory committed to the repository).
pub fn render(hook: Hook, binary: &[u8]) -> Vec<u8> {
    let text = template(hook);
    let mut out = Vec::with_capacity(text.len() + binary.len());
    match text.split_once(PLACEHOLDER) {
        Some((before, after)) => {
            out.extend_from_slice(before.as_bytes());
            out.extend_from_slice(&sh_quote(binary));
            out.extend_from_slice(after.as_bytes());
        }
        // A template without the placeholder is a build defect the unit
        // tests catch; render it as is rather than guess.
        None => out.extend_from_slice(text.as_bytes()),
    }
    out
}

/// What an installed shim says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShimInfo {
    pub version: u32,
    /// The hook the shim was rendered for (`hook=` line), if readable.
    pub hook: Option<Hook>,
    /// The binary the shim runs (`bin=` line), if readable.
    pub binary: Option<Vec<u8>>,
}

impl ShimInfo {
    /// True when the bytes are exactly what this version renders for the
    /// hook and binary the shim names: not edited by hand.
    pub fn is_pristine(&self, bytes: &[u8]) -> bool {
        match (&self.hook, &self.binary) {
            (Some(hook), Some(binary)) => {
                self.version == SHIM_VERSION && render(*hook, binary) == bytes
            }
            _ => false,
        }
    }
}

/// Parse a hook file: `None` when it is not one of our shims.
pub fn parse(bytes: &[u8]) -> Option<ShimInfo> {
    let mut lines = bytes.split(|&b| b == b'\n');
    let version = lines
        .by_ref()
        .take(MARKER_WITHIN_LINES)
        .find_map(marker_version)?;
    let mut info = ShimInfo {
        version,
        hook: None,
        binary: None,
    };
    for line in bytes.split(|&b| b == b'\n') {
        if info.hook.is_none()
            && let Some(name) = line.strip_prefix(HOOK_LINE)
        {
            info.hook = std::str::from_utf8(name).ok().and_then(Hook::from_name);
        }
        if info.binary.is_none()
            && let Some(word) = line.strip_prefix(BINARY_LINE)
        {
            info.binary = sh_unquote(word);
        }
    }
    Some(info)
}

fn marker_version(line: &[u8]) -> Option<u32> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line.strip_prefix(MARKER_PREFIX.as_bytes())?;
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Quote bytes as one `sh` word: `'...'`, each `'` written as `'\''`.
pub fn sh_quote(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'\'');
    for &b in bytes {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    out
}

/// Undo [`sh_quote`]: single-quoted runs and `\'`, nothing else.
pub fn sh_unquote(word: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(word.len());
    let mut rest = word;
    if rest.is_empty() {
        return None;
    }
    while let Some((&first, tail)) = rest.split_first() {
        match first {
            b'\'' => {
                let end = tail.iter().position(|&b| b == b'\'')?;
                out.extend_from_slice(&tail[..end]);
                rest = &tail[end + 1..];
            }
            b'\\' => {
                let (&escaped, tail) = tail.split_first()?;
                if escaped != b'\'' {
                    return None;
                }
                out.push(escaped);
                rest = tail;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A path as the bytes a shim embeds.
#[cfg(unix)]
pub fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
pub fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

/// Shim bytes back to a path.
#[cfg(unix)]
pub fn bytes_path(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub fn bytes_path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn templates_carry_one_placeholder_the_marker_and_the_version() {
        for hook in Hook::ALL {
            let text = template(hook);
            assert_eq!(text.matches(PLACEHOLDER).count(), 1, "{hook}");
            assert!(text.starts_with("#!/bin/sh\n"), "{hook}");
            assert_eq!(
                text.lines().nth(1),
                Some(format!("{MARKER_PREFIX}{SHIM_VERSION}").as_str())
            );
            assert!(text.contains(&format!("\nhook={}\n", hook.name())));
            assert!(text.contains(hook.gate_command()), "{hook}");
            assert!(text.contains("MASTERMIND_HOOKS_SKIP"), "{hook}");
        }
    }

    #[test]
    fn a_rendered_shim_parses_back_to_its_hook_and_binary() {
        let binary = b"/opt/it's here/mastermind-hooks";
        for hook in Hook::ALL {
            let bytes = render(hook, binary);
            let info = parse(&bytes).expect("ours");
            assert_eq!(info.version, SHIM_VERSION);
            assert_eq!(info.hook, Some(hook));
            assert_eq!(info.binary.as_deref(), Some(&binary[..]));
            assert!(info.is_pristine(&bytes));
            let mut edited = bytes.clone();
            edited.extend_from_slice(b"echo hi\n");
            assert!(!parse(&edited).expect("still ours").is_pristine(&edited));
        }
    }

    #[test]
    fn foreign_hooks_and_lookalikes_are_not_ours() {
        assert_eq!(parse(b"#!/bin/sh\nexit 0\n"), None);
        assert_eq!(parse(b""), None);
        assert_eq!(parse(b"#!/bin/sh\n# mastermind-hooks shim v\n"), None);
        assert_eq!(parse(b"#!/bin/sh\n# mastermind-hooks shim v1x\n"), None);
        assert_eq!(parse(b"#!/bin/sh\n  # mastermind-hooks shim v1\n"), None);
        let late = format!("{}{MARKER_PREFIX}1\n", "#\n".repeat(MARKER_WITHIN_LINES));
        assert_eq!(parse(late.as_bytes()), None);
        let old = parse(b"#!/bin/sh\n# mastermind-hooks shim v0\nhook=pre-push\n").unwrap();
        assert_eq!(
            (old.version, old.hook, old.binary.clone()),
            (0, Some(Hook::PrePush), None)
        );
        assert!(!old.is_pristine(b"anything"));
    }

    #[test]
    fn unquote_rejects_what_quote_never_writes() {
        assert_eq!(sh_unquote(b"'a'\\''b'"), Some(b"a'b".to_vec()));
        assert_eq!(sh_unquote(b""), None);
        assert_eq!(sh_unquote(b"plain"), None);
        assert_eq!(sh_unquote(b"'open"), None);
        assert_eq!(sh_unquote(b"'a'\\x"), None);
        assert_eq!(sh_unquote(b"'a' # comment"), None);
    }

    proptest! {
        #[test]
        fn quoting_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(sh_unquote(&sh_quote(&bytes)), Some(bytes));
        }
    }
}
