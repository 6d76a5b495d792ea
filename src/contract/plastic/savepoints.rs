//! The savepoint ledger (`<intent_dir>/savepoint.md`): one event per line,
//! `{timestamp}␠␠{subject}␠␠{text}`, append-only, newest last.
//!
//! Lines are trimmed and split on runs of two or more whitespace characters,
//! as plastic's readers do, so padded columns are fine; blank lines and `#`
//! comment lines (the template) are no entries. Each subject allows its own
//! texts; `Intent` and node-id subjects carry transition lines
//! (`<state> key=value ... (comment)`), read with the node ledger's closed
//! state vocabulary and required fields. A repeated (subject, text) pair
//! among the other lines is a phantom.

use super::timestamp::{self, UtcSecond};
use crate::codes::Code;
use crate::contract::text;
use crate::diagnostic::Diagnostic;
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Bytes a savepoint ledger may have.
pub const MAX_SAVEPOINT_BYTES: usize = 8 * 1024 * 1024;

/// The subject of a ledger line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    What,
    Why,
    How,
    Exec,
    Done,
    Review,
    Commit,
    Report,
    Lock,
    /// Plastic 1.x, ignored by every reader.
    Tier,
    /// Intent-scope transition line.
    Intent,
    /// A node id, `[a-z]{1,2}\d+` (`n1`, `v2`, `n10`).
    Node(String),
}

impl Subject {
    fn parse(text: &str) -> Option<Subject> {
        Some(match text {
            "What" => Subject::What,
            "Why" => Subject::Why,
            "How" => Subject::How,
            "Exec" => Subject::Exec,
            "Done" => Subject::Done,
            "Review" => Subject::Review,
            "Commit" => Subject::Commit,
            "Report" => Subject::Report,
            "Lock" => Subject::Lock,
            "Tier" => Subject::Tier,
            "Intent" => Subject::Intent,
            _ if NODE_ID.is_match(text) => Subject::Node(text.to_string()),
            _ => return None,
        })
    }

    /// Transition lines are dedup-free and ordered among themselves.
    pub fn is_transition(&self) -> bool {
        matches!(self, Subject::Intent | Subject::Node(_))
    }
}

/// One well-formed ledger line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub line: u32,
    pub timestamp: UtcSecond,
    pub subject: Subject,
    pub text: String,
}

static NODE_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\A[a-z]{1,2}[0-9]+\z").unwrap());
static FIELD_SEPARATOR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s{2,}").unwrap());
static INTENT_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A[^\s/]+--[^\s/]+\.md\z").unwrap());
static LOCK_TAKEOVER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\Atakeover: \S+ reclaimed delivery lock from \S+\z").unwrap());
static FIELD_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\A([a-z_]+)=("(?:[^"\\]|\\.)*"|[^\s"]+)"#).unwrap());

/// The node ledger's closed state vocabulary with each state's required fields.
const STATES: &[(&str, &[&str])] = &[
    ("planned", &[]),
    ("running", &["holder", "expires", "packet", "model"]),
    ("done", &["gates"]),
    ("failed_verification", &["gates", "reason"]),
    ("needs_decision", &["question"]),
    ("blocked", &["reason"]),
    ("deferred", &["reason"]),
    ("superseded", &["by"]),
    ("abandoned", &["reason"]),
    ("reclaimed", &["holder", "expired"]),
];

/// `done` also needs at least one of these.
const DONE_EVIDENCE: &[&str] = &["commit", "verdict"];

