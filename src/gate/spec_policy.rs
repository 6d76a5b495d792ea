//! The contract comes from before the work (DESIGN.md section 5, "Trust").
//!
//! A task's spec is judged against the spec the protected branch has
//! ([`crate::gate::landing::Landing::protected`]: the remote's default
//! branch in pre-push and pre-receive, the target in CI, the clone's
//! default branch in the local modes; the target where the mode cannot
//! tell). A spec that never landed there is the agent's own: on its branch
//! it may change with the work, whatever the branch's own earlier commits
//! said (its receipts still go stale with it). For a landed spec:
//!
//! * a spec with a byte-order mark is refused (`spec_bom`): the reference
//!   would read it as a legacy spec and silently drop its front matter;
//! * a spec that had front matter on the base never becomes a legacy spec
//!   (`spec_frontmatter_removed`);
//! * no observed check, declared command or acceptance criterion of the
//!   base's spec may disappear (`spec_loosened`, with a diff);
//! * with `specs.changes: planning` (the default) a spec that is on the base
//!   changes only in a planning change: a change that changes the spec
//!   and does work for the task is refused (`spec_changed_with_work`);
//! * with `specs.require_on_base: true` work lands only for a task whose
//!   spec is on the target (`spec_not_on_base`); a change that only plans
//!   a task (its spec, no content) lands first.
//!
//! A spec that is new in the change is judged as written here; whether its
//! writer may plan the task is the planning policy's
//! ([`super::planning`]).

use super::TaskContext;
use super::scope::path_diff;
use crate::codes::Code;
use crate::config::SpecChanges;
use crate::contract::mastermind::spec::{self, ParsedSpec};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::{Content, short};
use std::collections::BTreeSet;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a spec promises that must not silently disappear: its observed
/// checks, its declared commands and its acceptance criteria (with the
/// checks each one names).
fn promises(parsed: &ParsedSpec) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for command in parsed.declared_commands() {
        out.insert(format!("command: {command}"));
    }
    if let Some(frontmatter) = &parsed.frontmatter {
        for (_, run) in frontmatter.observed() {
            out.insert(format!("observed check: {}", run.id));
        }
        for criterion in frontmatter.acceptance.iter().flatten() {
            out.insert(format!("acceptance criterion: {}", criterion.id));
            for check in &criterion.checks {
                out.insert(format!(
                    "acceptance criterion {} needs: {check}",
                    criterion.id
                ));
            }
        }
    }
    out
}

fn read_spec(ctx: &TaskContext<'_>, at: Snapshot<'_>, path: &str) -> Result<Option<Vec<u8>>> {
    Ok(match at.read(ctx.gate.repo, path, spec::MAX_SPEC_BYTES)? {
        Some(Content::Bytes(bytes)) => Some(bytes),
        _ => None,
    })
}

/// The checks of one task's spec against the base.
pub fn check(ctx: &TaskContext<'_>) -> Result<Vec<Diagnostic>> {
    let gate = ctx.gate;
    let path = format!("{}/spec.md", ctx.dir);
    let mut out = Vec::new();
    let Some(now) = read_spec(ctx, ctx.at, &path)? else {
        return Ok(out); // the spec check reports a missing spec
    };
    if now.starts_with(BOM) {
        out.push(
            Diagnostic::new(
                Code::spec_bom,
                format!(
                    "{path} starts with a UTF-8 byte-order mark; the reference reads such a spec as a legacy spec and drops its front matter (observed checks, acceptance)"
                ),
            )
            .with_path(path.clone())
            .with_line(Some(1))
            .with_hint(format!(
                "remove the three bytes before `---`: `sed -i '1s/^\\xEF\\xBB\\xBF//' {path}`"
            )),
        );
    }
    let base = gate.target();
    let on_target = read_spec(ctx, base, &path)?;
    // The spec is judged against the protected branch's where the mode
    // knows it: a spec that never landed there is the agent's own to
    // change on its branch, whatever its own earlier commits or pushes
    // said.
    let (before, where_) = match gate.protected() {
        Some(protected) if Some(protected) != gate.landing.target.commit => {
            let tree = Snapshot::Tree(gate.repo.commit_tree(protected)?);
            (
                read_spec(ctx, tree, &path)?,
                format!("the protected branch (commit {})", short(protected)),
            )
        }
        _ => (on_target.clone(), gate.landing.target.label.clone()),
    };
    if on_target.is_none() {
        if gate.config.specs_on_base && !ctx.planned {
            out.push(
                Diagnostic::new(
                    Code::spec_not_on_base,
                    format!(
                        "{path} is not on {}; this repository requires the plan to land before the work (specs.require_on_base)",
                        gate.landing.target.label
                    ),
                )
                .with_path(path.clone()),
            );
        }
        return Ok(out);
    }
    let Some(before) = before else {
        return Ok(out); // never landed: the agent's own spec
    };
    if before == now {
        return Ok(out);
    }
    let old = super::spec_memo::check(&before);
    let new = super::spec_memo::check(&now);
    let (old, new) = (&old.0, &new.0);
    if old.frontmatter.is_some() && (new.frontmatter.is_none() || now.starts_with(BOM)) {
        out.push(
            Diagnostic::new(
                Code::spec_frontmatter_removed,
                format!(
                    "{path} has front matter on {where_} but not in {}: a planned spec cannot become a legacy spec",
                    ctx.at_label
                ),
            )
            .with_path(path.clone())
            .with_line(Some(1)),
        );
    }
    let promised = promises(old);
    let kept = promises(new);
    let lost: Vec<&str> = promised.difference(&kept).map(String::as_str).collect();
    if !lost.is_empty() {
        let old_set: BTreeSet<&str> = promised.iter().map(String::as_str).collect();
        let new_set: BTreeSet<&str> = kept.iter().map(String::as_str).collect();
        out.push(
            Diagnostic::new(
                Code::spec_loosened,
                format!(
                    "{path} drops what {where_} declared: {}\n{}",
                    lost.join("; "),
                    path_diff(&old_set, &new_set, "base", "change")
                ),
            )
            .with_path(path.clone()),
        );
    }
    if gate.config.spec_changes == SpecChanges::Planning {
        // Only a change that itself changes the spec: a branch whose plan
        // commit was judged before (pushed alone) is not refused again for
        // the work that follows it.
        let change = ctx.change();
        let changes_spec = change.iter().any(|s| {
            s.changes
                .iter()
                .any(|c| c.path.as_slice() == path.as_bytes())
        });
        let working = change
            .iter()
            .find(|s| s.content_changes(&gate.bookkeeping).next().is_some());
        if let (true, Some(step)) = (changes_spec, working) {
            out.push(
                Diagnostic::new(
                    Code::spec_changed_with_work,
                    format!(
                        "{path} differs from {where_} and the same change does work for the task ({} changes {}): a spec on the base changes only in a planning change",
                        step.label,
                        step.content_changes(&gate.bookkeeping)
                            .map(|(p, _)| p)
                            .next()
                            .unwrap_or("content"),
                    ),
                )
                .with_path(path.clone())
                .with_hint(
                    "land the spec change on its own first (a commit, push or pull request that touches only .mastermind/), then the work; or restore the base's spec",
                ),
            );
        }
    }
    Ok(out)
}
