//! Who makes a change, as far as its mode can know it (DESIGN.md section 5,
//! "Identity the agent cannot forge").
//!
//! A commit's author, committer, trailers and the branch names are written
//! by whoever makes the commit or pushes it: cooperative marks. What a
//! policy that must hold against an agent keys on is what the platform or a
//! key vouches for:
//!
//! * **pushers**: the user the git server authenticated, from each server's
//!   own pre-receive variables ([`server`]); pre-receive only;
//! * **actors**: the CI run's triggering actor and the pull request's
//!   author, from the platform's variables and event data ([`ci`]); CI
//!   only;
//! * **signers**: the principal whose signature git verifies on a commit,
//!   against an allowed-signers file read from the protected branch
//!   ([`crate::repo::signatures`]); every mode that judges commits
//!   (pre-push, pre-receive, CI), never the commit pre-commit has not
//!   written yet.
//!
//! The landing modules fill a [`Facts`] per landing (what the mode knows);
//! the gate gathers the signatures a rule asks about once per run
//! ([`gather`]); [`rules`] matches a policy's rules against one step.
//! A fact a mode cannot know is `None`, and a rule that needs it does not
//! apply there.

pub mod ci;
pub mod facts;
pub mod marks;
pub mod rules;
pub mod server;

pub use facts::{Facts, Principal};

use super::Gate;
use super::attribution::untasked_changes;
use super::change::Step;
use super::landing::{Landing, ViewKind};
use crate::codes::Code;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::changes::ChangeKind;
use crate::repo::signatures::{self, Signature};
use crate::repo::tree::Content;
use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::collections::HashMap;

/// The largest allowed-signers file read.
const MAX_ALLOWED_SIGNERS_BYTES: usize = 1024 * 1024;

/// What a commit's signature says, as one rule condition sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signer {
    /// The mode cannot know (the commit pre-commit has not written), or no
    /// rule asked.
    Unknown,
    /// git names nobody: unsigned, or a signature it does not vouch for.
    Nobody(String),
    /// git verified the signature of this principal.
    Verified(String),
}

/// Whether the gate is a control for a landing (CI and pre-receive run
/// where the author cannot skip them; the agent's stop hook gives their
/// verdict before the work leaves the machine) or advice (the local
/// hooks). Where
/// nothing is protected yet (a push into an empty repository: no target
/// commit and no protected branch), there is no configuration that could
/// allow anything, and the defaults are the local hooks' until the first
/// commit lands.
pub fn enforcing(landing: &Landing) -> bool {
    matches!(
        landing.kind,
        ViewKind::Ci | ViewKind::Receive | ViewKind::Agent
    ) && (landing.target.commit.is_some() || landing.identity.protected.is_some())
}

/// Everything one gate run knows about identity: the landing's facts and
/// the commits' signers (verified once, only when a rule asks).
pub struct Known<'g> {
    pub facts: &'g Facts,
    /// See [`enforcing`].
    pub enforcing: bool,
    /// The target branch (`branches`).
    pub target_branch: Option<&'g str>,
    signers: HashMap<ObjectId, Signer>,
    signers_checked: bool,
    /// Findings about the identity data itself (`allowed_signers_unavailable`).
    pub notes: Vec<Diagnostic>,
}

impl<'g> Known<'g> {
    /// What is known without verifying signatures (tests, and runs where no
    /// rule asks about signers).
    pub fn without_signers(gate: &'g Gate<'g>) -> Known<'g> {
        Known {
            facts: &gate.landing.identity,
            enforcing: enforcing(gate.landing),
            target_branch: gate.landing.branch.as_deref(),
            signers: HashMap::new(),
            signers_checked: false,
            notes: Vec::new(),
        }
    }

    /// The source branch: the pushed or proposed branch, else the target.
    pub fn source_branch(&self) -> Option<&str> {
        self.facts.source_branch.as_deref().or(self.target_branch)
    }

    /// The signer of a step.
    pub fn signer(&self, step: &Step) -> Signer {
        match step.commit_id() {
            Some(id) if self.signers_checked => {
                self.signers.get(&id).cloned().unwrap_or(Signer::Unknown)
            }
            _ => Signer::Unknown,
        }
    }
}