/// Read a transition text: the state, then `key=value` pairs (values bare or
/// double-quoted with backslash escapes) up to the first token that is not a
/// pair; the rest is the comment. Returns what is wrong, if anything.
fn transition_problem(text: &str) -> Option<String> {
    let (state, mut rest) = match text.split_once(char::is_whitespace) {
        Some((state, rest)) => (state, rest),
        None => (text, ""),
    };
    let Some((_, required)) = STATES.iter().find(|(name, _)| *name == state) else {
        return Some(format!(
            "unknown transition state `{state}`; states are {}",
            STATES
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let mut fields: HashMap<&str, &str> = HashMap::new();
    loop {
        rest = rest.trim_start();
        let Some(captures) = FIELD_TOKEN.captures(rest) else {
            break;
        };
        let (Some(whole), Some(key), Some(value)) =
            (captures.get(0), captures.get(1), captures.get(2))
        else {
            break;
        };
        let after = &rest[whole.end()..];
        // A pair ends at whitespace or the end; `a=b(c` is comment text.
        if !after.is_empty() && !after.starts_with(char::is_whitespace) {
            break;
        }
        let value = value.as_str().trim_matches('"');
        fields.insert(key.as_str(), value);
        rest = after;
    }
    let present = |key: &str| fields.get(key).is_some_and(|v| !v.trim().is_empty());
    let mut missing: Vec<&str> = required.iter().copied().filter(|k| !present(k)).collect();
    if state == "done" && !DONE_EVIDENCE.iter().any(|k| present(k)) {
        missing.push("commit or verdict");
    }
    (!missing.is_empty()).then(|| {
        format!(
            "transition `{state}` is missing required field{} {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )
    })
}

/// What is wrong with `text` for `subject`, as (code, message).
fn text_problem(subject: &Subject, text: &str) -> Option<(Code, String)> {
    let allowed = |options: &[&str]| {
        (!options.contains(&text)).then(|| {
            (
                Code::plastic_savepoint_text_invalid,
                format!(
                    "`{}` lines read {}, not `{text}`",
                    subject_name(subject),
                    options
                        .iter()
                        .map(|o| format!("`{o}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            )
        })
    };
    match subject {
        Subject::What => (!INTENT_FILE.is_match(text)).then(|| {
            (
                Code::plastic_savepoint_text_invalid,
                format!("`What` lines name the intent file `<id>--<slug>.md`, not `{text}`"),
            )
        }),
        Subject::Why => allowed(&["spec.md created", "started"]),
        Subject::How => allowed(&["plan.md created", "checklist.md created", "started"]),
        Subject::Exec => allowed(&["started", "outcome.md created"]),
        Subject::Done => (!matches!(text, "delivered" | "abandoned")).then(|| {
            (
                Code::plastic_savepoint_done_invalid,
                format!("`Done` is only `delivered` or `abandoned`, not `{text}`"),
            )
        }),
        Subject::Lock => (!LOCK_TAKEOVER.is_match(text)).then(|| {
            (
                Code::plastic_savepoint_text_invalid,
                format!(
                    "`Lock` lines read `takeover: <session> reclaimed delivery lock from <session>`, not `{text}`"
                ),
            )
        }),
        Subject::Review | Subject::Commit | Subject::Report | Subject::Tier => None,
        Subject::Intent | Subject::Node(_) => transition_problem(text)
            .map(|message| (Code::plastic_savepoint_transition_invalid, message)),
    }
}

fn subject_name(subject: &Subject) -> &str {
    match subject {
        Subject::What => "What",
        Subject::Why => "Why",
        Subject::How => "How",
        Subject::Exec => "Exec",
        Subject::Done => "Done",
        Subject::Review => "Review",
        Subject::Commit => "Commit",
        Subject::Report => "Report",
        Subject::Lock => "Lock",
        Subject::Tier => "Tier",
        Subject::Intent => "Intent",
        Subject::Node(id) => id,
    }
}

/// Check a savepoint ledger; well-formed entries come back in file order.
pub fn check(bytes: &[u8]) -> (Vec<Entry>, Vec<Diagnostic>) {
    match text::decode(bytes, MAX_SAVEPOINT_BYTES, "savepoint ledger") {
        Ok(text) => check_text(text),
        Err(d) => (Vec::new(), vec![d]),
    }
}

fn check_text(text: &str) -> (Vec<Entry>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut entries = Vec::new();
    let mut seen: HashMap<(Subject, String), u32> = HashMap::new();
    // Newest-last is checked per family: rebuild_savepoint rewrites the
    // stage skeleton and keeps transition lines after it.
    let mut last_stage: Option<(u32, UtcSecond)> = None;
    let mut last_transition: Option<(u32, UtcSecond)> = None;
    for (number, raw) in text::numbered_lines(text) {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = FIELD_SEPARATOR.split(line).collect();
        let error =
            |code: Code, message: String| Diagnostic::new(code, message).with_line(Some(number));
        if fields.len() < 3 {
            diagnostics.push(error(
                Code::plastic_savepoint_line_malformed,
                format!(
                    "savepoint line has {} field{}; it needs `timestamp  subject  text` separated by two spaces (plastic's readers skip it)",
                    fields.len(),
                    if fields.len() == 1 { "" } else { "s" }
                ),
            ));
            continue;
        }
        if fields.len() > 3 {
            diagnostics.push(error(
                Code::plastic_savepoint_line_malformed,
                format!(
                    "savepoint text contains a run of two or more spaces; plastic's readers keep only `{}`",
                    fields[2]
                ),
            ));
            continue;
        }
        let (stamp, subject_text, entry_text) = (fields[0], fields[1], fields[2]);
        let stamp = match timestamp::parse_exact(stamp) {
            Ok(stamp) => Some(stamp),
            Err(e) => {
                let why = match e {
                    timestamp::TimestampError::Shape(why) => why,
                    timestamp::TimestampError::Range => "is no real date and time",
                };
                diagnostics.push(error(
                    Code::plastic_savepoint_timestamp_invalid,
                    format!("savepoint timestamp `{stamp}` {why}"),
                ));
                None
            }
        };
        let Some(subject) = Subject::parse(subject_text) else {
            diagnostics.push(error(
                Code::plastic_savepoint_subject_unknown,
                format!(
                    "unknown savepoint subject `{subject_text}`; subjects are What, Why, How, Exec, Done, Review, Commit, Report, Lock, Tier, Intent and node ids such as n1"
                ),
            ));
            continue;
        };
        if let Some((code, message)) = text_problem(&subject, entry_text) {
            diagnostics.push(error(code, message));
            continue;
        }
        let Some(stamp) = stamp else { continue };
        let last = if subject.is_transition() {
            &mut last_transition
        } else {
            &mut last_stage
        };
        if let Some((previous_line, previous)) = *last
            && stamp < previous
        {
            diagnostics.push(error(
                Code::plastic_savepoint_out_of_order,
                format!(
                    "savepoint line at {stamp} is older than line {previous_line} ({previous}); the ledger is append-only, newest last"
                ),
            ));
        }
        *last = Some((number, stamp));
        if !subject.is_transition() {
            let key = (subject.clone(), entry_text.to_string());
            if let Some(first) = seen.get(&key) {
                diagnostics.push(error(
                    Code::plastic_savepoint_phantom,
                    format!(
                        "`{}  {entry_text}` repeats line {first}; the later line is a phantom",
                        subject_name(&subject)
                    ),
                ));
            } else {
                seen.insert(key, number);
            }
        }
        entries.push(Entry {
            line: number,
            timestamp: stamp,
            subject,
            text: entry_text.to_string(),
        });
    }
    (entries, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<(Code, Option<u32>)> {
        check(text.as_bytes())
            .1
            .into_iter()
            .map(|d| (d.code, d.line))
            .collect()
    }

    fn one(line: &str) -> Vec<Code> {
        codes(line).into_iter().map(|(c, _)| c).collect()
    }

    #[test]
    fn the_template_and_padded_columns_are_fine() {
        let template =
            "# Deterministic cycle-step ledger.\n#\n#   {UTC-iso8601}  {Stage}  {milestone}\n";
        assert!(codes(template).is_empty());
        let (entries, d) = check(
            b"2026-06-16T14:02:00Z  What  12--slug.md\n2026-06-16T14:20:00Z  Why   spec.md created\n\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(entries[1].subject, Subject::Why);
        assert_eq!(entries[1].text, "spec.md created");
    }

    #[test]
    fn every_subject_with_its_nearest_valid_and_invalid_text() {
        let ts = "2026-09-10T06:21:57Z";
        for (good, bad, code) in [
            (
                "What  337--roadmap-graph.md",
                "What  roadmap.md",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "Why  spec.md created",
                "Why  plan.md created",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "How  checklist.md created",
                "How  outcome.md created",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "How  started",
                "How  begun",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "Exec  outcome.md created",
                "Exec  spec.md created",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "Done  delivered",
                "Done  shipped",
                Code::plastic_savepoint_done_invalid,
            ),
            (
                "Done  abandoned",
                "Done  Delivered",
                Code::plastic_savepoint_done_invalid,
            ),
            (
                "Lock  takeover: auto-1 reclaimed delivery lock from auto-2",
                "Lock  taken by auto-1",
                Code::plastic_savepoint_text_invalid,
            ),
            (
                "Review  plan review: accept",
                "Rewiew  plan review: accept",
                Code::plastic_savepoint_subject_unknown,
            ),
            (
                "n10  planned",
                "n100x  planned",
                Code::plastic_savepoint_subject_unknown,
            ),
            (
                "ab12  planned",
                "abc1  planned",
                Code::plastic_savepoint_subject_unknown,
            ),
        ] {
            assert!(one(&format!("{ts}  {good}\n")).is_empty(), "{good}");
            assert_eq!(one(&format!("{ts}  {bad}\n")), vec![code], "{bad}");
        }
        // Free-text subjects and the legacy Tier line.
        for good in [
            "Commit  be321c6 fix: pin it",
            "Report  PAUSED by the orchestrator",
            "Tier  M",
        ] {
            assert!(one(&format!("{ts}  {good}\n")).is_empty(), "{good}");
        }
    }

    #[test]
    fn transition_lines_follow_the_node_ledger_vocabulary() {
        let ts = "2026-09-10T06:21:57Z";
        for good in [
            "n1  done holder=executor:337 gates=suite commit=e8e4ac7 suite=16/0",
            "v1  done gates=review verdict=blockers_found (one blocker, a test gap)",
            "n1  running holder=auto-6a expires=2026-09-10T09:18:15Z packet=641f model=sonnet",
            "n6  reclaimed holder=auto-6a expired=2026-09-10T16:43:35Z (expired lease)",
            "n6  failed_verification holder=a gates=integrity+suite reason=suite_red (attempt 2)",
            "Intent  needs_decision question=\"which way now?\"",
            "Intent  blocked reason=core_integrity",
            "n2  planned",
        ] {
            assert!(one(&format!("{ts}  {good}\n")).is_empty(), "{good}");
        }
        for (bad, why) in [
            ("n1  finished gates=suite", "unknown transition state"),
            ("n1  done holder=x", "gates, commit or verdict"),
            ("n1  done gates=suite", "commit or verdict"),
            ("n1  running holder=auto-ce5", "expires, packet, model"),
            ("Intent  needs_decision (what now?)", "question"),
            ("n1  done gates= commit=abc", "gates"),
        ] {
            let (_, d) = check(format!("{ts}  {bad}\n").as_bytes());
            assert_eq!(d.len(), 1, "{bad}");
            assert_eq!(
                d[0].code,
                Code::plastic_savepoint_transition_invalid,
                "{bad}"
            );
            assert!(d[0].message.contains(why), "{bad}: {}", d[0].message);
        }
    }

    #[test]
    fn line_shape_and_timestamps() {
        assert_eq!(
            one("2026-09-10T06:21:57Z What 12--x.md\n"),
            vec![Code::plastic_savepoint_line_malformed]
        );
        assert_eq!(
            one("2026-09-10T06:21:57Z  Commit  abc  fix\n"),
            vec![Code::plastic_savepoint_line_malformed]
        );
        assert_eq!(
            one("2026-09-10 06:21:57  Done  delivered\n"),
            vec![Code::plastic_savepoint_timestamp_invalid]
        );
        assert_eq!(
            one("2026-02-30T06:21:57Z  Done  delivered\n"),
            vec![Code::plastic_savepoint_timestamp_invalid]
        );
        assert!(one("  2026-09-10T06:21:57Z  Done  delivered  \n").is_empty());
    }

    #[test]
    fn phantoms_are_repeated_non_transition_pairs() {
        let ledger = "2026-09-10T06:00:00Z  How  started\n\
                      2026-09-10T06:00:01Z  Why  started\n\
                      2026-09-10T06:00:02Z  n1  planned\n\
                      2026-09-10T06:00:03Z  n1  planned\n\
                      2026-09-10T06:00:04Z  How  started\n";
        assert_eq!(
            codes(ledger),
            vec![(Code::plastic_savepoint_phantom, Some(5))]
        );
    }

    #[test]
    fn newest_last_within_each_family() {
        let stage_back =
            "2026-09-10T06:00:05Z  What  1--x.md\n2026-09-10T06:00:04Z  Why  spec.md created\n";
        assert_eq!(
            codes(stage_back),
            vec![(Code::plastic_savepoint_out_of_order, Some(2))]
        );
        // A rebuilt ledger: transition lines after a later stage skeleton.
        let rebuilt = "2026-09-10T09:00:00Z  What  1--x.md\n\
                       2026-09-10T06:00:00Z  n1  planned\n\
                       2026-09-10T07:00:00Z  n1  running holder=a expires=b packet=c model=d\n";
        assert!(codes(rebuilt).is_empty());
    }
}
