//! The model of a change (DESIGN.md section 5): what one gate run judges.
//!
//! A change is a sequence of **steps** on top of a protected **base**: the
//! commits a push, a pull request or a pre-receive update would land
//! (parents first), and in the local modes one pending step (the index git
//! is about to commit, or the working tree). Each step carries its own
//! changes (a tree diff against its parents), its identity (author,
//! committer, message) and where its content can be read.
//!
//! Every later question is asked of steps: which tasks a step touched
//! ([`super::attribution`]), which steps make up a task's history
//! ([`super::task_history`]), where a receipt was added and what changed
//! after it ([`super::receipts::freshness`]).

use crate::bookkeeping::{Landed, PathClass, classify, receipt_names, verification_file};
use crate::config::{ControlFiles, Globs};
use crate::contract::mastermind::spec;
use crate::repo::Repo;
use crate::repo::changes::ChangeKind;
use crate::repo::history::{CommitMeta, PathChange};
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, View, short};
use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// What is the agents' bookkeeping in one gate run: the known artifacts of
/// task folders and the configured agent files (by name, as
/// [`classify`] says), except that under a task's `verification/` only the
/// receipts the runners write for the check ids its spec (as it lands)
/// declares are ([`receipt_names`]); any other file there is content. A
/// task whose spec cannot be read there is judged by name. Control files
/// are [`PathClass::Control`].
pub struct Bookkeeping<'g> {
    agent_files: Vec<&'g Globs>,
    /// The control files (`None`: by name alone).
    control: Option<&'g ControlFiles>,
    /// Where the binding specs are read: the repository and what lands.
    specs: Option<(&'g Repo, Snapshot<'g>)>,
    /// Per task folder: its declared receipt file names (`None`: by name).
    declared: RefCell<HashMap<String, Option<BTreeSet<String>>>>,
}

impl<'g> Bookkeeping<'g> {
    /// By name alone (no spec is read).
    pub fn by_name(agent_files: Vec<&'g Globs>) -> Bookkeeping<'g> {
        Bookkeeping {
            agent_files,
            control: None,
            specs: None,
            declared: RefCell::new(HashMap::new()),
        }
    }

    /// With the receipts each task's spec declares as `lands` has it, and
    /// the control files.
    pub fn declared_in(
        agent_files: Vec<&'g Globs>,
        control: &'g ControlFiles,
        repo: &'g Repo,
        lands: Snapshot<'g>,
    ) -> Bookkeeping<'g> {
        Bookkeeping {
            agent_files,
            control: Some(control),
            specs: Some((repo, lands)),
            declared: RefCell::new(HashMap::new()),
        }
    }

    pub fn agent_files(&self) -> &[&'g Globs] {
        &self.agent_files
    }

    /// The receipt file names the task's spec declares (`None`: unknown).
    fn receipts_of(&self, task: &str) -> Option<BTreeSet<String>> {
        let (repo, lands) = self.specs?;
        if let Some(known) = self.declared.borrow().get(task) {
            return known.clone();
        }
        let path = format!("{task}/spec.md");
        let names = match lands.read(repo, &path, spec::MAX_SPEC_BYTES) {
            Ok(Some(Content::Bytes(bytes))) => {
                let checked = super::spec_memo::check(&bytes);
                let parsed = &checked.0;
                parsed
                    .frontmatter
                    .as_ref()
                    .filter(|_| parsed.frontmatter_error.is_none())
                    .map(|frontmatter| {
                        let landed = |name: &str| {
                            let path = format!("{task}/verification/{name}");
                            match lands.read(repo, &path, 1) {
                                Ok(None) => Landed::Absent,
                                Ok(Some(Content::Bytes(bytes))) if bytes.is_empty() => {
                                    Landed::Empty
                                }
                                _ => Landed::Other,
                            }
                        };
                        receipt_names(
                            frontmatter.observed().map(|(_, run)| run.id.as_str()),
                            landed,
                        )
                    })
            }
            _ => None,
        };
        self.declared
            .borrow_mut()
            .insert(task.to_string(), names.clone());
        names
    }

    /// What a path is to the gate.
    pub fn class_of_path<'p>(&self, path: &'p str) -> PathClass<'p> {
        let class = classify(path, &self.agent_files);
        if class == PathClass::Ordinary && self.control.is_some_and(|c| c.covers(path)) {
            return PathClass::Control;
        }
        if let (PathClass::TaskArtifact { .. }, Some((task, name))) =
            (class, verification_file(path))
            && !self.agent_files.iter().any(|globs| globs.is_match(path))
            && self
                .receipts_of(task)
                .is_some_and(|declared| !declared.contains(name))
        {
            return PathClass::Ordinary;
        }
        class
    }

    /// What a changed path is: its class, except that the controller's
    /// runtime files are bookkeeping only as regular files (a symlink or a
    /// gitlink at such a path is content like any other).
    pub fn class<'p>(&self, change: &PathChange, path: &'p str) -> PathClass<'p> {
        match self.class_of_path(path) {
            PathClass::Runtime if change.new.is_some_and(|e| !e.mode.is_file()) => {
                PathClass::Ordinary
            }
            class => class,
        }
    }
}

