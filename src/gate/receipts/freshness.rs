//! Freshness of a tree receipt: the content its check ran on, and what
//! makes it stale.
//!
//! With `freshness: scope` (the default), what lands must equal what the
//! check ran on on every path of the task's *territory* (its declared
//! scope and the paths it changed, as judged on the landing), except where
//! what lands is the protected branch's own content on a path the task had
//! not changed when the check ran (main moved a declared file meanwhile).
//! A receipt of schema version 2 records what its check ran on there
//! ([`against_record`]), so it is judged the same whichever commit carries
//! it: a merge commit, a squash, a rebase-merge, a cherry-pick, a rebased
//! branch. A path of the territory the record lacks is stale. A receipt of
//! schema version 1 records no paths: it must describe the step that
//! committed it (the step whose own change put the receipt there as it
//! lands, or the index in pre-commit), and what lands must equal that
//! step's content on the territory except where what lands is the
//! protected target's own content ([`ran_on`], [`changed_since`]). Any
//! later edit there (by the task, another task, an untasked commit, a
//! merge resolution, a parallel branch) makes a receipt stale, and the
//! finding names the path, the step that put what lands there and its
//! author. Edits elsewhere belong to their own tasks or the untasked
//! policy. `freshness: merge` compares the whole of what lands (CI's merge
//! tree), `head` the tip. Tree digests are taken once per gate run
//! ([`super::Memo`]); the territory is compared with point lookups, never
//! a listing.

use super::Memo;
use crate::bookkeeping::PathClass;
use crate::config::Freshness;
use crate::contract::mastermind::territory::{Leaf, Recorded};
use crate::digest::merkle::FileLeaf;
use crate::gate::TaskContext;
use crate::gate::change::Step;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, Entry, View};
use crate::repo::{RepoError, Result};
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};

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
    let digester = memo.digester(ctx);
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

/// The content a receipt must match.
pub(super) struct RanOn<'a> {
    pub snapshot: Snapshot<'a>,
    /// What the snapshot is, for messages.
    pub label: String,
    /// The content paths the step itself changed (named when its digest
    /// differs from the receipt's).
    pub own_paths: Vec<String>,
    /// Whether what lands must also equal it on the task's territory
    /// (`freshness: scope`).
    pub scoped: bool,
}

/// The step whose own change put the receipt at `receipt_path` where the
/// task's artifacts are read: the last of the task's steps that wrote
/// exactly that entry (a deletion writes nothing).
fn committed_by<'s>(
    ctx: &'s TaskContext<'_>,
    receipt_path: &str,
    entry: Option<Entry>,
) -> Option<&'s Step> {
    let entry = entry?;
    ctx.steps
        .iter()
        .rev()
        .map(|s| s.as_ref())
        .find(|step| change_at(step, receipt_path).is_some_and(|c| c.new == Some(entry)))
}

/// A step's own change of `path`, if any.
fn change_at<'s>(step: &'s Step, path: &str) -> Option<&'s crate::repo::changes::PathChange> {
    step.changes
        .binary_search_by(|c| c.path.as_slice().cmp(path.as_bytes()))
        .ok()
        .map(|i| &step.changes[i])
        .or_else(|| {
            step.changes
                .iter()
                .find(|c| c.path.as_slice() == path.as_bytes())
        })
}

/// Where the receipt at `receipt_path` must be current; `None` when no
/// step of the task's history committed it as it lands, so where it ran
/// is unknown.
pub(super) fn ran_on<'a>(ctx: &TaskContext<'a>, receipt_path: &str) -> Result<Option<RanOn<'a>>> {
    let gate = ctx.gate;
    let fixed = |snapshot: Snapshot<'a>, label: &str| RanOn {
        snapshot,
        label: label.to_string(),
        own_paths: Vec::new(),
        scoped: false,
    };
    match gate.config.freshness {
        Freshness::Merge => return Ok(Some(fixed(gate.lands(), &gate.landing.lands_label))),
        Freshness::Head => return Ok(Some(fixed(gate.tip(), &gate.landing.tip_label))),
        Freshness::Scope => {}
    }
    if ctx.steps.is_empty() {
        return Ok(Some(fixed(ctx.at, &ctx.at_label)));
    }
    let entry = ctx.at.get(gate.repo, receipt_path)?;
    let Some(step) = committed_by(ctx, receipt_path, entry) else {
        return Ok(None);
    };
    Ok(Some(RanOn {
        snapshot: step.snapshot(gate.pending()),
        label: step.label.clone(),
        own_paths: step
            .content_changes(&gate.bookkeeping)
            .map(|(p, _)| p.to_string())
            .collect(),
        scoped: true,
    }))
}

