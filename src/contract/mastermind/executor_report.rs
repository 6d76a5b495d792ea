//! Executor report v1 (`<task>/executor-report.md`): transport, extraction,
//! schema and the twelve consistency rules, decided exactly as the reference
//! controller decides them (contracts `mastermind.md` section 1).
//!
//! Order of decisions: size, UTF-8, blank text, then a whole-text YAML probe
//! (a bare YAML or one-line JSON mapping with `schema_version` is a report),
//! then the sentinel markers. A valid canonical report comes back typed; every
//! problem comes back as diagnostics with file line numbers.

use crate::codes::Code;
use crate::contract::sentinel::{self, SentinelError};
use crate::contract::yaml::{self, YamlError, YamlNode, YamlValue};
use crate::diagnostic::Diagnostic;
use crate::schema::{self, Keyword, SchemaId};
use serde::Deserialize;
use std::collections::HashSet;

/// Reports larger than this are rejected before decoding.
pub const MAX_REPORT_BYTES: usize = 1024 * 1024;

/// What the report skeleton `task new` writes says where the executor must
/// decide: the status, and a test runner's `tests_run`.
pub const STATUS_PLACEHOLDER: &str = "<complete | partial | failed>";
pub const TESTS_RUN_PLACEHOLDER: &str = "<how many tests the check ran>";

/// True when `errors` (what [`parse`] refused `bytes` for) say only that
/// the report is still the skeleton: its status is the placeholder, and
/// every error is a schema violation at `/status` or at a `tests_run`
/// still holding its placeholder. A report that is wrong in any other way
/// is not an unfilled skeleton.
pub fn is_unfilled_skeleton(bytes: &[u8], errors: &[Diagnostic]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let status_line = format!("status: \"{STATUS_PLACEHOLDER}\"");
    text.lines().any(|line| line.trim_end() == status_line)
        && !errors.is_empty()
        && errors.iter().all(|d| {
            d.code == Code::executor_report_schema_violation
                && d.json_pointer
                    .as_deref()
                    .is_some_and(|p| p == "/status" || p.ends_with("/tests_run"))
        })
}

