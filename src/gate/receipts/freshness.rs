//! Freshness of a tree receipt: the content it must describe, and what
//! makes it stale.
//!
//! With `freshness: task` (the default) a receipt must describe where its
//! check ran: the step of the task that added or last changed it (the
//! staged tree in pre-commit), and any later step of the same task that
//! changes content makes it stale; steps of other tasks and untasked steps
//! do not. `freshness: merge` compares with what lands (CI's merge tree)
//! and `head` with the tip. Tree digests are taken once per gate run
//! ([`super::Memo`]). The messages name the content compared, the paths
//! that changed and the commands that refresh the receipt.

use super::Memo;
use crate::config::{Freshness, Globs};
use crate::digest::TreeDigester;
use crate::gate::TaskContext;
use crate::gate::change::Step;
use crate::repo::changes::ChangeKind;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, View};
use crate::repo::{RepoError, Result};
use gix::ObjectId;

/// Which content a digest was taken of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Digested {
    Tree(ObjectId),
    Pending,
    Empty,
}

/// The tree digest of a snapshot, of the version a receipt recorded,
/// computed once per run.
pub(super) fn digest_of<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    snapshot: Snapshot<'_>,
    version: u32,
) -> std::result::Result<String, RepoError> {
    let gate = ctx.gate;
    let key = match snapshot {
        Snapshot::Tree(tree) => Digested::Tree(tree),
        Snapshot::View(_) => Digested::Pending,
        Snapshot::Empty => Digested::Empty,
    };
    if let Some(done) = memo.digests.get(&(key, version)) {
        return done.clone();
    }
    // The local caches never decide a CI or pre-receive verdict.
    let digester = memo.digester.get_or_insert_with(|| {
        TreeDigester::new(gate.repo, gate.config, gate.landing.kind.is_local())
    });
    let digest = match (snapshot, version) {
        (Snapshot::Tree(tree), 1) => {
            View::from_tree(gate.repo, tree, "a tree").and_then(|v| digester.of_view_v1(&v))
        }
        (Snapshot::Tree(tree), _) => digester.of_tree(tree),
        (Snapshot::View(view), 1) => digester.of_view_v1(view),
        (Snapshot::View(view), _) => digester.of_view(view),
        (Snapshot::Empty, 1) => digester.of_view_v1(&View::empty("the empty tree")),
        (Snapshot::Empty, _) => digester.of_view(&View::empty("the empty tree")),
    };
    memo.digests.insert((key, version), digest.clone());
    digest
}

/// The content a receipt must match, and what may have changed since.
pub(super) struct RanOn<'a> {
    pub snapshot: Snapshot<'a>,
    /// What the snapshot is, for messages.
    pub label: String,
    /// The content paths of the step itself (what may have changed after
    /// the check ran, when the digests differ).
    pub own_paths: Vec<String>,
    /// Later steps of the task that changed content: each makes the
    /// receipt stale.
    pub later: Vec<(String, Vec<String>)>,
}

/// Where among a task's steps a receipt was added: the last step that
/// wrote it (a deletion writes nothing), the content paths that step
/// changed, and each later step that changed content with its paths.
#[derive(Debug, PartialEq, Eq)]
struct Added {
    index: usize,
    own_paths: Vec<String>,
    later: Vec<(String, Vec<String>)>,
}

fn added_at(steps: &[Step], receipt_path: &str, agent_files: &[&Globs]) -> Option<Added> {
    let index = steps.iter().rposition(|step| {
        step.changes
            .iter()
            .any(|c| c.path.as_slice() == receipt_path.as_bytes() && c.kind != ChangeKind::Deleted)
    })?;
    let content = |s: &Step| -> Vec<String> {
        s.content_changes(agent_files)
            .map(|(p, _)| p.to_string())
            .collect()
    };
    Some(Added {
        index,
        own_paths: content(&steps[index]),
        later: steps[index + 1..]
            .iter()
            .filter(|s| s.changes_content(agent_files))
            .map(|s| (s.label.clone(), content(s)))
            .collect(),
    })
}

/// Where the receipt at `receipt_path` must be current; `None` when no
/// step of the task's history added it, so where it ran is unknown.
pub(super) fn ran_on<'a>(ctx: &TaskContext<'a>, receipt_path: &str) -> Option<RanOn<'a>> {
    let gate = ctx.gate;
    let fixed = |snapshot: Snapshot<'a>, label: &str| RanOn {
        snapshot,
        label: label.to_string(),
        own_paths: Vec::new(),
        later: Vec::new(),
    };
    match gate.config.freshness {
        Freshness::Merge => return Some(fixed(gate.lands(), &gate.landing.lands_label)),
        Freshness::Head => return Some(fixed(gate.tip(), &gate.landing.tip_label)),
        Freshness::Task => {}
    }
    if ctx.steps.is_empty() {
        return Some(fixed(ctx.at, &ctx.at_label));
    }
    let agent_files = gate.config.agent_files();
    let added = added_at(&ctx.steps, receipt_path, &agent_files)?;
    let step = &ctx.steps[added.index];
    Some(RanOn {
        snapshot: step.snapshot(gate.pending()),
        label: step.label.clone(),
        own_paths: added.own_paths,
        later: added.later,
    })
}

