//! A subagent's final message judged by its dispatch description: the
//! routing table of seed 004 section 4.4 (description prefix -> per-role
//! schema, envelope sanity only, or silent allow) with the reference's own
//! additions (`resolve_schema_role`: `test-composer-`, `secrets-sweep-`,
//! `composition-judge-`), and the selector-development convention of
//! section 4.5 as warnings.
//!
//! The table, first match wins, anchored at the start, case-sensitive (the
//! reference matches with shell `case` globs):
//!
//! | prefix | route |
//! |---|---|
//! | `perf-reviewer-` | perf-reviewer schema |
//! | `workflow-reviewer-` | workflow-reviewer schema |
//! | `secrets-sweep-`, `test-composer-`, `composer-` | composer schema |
//! | `reviewer-`, `composition-judge-` | reviewer-inloop schema |
//! | `probe-` | probe schema |
//! | `repair-worker-` | repair-worker schema |
//! | `phase-validator-` | phase-validator schema |
//! | `phase4-prioritise-author` | phase4-prioritise-author schema |
//! | `phase4-cycle-` | section-agent schema |
//! | `process-validator-`, `phase1-`, `stage2-`, `cleanup-`, `companion-`, `fd-` | envelope sanity only |
//! | `j-`, `sj-` | silent allow |
//! | `selector-development-` | silent allow; the section 4.5 convention as warnings |
//! | anything else | unknown: `subagent_dispatch_unknown` |
//!
//! An unknown prefix is a warning here; the gate and the agent hooks turn
//! it into nothing, a warning or a block with `contracts.unknown_dispatch`.

use super::returns;
use super::routing::{ReturnRole, Route};
use crate::codes::Code;
use crate::contract::text;
use crate::diagnostic::Diagnostic;
use serde_json::Value;

/// How a dispatch description routes (seed 004 section 4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DispatchRoute {
    /// The role's JSON Schema and the contract layer.
    Schema(ReturnRole),
    /// The handover envelope is parsed and sanity-checked, nothing more.
    EnvelopeOnly,
    /// Free-form returns: not validated.
    SilentAllow,
    /// No row of the table matches.
    Unknown,
}

/// What judging one dispatched return found.
#[derive(Clone, Debug, PartialEq)]
pub struct DispatchOutcome {
    pub route: DispatchRoute,
    pub diagnostics: Vec<Diagnostic>,
}

/// The routing table, in order.
const TABLE: &[(&str, DispatchRoute)] = &[
    (
        "perf-reviewer-",
        DispatchRoute::Schema(ReturnRole::PerfReviewer),
    ),
    (
        "workflow-reviewer-",
        DispatchRoute::Schema(ReturnRole::WorkflowReviewer),
    ),
    (
        "secrets-sweep-",
        DispatchRoute::Schema(ReturnRole::Composer),
    ),
    (
        "test-composer-",
        DispatchRoute::Schema(ReturnRole::Composer),
    ),
    ("composer-", DispatchRoute::Schema(ReturnRole::Composer)),
    (
        "reviewer-",
        DispatchRoute::Schema(ReturnRole::ReviewerInloop),
    ),
    (
        "composition-judge-",
        DispatchRoute::Schema(ReturnRole::ReviewerInloop),
    ),
    ("probe-", DispatchRoute::Schema(ReturnRole::Probe)),
    (
        "repair-worker-",
        DispatchRoute::Schema(ReturnRole::RepairWorker),
    ),
    (
        "phase-validator-",
        DispatchRoute::Schema(ReturnRole::PhaseValidator),
    ),
    (
        "phase4-prioritise-author",
        DispatchRoute::Schema(ReturnRole::Phase4PrioritiseAuthor),
    ),
    (
        "phase4-cycle-",
        DispatchRoute::Schema(ReturnRole::SectionAgent),
    ),
    ("process-validator-", DispatchRoute::EnvelopeOnly),
    ("phase1-", DispatchRoute::EnvelopeOnly),
    ("stage2-", DispatchRoute::EnvelopeOnly),
    ("cleanup-", DispatchRoute::EnvelopeOnly),
    ("companion-", DispatchRoute::EnvelopeOnly),
    ("fd-", DispatchRoute::EnvelopeOnly),
    ("j-", DispatchRoute::SilentAllow),
    ("sj-", DispatchRoute::SilentAllow),
    (SELECTOR_PREFIX, DispatchRoute::SilentAllow),
];

const SELECTOR_PREFIX: &str = "selector-development-";

/// Route a dispatch description by its prefix.
pub fn route(description: &str) -> DispatchRoute {
    let description = description.trim_start();
    TABLE
        .iter()
        .find(|(prefix, _)| description.starts_with(prefix))
        .map_or(DispatchRoute::Unknown, |(_, route)| *route)
}

/// The dispatch description a return file records on its first line,
/// `# dispatch: <description>` (a YAML comment, so the return still parses
/// as written), if it has one. `validate` and the gate both read it.
pub fn recorded(bytes: &[u8]) -> Option<&str> {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = std::str::from_utf8(first).ok()?;
    let first = first.trim_start_matches('\u{feff}').trim();
    let description = first
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("dispatch:")?
        .trim();
    (!description.is_empty()).then_some(description)
}

