//! SARIF 2.1.0 output: one run whose driver describes every reason code as a
//! rule, one result per located finding, and run-level findings (no file) as
//! tool execution notifications, which is where SARIF puts "could not check"
//! and where GitHub code scanning does not reject them for lacking a location.

use crate::codes::{Code, Outcome};
use crate::diagnostic::{ExitStatus, Severity};
use crate::render::findings::{self, Finding};
use crate::report::Report;
use serde_json::{Map, Value, json};

pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Where people learn about the tool: the package homepage when Cargo.toml
/// names one, else its crates.io page.
pub fn information_uri() -> &'static str {
    match env!("CARGO_PKG_HOMEPAGE") {
        "" => "https://crates.io/crates/mastermind-hooks",
        homepage => homepage,
    }
}

/// The key of the fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mastermindHooks/v1";

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Position of a code in [`Code::ALL`], which is the order of `rules`.
pub fn rule_index(code: Code) -> usize {
    Code::ALL.iter().position(|c| *c == code).unwrap_or(0)
}

/// Every reason code as a SARIF rule (`reportingDescriptor`).
pub fn rules() -> Vec<Value> {
    Code::ALL
        .iter()
        .map(|&code| {
            json!({
                "id": code.as_str(),
                "shortDescription": {"text": code.summary()},
                "help": {"text": code.help()},
                "defaultConfiguration": {"level": level(code.default_severity())},
                "properties": {
                    "outcome": match code.outcome() {
                        Outcome::Violation => "violation",
                        Outcome::CannotCheck => "cannot-check",
                    },
                },
            })
        })
        .collect()
}

/// A file path as a URI reference: relative paths stay relative to the
/// repository (`./` dropped), absolute paths become `file://` URIs, and every
/// byte outside the unreserved set and `/` is percent-encoded.
pub fn path_to_uri(path: &str) -> String {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let mut out = String::with_capacity(path.len());
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The message of a result: the finding's own text, plus its hint when the
/// hint says more than the rule's help.
fn message_text(finding: &Finding<'_>) -> String {
    let d = finding.diagnostic;
    let mut text = d.message.clone();
    if let Some(pointer) = d.json_pointer.as_deref().filter(|p| !p.is_empty()) {
        text.push_str(&format!(" (at {pointer})"));
    }
    if let Some(hint) = d
        .hint
        .as_deref()
        .filter(|h| !h.is_empty() && *h != d.code.help())
    {
        text.push_str("\nhelp: ");
        text.push_str(hint);
    }
    text
}

fn context_properties(finding: &Finding<'_>) -> Map<String, Value> {
    let mut properties = Map::new();
    if let Some(task) = finding.task {
        properties.insert("task".into(), json!(task));
    }
    if let Some(check) = finding.check {
        properties.insert("check".into(), json!(check));
    }
    if let Some(pointer) = &finding.diagnostic.json_pointer {
        properties.insert("jsonPointer".into(), json!(pointer));
    }
    properties
}

/// The SARIF log as a JSON value.
pub fn log(report: &Report) -> Value {
    let findings = findings::all(report);
    let fingerprints = findings::fingerprints(&findings);
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for (finding, fingerprint) in findings.iter().zip(fingerprints) {
        let d = finding.diagnostic;
        let properties = context_properties(finding);
        match finding.anchor() {
            Some(anchor) => {
                let mut physical = json!({"artifactLocation": {"uri": path_to_uri(&anchor)}});
                if let Some(line) = d.line.filter(|_| d.path.is_some()) {
                    physical["region"] = json!({"startLine": line.max(1)});
                }
                let mut result = json!({
                    "ruleId": d.code.as_str(),
                    "ruleIndex": rule_index(d.code),
                    "level": level(d.severity),
                    "message": {"text": message_text(finding)},
                    "locations": [{"physicalLocation": physical}],
                    "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
                });
                if !properties.is_empty() {
                    result["properties"] = Value::Object(properties);
                }
                results.push(result);
            }
            None => {
                let mut notification = json!({
                    "level": level(d.severity),
                    "message": {"text": message_text(finding)},
                    "associatedRule": {"id": d.code.as_str(), "index": rule_index(d.code)},
                });
                if !properties.is_empty() {
                    notification["properties"] = Value::Object(properties);
                }
                notifications.push(notification);
            }
        }
    }
    let status = report.exit_status();
    let mut invocation = json!({
        "executionSuccessful": status != ExitStatus::CannotCheck,
        "exitCode": status.code(),
    });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mastermind-hooks",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": information_uri(),
                "rules": rules(),
            }},
            "invocations": [invocation],
            "results": results,
        }],
    })
}

