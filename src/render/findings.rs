//! The findings of a report as the machine formats see them: every
//! diagnostic with the task and gate check it belongs to, the file it is
//! anchored to, and a stable fingerprint.

use crate::diagnostic::{Diagnostic, Severity};
use crate::report::Report;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One diagnostic in its place in the report.
#[derive(Clone, Copy, Debug)]
pub struct Finding<'a> {
    pub diagnostic: &'a Diagnostic,
    /// The task the finding belongs to: its own `task`, else the task whose
    /// check produced it.
    pub task: Option<&'a str>,
    /// The gate check that produced it (`scope`, `receipts`, ...), for task findings.
    pub check: Option<&'a str>,
}

impl<'a> Finding<'a> {
    /// The file a finding is shown on: its own path, else the spec of its
    /// task (a task is defined by its `spec.md`). Run-level findings without
    /// a path have no anchor.
    pub fn anchor(&self) -> Option<String> {
        match (&self.diagnostic.path, self.task) {
            (Some(path), _) => Some(path.clone()),
            (None, Some(task)) => Some(format!("{}/spec.md", task.trim_end_matches('/'))),
            (None, None) => None,
        }
    }

    /// The message followed by what to do, as one text.
    pub fn message_with_hint(&self) -> String {
        let d = self.diagnostic;
        let mut text = d.message.clone();
        if let Some(pointer) = d.json_pointer.as_deref().filter(|p| !p.is_empty()) {
            text.push_str(&format!(" (at {pointer})"));
        }
        if let Some(hint) = d.hint.as_deref().filter(|h| !h.is_empty()) {
            text.push_str("\nhelp: ");
            text.push_str(hint);
        }
        text
    }
}

/// A diagnostic as an uncoloured text block (`error[code]: message`,
/// `  --> place`, `  = help: ..`), for formats that embed plain text.
pub fn plain_block(d: &Diagnostic) -> String {
    plain_block_with(d, &|text| text.to_string())
}

/// [`plain_block`] with every piece of data (message, path, pointer, hint)
/// passed through `data` first: a format escapes it in its own syntax while
/// the block's own line breaks stay.
pub fn plain_block_with(d: &Diagnostic, data: &dyn Fn(&str) -> String) -> String {
    let mut out = format!(
        "{}[{}]: {}\n",
        d.severity.as_str(),
        d.code.as_str(),
        data(&d.message)
    );
    let mut place = d.path.as_deref().map(data).unwrap_or_default();
    if let Some(line) = d.line {
        place.push_str(&format!(":{line}"));
    }
    if let Some(pointer) = d.json_pointer.as_deref().filter(|p| !p.is_empty()) {
        place.push_str(&format!(" ({})", data(pointer)));
    }
    if !place.is_empty() {
        out.push_str(&format!("  --> {}\n", place.trim_start()));
    }
    if let Some(hint) = d.hint.as_deref().filter(|h| !h.is_empty()) {
        out.push_str(&format!("  = help: {}\n", data(hint)));
    }
    out
}

/// Every finding of the report, in report order: files, tasks, then the run.
pub fn all(report: &Report) -> Vec<Finding<'_>> {
    let mut out = Vec::new();
    for file in &report.files {
        for d in &file.diagnostics {
            out.push(Finding {
                diagnostic: d,
                task: d.task.as_deref(),
                check: None,
            });
        }
    }
    for task in &report.tasks {
        for check in &task.checks {
            for d in &check.diagnostics {
                out.push(Finding {
                    diagnostic: d,
                    task: Some(d.task.as_deref().unwrap_or(&task.task)),
                    check: Some(&check.name),
                });
            }
        }
    }
    for d in &report.diagnostics {
        out.push(Finding {
            diagnostic: d,
            task: d.task.as_deref(),
            check: None,
        });
    }
    out
}

/// The same findings, errors first, then warnings, then notes (stable within
/// a severity), so a cap drops the least important ones.
pub fn by_severity(report: &Report) -> Vec<Finding<'_>> {
    let mut findings = all(report);
    findings.sort_by_key(|f| severity_rank(f.diagnostic.severity));
    findings
}