/// At most `limit` paths, comma-separated, with a count of the rest.
pub(super) fn list_paths(paths: &[String], limit: usize) -> String {
    let mut text = paths
        .iter()
        .take(limit)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > limit {
        text.push_str(&format!(" and {} more", paths.len() - limit));
    }
    if text.is_empty() {
        text.push_str("no content path");
    }
    text
}

/// No step of the task's history added the receipt.
pub(super) fn origin_unknown(id: &str, baseline_label: &str) -> String {
    format!(
        "check `{id}`: no commit of the task's history since its baseline ({baseline_label}) added this receipt, so where it ran is unknown"
    )
}

/// The content where the receipt was added digests otherwise than the
/// content the check ran on.
pub(super) fn digest_differs(
    id: &str,
    recorded: Option<&str>,
    ran_on: &RanOn<'_>,
    digest: &str,
    version: u32,
) -> String {
    let detail = if ran_on.own_paths.is_empty() {
        String::new()
    } else {
        format!(
            "; it changed {} there, so look for edits made after the check ran",
            list_paths(&ran_on.own_paths, 8)
        )
    };
    format!(
        "check `{id}` ran on content with tree digest {}, but {} (where the receipt was added) digests to {digest} (tree-v{version}): the receipt does not describe the content it was committed with{detail}",
        recorded.unwrap_or("(none)"),
        ran_on.label,
    )
}

/// A later step of the task changed content after the check ran.
pub(super) fn changed_later(id: &str, ran_on: &RanOn<'_>) -> Option<String> {
    let (label, paths) = ran_on.later.first()?;
    Some(format!(
        "check `{id}` ran on {}, but the task's later {label} changed {}{}",
        ran_on.label,
        list_paths(paths, 8),
        if ran_on.later.len() > 1 {
            format!(
                " (and {} more of its commits changed content)",
                ran_on.later.len() - 1
            )
        } else {
            String::new()
        }
    ))
}

/// The commands that refresh a receipt.
pub fn refresh_hint(spec_path: &str, id: &str, receipt_path: &str) -> String {
    format!(
        "re-run the check on the content you commit: `mastermind-hooks verification run {spec_path} --id {id}`, then `git add {receipt_path}` and commit it with (or after) the change it verifies"
    )
}

/// The refresh where git converts files on `git add`: the bytes the check
/// ran on are not the blobs committed, and a re-run in place digests the
/// same bytes again.
pub(super) fn converted_hint(spec_path: &str, id: &str, receipt_path: &str) -> String {
    format!(
        "this repository converts files on their way into git (core.autocrlf, or `text`/`eol`/`filter` in .gitattributes), so the bytes on disk differ from the committed blobs: stage the change, then run the check on exactly the staged content with `mastermind-hooks verification run {spec_path} --id {id} --isolated`, `git add {receipt_path}` and commit"
    )
}

