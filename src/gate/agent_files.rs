//! Agent files outside tasks (DESIGN.md section 5 item 8): changed files that
//! match the configured globs (plastic reports, intents and savepoint
//! ledgers, subagent returns, the adversarial-findings ledger) are validated
//! with their contract, and a ledger edit must only append to journey
//! sections, never rewrite or drop one.
//!
//! A subagent return is routed by its recorded dispatch description (seed
//! 004 section 4.4, [`recorded_description`]): a first line
//! `# dispatch: <description>` (a YAML comment), else the file name without
//! its extensions. When that routes nowhere, the return's own
//! `handover.role` routes it; when that does not either, the outcome is the
//! configured `contracts.unknown_dispatch`.

use super::Gate;
use crate::artifact::{self, Kind};
use crate::codes::Code;
use crate::config::Config;
use crate::contract::subagent::dispatch::{self, DispatchRoute};
use crate::contract::subagent::{returns, routing};
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
    Kind::configured(config, path)
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

/// The dispatch description recorded for a subagent-return file: the
/// text after `# dispatch:` on its first line, else its file name without
/// extensions (`composer-j-login.c2.json` -> `composer-j-login`).
pub fn recorded_description<'a>(path: &'a str, bytes: &'a [u8]) -> &'a str {
    if let Some(description) = dispatch::recorded(bytes) {
        return description;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

/// Judge a subagent-return file by its recorded description, else by its
/// `handover.role`, else as an unknown dispatch.
fn check_return(path: &str, bytes: &[u8]) -> Vec<Diagnostic> {
    let description = recorded_description(path, bytes);
    if dispatch::route(description) != DispatchRoute::Unknown {
        return dispatch::check_dispatched(bytes, description).diagnostics;
    }
    let (parsed, diagnostics) = returns::check(bytes, None);
    let routed_by_role = parsed
        .as_ref()
        .is_some_and(|r| r.route != routing::Route::Unknown);
    // No role to route by: an unknown role, or no `handover` at all. Either
    // way the dispatch is unknown, and `contracts.unknown_dispatch` decides.
    let unrouted = diagnostics.iter().any(|d| {
        matches!(
            d.code,
            Code::subagent_return_role_unknown | Code::subagent_return_handover_missing
        )
    });
    if routed_by_role || !unrouted {
        return diagnostics;
    }
    vec![dispatch::unknown(description)]
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
        .landing
        .steps
        .iter()
        .flat_map(|s| s.changes.iter())
        .filter_map(|c| c.path.to_str().ok())
        .collect();
    let base = gate.target();
    let mut results = Vec::new();
    for path in touched {
        let Some(kind) = configured_kind(gate.config, path) else {
            continue;
        };
        let (before, after) = (
            base.get(gate.repo, path)?,
            gate.lands().get(gate.repo, path)?,
        );
        let Some(change) = ChangeKind::between(before.as_ref(), after.as_ref()) else {
            continue;
        };
        let mut diagnostics = Vec::new();
        let new_bytes = if change == ChangeKind::Deleted {
            None
        } else {
            match gate.lands().read(gate.repo, path, kind.max_bytes())? {
                None => None,
                Some(Content::Bytes(bytes)) => {
                    diagnostics.extend(if kind == Kind::SubagentReturn {
                        check_return(path, &bytes)
                    } else {
                        artifact::check(kind, &bytes).diagnostics
                    });
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
                        format!(
                            "{path} is not a regular file in {}",
                            gate.landing.lands_label
                        ),
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
        let diagnostics = gate.config.apply_all(diagnostics);
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
    fn a_return_is_routed_by_its_recorded_description() {
        assert_eq!(
            recorded_description("r/composer-j-login.c2.json", b"{}"),
            "composer-j-login"
        );
        assert_eq!(
            recorded_description(
                "r/x.yaml",
                b"# dispatch: probe-j-cart: pass 4\nhandover: {}\n"
            ),
            "probe-j-cart: pass 4"
        );
        assert_eq!(recorded_description("r/x.yaml", b"#dispatch:\n"), "x");
        let probe = br#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean", "next-action": "x"}}"#;
        // The name routes; a free-form name is a silent allow.
        assert!(check_return("r/probe-j-cart.json", probe).is_empty());
        assert!(check_return("r/j-cart.json", b"free text").is_empty());
        // A name that routes nowhere: the handover role routes.
        assert!(check_return("r/return-1.json", probe).is_empty());
        let broken = br#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean"}}"#;
        assert_eq!(
            check_return("r/return-1.json", broken)[0].code,
            Code::subagent_return_schema_violation
        );
        // Neither routes: the unknown-dispatch finding.
        let unrouted = br#"{"handover": {"role": "helper", "cycle": 1, "status": "done", "next-action": "x"}}"#;
        let found = check_return("r/return-1.json", unrouted);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::subagent_dispatch_unknown);
        // No handover at all: unknown too, so `contracts.unknown_dispatch:
        // allow` can let it through (issue 27).
        let bare = check_return("r/return-2.json", br#"{"result": "ok"}"#);
        assert_eq!(bare.len(), 1);
        assert_eq!(bare[0].code, Code::subagent_dispatch_unknown);
    }

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