/// A message with everything that changes from push to push taken out, so
/// what stays is what the finding is about:
///
/// * every run of 7 or more hexadecimal digits (commit ids, blob ids,
///   sha256 digests) becomes `#`;
/// * the subject after a commit id, as the gate labels a commit
///   (`commit 1a2b3c4 ("subject")`), is dropped: a rebase or a reworded
///   commit changes it;
/// * the count in `and 3 more` becomes `#`: one more commit or path of the
///   same problem does not make it another problem.
pub fn stable_identity(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= 7 {
            out.push('#');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in message.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    without_counts(&without_subjects(&out))
}

/// `# ("subject")` (a commit label with its id already replaced) becomes
/// `#`. The subject is written with `\"` for a quote inside it.
fn without_subjects(text: &str) -> String {
    const OPEN: &str = "# (\"";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at + 1]);
        let after = &rest[at + OPEN.len()..];
        let mut escaped = false;
        let mut end = None;
        for (i, c) in after.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' if after[i + 1..].starts_with(')') => {
                    end = Some(i + 2);
                    break;
                }
                _ => {}
            }
        }
        match end {
            Some(end) => rest = &after[end..],
            None => {
                // Not a label after all: keep the text as it was.
                out.push_str(&rest[at + 1..at + OPEN.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `and 12 more` becomes `and # more`.
fn without_counts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("and ") {
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(" more") {
            out.push('#');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// One problem as the annotations show it: its first finding, and the
/// findings of the same task that repeat it from another check (a stray
/// file is both outside the spec's scope and missing from the report's
/// files_modified: one problem, two rules).
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    pub primary: Finding<'a>,
    pub also: Vec<Finding<'a>>,
}

impl Problem<'_> {
    /// The worst severity among its findings.
    pub fn severity(&self) -> Severity {
        std::iter::once(&self.primary)
            .chain(&self.also)
            .map(|f| f.diagnostic.severity)
            .min_by_key(|s| severity_rank(*s))
            .unwrap_or(Severity::Note)
    }
}

fn severity_rank(severity: Severity) -> u8 {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Note => 2,
    }
}

/// The findings grouped into problems, in report order. A finding joins an
/// earlier problem of the same task when it is the same finding again (code,
/// place and message), or when its message is about the path that problem
/// is anchored to (it starts with that path) while the finding itself sits
/// elsewhere (the report, the spec).
pub fn problems<'a>(findings: &[Finding<'a>]) -> Vec<Problem<'a>> {
    let mut out: Vec<Problem<'a>> = Vec::new();
    'next: for finding in findings {
        let d = finding.diagnostic;
        if finding.task.is_some() {
            for problem in out.iter_mut().filter(|p| p.primary.task == finding.task) {
                let p = problem.primary.diagnostic;
                let same = p.code == d.code
                    && p.path == d.path
                    && p.message == d.message
                    && p.json_pointer == d.json_pointer;
                let about = p.path.as_deref().is_some_and(|path| {
                    !path.is_empty()
                        && d.path.as_deref() != Some(path)
                        && d.message.starts_with(path)
                        && d.message[path.len()..].starts_with(' ')
                });
                if same || about {
                    problem.also.push(*finding);
                    continue 'next;
                }
            }
        }
        out.push(Problem {
            primary: *finding,
            also: Vec::new(),
        });
    }
    out
}

