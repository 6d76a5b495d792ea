//! Agent files outside tasks (DESIGN.md section 5 item 8): changed files that
//! match the configured globs (plastic reports, intents and savepoint
//! ledgers, subagent returns, the adversarial-findings ledger) are validated
//! with their contract, and a ledger edit must only append to journey
//! sections, never rewrite or drop one.

use super::Gate;
use crate::codes::Code;
use crate::config::{Config, Globs};
use crate::contract::{self, Kind};
use crate::diagnostic::Diagnostic;
use crate::repo::Result;
use crate::repo::changes::ChangeKind;
use crate::repo::snapshot::Snapshot;
use crate::repo::tree::Content;
use crate::report::FileResult;
use gix::bstr::ByteSlice;
use std::collections::{BTreeMap, BTreeSet};

/// The kind a configured glob assigns to a path, first match wins.
pub fn configured_kind(config: &Config, path: &str) -> Option<Kind> {
    let table: [(&Globs, Kind); 5] = [
        (&config.findings_ledgers, Kind::FindingsLedger),
        (&config.plastic_savepoints, Kind::PlasticSavepoints),
        (&config.plastic_intents, Kind::PlasticIntent),
        (&config.plastic_reports, Kind::PlasticReport),
        (&config.subagent_returns, Kind::SubagentReturn),
    ];
    table
        .into_iter()
        .find(|(globs, _)| globs.is_match(path))
        .map(|(_, kind)| kind)
}

/// Journey sections of a ledger: slug -> section text (heading included).
/// A section runs from its `### j-<slug>` line to the next `###`/`##`
/// heading or the end.
pub fn journey_sections(text: &str) -> BTreeMap<String, String> {
    let mut sections = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        let heading = line.starts_with("### ") || line.starts_with("## ") || line.starts_with("# ");
        if heading {
            if let Some((slug, body)) = current.take() {
                sections.insert(slug, body);
            }
            if let Some(slug) = line.strip_prefix("### ").filter(|s| s.starts_with("j-")) {
                current = Some((slug.trim().to_string(), format!("{line}\n")));
            }
            continue;
        }
        if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some((slug, body)) = current {
        sections.insert(slug, body);
    }
    sections
}

/// Journey sections that an edit from `old` to `new` rewrote or dropped
/// (an append to the end of a section is fine).
pub fn rewritten_sections(old: &str, new: &str) -> Vec<(String, &'static str)> {
    let before = journey_sections(old);
    let after = journey_sections(new);
    before
        .iter()
        .filter_map(|(slug, old_body)| match after.get(slug) {
            None => Some((slug.clone(), "removed")),
            Some(new_body) if !new_body.starts_with(old_body.trim_end()) => {
                Some((slug.clone(), "rewritten"))
            }
            Some(_) => None,
        })
        .collect()
}

fn read_text(
    gate: &Gate<'_>,
    at: Snapshot<'_>,
    path: &str,
    limit: usize,
) -> Result<Option<Vec<u8>>> {
    Ok(match at.read(gate.repo, path, limit)? {
        Some(Content::Bytes(bytes)) => Some(bytes),
        _ => None,
    })
}

/// Validate every file a step of the change touched that a configured glob
/// names, as the tip has it (a ledger edit against the base's ledger).
pub fn check(gate: &Gate<'_>) -> Result<Vec<FileResult>> {
    let touched: BTreeSet<&str> = gate
        .steps
        .iter()
        .flat_map(|s| s.changes.iter())
        .filter_map(|c| c.path.to_str().ok())
        .collect();
    let base = match gate.base {
        Some(commit) => Snapshot::Tree(gate.repo.commit_tree(commit)?),
        None => Snapshot::Empty,
    };
    let mut results = Vec::new();
    for path in touched {
        let Some(kind) = configured_kind(gate.config, path) else {
            continue;
        };
        let change = match (base.get(gate.repo, path)?, gate.tip.get(gate.repo, path)?) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Deleted,
            (Some(a), Some(b)) if a != b => ChangeKind::Modified,
            _ => continue,
        };
        let mut diagnostics = Vec::new();
        let new_bytes = if change == ChangeKind::Deleted {
            None
        } else {
            match gate.tip.read(gate.repo, path, kind.max_bytes())? {
                None => None,
                Some(Content::Bytes(bytes)) => {
                    diagnostics.extend(contract::check(kind, &bytes).diagnostics);
                    Some(bytes)
                }
                Some(Content::TooLarge { size }) => {
                    diagnostics.push(Diagnostic::new(
                        Code::input_too_large,
                        format!(
                            "{path} is {size} bytes; the limit is {} bytes",
                            kind.max_bytes()
                        ),
                    ));
                    None
                }
                Some(Content::NotRegular(_)) => {
                    diagnostics.push(Diagnostic::new(
                        Code::artifact_not_regular_file,
                        format!("{path} is not a regular file in {}", gate.tip_label),
                    ));
                    None
                }
            }
        };
        if kind == Kind::FindingsLedger && change != ChangeKind::Added {
            let old = read_text(gate, base, path, kind.max_bytes())?;
            if let Some(old) = old {
                let old = String::from_utf8_lossy(&old);
                let new = new_bytes
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default();
                for (slug, how) in rewritten_sections(&old, &new) {
                    diagnostics.push(Diagnostic::new(
                        Code::ledger_section_rewritten,
                        format!(
                            "journey section `### {slug}` was {how}; the ledger only grows by appending to one journey's section"
                        ),
                    ));
                }
            }
        }
        if change == ChangeKind::Deleted && diagnostics.is_empty() {
            continue;
        }
        let diagnostics = diagnostics
            .into_iter()
            .map(|d| gate.config.apply(d))
            .collect();
        results.push(FileResult::new(
            path.to_string(),
            Some(kind.name()),
            None,
            diagnostics,
        ));
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEDGER: &str = "<!-- coverage-expansion-adversarial:generated -->\n# Adversarial Findings — app\n## Cross-cutting findings\n\n### j-cart\n\n**Pass 4 — probe (2026-01-01)**\nScope: cart.\n\n### j-login\n\n**Pass 4 — probe (2026-01-01)**\nScope: login.\n";

    #[test]
    fn appending_to_a_section_is_fine_rewriting_or_dropping_one_is_not() {
        let appended = LEDGER.replace(
            "Scope: login.\n",
            "Scope: login.\n\n**Pass 4 summary:** ...\n",
        );
        assert!(rewritten_sections(LEDGER, &appended).is_empty());
        let new_journey = format!("{LEDGER}\n### j-pay\n\nScope: pay.\n");
        assert!(rewritten_sections(LEDGER, &new_journey).is_empty());
        let rewritten = LEDGER.replace("Scope: cart.", "Scope: basket.");
        assert_eq!(
            rewritten_sections(LEDGER, &rewritten),
            [("j-cart".to_string(), "rewritten")]
        );
        let dropped = LEDGER.replace(
            "### j-cart\n\n**Pass 4 — probe (2026-01-01)**\nScope: cart.\n\n",
            "",
        );
        assert_eq!(
            rewritten_sections(LEDGER, &dropped),
            [("j-cart".to_string(), "removed")]
        );
    }
}
