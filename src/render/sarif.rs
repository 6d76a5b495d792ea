//! SARIF 2.1.0 output: one run whose driver describes every reason code as a
//! rule, one result per located finding, and run-level findings (no file) as
//! tool execution notifications, which is where SARIF puts "could not check"
//! and where GitHub code scanning does not reject them for lacking a location.
//!
//! GitHub's code scanning decides what is accepted ("SARIF support for code
//! scanning" and "SARIF results exceed limits" on docs.github.com): rules
//! carry `shortDescription`, `fullDescription` and `help`; every result has a
//! relative `artifactLocation.uri` and a `region` with `startLine` (GitHub
//! fingerprints the line it points at); `partialFingerprints` keep an alert
//! the same alert across pushes; a run holds at most 25,000 results, so the
//! rest are folded into one result that counts them. No `informationUri` is
//! written unless the package names a homepage: a link to a page that does
//! not exist helps nobody.

use crate::codes::{Code, Outcome};
use crate::diagnostic::{ExitStatus, Severity};
use crate::render::findings::{self, Finding};
use crate::report::Report;
use serde_json::{Map, Value, json};

pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// GitHub code scanning rejects a run with more results than this.
pub const MAX_RESULTS: usize = 25_000;

/// Where people learn about the tool: the package homepage when Cargo.toml
/// names one. None otherwise: no made-up link.
pub fn information_uri() -> Option<&'static str> {
    match env!("CARGO_PKG_HOMEPAGE") {
        "" => None,
        homepage => Some(homepage),
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

/// A code as a rule's friendly name: `unexpected_file` -> `UnexpectedFile`.
pub fn friendly_name(code: Code) -> String {
    code.as_str()
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Every reason code as a SARIF rule (`reportingDescriptor`).
pub fn rules() -> Vec<Value> {
    Code::ALL
        .iter()
        .map(|&code| {
            json!({
                "id": code.as_str(),
                "name": friendly_name(code),
                "shortDescription": {"text": code.summary()},
                "fullDescription": {"text": format!("{} Fix: {}", code.summary(), code.help())},
                "help": {
                    "text": code.help(),
                    "markdown": format!("**{}**\n\n{}\n\nFix: {}", code.as_str(), code.summary(), code.help()),
                },
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

/// The physical location of a file finding: the file, and the finding's
/// line, or line 1 for a finding about the whole file.
fn physical_location(anchor: &str, finding: &Finding<'_>) -> Value {
    let d = finding.diagnostic;
    let line = d.line.filter(|_| d.path.is_some()).unwrap_or(1).max(1);
    json!({
        "artifactLocation": {"uri": path_to_uri(anchor)},
        "region": {"startLine": line},
    })
}

fn result(finding: &Finding<'_>, anchor: &str, fingerprint: String) -> Value {
    let d = finding.diagnostic;
    let properties = context_properties(finding);
    let mut result = json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": rule_index(d.code),
        "level": level(d.severity),
        "message": {"text": message_text(finding)},
        "locations": [{"physicalLocation": physical_location(anchor, finding)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    });
    if !properties.is_empty() {
        result["properties"] = Value::Object(properties);
    }
    result
}

/// One result standing for `folded` findings that did not fit, on the file
/// of the first of them, at the worst level among them.
fn folded_result(first: &Finding<'_>, anchor: &str, folded: &[&Finding<'_>]) -> Value {
    let worst = folded
        .iter()
        .map(|f| f.diagnostic.severity)
        .min_by_key(|s| match s {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Note => 2,
        })
        .unwrap_or(Severity::Warning);
    let code = Code::findings_folded;
    let text = format!(
        "{} more findings are not listed: a SARIF run for GitHub code scanning holds at most {MAX_RESULTS} results. Run `mastermind-hooks check` with `--format human` or `--format json` to see them all.",
        folded.len()
    );
    json!({
        "ruleId": code.as_str(),
        "ruleIndex": rule_index(code),
        "level": level(worst),
        "message": {"text": text},
        "locations": [{"physicalLocation": physical_location(anchor, first)}],
        "partialFingerprints": {FINGERPRINT_KEY: "findings-folded"},
        "properties": {"folded": folded.len()},
    })
}

/// The SARIF log as a JSON value.
pub fn log(report: &Report) -> Value {
    let findings = findings::all(report);
    let fingerprints = findings::fingerprints(&findings);
    let mut located = Vec::new();
    let mut notifications = Vec::new();
    for (finding, fingerprint) in findings.iter().zip(fingerprints) {
        match finding.anchor() {
            Some(anchor) => located.push((finding, anchor, fingerprint)),
            None => {
                let d = finding.diagnostic;
                let properties = context_properties(finding);
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
    let results: Vec<Value> = if located.len() <= MAX_RESULTS {
        located
            .into_iter()
            .map(|(finding, anchor, fingerprint)| result(finding, &anchor, fingerprint))
            .collect()
    } else {
        // Keep the most severe first (stable within a severity), in report order.
        let mut order: Vec<usize> = (0..located.len()).collect();
        order.sort_by_key(|&i| match located[i].0.diagnostic.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Note => 2,
        });
        let mut keep = vec![false; located.len()];
        for &i in &order[..MAX_RESULTS - 1] {
            keep[i] = true;
        }
        let folded: Vec<&Finding<'_>> = order[MAX_RESULTS - 1..]
            .iter()
            .map(|&i| located[i].0)
            .collect();
        let first = order[MAX_RESULTS - 1];
        let folded_value = folded_result(located[first].0, &located[first].1, &folded);
        let mut out: Vec<Value> = located
            .into_iter()
            .zip(keep)
            .filter(|(_, keep)| *keep)
            .map(|((finding, anchor, fingerprint), _)| result(finding, &anchor, fingerprint))
            .collect();
        out.push(folded_value);
        out
    };
    let status = report.exit_status();
    let mut invocation = json!({
        "executionSuccessful": status != ExitStatus::CannotCheck,
        "exitCode": status.code(),
    });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    let mut driver = json!({
        "name": "mastermind-hooks",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules(),
    });
    if let Some(uri) = information_uri() {
        driver["informationUri"] = json!(uri);
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
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
        assert_eq!(
            t["locations"][0]["physicalLocation"]["region"]["startLine"], 1,
            "a finding about a whole file is on its first line"
        );
        assert_eq!(t["properties"]["check"], "scope");

        let invocation = &run["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], false);
        assert_eq!(invocation["exitCode"], 2);
        let n = &invocation["toolExecutionNotifications"][0];
        assert_eq!(n["associatedRule"]["id"], "internal_error");
        assert_eq!(n["level"], "error");
    }

    #[test]
    fn rules_have_full_descriptions_help_and_names() {
        let rules = rules();
        let r = &rules[rule_index(Code::unexpected_file)];
        assert_eq!(r["name"], "UnexpectedFile");
        assert!(
            r["fullDescription"]["text"]
                .as_str()
                .unwrap()
                .contains("Fix: ")
        );
        assert!(r["help"]["markdown"].is_string());
        assert!(information_uri().is_none(), "no homepage, no link");
    }

    #[test]
    fn results_beyond_githubs_limit_are_folded_into_one() {
        let n = MAX_RESULTS + 5_000;
        let diagnostics: Vec<Diagnostic> = (0..n)
            .map(|i| {
                let code = if i % 3 == 0 {
                    Code::missing_expected_file
                } else {
                    Code::unexpected_file
                };
                Diagnostic::new(code, format!("f{i} changed")).with_path(format!("f{i}"))
            })
            .collect();
        let report = Report::new(vec![FileResult::new("x".into(), None, None, diagnostics)]);
        let log = log(&report);
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), MAX_RESULTS);
        let last = results.last().unwrap();
        assert_eq!(last["ruleId"], "findings_folded");
        assert_eq!(last["properties"]["folded"], 5_001);
        assert_eq!(last["level"], "warning", "every error fitted");
        let errors = results.iter().filter(|r| r["level"] == "error").count();
        assert_eq!(errors, n - n.div_ceil(3), "errors are kept first");
    }
}