/// Stable fingerprints, one per finding, in the same order: the SHA-256 of
/// the code, the anchor file, the task, the JSON pointer and the message's
/// [`stable_identity`]. Never the line (an edit above a finding moves it)
/// nor commit ids or digests (they change on every push), so the same
/// finding on the next push gets the same fingerprint. Identical findings
/// get distinct ones by their occurrence number, so none is dropped as a
/// duplicate.
pub fn fingerprints(findings: &[Finding<'_>]) -> Vec<String> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    findings
        .iter()
        .map(|f| {
            let d = f.diagnostic;
            let mut hasher = Sha256::new();
            for part in [
                d.code.as_str(),
                f.anchor().as_deref().unwrap_or(""),
                f.task.unwrap_or(""),
                d.json_pointer.as_deref().unwrap_or(""),
                &stable_identity(&d.message),
            ] {
                hasher.update(part.as_bytes());
                hasher.update([0u8]);
            }
            let base = hex::encode(hasher.finalize());
            let occurrence = seen.entry(base.clone()).or_insert(0);
            *occurrence += 1;
            if *occurrence == 1 {
                base
            } else {
                hex::encode(Sha256::digest(format!("{base}\0{occurrence}")))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::report::{CheckOutcome, FileResult, TaskResult};

    fn sample() -> Report {
        let file = FileResult::new(
            "a/spec.md".into(),
            Some("spec"),
            None,
            vec![Diagnostic::new(Code::yaml_tag, "tag").with_line(Some(2))],
        );
        let task = TaskResult::new(
            ".mastermind/tasks/t1",
            vec![CheckOutcome::new(
                "scope",
                vec![
                    Diagnostic::new(Code::executor_report_incomplete, "partial"),
                    Diagnostic::new(Code::executor_report_incomplete, "partial"),
                ],
            )],
        );
        Report::assemble(
            vec![file],
            vec![task],
            vec![Diagnostic::new(Code::internal_error, "boom")],
        )
    }

    #[test]
    fn findings_carry_their_task_check_and_anchor() {
        let report = sample();
        let findings = all(&report);
        assert_eq!(findings.len(), 4);
        assert_eq!(findings[0].anchor().as_deref(), Some("a/spec.md"));
        assert_eq!(findings[1].task, Some(".mastermind/tasks/t1"));
        assert_eq!(findings[1].check, Some("scope"));
        assert_eq!(
            findings[1].anchor().as_deref(),
            Some(".mastermind/tasks/t1/spec.md")
        );
        assert_eq!(findings[3].anchor(), None);
    }

    #[test]
    fn severity_order_puts_errors_first_and_keeps_report_order() {
        let report = sample();
        let codes: Vec<&str> = by_severity(&report)
            .iter()
            .map(|f| f.diagnostic.code.as_str())
            .collect();
        assert_eq!(
            codes,
            [
                "yaml_tag",
                "internal_error",
                "executor_report_incomplete",
                "executor_report_incomplete"
            ]
        );
    }

    #[test]
    fn fingerprints_are_stable_hex_and_unique() {
        let report = sample();
        let findings = all(&report);
        let first = fingerprints(&findings);
        assert_eq!(first, fingerprints(&all(&report)));
        assert!(first.iter().all(|f| f.len() == 64));
        let unique: std::collections::HashSet<_> = first.iter().collect();
        assert_eq!(
            unique.len(),
            first.len(),
            "identical findings stay distinct"
        );
    }

    #[test]
    fn fingerprints_ignore_lines_commit_ids_and_digests() {
        let a = Diagnostic::new(
            Code::receipt_snapshot_changed,
            "receipt digest 3f2a9c1d0e4b5a6c7d8e9f00112233445566778899aabbccddeeff0011223344 differs at commit 1a2b3c4d5e6f7",
        )
        .with_path("f")
        .with_line(Some(1));
        let mut moved = a.clone().with_line(Some(9));
        moved.message = "receipt digest 00000000000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa differs at commit 9f8e7d6c5b4a3".into();
        let mut other = a.clone();
        other.message = "another finding".into();
        let elsewhere = a.clone().with_path("g");
        let fp = |d: &Diagnostic| {
            fingerprints(&[Finding {
                diagnostic: d,
                task: None,
                check: None,
            }])
            .remove(0)
        };
        assert_eq!(fp(&a), fp(&moved), "same finding on the next push");
        assert_ne!(fp(&a), fp(&other));
        assert_ne!(fp(&a), fp(&elsewhere));
        assert_eq!(
            stable_identity("at abc1234 and cafe, 12"),
            "at # and cafe, 12"
        );
    }

    #[test]
    fn subjects_and_counts_of_commits_are_not_part_of_a_finding() {
        let one = "src/x.rs was modified (last by commit 1a2b3c4 (\"feat: add x\")) but the spec does not declare it";
        let other = "src/x.rs was modified (last by commit 9f8e7d6 (\"fix \\\"quoted\\\") (2)\")) but the spec does not declare it";
        assert_eq!(stable_identity(one), stable_identity(other));
        assert_eq!(
            stable_identity(one),
            "src/x.rs was modified (last by commit #) but the spec does not declare it"
        );
        assert_eq!(
            stable_identity(
                "ran on commit abcdef1 (\"a\"), but the task's later commit 1234567 (\"b\") changed src/a (and 3 more of its commits changed content)"
            ),
            "ran on commit #, but the task's later commit # changed src/a (and # more of its commits changed content)"
        );
        // Text that only looks like the start of a label stays.
        assert_eq!(stable_identity("# (\"open"), "# (\"open");
        assert_eq!(stable_identity("and 3 apples"), "and 3 apples");
    }

    #[test]
    fn a_finding_about_the_path_of_another_is_the_same_problem() {
        let stray =
            Diagnostic::new(Code::unexpected_file, "src/a.rs was modified").with_path("src/a.rs");
        let listed = Diagnostic::new(
            Code::executor_report_missing_changed_file,
            "src/a.rs was modified but files_modified does not list it",
        )
        .with_path("t/executor-report.md");
        let elsewhere = Diagnostic::new(Code::unexpected_file, "src/a.rs.bak was modified")
            .with_path("src/a.rs.bak");
        let other_task = listed.clone();
        let at = |d: &'static Diagnostic, task: &'static str| Finding {
            diagnostic: d,
            task: Some(task),
            check: None,
        };
        let leak = |d: Diagnostic| -> &'static Diagnostic { Box::leak(Box::new(d)) };
        let (stray, listed, elsewhere, other_task) =
            (leak(stray), leak(listed), leak(elsewhere), leak(other_task));
        let problems = problems(&[
            at(stray, "t"),
            at(listed, "t"),
            at(elsewhere, "t"),
            at(other_task, "u"),
        ]);
        assert_eq!(problems.len(), 3);
        assert_eq!(problems[0].also.len(), 1);
        assert_eq!(problems[0].severity(), Severity::Error);
        assert!(problems[1].also.is_empty() && problems[2].also.is_empty());
    }
}