/// True when git may convert files on their way into the repository:
/// `core.autocrlf` is set, or the root `.gitattributes` of `at` gives a
/// converting attribute. (Nested attribute files are not read: this only
/// chooses a hint.)
pub(super) fn converts_on_add(ctx: &TaskContext<'_>, at: Snapshot<'_>) -> Result<bool> {
    use crate::repo::tree::stat_reuse::{attributes_may_convert, autocrlf_on};
    let repo = ctx.gate.repo;
    if autocrlf_on(repo) {
        return Ok(true);
    }
    Ok(match at.read(repo, ".gitattributes", 1024 * 1024)? {
        Some(Content::Bytes(bytes)) => attributes_may_convert(&bytes),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::change::{Identity, StepAt};
    use crate::repo::history::PathChange;

    const RECEIPT: &str = ".mastermind/tasks/t/verification/unit.tree.json";

    fn step(label: &str, changes: &[(&str, ChangeKind)]) -> Step {
        Step {
            at: StepAt::Pending,
            parents: Vec::new(),
            label: label.to_string(),
            identity: Identity::default(),
            changes: changes
                .iter()
                .map(|(path, kind)| PathChange {
                    path: (*path).into(),
                    kind: *kind,
                    old: None,
                    new: None,
                })
                .collect(),
        }
    }

    fn ran_on(label: &str, own: &[&str], later: &[(&str, &[&str])]) -> RanOn<'static> {
        let strings = |paths: &[&str]| paths.iter().map(|p| p.to_string()).collect();
        RanOn {
            snapshot: Snapshot::Empty,
            label: label.to_string(),
            own_paths: strings(own),
            later: later
                .iter()
                .map(|(l, p)| (l.to_string(), strings(p)))
                .collect(),
        }
    }

    #[test]
    fn a_receipt_is_judged_where_it_was_last_written() {
        let steps = [
            step("one", &[("src/a.rs", ChangeKind::Added)]),
            step(
                "two",
                &[
                    (RECEIPT, ChangeKind::Added),
                    ("src/a.rs", ChangeKind::Modified),
                ],
            ),
            step("three", &[(RECEIPT, ChangeKind::Modified)]),
            step("four", &[(RECEIPT, ChangeKind::Deleted)]),
        ];
        let added = added_at(&steps, RECEIPT, &[]).unwrap();
        assert_eq!(added.index, 2, "a deletion is not where a check ran");
        assert!(added.own_paths.is_empty(), "a receipt is no content path");
        assert!(
            added.later.is_empty(),
            "deleting a receipt changes no content"
        );
        assert_eq!(added_at(&steps[..1], RECEIPT, &[]), None);
    }

    #[test]
    fn later_content_changes_of_the_task_make_it_stale_bookkeeping_does_not() {
        let steps = [
            step(
                "run",
                &[
                    (RECEIPT, ChangeKind::Added),
                    ("src/a.rs", ChangeKind::Modified),
                ],
            ),
            step(
                "report",
                &[(".mastermind/tasks/t/executor-report.md", ChangeKind::Added)],
            ),
            step("fix", &[("src/b.rs", ChangeKind::Modified)]),
            step(
                "config",
                &[(".mastermind/hooks.yaml", ChangeKind::Modified)],
            ),
        ];
        let added = added_at(&steps, RECEIPT, &[]).unwrap();
        assert_eq!(added.index, 0);
        assert_eq!(added.own_paths, ["src/a.rs"]);
        assert_eq!(
            added.later,
            [
                ("fix".to_string(), vec!["src/b.rs".to_string()]),
                // The configuration is content to freshness, though no
                // content path of a task.
                ("config".to_string(), Vec::new()),
            ]
        );
    }

    #[test]
    fn path_lists_are_capped_and_never_empty() {
        let paths: Vec<String> = (1..=10).map(|i| format!("f{i}")).collect();
        assert_eq!(list_paths(&paths[..2], 8), "f1, f2");
        assert_eq!(
            list_paths(&paths, 8),
            "f1, f2, f3, f4, f5, f6, f7, f8 and 2 more"
        );
        assert_eq!(list_paths(&[], 8), "no content path");
    }

    #[test]
    fn a_differing_digest_names_both_digests_and_what_the_step_changed() {
        let quiet = digest_differs("unit", None, &ran_on("the index", &[], &[]), "d2", 2);
        assert_eq!(
            quiet,
            "check `unit` ran on content with tree digest (none), but the index (where the receipt was added) digests to d2 (tree-v2): the receipt does not describe the content it was committed with"
        );
        let named = digest_differs(
            "unit",
            Some("d1"),
            &ran_on("commit abc", &["src/a.rs"], &[]),
            "d2",
            1,
        );
        assert!(named.contains("tree digest d1, but commit abc"), "{named}");
        assert!(named.contains("(tree-v1)"), "{named}");
        assert!(
            named.ends_with(
                "; it changed src/a.rs there, so look for edits made after the check ran"
            ),
            "{named}"
        );
    }

    #[test]
    fn a_later_change_names_the_first_commit_and_counts_the_rest() {
        assert_eq!(changed_later("unit", &ran_on("commit a", &[], &[])), None);
        let one = changed_later("unit", &ran_on("commit a", &[], &[("commit b", &["x"])]));
        assert_eq!(
            one.as_deref(),
            Some("check `unit` ran on commit a, but the task's later commit b changed x")
        );
        let three = changed_later(
            "unit",
            &ran_on(
                "commit a",
                &[],
                &[
                    ("commit b", &["x", "y"]),
                    ("commit c", &[]),
                    ("commit d", &["z"]),
                ],
            ),
        )
        .unwrap();
        assert!(
            three.ends_with(
                "later commit b changed x, y (and 2 more of its commits changed content)"
            ),
            "{three}"
        );
    }

    #[test]
    fn hints_name_the_exact_commands() {
        let refresh = refresh_hint("t/spec.md", "unit", "t/verification/unit.tree.json");
        assert!(refresh.contains("`mastermind-hooks verification run t/spec.md --id unit`"));
        assert!(refresh.contains("`git add t/verification/unit.tree.json`"));
        let converted = converted_hint("t/spec.md", "unit", "t/verification/unit.tree.json");
        assert!(
            converted
                .contains("`mastermind-hooks verification run t/spec.md --id unit --isolated`")
        );
        assert!(origin_unknown("unit", "commit abc").contains("since its baseline (commit abc)"));
    }
}
