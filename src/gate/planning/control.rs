//! Control files (`planning.control_files`, with the configuration and the
//! allowed-signers file it names): what decides how every later change is
//! judged, or whether it is judged at all (CI definitions, CODEOWNERS,
//! server hook scripts). A change of one is planning, never task work: no
//! task's scope covers it ([`crate::bookkeeping::PathClass::Control`]),
//! and each path whose content in what lands differs from the target is
//! `control_file_changed`, graded by the planning policy over the steps
//! that changed it. What a change adopts ([`crate::gate::adoption`]: the
//! gate's own files brought to a base with no gate configuration) is a
//! note instead, as for the untasked policy.

use super::super::Gate;
use super::super::adoption::Adoption;
use super::super::change::Step;
use super::super::identity::Known;
use super::Verdict;
use crate::bookkeeping::PathClass;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use gix::bstr::ByteSlice;
use std::collections::{BTreeMap, BTreeSet};

/// The control-file findings of a change; the paths the change adopts go
/// to `adopted` instead.
pub fn check(
    gate: &Gate<'_>,
    known: &Known<'_>,
    adoption: &Adoption,
    adopted: &mut BTreeSet<String>,
) -> Result<Vec<Diagnostic>> {
    let mut by_path: BTreeMap<String, Vec<(&Step, &'static str)>> = BTreeMap::new();
    for step in &gate.landing.steps {
        for change in &step.changes {
            let Ok(path) = change.path.to_str() else {
                continue;
            };
            if matches!(
                gate.bookkeeping.class_of_path(path),
                PathClass::Config | PathClass::Control
            ) {
                by_path
                    .entry(path.to_string())
                    .or_default()
                    .push((step, change.kind.as_str()));
            }
        }
    }
    let mut out = Vec::new();
    let target = gate.target();
    let lands = gate.lands();
    for (path, steps) in by_path {
        // Changed and changed back, or the target's own version taken: a
        // change that lands nothing new there plans nothing.
        if lands.get(gate.repo, &path)? == target.get(gate.repo, &path)? {
            continue;
        }
        if adoption.covers(&path) {
            adopted.insert(path);
            continue;
        }
        let only: Vec<&Step> = steps.iter().map(|(step, _)| *step).collect();
        let verdict = Verdict::over(gate, known, &only, &path, "this control file");
        let kind = steps[steps.len() - 1].1;
        let what = format!(
            "{path} is a control file (planning.control_files), {kind} in this change: what it says decides how later changes are judged, so changing it is planning, never a task's work"
        );
        out.push(
            verdict
                .finding(
                    Code::control_file_changed,
                    what,
                    "have a planner make this change (a pull request, push or signed commit of theirs); a task cannot carry it, whatever its spec declares",
                    &gate.config.planning,
                )
                .with_path(path),
        );
    }
    Ok(out)
}
