//! Adopting the gate (DESIGN.md section 5): a change that brings the gate's
//! own files to a base that has none is adoption, a note (`gate_adopted`)
//! that names what it adds, not a change the untasked policy refuses.
//!
//! Without it nothing could adopt the gate through the gate: with no
//! `.mastermind/hooks.yaml` the defaults deny every untasked change in CI
//! and pre-receive, and a change of that file is always untasked. Two rules
//! keep adoption from becoming a way around the policy:
//!
//! * **only a base with no gate configuration at all adopts**: the
//!   protected target has nothing under `.mastermind/` (no policy, no task
//!   folder). Once anything is there, the policy there judges every change
//!   of these files, as any other;
//! * **only the gate's own files count**, each recognised by its content:
//!   `.mastermind/hooks.yaml` (validated and its loosenings listed as for
//!   any change of it, [`super::config_change`]); the allowed-signers file
//!   that policy names; the agent-harness settings exactly as `install
//!   --agent` writes them ([`harness`]); and hook-manager lines that run the
//!   gate and nothing else ([`managers`]). Anything else in the same
//!   change, another edit of the same file included, is judged as usual.
//!
//! A file that cannot be read, or whose content is not recognised, is not
//! adopted: it goes to the untasked policy (fail closed).

pub mod harness;
pub mod managers;

use super::Gate;
use crate::bookkeeping::MASTERMIND_DIR;
use crate::codes::Code;
use crate::config::{CONFIG_PATH, Config, MAX_CONFIG_BYTES};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::Content;
use gix::bstr::ByteSlice;
use managers::ManagerFile;
use std::collections::{BTreeMap, BTreeSet};

/// The largest gate file read to recognise it.
const MAX_GATE_FILE_BYTES: usize = 1024 * 1024;

/// The gate's own files a change brings to a base with none: each path,
/// with what it adds.
#[derive(Clone, Debug, Default)]
pub struct Adoption {
    adopted: BTreeMap<String, String>,
}

impl Adoption {
    /// True when `path` is one of the gate's own files this change adopts.
    pub fn covers(&self, path: &str) -> bool {
        self.adopted.contains_key(path)
    }

    /// The note for the adopted paths among `shown` (the untasked paths the
    /// policy would otherwise have judged), on `base` (for the message).
    pub fn note(&self, shown: &BTreeSet<String>, base: &str) -> Option<Diagnostic> {
        let listed: Vec<String> = self
            .adopted
            .iter()
            .filter(|(path, _)| shown.contains(*path))
            .map(|(path, what)| format!("{path} ({what})"))
            .collect();
        let first = shown.iter().find(|path| self.covers(path))?;
        Some(
            Diagnostic::new(
                Code::gate_adopted,
                format!(
                    "this change adopts the gate: {base} has no gate configuration (nothing under .mastermind/), and the change brings the gate's own files, which are not untasked changes: {}",
                    listed.join(", ")
                ),
            )
            .with_path(first.clone())
            .with_hint(Code::gate_adopted.help()),
        )
    }
}

/// What a change adopts ([`Adoption`]; nothing on a base that has any gate
/// configuration). A git object that cannot be read adopts nothing: the
/// paths then go to the untasked policy, and the read error, if it is one
/// the gate needs, is reported where the gate reads the object itself.
pub fn find(gate: &Gate<'_>) -> Adoption {
    adopted(gate).unwrap_or_default()
}