/// Who made a step, as far as it is known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// `Name <email>`.
    pub author: Option<String>,
    /// `Name <email>`.
    pub committer: Option<String>,
    /// The commit message; `None` before it is written (pre-commit).
    pub message: Option<String>,
}

impl Identity {
    /// The trailer lines of the message (`Key: value` lines of its last
    /// paragraph), as written.
    pub fn trailers(&self) -> Vec<&str> {
        let Some(message) = &self.message else {
            return Vec::new();
        };
        let paragraphs: Vec<&str> = message
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let Some(last) = paragraphs.last().filter(|_| paragraphs.len() > 1) else {
            return Vec::new();
        };
        let lines: Vec<&str> = last.lines().map(str::trim).collect();
        let is_trailer = |line: &&str| {
            line.split_once(':').is_some_and(|(key, value)| {
                !key.is_empty()
                    && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    && !value.trim().is_empty()
            })
        };
        // Git takes the last paragraph as trailers when most of it is.
        if lines.iter().filter(|l| is_trailer(l)).count() * 4 < lines.len() * 3 {
            return Vec::new();
        }
        lines.into_iter().filter(is_trailer).collect()
    }
}

/// Where a step's content is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepAt {
    /// A commit and its tree.
    Commit { id: ObjectId, tree: ObjectId },
    /// The pending step (the index or the working tree).
    Pending,
}

/// One step of a change.
#[derive(Clone, Debug)]
pub struct Step {
    pub at: StepAt,
    pub parents: Vec<ObjectId>,
    /// For messages: `commit abc1234 ("subject")`, `the index`.
    pub label: String,
    pub identity: Identity,
    /// The step's own changes, sorted by path.
    pub changes: Vec<PathChange>,
}

impl Step {
    /// A pending step that modified `paths`, for unit tests.
    #[cfg(test)]
    pub fn modifying(label: &str, paths: &[&str]) -> Step {
        Step {
            at: StepAt::Pending,
            parents: Vec::new(),
            label: label.into(),
            identity: Identity::default(),
            changes: paths
                .iter()
                .map(|p| crate::repo::history::PathChange {
                    path: (*p).into(),
                    kind: crate::repo::changes::ChangeKind::Modified,
                    old: None,
                    new: None,
                })
                .collect(),
        }
    }

    /// A commit as a step, with its own changes.
    pub fn commit(meta: &CommitMeta, changes: Vec<PathChange>) -> Step {
        let subject: String = meta.subject().chars().take(60).collect();
        Step {
            at: StepAt::Commit {
                id: meta.id,
                tree: meta.tree,
            },
            parents: meta.parents.clone(),
            label: format!("commit {} (\"{}\")", short(meta.id), subject.escape_debug()),
            identity: Identity {
                author: Some(meta.author.clone()),
                committer: Some(meta.committer.clone()),
                message: Some(meta.message.clone()),
            },
            changes,
        }
    }

    pub fn commit_id(&self) -> Option<ObjectId> {
        match self.at {
            StepAt::Commit { id, .. } => Some(id),
            StepAt::Pending => None,
        }
    }

    /// The step's content, given the pending view.
    pub fn snapshot<'v>(&self, pending: Option<&'v View>) -> Snapshot<'v> {
        match (self.at, pending) {
            (StepAt::Commit { tree, .. }, _) => Snapshot::Tree(tree),
            (StepAt::Pending, Some(view)) => Snapshot::View(view),
            (StepAt::Pending, None) => Snapshot::Empty,
        }
    }

    /// Task folders with a changed path inside them.
    pub fn touched_tasks(&self) -> Vec<&str> {
        let mut tasks: Vec<&str> = self
            .changes
            .iter()
            .filter_map(|c| c.path.to_str().ok())
            .filter_map(crate::bookkeeping::task_dir_of)
            .collect();
        tasks.dedup();
        tasks.sort_unstable();
        tasks.dedup();
        tasks
    }

    /// The step's changes of content (ordinary paths, UTF-8), with their
    /// kind: what scope and the untasked policy judge.
    pub fn content_changes<'s, 'b, 'g>(
        &'s self,
        bookkeeping: &'b Bookkeeping<'g>,
    ) -> impl Iterator<Item = (&'s str, ChangeKind)> + use<'s, 'b, 'g> {
        self.changes.iter().filter_map(move |c| {
            let path = c.path.to_str().ok()?;
            (bookkeeping.class(c, path) == PathClass::Ordinary).then_some((path, c.kind))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_come_from_the_last_paragraph() {
        let identity = |m: &str| Identity {
            message: Some(m.to_string()),
            ..Identity::default()
        };
        let claude = identity(
            "Add parser\n\nBody text: not a trailer.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nSigned-off-by: A <a@x>\n",
        );
        assert_eq!(
            claude.trailers(),
            [
                "Co-Authored-By: Claude <noreply@anthropic.com>",
                "Signed-off-by: A <a@x>"
            ]
        );
        assert!(identity("Subject only: yes\n").trailers().is_empty());
        assert!(
            identity("Subject\n\nA paragraph of prose.\nWith: one colon\nand more prose\n")
                .trailers()
                .is_empty()
        );
        assert!(Identity::default().trailers().is_empty());
    }
}