/// A path of the task's territory that changed after the check ran.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Changed {
    pub path: String,
    /// The step that put what lands there (`label, author`), when one did.
    pub by: Option<(String, Option<String>)>,
    /// The receipt's record does not name the path (the task had not
    /// changed it, and the spec did not declare it, when the check ran).
    pub unrecorded: bool,
}

/// The content freshness by scope trusts without a check having run on it:
/// the protected branch's tip as the mode knows it, else the target.
fn trusted(ctx: &TaskContext<'_>) -> Result<Snapshot<'static>> {
    let gate = ctx.gate;
    Ok(match gate.protected() {
        Some(commit) => Snapshot::Tree(gate.repo.commit_tree(commit)?),
        None => gate.target(),
    })
}

/// The paths of the task's territory as the landing has it: the declared
/// scope and the task's changed paths, content only.
fn territory<'c>(ctx: &'c TaskContext<'_>, declared: &'c BTreeSet<String>) -> BTreeSet<&'c str> {
    let gate = ctx.gate;
    declared
        .iter()
        .map(String::as_str)
        .chain(ctx.paths.keys().map(String::as_str))
        .filter(|p| gate.bookkeeping.class_of_path(p) == PathClass::Ordinary)
        .collect()
}

/// The paths of the task's territory where what lands differs from what
/// the receipt's `record` says its check ran on, or which the record does
/// not name, except where what lands is the protected branch's own content
/// on a path the task had not changed when the check ran.
pub(super) fn against_record<'r>(
    ctx: &TaskContext<'r>,
    memo: &mut Memo<'r>,
    record: &[Recorded<'_>],
    declared: &BTreeSet<String>,
) -> Result<Vec<Changed>> {
    let gate = ctx.gate;
    let repo = gate.repo;
    let trusted = trusted(ctx)?;
    let find = |path: &str| {
        record
            .binary_search_by(|r| r.path.as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &record[i])
    };
    // The paths to compare, with what lands there and what was recorded.
    let mut open: Vec<(&str, Option<Entry>, Option<&Recorded<'_>>)> = Vec::new();
    for path in territory(ctx, declared) {
        let landed = ctx.at.get(repo, path)?;
        let recorded = find(path);
        let changed_by_task = recorded.is_some_and(|r| r.changed);
        if !changed_by_task && trusted.get(repo, path)? == landed {
            continue;
        }
        open.push((path, landed, recorded));
    }
    let present: Vec<&str> = open
        .iter()
        .filter(|(_, landed, recorded)| landed.is_some() && recorded.is_some())
        .map(|(path, _, _)| *path)
        .collect();
    let leaves = memo.digester(ctx).leaves(ctx.at, &present)?;
    let landed_leaf: HashMap<&str, Option<FileLeaf>> =
        present.iter().copied().zip(leaves).collect();
    let mut out = Vec::new();
    for (path, landed, recorded) in open {
        let same = match (recorded.map(|r| &r.leaf), landed) {
            (None, _) => false,
            (Some(Leaf::Absent), None) => true,
            (Some(Leaf::Absent), Some(_)) | (Some(Leaf::Present { .. }), None) => false,
            (Some(Leaf::Present { mode, sha256 }), Some(_)) => landed_leaf
                .get(path)
                .copied()
                .flatten()
                .is_some_and(|(m, sha)| {
                    m.octal() == mode && hex::encode(sha).eq_ignore_ascii_case(sha256)
                }),
        };
        if !same {
            out.push(Changed {
                path: path.to_string(),
                by: writer(ctx, path, landed),
                unrecorded: recorded.is_none(),
            });
        }
    }
    Ok(out)
}

/// The paths of the task's territory (`declared` scope and its changed
/// paths) where what lands differs from what the check ran on, except
/// where what lands is the target's own content.
pub(super) fn changed_since(
    ctx: &TaskContext<'_>,
    ran_on: &RanOn<'_>,
    declared: &BTreeSet<String>,
) -> Result<Vec<Changed>> {
    let gate = ctx.gate;
    let repo = gate.repo;
    let target = gate.target();
    let mut out = Vec::new();
    for path in territory(ctx, declared) {
        let landed = ctx.at.get(repo, path)?;
        if ran_on.snapshot.get(repo, path)? == landed || target.get(repo, path)? == landed {
            continue;
        }
        out.push(Changed {
            path: path.to_string(),
            by: writer(ctx, path, landed),
            unrecorded: false,
        });
    }
    Ok(out)
}

/// The last step (of the change, else of the task's history) whose own
/// change put `entry` at `path`.
fn writer(
    ctx: &TaskContext<'_>,
    path: &str,
    entry: Option<Entry>,
) -> Option<(String, Option<String>)> {
    let landing = ctx.gate.landing.steps.iter().rev();
    let history = ctx.steps.iter().rev().map(|s| s.as_ref());
    landing
        .chain(history)
        .find(|step| change_at(step, path).is_some_and(|c| c.new == entry))
        .map(|step| (step.label.clone(), step.identity.author.clone()))
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

/// No step of the task's history committed the receipt as it lands.
pub(super) fn origin_unknown(id: &str, baseline_label: &str) -> String {
    format!(
        "check `{id}`: no commit of the task's history since its baseline ({baseline_label}) committed this receipt as it lands, and a receipt of schema version 1 records no paths, so where it ran is unknown (a re-run writes a receipt judged by content)"
    )
}

/// What lands differs from what a receipt's record says its check ran on.
pub(super) fn record_differs(id: &str, changed: &[Changed]) -> String {
    format!(
        "what lands differs from the content check `{id}` ran on, on what its task covers: {}",
        paths_by(changed)
    )
}

/// Each path with the step that put what lands there and its author (at
/// most eight, then a count).
fn paths_by(changed: &[Changed]) -> String {
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = changed
        .iter()
        .take(SHOWN)
        .map(|c| {
            let unrecorded = if c.unrecorded {
                "not recorded by the receipt: its task had not changed it when the check ran; "
            } else {
                ""
            };
            match &c.by {
                Some((label, Some(author))) => {
                    format!("{} ({unrecorded}by {label}, author {author})", c.path)
                }
                Some((label, None)) => format!("{} ({unrecorded}by {label})", c.path),
                None if c.unrecorded => {
                    format!("{} ({})", c.path, unrecorded.trim_end_matches("; "))
                }
                None => format!("{} (by the merge of what lands)", c.path),
            }
        })
        .collect();
    if changed.len() > SHOWN {
        parts.push(format!("and {} more", changed.len() - SHOWN));
    }
    parts.join(", ")
}

/// The content where the receipt was committed digests otherwise than the
/// content the check ran on.
pub(super) fn digest_differs(
    id: &str,
    recorded: Option<&str>,
    ran_on: &RanOn<'_>,
    digest: &str,
    version: u32,
) -> String {
    // Only receipts of schema version 1 are judged by the step that
    // committed them: they record no paths, so the content they ran on is
    // known only as a whole tree.
    let detail = if !ran_on.scoped {
        String::new()
    } else if ran_on.own_paths.is_empty() {
        "; this receipt (schema version 1) records no paths, so it must describe the whole tree of the commit that carries it: a squash, a rebase or a cherry-pick puts it in a commit the check never ran on, as does an edit made after the check ran. A re-run writes a receipt that records what its check ran on and is judged by content".to_string()
    } else {
        format!(
            "; this receipt (schema version 1) records no paths, so it must describe the whole tree of the commit that carries it (which changed {}): a squash, a rebase or a cherry-pick puts it in a commit the check never ran on, as does an edit made after the check ran. A re-run writes a receipt that records what its check ran on and is judged by content",
            list_paths(&ran_on.own_paths, 8)
        )
    };
    let place = if ran_on.scoped {
        format!("{} (where the receipt was committed)", ran_on.label)
    } else {
        ran_on.label.clone()
    };
    format!(
        "check `{id}` ran on content with tree digest {}, but {place} digests to {digest} (tree-v{version}): the receipt does not describe that content{detail}",
        recorded.unwrap_or("(none)"),
    )
}

/// What lands changed on the task's territory after the check ran.
pub(super) fn changed_after(id: &str, ran_on: &RanOn<'_>, changed: &[Changed]) -> String {
    format!(
        "check `{id}` ran on {} (a receipt of schema version 1 is judged by the commit that committed it), but what lands differs there on what the task covers: {}",
        ran_on.label,
        paths_by(changed)
    )
}

/// The commands that refresh a receipt.
pub fn refresh_hint(spec_path: &str, id: &str, receipt_path: &str) -> String {
    format!(
        "re-run the check on the content you commit: `mastermind-hooks verification run {spec_path} --id {id}`, then `git add {receipt_path}` and commit it with (or after) the change it verifies"
    )
}

/// Both ways out of a receipt that what lands has overtaken: refresh it, or
/// let CI run the check again on what lands.
pub fn rerun_hint(spec_path: &str, id: &str, receipt_path: &str) -> String {
    format!(
        "{}; or let CI re-run it on what lands (`mastermind-hooks check --ci --rerun`)",
        refresh_hint(spec_path, id, receipt_path)
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

    fn ran_on(label: &str, own: &[&str]) -> RanOn<'static> {
        RanOn {
            snapshot: Snapshot::Empty,
            label: label.to_string(),
            own_paths: own.iter().map(|p| p.to_string()).collect(),
            scoped: true,
        }
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
        let mut whole = ran_on("what lands", &[]);
        whole.scoped = false;
        let quiet = digest_differs("unit", None, &whole, "d2", 2);
        assert_eq!(
            quiet,
            "check `unit` ran on content with tree digest (none), but what lands digests to d2 (tree-v2): the receipt does not describe that content"
        );
        let named = digest_differs(
            "unit",
            Some("d1"),
            &ran_on("commit abc", &["src/a.rs"]),
            "d2",
            1,
        );
        assert!(named.contains("tree digest d1, but commit abc"), "{named}");
        assert!(named.contains("(tree-v1)"), "{named}");
        assert!(
            named.contains("(which changed src/a.rs): a squash, a rebase or a cherry-pick"),
            "{named}"
        );
        assert!(!named.contains("look for edits"), "{named}");
    }

    #[test]
    fn a_later_change_names_each_path_its_step_and_author() {
        let changed = [
            Changed {
                path: "src/a.rs".into(),
                by: Some(("commit b (\"tidy\")".into(), Some("H <h@x>".into()))),
                unrecorded: false,
            },
            Changed {
                path: "src/b.rs".into(),
                by: None,
                unrecorded: false,
            },
        ];
        let text = changed_after("unit", &ran_on("commit a", &[]), &changed);
        assert_eq!(
            text,
            "check `unit` ran on commit a (a receipt of schema version 1 is judged by the commit that committed it), but what lands differs there on what the task covers: src/a.rs (by commit b (\"tidy\"), author H <h@x>), src/b.rs (by the merge of what lands)"
        );
        let recorded = [
            Changed {
                path: "src/a.rs".into(),
                by: Some(("commit b (\"tidy\")".into(), Some("H <h@x>".into()))),
                unrecorded: false,
            },
            Changed {
                path: "src/new.rs".into(),
                by: Some(("commit c (\"more\")".into(), None)),
                unrecorded: true,
            },
            Changed {
                path: "src/c.rs".into(),
                by: None,
                unrecorded: true,
            },
        ];
        assert_eq!(
            record_differs("unit", &recorded),
            "what lands differs from the content check `unit` ran on, on what its task covers: src/a.rs (by commit b (\"tidy\"), author H <h@x>), src/new.rs (not recorded by the receipt: its task had not changed it when the check ran; by commit c (\"more\")), src/c.rs (not recorded by the receipt: its task had not changed it when the check ran)"
        );
    }

    #[test]
    fn hints_name_the_exact_commands_and_both_ways_out() {
        let refresh = refresh_hint("t/spec.md", "unit", "t/verification/unit.tree.json");
        assert!(refresh.contains("`mastermind-hooks verification run t/spec.md --id unit`"));
        assert!(refresh.contains("`git add t/verification/unit.tree.json`"));
        let both = rerun_hint("t/spec.md", "unit", "t/verification/unit.tree.json");
        assert!(
            both.starts_with(&refresh) && both.contains("check --ci --rerun"),
            "{both}"
        );
        let converted = converted_hint("t/spec.md", "unit", "t/verification/unit.tree.json");
        assert!(
            converted
                .contains("`mastermind-hooks verification run t/spec.md --id unit --isolated`")
        );
        assert!(origin_unknown("unit", "commit abc").contains("since its baseline (commit abc)"));
    }
}