fn adopted(gate: &Gate<'_>) -> Result<Adoption> {
    let mut adoption = Adoption::default();
    if configured(gate, gate.target())? {
        return Ok(adoption);
    }
    let lands = gate.lands();
    let read = |at: Snapshot<'_>, path: &str| -> Result<Option<Option<Vec<u8>>>> {
        // Outer `None`: not a regular file this reads (never adopted).
        Ok(match at.read(gate.repo, path, MAX_GATE_FILE_BYTES)? {
            None => Some(None),
            Some(Content::Bytes(bytes)) if bytes.len() <= MAX_GATE_FILE_BYTES => Some(Some(bytes)),
            Some(_) => None,
        })
    };
    // The allowed-signers file the adopted policy names.
    let signers = match read(lands, CONFIG_PATH)? {
        Some(Some(bytes)) if bytes.len() <= MAX_CONFIG_BYTES => Config::parse(&bytes, CONFIG_PATH)
            .ok()
            .and_then(|config| config.allowed_signers),
        _ => None,
    };
    let mut paths: BTreeSet<&str> = BTreeSet::new();
    for step in &gate.landing.steps {
        for change in &step.changes {
            if let Ok(path) = change.path.to_str() {
                paths.insert(path);
            }
        }
    }
    for path in paths {
        let kind = GateFile::of(path, signers.as_deref());
        let Some(kind) = kind else {
            continue;
        };
        let (Some(old), Some(Some(new))) = (read(gate.target(), path)?, read(lands, path)?) else {
            continue;
        };
        if let Some(what) = kind.adds(old.as_deref(), &new) {
            adoption.adopted.insert(path.to_string(), what);
        }
    }
    Ok(adoption)
}

/// True when `base` has any gate configuration: anything at `.mastermind`.
fn configured(gate: &Gate<'_>, base: Snapshot<'_>) -> Result<bool> {
    let dir = MASTERMIND_DIR.trim_end_matches('/');
    Ok(match base {
        Snapshot::Empty => false,
        Snapshot::Tree(tree) => {
            gate.repo.subtree_id(tree, dir)?.is_some() || gate.repo.tree_entry(tree, dir)?.is_some()
        }
        Snapshot::View(view) => {
            view.get(dir).is_some() || view.paths_under(MASTERMIND_DIR).next().is_some()
        }
    })
}

/// One of the gate's own files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateFile {
    Policy,
    AllowedSigners,
    Harness(crate::agent::Harness),
    Manager(ManagerFile),
}

impl GateFile {
    /// The gate file at `path`; `signers` is the allowed-signers path the
    /// adopted policy names.
    fn of(path: &str, signers: Option<&str>) -> Option<GateFile> {
        if path == CONFIG_PATH {
            Some(GateFile::Policy)
        } else if signers == Some(path) {
            Some(GateFile::AllowedSigners)
        } else if let Some(harness) = harness::harness_of(path) {
            Some(GateFile::Harness(harness))
        } else {
            ManagerFile::of(path).map(GateFile::Manager)
        }
    }

    /// What a change from `old` to `new` adds, when it adds only the
    /// gate's own.
    fn adds(self, old: Option<&[u8]>, new: &[u8]) -> Option<String> {
        match self {
            GateFile::Policy => old.is_none().then(|| "the gate's policy".to_string()),
            GateFile::AllowedSigners => old
                .is_none()
                .then(|| "the allowed-signers file the policy names".to_string()),
            GateFile::Harness(harness) => harness::adds(harness, old, new),
            GateFile::Manager(file) => file.adds(old, new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gates_files_by_path() {
        let signers = Some(".mastermind/allowed_signers");
        assert_eq!(GateFile::of(CONFIG_PATH, None), Some(GateFile::Policy));
        assert_eq!(
            GateFile::of(".mastermind/allowed_signers", signers),
            Some(GateFile::AllowedSigners)
        );
        assert_eq!(GateFile::of(".mastermind/allowed_signers", None), None);
        assert!(matches!(
            GateFile::of(".claude/settings.json", None),
            Some(GateFile::Harness(_))
        ));
        assert!(matches!(
            GateFile::of(".husky/pre-push", None),
            Some(GateFile::Manager(ManagerFile::Husky("pre-push")))
        ));
        assert_eq!(GateFile::of("src/lib.rs", None), None);
        assert_eq!(GateFile::of(".github/workflows/gate.yml", None), None);
    }

    #[test]
    fn the_policy_and_the_signers_are_adopted_only_where_there_were_none() {
        assert!(GateFile::Policy.adds(None, b"version: 1\n").is_some());
        assert!(GateFile::Policy.adds(Some(b""), b"version: 1\n").is_none());
        assert!(
            GateFile::AllowedSigners
                .adds(None, b"a@b ssh-ed25519 AAAA\n")
                .is_some()
        );
        assert!(
            GateFile::AllowedSigners
                .adds(Some(b"x"), b"a@b ssh-ed25519 AAAA\n")
                .is_none()
        );
    }
}