/// Validate a subagent's final message (YAML or JSON text) as its dispatch description routes it.
pub fn check_dispatched(bytes: &[u8], description: &str) -> DispatchOutcome {
    let route = route(description);
    let diagnostics = match route {
        DispatchRoute::Schema(role) => returns::check_routed(bytes, Some(Route::Schema(role))).1,
        DispatchRoute::EnvelopeOnly => returns::check_routed(bytes, Some(Route::EnvelopeOnly)).1,
        DispatchRoute::SilentAllow if description.trim_start().starts_with(SELECTOR_PREFIX) => {
            selector_convention(bytes)
        }
        DispatchRoute::SilentAllow => Vec::new(),
        DispatchRoute::Unknown => vec![unknown(description)],
    };
    DispatchOutcome { route, diagnostics }
}

/// The finding for a description no row of the table matches.
pub fn unknown(description: &str) -> Diagnostic {
    let shown: String = description.chars().take(80).collect();
    Diagnostic::new(
        Code::subagent_dispatch_unknown,
        format!(
            "dispatch description `{shown}` starts with no prefix of the subagent-return routing table, so no return contract applies"
        ),
    )
}

const SELECTOR_GUARDRAILS: &[&str] = &[
    "before_snapshot",
    "patch_applied",
    "typecheck",
    "unit_tests",
    "e2e",
    "after_snapshot",
    "visual_diff",
];