pub fn render(report: &Report) -> String {
    // A tree of strings, numbers and booleans: serialization cannot fail.
    let mut text = serde_json::to_string_pretty(&log(report)).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::report::{CheckOutcome, FileResult, TaskResult};

    #[test]
    fn uris_are_relative_and_percent_encoded() {
        assert_eq!(path_to_uri("./a/b.md"), "a/b.md");
        assert_eq!(path_to_uri("a b/c#d%.md"), "a%20b/c%23d%25.md");
        assert_eq!(path_to_uri("/tmp/x.md"), "file:///tmp/x.md");
        assert_eq!(path_to_uri("é"), "%C3%A9");
    }

    #[test]
    fn every_code_is_a_rule_in_registry_order() {
        let rules = rules();
        assert_eq!(rules.len(), Code::ALL.len());
        for (i, code) in Code::ALL.iter().enumerate() {
            assert_eq!(rules[i]["id"], code.as_str());
            assert_eq!(rule_index(*code), i);
            assert_eq!(rules[i]["shortDescription"]["text"], code.summary());
            assert_eq!(rules[i]["help"]["text"], code.help());
        }
    }

    #[test]
    fn results_point_at_rules_and_run_findings_become_notifications() {
        let report = Report::assemble(
            vec![FileResult::new(
                "a/spec.md".into(),
                Some("spec"),
                None,
                vec![
                    Diagnostic::new(Code::verification_cmd_mismatch, "cmd differs")
                        .with_line(Some(7))
                        .with_pointer("/verify/0/cmd")
                        .with_hint("set cmd to `x`"),
                ],
            )],
            vec![TaskResult::new(
                ".mastermind/tasks/t",
                vec![CheckOutcome::new(
                    "scope",
                    vec![Diagnostic::new(Code::executor_report_incomplete, "partial")],
                )],
            )],
            vec![Diagnostic::new(Code::internal_error, "boom")],
        );
        let log = log(&report);
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 2);
        let r = &results[0];
        assert_eq!(r["ruleId"], "verification_cmd_mismatch");
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], r["ruleId"]);
        assert_eq!(r["level"], "error");
        assert_eq!(
            r["message"]["text"],
            "cmd differs (at /verify/0/cmd)\nhelp: set cmd to `x`"
        );
        let physical = &r["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], "a/spec.md");
        assert_eq!(physical["region"]["startLine"], 7);
        assert_eq!(r["properties"]["jsonPointer"], "/verify/0/cmd");

        let t = &results[1];
        assert_eq!(t["level"], "warning");
        assert_eq!(
            t["message"]["text"], "partial",
            "default help is not repeated"
        );
        assert_eq!(
            t["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            ".mastermind/tasks/t/spec.md"
        );
        assert!(
            t["locations"][0]["physicalLocation"]
                .get("region")
                .is_none()
        );
        assert_eq!(t["properties"]["check"], "scope");

        let invocation = &run["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], false);
        assert_eq!(invocation["exitCode"], 2);
        let n = &invocation["toolExecutionNotifications"][0];
        assert_eq!(n["associatedRule"]["id"], "internal_error");
        assert_eq!(n["level"], "error");
    }
}
