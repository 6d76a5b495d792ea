//! The contracts corpus (`tests/data/contracts-corpus/`): realistic plastic
//! completion reports and subagent returns, each with the verdict the
//! contracts imply and the source that decides it, in `plastic.tsv` and
//! `subagent.tsv`:
//!
//! ```text
//! file <TAB> judge <TAB> verdict <TAB> code <TAB> source
//! ```
//!
//! * `judge`: `-` (the document's own role), `role=<role>` (`--role`) or
//!   `dispatch=<description>` (`--dispatch`);
//! * `verdict`: `accept` (no error) or `reject` (at least one error);
//! * `code`: for `reject`, the code of the first error (the first
//!   diagnostic names the broken rule); for `accept`, `-` or a warning that
//!   must be reported.
//!
//! Both false rejections and false acceptances must be zero.

use mastermind_hooks::artifact::{self, Kind};
use mastermind_hooks::contract::subagent::dispatch;
use mastermind_hooks::diagnostic::Diagnostic;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/contracts-corpus");

struct Case {
    file: String,
    judge: String,
    verdict: String,
    code: String,
}

fn manifest(name: &str) -> Vec<Case> {
    let text =
        std::fs::read_to_string(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 5, "{name}: {line}");
            assert!(
                !cols[4].trim().is_empty(),
                "{name}: {line}: every case names its source"
            );
            Case {
                file: cols[0].to_string(),
                judge: cols[1].to_string(),
                verdict: cols[2].to_string(),
                code: cols[3].to_string(),
            }
        })
        .collect()
}

fn judge(kind: Kind, bytes: &[u8], judge: &str) -> Vec<Diagnostic> {
    if let Some(description) = judge.strip_prefix("dispatch=") {
        return dispatch::check_dispatched(bytes, description).diagnostics;
    }
    let role = judge.strip_prefix("role=");
    artifact::check_with_role(kind, bytes, role).diagnostics
}

/// Every mismatch between a case and what the contracts found.
fn run(manifest_name: &str, folder: &str, kind: Kind) -> (usize, Vec<String>) {
    let cases = manifest(manifest_name);
    let mut failures = Vec::new();
    for case in &cases {
        let path = format!("{DIR}/{folder}/{}", case.file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let diagnostics = judge(kind, &bytes, &case.judge);
        let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
        let shown = || {
            diagnostics
                .iter()
                .map(|d| format!("{} {}: {}", d.severity.as_str(), d.code.as_str(), d.message))
                .collect::<Vec<_>>()
                .join("\n    ")
        };
        match case.verdict.as_str() {
            "accept" => {
                if !errors.is_empty() {
                    failures.push(format!(
                        "false rejection: {folder}/{}\n    {}",
                        case.file,
                        shown()
                    ));
                } else if case.code != "-"
                    && !diagnostics.iter().any(|d| d.code.as_str() == case.code)
                {
                    failures.push(format!(
                        "missing warning {}: {folder}/{}\n    {}",
                        case.code,
                        case.file,
                        shown()
                    ));
                }
            }
            "reject" => match errors.first() {
                None => failures.push(format!(
                    "false acceptance: {folder}/{}\n    {}",
                    case.file,
                    shown()
                )),
                Some(first) if first.code.as_str() != case.code => failures.push(format!(
                    "wrong first error (want {}): {folder}/{}\n    {}",
                    case.code,
                    case.file,
                    shown()
                )),
                Some(_) => {}
            },
            other => panic!("{}: verdict `{other}`", case.file),
        }
    }
    (cases.len(), failures)
}

#[test]
fn the_corpus_gets_the_verdicts_the_contracts_imply() {
    let (plastic, mut failures) = run("plastic.tsv", "plastic", Kind::PlasticReport);
    let (subagent, more) = run("subagent.tsv", "subagent", Kind::SubagentReturn);
    failures.extend(more);
    let (blocks, more) = run("finding-blocks.tsv", "finding-blocks", Kind::FindingBlocks);
    failures.extend(more);
    let (ledgers, more) = run("ledgers.tsv", "ledgers", Kind::FindingsLedger);
    failures.extend(more);
    let total = plastic + subagent + blocks + ledgers;
    assert!(
        total >= 100,
        "the corpus has {total} documents; it needs at least 100"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} documents judged wrongly:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Carriers that change nothing a contract reads: CRLF line endings, a
/// byte-order mark, a title heading, a closing rule and remark, the whole
/// report quoted, the whole report fenced. Every plastic case keeps its
/// verdict and its first error under each.
#[test]
fn the_carrier_never_changes_a_plastic_verdict() {
    type Carrier = fn(&str) -> Option<String>;
    let carriers: &[(&str, Carrier)] = &[
        ("crlf", |t| Some(t.replace('\n', "\r\n"))),
        ("bom", |t| Some(format!("\u{feff}{t}"))),
        ("title", |t| Some(format!("# Completion report\n\n{t}"))),
        ("closing", |t| {
            Some(format!("{t}\n---\n\nThat is all for this turn.\n"))
        }),
        ("quoted", |t| {
            Some(t.lines().map(|l| format!("> {l}\n")).collect())
        }),
        ("fenced", |t| {
            (!t.contains("```")).then(|| format!("```markdown\n{t}```\n"))
        }),
    ];
    let mut failures = Vec::new();
    for case in manifest("plastic.tsv") {
        if case.file.starts_with("synthesized") || case.file == "empty.md" {
            continue;
        }
        let path = format!("{DIR}/plastic/{}", case.file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let text = text.trim_start_matches('\u{feff}').replace("\r\n", "\n");
        let first_error = |text: &str| {
            judge(Kind::PlasticReport, text.as_bytes(), &case.judge)
                .into_iter()
                .find(Diagnostic::is_error)
                .map(|d| d.code.as_str())
        };
        let expected = first_error(&text);
        for (name, carry) in carriers {
            let Some(carried) = carry(&text) else {
                continue;
            };
            let found = first_error(&carried);
            if found != expected {
                failures.push(format!(
                    "{} {name}: {expected:?} became {found:?}",
                    case.file
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_corpus_file_is_in_a_manifest() {
    for (folder, manifest_name) in [
        ("plastic", "plastic.tsv"),
        ("subagent", "subagent.tsv"),
        ("finding-blocks", "finding-blocks.tsv"),
        ("ledgers", "ledgers.tsv"),
    ] {
        let listed: Vec<String> = manifest(manifest_name)
            .into_iter()
            .map(|c| c.file)
            .collect();
        for entry in std::fs::read_dir(format!("{DIR}/{folder}")).expect(folder) {
            let name = entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            assert!(
                listed.contains(&name),
                "{folder}/{name} has no verdict in {manifest_name}"
            );
        }
    }
}