pub const REPORT_BEGIN: &str = "mastermind:report-begin";
pub const REPORT_END: &str = "mastermind:report-end";
pub const LEGACY_BEGIN: &str = "mastermind:executor-begin";
pub const LEGACY_END: &str = "mastermind:executor-end";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportStatus {
    Complete,
    Partial,
    Failed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    Done,
    Pending,
    StoppedHere,
    Skipped,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    pub id: String,
    pub status: PhaseStatus,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Claim {
    FunctionAdded {
        symbol: String,
        #[serde(default)]
        file: Option<String>,
        #[serde(default)]
        signature: Option<String>,
    },
    Integration {
        from: String,
        to: String,
        #[serde(default)]
        from_file: Option<String>,
        #[serde(default)]
        to_file: Option<String>,
        #[serde(default)]
        relation: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defect {
    pub kind: String,
    pub phase: String,
    pub details: String,
    pub remediation_hint: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationResult {
    Pass,
    Fail,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub tests_run: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    pub cmd: String,
    pub result: VerificationResult,
    #[serde(default)]
    pub output_excerpt: Option<String>,
    #[serde(default)]
    pub observed: Option<Observed>,
}

/// A canonical, fully validated executor report.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutorReport {
    pub schema_version: u32,
    pub spec: String,
    pub status: ReportStatus,
    pub phases: Vec<Phase>,
    pub files_modified: Vec<String>,
    pub claims: Vec<Claim>,
    pub defects: Vec<Defect>,
    pub verifications: Vec<Verification>,
}

/// Parse and validate a report from its raw bytes. On success the report
/// may still carry warnings (for example a valid `partial` report).
pub fn parse(bytes: &[u8]) -> Result<(ExecutorReport, Vec<Diagnostic>), Vec<Diagnostic>> {
    if bytes.len() > MAX_REPORT_BYTES {
        return Err(vec![Diagnostic::new(
            Code::input_too_large,
            format!("executor report exceeds {MAX_REPORT_BYTES}-byte limit"),
        )]);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(vec![Diagnostic::new(
            Code::input_not_utf8,
            "executor report is not UTF-8",
        )]);
    };
    parse_text(text)
}

fn lines_in(text: &str) -> u32 {
    u32::try_from(text.bytes().filter(|&b| b == b'\n').count()).unwrap_or(u32::MAX)
}

fn parse_text(text: &str) -> Result<(ExecutorReport, Vec<Diagnostic>), Vec<Diagnostic>> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(vec![Diagnostic::new(
            Code::executor_report_empty,
            "executor report is empty",
        )]);
    }
    let leading = text.len() - text.trim_start().len();
    let trimmed_lines_before = lines_in(&text[..leading]);

    // Step 1: the whole text as YAML. A text the YAML parser rejects (a
    // Markdown report) is not asked why until no marker is found.
    let whole = yaml::parse_unless_malformed(trimmed);
    if let Ok(node) = &whole {
        if node.has_key("schema_version") {
            return canonical(node, trimmed, trimmed_lines_before);
        }
        if is_legacy_mapping(node) {
            return Err(vec![legacy_supplied(None)]);
        }
    }

    // Step 2: marker lines.
    let canonical_markers =
        sentinel::has_marker(text, REPORT_BEGIN) || sentinel::has_marker(text, REPORT_END);
    let legacy_markers =
        sentinel::has_marker(text, LEGACY_BEGIN) || sentinel::has_marker(text, LEGACY_END);
    if canonical_markers && legacy_markers {
        let line = sentinel::marker_lines(text, LEGACY_BEGIN)
            .into_iter()
            .chain(sentinel::marker_lines(text, LEGACY_END))
            .min();
        return Err(vec![
            Diagnostic::new(
                Code::executor_report_markers_mixed,
                "executor report mixes canonical and legacy blocks",
            )
            .with_line(line),
        ]);
    }
    if canonical_markers {
        let extracted = sentinel::extract(text, REPORT_BEGIN, REPORT_END)
            .map_err(|e| vec![sentinel_diagnostic(text, e, REPORT_BEGIN, REPORT_END)])?;
        let node = yaml::parse(&extracted.yaml).map_err(|e| {
            vec![yaml_diagnostic(
                &e,
                extracted.lines_before,
                "parse executor report schema v1 YAML",
            )]
        })?;
        return canonical(&node, &extracted.yaml, extracted.lines_before);
    }
    if legacy_markers {
        sentinel::extract(text, LEGACY_BEGIN, LEGACY_END)
            .map_err(|e| vec![sentinel_diagnostic(text, e, LEGACY_BEGIN, LEGACY_END)])?;
        let line = sentinel::marker_lines(text, LEGACY_BEGIN).first().copied();
        return Err(vec![legacy_supplied(line)]);
    }

    // No markers at all.
    let whole = match whole {
        Err(None) => yaml::parse(trimmed),
        Err(Some(error)) => Err(error),
        Ok(node) => Ok(node),
    };
    Err(vec![match whole {
        Err(error) if error.code != Code::yaml_syntax => {
            yaml_diagnostic(&error, trimmed_lines_before, "parse executor report YAML")
        }
        Err(error) => Diagnostic::new(
            Code::executor_report_no_tail,
            format!(
                "executor report has no `<!-- {REPORT_BEGIN} -->` tail, and the whole text is not a YAML report either ({}{})",
                error.reason,
                error
                    .line
                    .map(|l| format!(" at line {}", l.saturating_add(trimmed_lines_before)))
                    .unwrap_or_default()
            ),
        ),
        Ok(_) => Diagnostic::new(
            Code::executor_report_no_tail,
            format!(
                "executor report has no `<!-- {REPORT_BEGIN} -->` tail and is not a schema v1 mapping (no `schema_version` key)"
            ),
        ),
    }])
}

fn is_legacy_mapping(node: &YamlNode) -> bool {
    node.as_map().is_some_and(|entries| {
        entries
            .iter()
            .all(|(k, _)| matches!(&k.value, YamlValue::Str(s) if s == "claims" || s == "verify"))
    })
}

fn legacy_supplied(line: Option<u32>) -> Diagnostic {
    Diagnostic::new(
        Code::executor_report_legacy,
        "canonical executor report schema v1 is required; legacy report supplied",
    )
    .with_line(line)
}

fn sentinel_diagnostic(text: &str, error: SentinelError, begin: &str, end: &str) -> Diagnostic {
    match error {
        SentinelError::Pair => {
            let begins = sentinel::marker_lines(text, begin);
            let ends = sentinel::marker_lines(text, end);
            let detail = match (begins.len(), ends.len()) {
                (1, 1) => format!(
                    "the end marker (line {}) comes before the begin marker (line {})",
                    ends[0], begins[0]
                ),
                (b, e) => format!("found {b} begin and {e} end marker lines"),
            };
            let line = begins.get(1).or(ends.get(1)).or(ends.first()).or(begins.first());
            Diagnostic::new(
                Code::executor_report_sentinel_pair,
                format!("executor report requires one ordered sentinel pair enclosing a yaml fence: {detail}"),
            )
            .with_line(line.copied())
        }
        SentinelError::Fence { begin_line } => Diagnostic::new(
            Code::executor_report_fence_invalid,
            "executor report sentinel span must contain one complete yaml fence (a ```yaml line, the YAML, a ``` line)",
        )
        .with_line(Some(begin_line)),
    }
}

fn yaml_diagnostic(error: &YamlError, lines_before: u32, context: &str) -> Diagnostic {
    let mut d = error.to_diagnostic(lines_before);
    d.message = format!("{context}: {}", error.message);
    d
}

/// The consistency rule a blank (minLength) string at `pointer` belongs to.
fn blank_rule(pointer: &str) -> Option<Code> {
    let parts: Vec<&str> = pointer.split('/').skip(1).collect();
    match parts.as_slice() {
        ["spec"] => Some(Code::executor_report_spec_empty),
        ["phases", _, "id"] => Some(Code::executor_report_phase_id_empty),
        ["files_modified", _] => Some(Code::executor_report_file_path_empty),
        ["defects", _, _] => Some(Code::executor_report_defect_field_empty),
        ["verifications", _, "cmd"] => Some(Code::executor_report_verification_cmd_empty),
        ["claims", _, _] => Some(Code::executor_report_claim_field_empty),
        _ => None,
    }
}

fn canonical(
    node: &YamlNode,
    source: &str,
    lines_before: u32,
) -> Result<(ExecutorReport, Vec<Diagnostic>), Vec<Diagnostic>> {
    let value = yaml::to_strict_json(node, source).map_err(|errors| {
        errors
            .iter()
            .map(|e| yaml_diagnostic(e, lines_before, "canonical executor report"))
            .collect::<Vec<_>>()
    })?;
    let line_of = |pointer: &str| {
        node.line_of_pointer(pointer)
            .map(|l| l.saturating_add(lines_before))
    };

    let schema_errors = schema::validate(SchemaId::ExecutorReportV1, &value)
        .map_err(|e| vec![e.to_diagnostic()])?;
    let mut diagnostics = Vec::new();
    for error in &schema_errors {
        if error.keyword == Keyword::MinLength && blank_rule(&error.pointer).is_some() {
            continue; // the trimmed consistency rule below reports it
        }
        let focus = error.focus_pointer();
        let version = value.get("schema_version").and_then(|v| v.as_u64());
        let d = match version {
            Some(v) if error.pointer == "/schema_version" && u32::try_from(v).is_ok() => {
                Diagnostic::new(
                    Code::executor_report_schema_version_unsupported,
                    format!("unsupported executor report schema_version {v}; expected 1"),
                )
            }
            _ => Diagnostic::new(
                Code::executor_report_schema_violation,
                format!(
                    "parse executor report schema v1: {}: {}",
                    if focus.is_empty() { "/" } else { &focus },
                    error.message
                ),
            ),
        };
        diagnostics.push(d.with_line(line_of(&focus)).with_pointer(focus));
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let report: ExecutorReport = serde_json::from_value(value).map_err(|e| {
        vec![Diagnostic::new(
            Code::executor_report_schema_violation,
            format!("parse executor report schema v1: {e}"),
        )]
    })?;
    let violations = consistency(&report);
    if !violations.is_empty() {
        return Err(violations
            .into_iter()
            .map(|(code, message, pointer)| {
                let line = line_of(&pointer);
                Diagnostic::new(code, message)
                    .with_line(line)
                    .with_pointer(pointer)
            })
            .collect());
    }
    let mut warnings = Vec::new();
    if report.status != ReportStatus::Complete {
        warnings.push(
            Diagnostic::new(
                Code::executor_report_incomplete,
                format!(
                    "executor report is `{}`; post-flight rejects completion (status_{})",
                    status_name(report.status),
                    status_name(report.status)
                ),
            )
            .with_line(line_of("/status"))
            .with_pointer("/status"),
        );
    }
    Ok((report, warnings))
}

pub fn status_name(status: ReportStatus) -> &'static str {
    match status {
        ReportStatus::Complete => "complete",
        ReportStatus::Partial => "partial",
        ReportStatus::Failed => "failed",
    }
}

fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// The twelve consistency rules, in the reference's order. Every violation
/// is returned (the first is the one the reference reports).
fn consistency(report: &ExecutorReport) -> Vec<(Code, String, String)> {
    let mut out = Vec::new();
    let mut push =
        |code: Code, message: String, pointer: String| out.push((code, message, pointer));

    if report.schema_version != 1 {
        push(
            Code::executor_report_schema_version_unsupported,
            format!(
                "unsupported executor report schema_version {}; expected 1",
                report.schema_version
            ),
            "/schema_version".into(),
        );
    }
    if blank(&report.spec) {
        push(
            Code::executor_report_spec_empty,
            "executor report spec must not be empty".into(),
            "/spec".into(),
        );
    }
    let mut ids = HashSet::new();
    for (i, phase) in report.phases.iter().enumerate() {
        if blank(&phase.id) {
            push(
                Code::executor_report_phase_id_empty,
                "executor report phase id must not be empty".into(),
                format!("/phases/{i}/id"),
            );
        } else if !ids.insert(phase.id.trim()) {
            push(
                Code::executor_report_phase_id_duplicated,
                format!("executor report phase id is duplicated: {}", phase.id),
                format!("/phases/{i}/id"),
            );
        }
    }
    for (i, path) in report.files_modified.iter().enumerate() {
        if blank(path) {
            push(
                Code::executor_report_file_path_empty,
                "executor report file path must not be empty".into(),
                format!("/files_modified/{i}"),
            );
        }
    }
    for (i, defect) in report.defects.iter().enumerate() {
        for (field, text) in [
            ("kind", &defect.kind),
            ("phase", &defect.phase),
            ("details", &defect.details),
            ("remediation_hint", &defect.remediation_hint),
        ] {
            if blank(text) {
                push(
                    Code::executor_report_defect_field_empty,
                    format!(
                        "executor report defects require non-empty fields (`{field}` is blank)"
                    ),
                    format!("/defects/{i}/{field}"),
                );
            }
        }
    }
    for (i, verification) in report.verifications.iter().enumerate() {
        if blank(&verification.cmd) {
            push(
                Code::executor_report_verification_cmd_empty,
                "executor report verification command must not be empty".into(),
                format!("/verifications/{i}/cmd"),
            );
        }
    }
    for (i, claim) in report.claims.iter().enumerate() {
        let fields: Vec<(&str, Option<&String>)> = match claim {
            Claim::FunctionAdded {
                symbol,
                file,
                signature,
            } => vec![
                ("symbol", Some(symbol)),
                ("file", file.as_ref()),
                ("signature", signature.as_ref()),
            ],
            Claim::Integration {
                from,
                to,
                from_file,
                to_file,
                relation,
            } => vec![
                ("from", Some(from)),
                ("to", Some(to)),
                ("from_file", from_file.as_ref()),
                ("to_file", to_file.as_ref()),
                ("relation", relation.as_ref()),
            ],
        };
        for (field, text) in fields {
            if text.is_some_and(|t| blank(t)) {
                push(
                    Code::executor_report_claim_field_empty,
                    format!("executor report claim fields must not be empty (`{field}` is blank)"),
                    format!("/claims/{i}/{field}"),
                );
            }
        }
    }
    match report.status {
        ReportStatus::Complete => {
            if !report.defects.is_empty() {
                push(
                    Code::executor_report_complete_with_defects,
                    "complete executor report must not contain defects".into(),
                    "/defects".into(),
                );
            }
            for (i, phase) in report.phases.iter().enumerate() {
                if phase.status != PhaseStatus::Done {
                    push(
                        Code::executor_report_complete_phase_not_done,
                        format!(
                            "complete executor report requires every phase/step to be done (`{}` is not)",
                            phase.id
                        ),
                        format!("/phases/{i}/status"),
                    );
                }
            }
            for (i, verification) in report.verifications.iter().enumerate() {
                if verification.result == VerificationResult::Fail {
                    push(
                        Code::executor_report_complete_failed_verification,
                        format!(
                            "complete executor report must not contain failed verifications (`{}`)",
                            verification.cmd
                        ),
                        format!("/verifications/{i}/result"),
                    );
                }
            }
        }
        ReportStatus::Partial | ReportStatus::Failed => {
            if report.defects.is_empty() {
                push(
                    Code::executor_report_incomplete_without_defect,
                    "partial or failed executor report requires at least one defect".into(),
                    "/defects".into(),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const VALID_YAML: &str = "schema_version: 1
spec: .mastermind/tasks/001-demo/spec.md
status: complete
phases:
  - id: plan-1
    status: done
files_modified:
  - src/lib.rs
claims:
  - kind: function_added
    symbol: value
    file: src/lib.rs
  - kind: integration
    from: main
    to: value
defects: []
verifications:
  - cmd: cargo test
    result: pass
    observed:
      exit_code: 0
      tests_run: 3
";

    fn wrap(yaml: &str) -> String {
        format!(
            "# Report\n\nDone.\n\n<!-- {REPORT_BEGIN} -->\n```yaml\n{yaml}```\n<!-- {REPORT_END} -->\n"
        )
    }

    fn codes(text: &str) -> Vec<Code> {
        match parse(text.as_bytes()) {
            Ok(_) => vec![],
            Err(ds) => ds.into_iter().map(|d| d.code).collect(),
        }
    }

    fn first(text: &str) -> Diagnostic {
        parse(text.as_bytes()).unwrap_err().remove(0)
    }

    #[test]
    fn accepts_wrapped_bare_and_json_reports() {
        let (report, warnings) = parse(wrap(VALID_YAML).as_bytes()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(report.claims.len(), 2);
        assert_eq!(
            report.verifications[0].observed.as_ref().unwrap().tests_run,
            Some(3)
        );
        assert!(
            parse(VALID_YAML.as_bytes()).is_ok(),
            "bare YAML is a report"
        );
        let json = r#"{"schema_version":1,"spec":"s","status":"complete","phases":[],"files_modified":[],"claims":[],"defects":[],"verifications":[]}"#;
        assert!(parse(json.as_bytes()).is_ok(), "one-line JSON is a report");
        let crlf = wrap(VALID_YAML).replace('\n', "\r\n");
        assert!(parse(crlf.as_bytes()).is_ok(), "CRLF is accepted");
    }

    #[test]
    fn transport_rules() {
        let big = vec![b'a'; MAX_REPORT_BYTES + 1];
        assert_eq!(parse(&big).unwrap_err()[0].code, Code::input_too_large);
        assert_eq!(
            parse(&[0xff, 0xfe]).unwrap_err()[0].code,
            Code::input_not_utf8
        );
        assert_eq!(codes("  \n\t\n"), [Code::executor_report_empty]);
        let mixed = format!("{}\n<!-- {LEGACY_BEGIN} -->\n", wrap(VALID_YAML));
        assert_eq!(codes(&mixed), [Code::executor_report_markers_mixed]);
        let doubled = format!("{}{}", wrap(VALID_YAML), wrap(VALID_YAML));
        assert_eq!(codes(&doubled), [Code::executor_report_sentinel_pair]);
        let stray_end = format!("<!-- {REPORT_END} -->\n{}", wrap(VALID_YAML));
        assert_eq!(codes(&stray_end), [Code::executor_report_sentinel_pair]);
        let yml = wrap(VALID_YAML).replace("```yaml", "```yml");
        assert_eq!(codes(&yml), [Code::executor_report_fence_invalid]);
        let indented = wrap(VALID_YAML).replace(
            "<!-- mastermind:report-begin",
            " <!-- mastermind:report-begin",
        );
        assert_eq!(codes(&indented), [Code::executor_report_sentinel_pair]);
        let trailing = wrap(VALID_YAML).replace(" -->\n```yaml", " -->  \t\n```yaml");
        assert!(
            codes(&trailing).is_empty(),
            "trailing whitespace after a marker is fine"
        );
    }

    #[test]
    fn fence_without_sentinels_and_prose_are_no_tail() {
        let fenced = format!("# Report\n\n```yaml\n{VALID_YAML}```\n");
        assert_eq!(codes(&fenced), [Code::executor_report_no_tail]);
        assert_eq!(
            codes("All done, trust me."),
            [Code::executor_report_no_tail]
        );
    }

    #[test]
    fn legacy_reports_are_recognized_and_rejected() {
        assert_eq!(
            codes("claims: []\nverify: []\n"),
            [Code::executor_report_legacy]
        );
        assert_eq!(codes("{}"), [Code::executor_report_legacy]);
        let legacy = format!(
            "prose\n<!-- {LEGACY_BEGIN} -->\n```yaml\nclaims: []\n```\n<!-- {LEGACY_END} -->\n"
        );
        assert_eq!(codes(&legacy), [Code::executor_report_legacy]);
    }

    #[test]
    fn yaml_value_rules_apply_with_file_lines() {
        let text = wrap(&VALID_YAML.replace("status: complete", "status: ~"));
        let d = first(&text);
        assert_eq!(d.code, Code::yaml_null_value);
        assert_eq!(d.line, Some(9), "status is on file line 9");
        let dup = wrap(&format!("{VALID_YAML}spec: again\n"));
        assert_eq!(first(&dup).code, Code::yaml_duplicate_key);
        let tag = wrap(&VALID_YAML.replace("spec: .mastermind", "spec: !x .mastermind"));
        assert_eq!(first(&tag).code, Code::yaml_tag);
    }

    #[test]
    fn schema_violations_name_pointer_and_line() {
        let unknown = wrap(&format!("{VALID_YAML}surprise: true\n"));
        let d = first(&unknown);
        assert_eq!(d.code, Code::executor_report_schema_violation);
        assert_eq!(d.json_pointer.as_deref(), Some("/surprise"));
        assert!(
            d.message.contains("unknown field `surprise`"),
            "{}",
            d.message
        );
        let bad_result = wrap(&VALID_YAML.replace("result: pass", "result: passed"));
        assert_eq!(
            first(&bad_result).json_pointer.as_deref(),
            Some("/verifications/0/result")
        );
        let float_version = VALID_YAML.replace("schema_version: 1", "schema_version: 1.0");
        assert_eq!(
            first(&float_version).code,
            Code::executor_report_schema_violation
        );
        let big_exit = VALID_YAML.replace("exit_code: 0", "exit_code: 2147483648");
        assert_eq!(
            first(&big_exit).code,
            Code::executor_report_schema_violation
        );
        let bool_spec =
            VALID_YAML.replace("spec: .mastermind/tasks/001-demo/spec.md", "spec: true");
        assert_eq!(
            first(&bool_spec).code,
            Code::executor_report_schema_violation
        );
    }

    #[test]
    fn each_consistency_rule_rejects_and_its_neighbour_passes() {
        let cases: &[(&str, &str, Code)] = &[
            (
                "schema_version: 1",
                "schema_version: 2",
                Code::executor_report_schema_version_unsupported,
            ),
            (
                "spec: .mastermind/tasks/001-demo/spec.md",
                "spec: '  '",
                Code::executor_report_spec_empty,
            ),
            (
                "  - id: plan-1",
                "  - id: ''",
                Code::executor_report_phase_id_empty,
            ),
            (
                "  - src/lib.rs",
                "  - ' '",
                Code::executor_report_file_path_empty,
            ),
            (
                "  - cmd: cargo test",
                "  - cmd: ''",
                Code::executor_report_verification_cmd_empty,
            ),
            (
                "    file: src/lib.rs",
                "    file: ' '",
                Code::executor_report_claim_field_empty,
            ),
            (
                "    status: done",
                "    status: pending",
                Code::executor_report_complete_phase_not_done,
            ),
            (
                "    result: pass",
                "    result: fail",
                Code::executor_report_complete_failed_verification,
            ),
        ];
        for (good, bad, code) in cases {
            assert!(VALID_YAML.contains(good), "{good}");
            assert_eq!(codes(&VALID_YAML.replacen(good, bad, 1)), [*code], "{bad}");
        }
        let dup = VALID_YAML.replace(
            "  - id: plan-1\n    status: done\n",
            "  - id: plan-1\n    status: done\n  - id: ' plan-1 '\n    status: done\n",
        );
        assert_eq!(codes(&dup), [Code::executor_report_phase_id_duplicated]);
        let defect = "defects:\n  - kind: implementation_defect\n    phase: plan-1\n    details: it broke\n    remediation_hint: fix it\n";
        let with_defect = VALID_YAML.replace("defects: []\n", defect);
        assert_eq!(
            codes(&with_defect),
            [Code::executor_report_complete_with_defects]
        );
        let blank_defect = with_defect.replace("details: it broke", "details: ' '");
        assert_eq!(
            codes(&blank_defect),
            [
                Code::executor_report_defect_field_empty,
                Code::executor_report_complete_with_defects
            ]
        );
        let partial = with_defect.replace("status: complete", "status: partial");
        let (_, warnings) = parse(partial.as_bytes()).unwrap();
        assert_eq!(warnings[0].code, Code::executor_report_incomplete);
        let failed_no_defect = VALID_YAML.replace("status: complete", "status: failed");
        assert_eq!(
            codes(&failed_no_defect),
            [Code::executor_report_incomplete_without_defect]
        );
    }

    #[test]
    fn empty_phases_and_files_are_valid() {
        let text = VALID_YAML
            .replace(
                "phases:\n  - id: plan-1\n    status: done\n",
                "phases: []\n",
            )
            .replace("files_modified:\n  - src/lib.rs\n", "files_modified: []\n");
        assert!(parse(text.as_bytes()).is_ok());
    }

    #[test]
    fn yes_and_no_stay_strings() {
        let text = VALID_YAML.replace("  - id: plan-1", "  - id: yes");
        let (report, _) = parse(text.as_bytes()).unwrap();
        assert_eq!(report.phases[0].id, "yes");
    }
}
