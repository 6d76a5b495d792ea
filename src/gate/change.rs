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

use crate::bookkeeping::{PathClass, classify};
use crate::config::Globs;
use crate::repo::changes::ChangeKind;
use crate::repo::history::{CommitMeta, PathChange};
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{View, short};
use gix::ObjectId;
use gix::bstr::ByteSlice;

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
    pub fn content_changes<'s, 'g>(
        &'s self,
        agent_files: &'g [&'g Globs],
    ) -> impl Iterator<Item = (&'s str, ChangeKind)> + use<'s, 'g> {
        self.changes.iter().filter_map(move |c| {
            let path = c.path.to_str().ok()?;
            (class_of(c, path, agent_files) == PathClass::Ordinary).then_some((path, c.kind))
        })
    }

    /// True when the step changes content (not only bookkeeping).
    pub fn changes_content(&self, agent_files: &[&Globs]) -> bool {
        self.changes.iter().any(|c| match c.path.to_str() {
            Ok(path) => matches!(
                class_of(c, path, agent_files),
                PathClass::Ordinary | PathClass::Config
            ),
            Err(_) => true,
        })
    }
}

/// What a changed path is: its class by name, except that the
/// controller's runtime files are bookkeeping only as regular files (a
/// symlink or a gitlink at such a path is content like any other).
pub(crate) fn class_of<'p>(
    change: &PathChange,
    path: &'p str,
    agent_files: &[&Globs],
) -> PathClass<'p> {
    match classify(path, agent_files) {
        PathClass::Runtime if change.new.is_some_and(|e| !e.mode.is_file()) => PathClass::Ordinary,
        class => class,
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