/// The selector-development convention (seed 004 section 4.5): documented,
/// never harness-validated, so every departure is a warning.
fn selector_convention(bytes: &[u8]) -> Vec<Diagnostic> {
    let warn = |pointer: &str, message: String| {
        Diagnostic::new(Code::subagent_selector_convention, message).with_pointer(pointer)
    };
    let text = match text::decode(bytes, returns::MAX_RETURN_BYTES, "subagent return") {
        Ok(text) => text,
        Err(d) => return vec![d],
    };
    let document = match crate::contract::yaml::parse_core_keeping_nulls(text) {
        Ok((_, document)) => document,
        Err(_) => {
            return vec![warn(
                "",
                "a selector-development return is one JSON object (status, mode, guardrails, ...); this one does not parse".to_string(),
            )];
        }
    };
    let Some(map) = document.as_object() else {
        return vec![warn(
            "",
            "a selector-development return is one JSON object".to_string(),
        )];
    };
    let mut out = Vec::new();
    let one_of = |key: &str, allowed: &[&str], out: &mut Vec<Diagnostic>| match map
        .get(key)
        .and_then(Value::as_str)
    {
        Some(value) if allowed.contains(&value) => Some(value.to_string()),
        other => {
            out.push(warn(
                &format!("/{key}"),
                format!(
                    "`{key}` is {}; the convention allows {}",
                    other.map_or("missing".to_string(), |v| format!("`{v}`")),
                    allowed.join(", ")
                ),
            ));
            None
        }
    };
    let status = one_of("status", &["ok", "skipped", "blocked"], &mut out);
    one_of("mode", &["jit", "audit"], &mut out);
    match map.get("guardrails") {
        Some(Value::Object(guardrails)) => {
            for name in SELECTOR_GUARDRAILS {
                match guardrails.get(*name).and_then(Value::as_str) {
                    Some("pass" | "skip" | "fail") => {}
                    _ => out.push(warn(
                        &format!("/guardrails/{name}"),
                        format!("guardrail `{name}` must be `pass`, `skip` or `fail`"),
                    )),
                }
            }
        }
        _ if status.as_deref() == Some("ok") => out.push(warn(
            "/guardrails",
            "an `ok` return carries the seven-guardrail `guardrails` object".to_string(),
        )),
        _ => {}
    }
    match status.as_deref() {
        Some("skipped") => {
            one_of(
                "skipped_reason",
                &[
                    "no-inert-option",
                    "not-frontend-project",
                    "selector-already-stable",
                ],
                &mut out,
            );
        }
        Some("blocked")
            if map
                .get("blocked_artifact")
                .and_then(Value::as_str)
                .is_none_or(|s| s.trim().is_empty()) =>
        {
            out.push(warn(
                "/blocked_artifact",
                "a `blocked` return names the `blocked_artifact` to resolve".to_string(),
            ));
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_routes_by_prefix_in_order() {
        use DispatchRoute::*;
        for (description, expected) in [
            (
                "perf-reviewer-phase3: gate the load pass",
                Schema(ReturnRole::PerfReviewer),
            ),
            (
                "workflow-reviewer-phase2: review",
                Schema(ReturnRole::WorkflowReviewer),
            ),
            (
                "reviewer-j-login: cycle 1",
                Schema(ReturnRole::ReviewerInloop),
            ),
            (
                "reviewer-batch-pass-1-checkout: batch",
                Schema(ReturnRole::ReviewerInloop),
            ),
            ("composition-judge-x", Schema(ReturnRole::ReviewerInloop)),
            (
                "composer-j-login-flow: compose",
                Schema(ReturnRole::Composer),
            ),
            ("test-composer-j-cart", Schema(ReturnRole::Composer)),
            ("secrets-sweep-repo", Schema(ReturnRole::Composer)),
            ("probe-j-cart: pass 4", Schema(ReturnRole::Probe)),
            ("repair-worker-login-spec", Schema(ReturnRole::RepairWorker)),
            (
                "phase-validator-2: exit criteria",
                Schema(ReturnRole::PhaseValidator),
            ),
            (
                "phase4-prioritise-author",
                Schema(ReturnRole::Phase4PrioritiseAuthor),
            ),
            (
                "phase4-prioritise-author-2: map",
                Schema(ReturnRole::Phase4PrioritiseAuthor),
            ),
            ("phase4-cycle-3: checkout", Schema(ReturnRole::SectionAgent)),
            ("process-validator-1", EnvelopeOnly),
            ("phase1-scan: x", EnvelopeOnly),
            ("stage2-x", EnvelopeOnly),
            ("cleanup-ledger", EnvelopeOnly),
            ("companion-y", EnvelopeOnly),
            ("fd-z", EnvelopeOnly),
            ("j-login: explore", SilentAllow),
            ("sj-login", SilentAllow),
            ("selector-development-form: add test id", SilentAllow),
            ("  composer-j-x", Schema(ReturnRole::Composer)),
            ("plumber-hooks: repair", Unknown),
            ("Composer-j-x", Unknown),
            ("Explore the codebase", Unknown),
            ("", Unknown),
        ] {
            assert_eq!(route(description), expected, "{description}");
        }
    }

    fn codes(bytes: &str, description: &str) -> Vec<Code> {
        check_dispatched(bytes.as_bytes(), description)
            .diagnostics
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn each_route_judges_as_the_table_says() {
        let probe = r#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean", "next-action": "advance"}, "journey": "j-cart"}"#;
        assert_eq!(codes(probe, "probe-j-cart: pass 4"), vec![]);
        assert_eq!(
            codes(
                r#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean"}}"#,
                "probe-j-cart"
            ),
            vec![Code::subagent_return_schema_violation]
        );
        // Envelope sanity only: cycle 0 passes, a missing envelope does not.
        let cleanup = r#"{"handover": {"role": "cleanup-ledger", "cycle": 0, "status": "done", "next-action": "x"}, "anything": [1]}"#;
        assert_eq!(codes(cleanup, "cleanup-ledger: dedup"), vec![]);
        assert_eq!(
            codes(r#"{"summary": "x"}"#, "cleanup-ledger"),
            vec![Code::subagent_return_handover_missing]
        );
        // Silent allow: free-form text passes untouched.
        assert_eq!(
            codes("Explored the login journey; nothing odd.", "j-login"),
            vec![]
        );
        assert_eq!(codes("", "sj-login"), vec![]);
        // Unknown: one warning, nothing else judged.
        let outcome = check_dispatched(b"whatever", "Explore the codebase");
        assert_eq!(outcome.route, DispatchRoute::Unknown);
        assert_eq!(outcome.diagnostics.len(), 1);
        assert_eq!(outcome.diagnostics[0].code, Code::subagent_dispatch_unknown);
        assert!(!outcome.diagnostics[0].is_error());
    }

    #[test]
    fn selector_development_departures_are_warnings() {
        let ok = r#"{"status": "ok", "mode": "jit", "scope": "submit-button",
            "attribute": {"name": "data-testid", "value": "submit-button"},
            "files_modified": ["src/components/Form.tsx"],
            "guardrails": {"before_snapshot": "pass", "patch_applied": "pass", "typecheck": "pass",
              "unit_tests": "pass", "e2e": "skip", "after_snapshot": "pass", "visual_diff": "pass"},
            "ledger_entry": "submit-button: data-testid added", "skipped_reason": null, "blocked_artifact": null}"#;
        let d = "selector-development-form: add a test id";
        assert_eq!(codes(ok, d), vec![]);
        let bad = ok
            .replace("\"jit\"", "\"sweep\"")
            .replace("\"e2e\": \"skip\"", "\"e2e\": \"n/a\"");
        let found = check_dispatched(bad.as_bytes(), d).diagnostics;
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found
                .iter()
                .all(|d| d.code == Code::subagent_selector_convention && !d.is_error())
        );
        let skipped = r#"{"status": "skipped", "mode": "audit", "files_modified": [], "skipped_reason": "because"}"#;
        assert_eq!(codes(skipped, d), vec![Code::subagent_selector_convention]);
        let blocked = r#"{"status": "blocked", "mode": "audit", "blocked_artifact": null}"#;
        assert_eq!(codes(blocked, d), vec![Code::subagent_selector_convention]);
        assert_eq!(
            codes("not json at all: [", d),
            vec![Code::subagent_selector_convention]
        );
    }
}