/// Gather what one gate run knows: the landing's facts, and when a rule of
/// the untasked or planning policy names `signers`, every commit's
/// verified signer (one git process for the whole change).
pub fn gather<'g>(gate: &'g Gate<'g>) -> Result<Known<'g>> {
    let mut known = Known::without_signers(gate);
    if !(gate.config.untasked.needs_signers() || gate.config.planning.needs_signers()) {
        return Ok(known);
    }
    // Only the commits a rule can ask about: each `ssh-keygen` run costs a
    // process, and a change of a hundred tasked commits needs none.
    let untasked = gate.config.untasked.needs_signers();
    let planning = gate.config.planning.needs_signers();
    let commits: Vec<ObjectId> = gate
        .landing
        .steps
        .iter()
        .filter(|step| {
            let tasked = !step.touched_tasks().is_empty();
            (untasked
                && (!untasked_changes(step, &gate.bookkeeping).is_empty()
                    // A step that removes task files may archive a task:
                    // what else it changed is untasked.
                    || step.changes.iter().any(|c| {
                        c.kind == ChangeKind::Deleted
                            && c.path.to_str().is_ok_and(|p| {
                                crate::bookkeeping::task_dir_of(p).is_some()
                            })
                    })))
                || (planning
                    && (tasked
                        || step.changes.iter().any(|c| {
                            c.path
                                .to_str()
                                .is_ok_and(|p| gate.config.is_control_file(p))
                        })))
        })
        .filter_map(Step::commit_id)
        .collect();
    let allowed = match &gate.config.allowed_signers {
        None => None,
        Some(path) => {
            let target = &gate.landing.target;
            match target
                .snapshot()
                .read(gate.repo, path, MAX_ALLOWED_SIGNERS_BYTES)?
            {
                Some(Content::Bytes(bytes)) => Some(bytes),
                other => {
                    let what = match other {
                        None => "does not have it".to_string(),
                        Some(Content::TooLarge { size }) => format!(
                            "has it at {size} bytes, over the {MAX_ALLOWED_SIGNERS_BYTES}-byte limit"
                        ),
                        _ => "has it, but not as a regular file".to_string(),
                    };
                    known.notes.push(
                        Diagnostic::new(
                            Code::allowed_signers_unavailable,
                            format!(
                                "identity.allowed_signers names {path}, and {} {what}: no SSH signature names a signer, so `signers` rules match no commit of this change",
                                target.label
                            ),
                        )
                        .with_path(path.clone()),
                    );
                    None
                }
            }
        }
    };
    let verdicts = signatures::verify(gate.repo, &commits, allowed.as_deref())?;
    known.signers = verdicts
        .into_iter()
        .map(|(id, signature)| {
            let signer = match signature {
                Signature::Verified { principal } => Signer::Verified(principal),
                Signature::Unsigned => Signer::Nobody("no signature".to_string()),
                Signature::Unverified { status, why } => {
                    Signer::Nobody(format!("{why} (git: {status})"))
                }
            };
            (id, signer)
        })
        .collect();
    known.signers_checked = true;
    Ok(known)
}

/// Which modes know a vouched condition (`pushers`, `actors`, `signers`).
pub fn known_in(key: &str) -> &'static str {
    match key {
        "pushers" => "only pre-receive knows (from the git server)",
        "actors" => "only CI knows (from the platform)",
        "signers" => {
            "pre-push, pre-receive and CI know (pre-commit runs before the commit, and its signature, exist)"
        }
        _ => "every mode knows",
    }
}

/// [`local_notes`] for the configuration at HEAD of the repository around
/// `cwd`; nothing when there is no readable configuration (the gate
/// reports that itself).
pub fn local_notes_in(cwd: &std::path::Path) -> Vec<Diagnostic> {
    let Ok(repo) = crate::repo::Repo::discover(cwd) else {
        return Vec::new();
    };
    let config = repo
        .head_commit()
        .ok()
        .flatten()
        .and_then(|head| repo.commit_tree(head).ok())
        .and_then(|tree| {
            crate::repo::snapshot::Snapshot::Tree(tree)
                .read(
                    &repo,
                    crate::config::CONFIG_PATH,
                    crate::config::MAX_CONFIG_BYTES,
                )
                .ok()
                .flatten()
        });
    match config {
        Some(crate::repo::tree::Content::Bytes(bytes)) => {
            Config::parse(&bytes, crate::config::CONFIG_PATH)
                .map(|config| local_notes(&config))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// What `status` says about the configuration's rules that key on a
/// condition the local hooks cannot know: there they do not apply, and
/// the default decides.
pub fn local_notes(config: &Config) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (section, policy) in [
        ("untasked", &config.untasked),
        ("planning", &config.planning),
    ] {
        for (index, rule) in policy.rules.iter().enumerate() {
            let keys = rule.vouched_keys();
            if keys.is_empty() {
                continue;
            }
            let which: Vec<String> = keys
                .iter()
                .map(|key| format!("`{key}`, which {}", known_in(key)))
                .collect();
            out.push(Diagnostic::new(
                Code::condition_unknown_locally,
                format!(
                    "{section}.rules[{index}] needs {}: where a mode cannot know a condition the rule does not apply, and the default decides (the local hooks warn)",
                    which.join("; and ")
                ),
            ));
        }
    }
    out
}
