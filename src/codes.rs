//! The registry of reason codes: every rule this tool enforces has exactly one
//! stable snake_case code, declared here with its default severity, what it
//! means and how to fix it.
//!
//! Variants are spelled exactly like the code they print, so a single grep for
//! a code (`executor_report_sentinel_pair`) finds its definition here, the
//! place that raises it, its tests and its documentation.

use crate::diagnostic::Severity;

/// Whether a code reports a broken rule (exit 1) or a check that could not run
/// (exit 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The input was read and breaks a rule.
    Violation,
    /// The check could not be carried out; never a pass.
    CannotCheck,
}

macro_rules! codes {
    ($(
        $name:ident: $severity:ident, $outcome:ident,
            $summary:literal,
            $help:literal;
    )*) => {
        /// One stable reason code.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($name),* }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$name),*];

            /// The code as printed (`snake_case`).
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$name => stringify!($name)),* }
            }

            /// Severity before any configuration override.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$name => Severity::$severity),* }
            }

            /// Whether this code means "violation" or "could not check".
            pub fn outcome(self) -> Outcome {
                match self { $(Code::$name => Outcome::$outcome),* }
            }

            /// One sentence: what the rule demands.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$name => $summary),* }
            }

            /// What to do to satisfy the rule.
            pub fn help(self) -> &'static str {
                match self { $(Code::$name => $help),* }
            }

            /// Look a code up by its printed name.
            pub fn from_name(name: &str) -> Option<Code> {
                match name { $(stringify!($name) => Some(Code::$name),)* _ => None }
            }
        }
    };
}

codes! {
    // ---- reading input -------------------------------------------------
    input_unreadable: Error, CannotCheck,
        "The file could not be read.",
        "Check that the path exists and is readable, then run again.";
    input_not_regular_file: Error, CannotCheck,
        "The input must be a regular file (not a directory, FIFO or device).",
        "Pass the path of a regular file.";
    input_too_large: Error, Violation,
        "The file is larger than the contract allows for its kind.",
        "Shrink the file below the limit named in the message.";
    input_not_utf8: Error, Violation,
        "The file is not valid UTF-8.",
        "Re-save the file as UTF-8.";
    kind_unknown: Error, CannotCheck,
        "The kind of the file could not be inferred from its name.",
        "Pass --kind (executor-report, audit-tail, spec, receipt, tree-receipt).";
    internal_error: Error, CannotCheck,
        "mastermind-hooks hit an internal error; nothing was judged.",
        "Report this as a bug with the command and input that triggered it.";

    // ---- strict YAML ---------------------------------------------------
    yaml_syntax: Error, Violation,
        "The YAML does not parse.",
        "Fix the YAML syntax at the line shown.";
    yaml_duplicate_key: Error, Violation,
        "A mapping repeats a key.",
        "Keep one entry per key.";
    yaml_budget_exceeded: Error, Violation,
        "The YAML exceeds the parser's resource budget (aliases, nodes or size).",
        "Remove alias expansion chains and oversized collections.";
    yaml_null_value: Error, Violation,
        "Null values (`~`, `null` or an empty value) are not permitted.",
        "Write the value, quote it, or drop the key.";
    yaml_tag: Error, Violation,
        "YAML tags such as `!custom` are not permitted.",
        "Remove the tag; write the plain value.";
    yaml_non_string_key: Error, Violation,
        "Mapping keys must be strings.",
        "Quote the key.";
    yaml_non_finite_number: Error, Violation,
        "Numbers must be finite (`.nan` and `.inf` are rejected).",
        "Write a finite number or a quoted string.";
    yaml_nesting_limit: Error, Violation,
        "Mappings and sequences may nest at most 64 levels deep.",
        "Flatten the document.";

    // ---- executor report (contracts mastermind.md section 1) -----------
    executor_report_empty: Error, Violation,
        "The executor report is empty.",
        "Write the report and end it with the sentinel-wrapped YAML tail.";
    executor_report_markers_mixed: Error, Violation,
        "The report mixes canonical (`mastermind:report-*`) and legacy (`mastermind:executor-*`) markers.",
        "Keep only the canonical `<!-- mastermind:report-begin -->`/`-end -->` pair.";
    executor_report_sentinel_pair: Error, Violation,
        "The report needs exactly one begin marker line before exactly one end marker line.",
        "Keep one `<!-- mastermind:report-begin -->` line and one `<!-- mastermind:report-end -->` line after it, each starting at column 1.";
    executor_report_fence_invalid: Error, Violation,
        "Between the markers there must be exactly one complete ```yaml fence.",
        "Put a line ```yaml right after the begin marker and a line ``` right before the end marker.";
    executor_report_legacy: Error, Violation,
        "A legacy (claims/verify) report was supplied; canonical schema v1 is required.",
        "Rewrite the tail as a schema_version: 1 report between `mastermind:report-*` markers.";
    executor_report_no_tail: Error, Violation,
        "The report has no sentinel-wrapped YAML tail and is not a bare schema v1 report.",
        "Append `<!-- mastermind:report-begin -->`, a ```yaml fence with the schema v1 report, and `<!-- mastermind:report-end -->`.";
    executor_report_schema_violation: Error, Violation,
        "The report does not match executor report schema v1 (types, required or unknown fields).",
        "Fix the field at the JSON pointer shown; see `mastermind-hooks schema executor-report-v1`.";
    executor_report_schema_version_unsupported: Error, Violation,
        "Only executor report schema_version 1 is supported.",
        "Set `schema_version: 1`.";
    executor_report_spec_empty: Error, Violation,
        "The report's `spec` must not be blank.",
        "Set `spec` to the task's spec path.";
    executor_report_phase_id_empty: Error, Violation,
        "Every phase needs a non-blank `id`.",
        "Give the phase an id such as `plan-1`.";
    executor_report_phase_id_duplicated: Error, Violation,
        "Phase ids must be unique (compared after trimming).",
        "Rename or merge the repeated phase.";
    executor_report_file_path_empty: Error, Violation,
        "`files_modified` entries must not be blank.",
        "Remove the blank entry or write the path.";
    executor_report_defect_field_empty: Error, Violation,
        "Every defect needs non-blank `kind`, `phase`, `details` and `remediation_hint`.",
        "Fill in the blank defect field.";
    executor_report_verification_cmd_empty: Error, Violation,
        "Every verification row needs a non-blank `cmd`.",
        "Write the command that was run.";
    executor_report_claim_field_empty: Error, Violation,
        "Claim fields, when present, must not be blank.",
        "Fill in or remove the blank claim field.";
    executor_report_complete_with_defects: Error, Violation,
        "A `complete` report must not list defects.",
        "Set status to `partial` or `failed`, or resolve and remove the defects.";
    executor_report_complete_phase_not_done: Error, Violation,
        "A `complete` report requires every phase to be `done`.",
        "Finish the phase or set status to `partial`.";
    executor_report_complete_failed_verification: Error, Violation,
        "A `complete` report must not contain a `result: fail` verification.",
        "Fix the failure and re-run, or set status to `partial`/`failed` with a defect.";
    executor_report_incomplete_without_defect: Error, Violation,
        "A `partial` or `failed` report needs at least one defect.",
        "Add a defect that says what failed and what to do next.";
    executor_report_incomplete: Warning, Violation,
        "The report is valid but not `complete`; the post-flight audit will reject completion.",
        "Finish the task and report `status: complete`.";

    // ---- audit advisory tail (section 2) -------------------------------
    audit_tail_missing: Error, Violation,
        "No `mastermind:audit-begin` ... `mastermind:audit-end` tail with a ```yaml fence was found.",
        "End the auditor output with the sentinel-wrapped YAML tail (required even on `held`).";
    audit_tail_sentinel_pair: Error, Violation,
        "The audit tail needs one begin marker before one end marker.",
        "Keep exactly one `<!-- mastermind:audit-begin -->` and one `<!-- mastermind:audit-end -->`.";
    audit_tail_not_mapping: Error, Violation,
        "The audit tail YAML must be a mapping.",
        "Write `spec:`, `verdict:`, `scope_match:` and `discrepancies:` keys.";
    audit_tail_schema_violation: Error, Violation,
        "The audit tail does not match its schema.",
        "Fix the field at the JSON pointer shown; see `mastermind-hooks schema audit-tail-v1`.";
    audit_tail_verdict_inconsistent: Error, Violation,
        "The verdict contradicts the tail's own evidence.",
        "`held` needs no discrepancies, scope_match true and no failed re-run; `drift`/`broken` need at least one discrepancy.";

    // ---- spec front matter (sections 3 and 6) --------------------------
    spec_frontmatter_absent: Note, Violation,
        "The spec has no YAML front matter; it is read as a legacy heuristic spec.",
        "Start spec.md with a `---` front matter block declaring touches, verify and acceptance.";
    spec_frontmatter_not_at_start: Warning, Violation,
        "A `---` block that is not at byte 0 (BOM or blank lines first) is not front matter.",
        "Remove everything before the opening `---` line.";
    frontmatter_unterminated: Error, Violation,
        "The front matter has no closing `---` line.",
        "Add a line that is exactly `---` after the front matter.";
    frontmatter_invalid: Error, Violation,
        "The front matter does not parse or does not match the spec schema.",
        "Fix the key or value named in the message; unknown keys are rejected at every level.";
    verification_declaration_limit: Error, Violation,
        "At most 32 observed (`run`) verification declarations are supported.",
        "Merge or drop observed checks.";
    verification_id_invalid: Error, Violation,
        "Observed verification ids must be unique 1..64 byte ASCII identifiers ([A-Za-z0-9_-]).",
        "Rename the `run.id`.";
    verification_cmd_ambiguous: Error, Violation,
        "An observed check's `cmd` occurs more than once among the verify entries.",
        "Make every `cmd` unique.";
    verification_argv_invalid: Error, Violation,
        "An observed check has invalid argv (1..64 items, argv[0] non-empty, <= 8192 bytes each, no NUL, <= 32768 total) or timeout (1..3600).",
        "Fix `run.argv` or `run.timeout_secs`.";
    verification_cwd_not_canonical: Error, Violation,
        "An observed check needs `.` or a canonical repository-relative cwd.",
        "Write cwd as `.` or `dir/sub` (no `./`, trailing `/`, `..` or absolute path).";
    verification_cmd_mismatch: Error, Violation,
        "An observed check's `cmd` must equal the display form of its argv.",
        "Set `cmd` to the expected text shown in the message.";
    acceptance_requires_1_to_64_criteria: Error, Violation,
        "A declared acceptance list needs 1 to 64 criteria.",
        "Add criteria or remove the `acceptance` key.";
    acceptance_ids_must_be_unique_ascii_identifiers: Error, Violation,
        "Criterion ids must be unique 1..64 byte ASCII identifiers ([A-Za-z0-9_-]).",
        "Rename the criterion id.";
    acceptance_statement_invalid_or_placeholder: Error, Violation,
        "A criterion statement must be 1..2048 bytes, without control characters, and not a `<placeholder>`.",
        "Write the statement as one line of real text.";
    acceptance_requires_unique_observed_check_ids: Error, Violation,
        "A criterion needs 1..32 unique checks, each the id of an observed `run`.",
        "List `run.id` values of observed checks in `checks`.";
    target_path_invalid: Error, Violation,
        "A declared path must normalize to a relative path without control characters, drive letters, `.` or `..` segments.",
        "Write the path relative to the repository root, with `/` separators.";
    path_limit_exceeded: Error, Violation,
        "A declared path exceeds 4096 bytes or 64 components.",
        "Shorten the path.";
    creation_touch_conflict: Error, Violation,
        "The same path is declared in both `creates` and `touches`.",
        "Keep the path in one list: `creates` for new files, `touches` for existing ones.";
    declaration_ancestor_conflict: Error, Violation,
        "A declared path is a directory ancestor of another declared path.",
        "Declare files, not directories.";
    declaration_limit_exceeded: Error, Violation,
        "More than 1024 paths are declared.",
        "Split the task.";

    // ---- the gate: per-task checks (DESIGN.md section 5) -----------------
    config_invalid: Error, CannotCheck,
        "The gate configuration (.mastermind/hooks.yaml) is invalid.",
        "Fix the key or value named in the message; unknown keys and codes are errors.";
    usage_invalid: Error, CannotCheck,
        "The command line or the input the gate was handed is malformed.",
        "Check the arguments; see `mastermind-hooks check --help`.";
    no_task_changed: Note, Violation,
        "No task folder changed in this view; nothing to check against a task.",
        "Nothing to do, unless `require_task` demands that changes belong to a task.";
    task_required: Error, Violation,
        "require_task is set and changes outside .mastermind/ belong to no checked task.",
        "Make the change as part of a task (.mastermind/tasks/<task>/) or drop it.";
    task_spec_missing: Error, Violation,
        "A changed task folder has no spec.md in the view.",
        "Add the task's spec.md (or remove the stray files from the task folder).";
    task_state_invalid: Error, Violation,
        "The task's state.json is not a JSON object with a string baseline_ref.",
        "Let the controller rewrite state.json (run-task pre-flight) or fix it.";
    task_baseline_unavailable: Note, Violation,
        "The task's baseline_ref commit is not in this repository; the mode's base is used instead.",
        "Fetch the baseline commit to compare the task's whole change.";
    artifact_not_regular_file: Error, Violation,
        "A task artifact is a symlink or submodule in the tree; artifacts are never followed through links.",
        "Commit the artifact as a regular file.";
    executor_report_missing: Error, Violation,
        "The task has no executor-report.md.",
        "Write <task>/executor-report.md with the canonical schema v1 tail.";
    executor_report_task_mismatch: Error, Violation,
        "The report's `spec` does not name this task's spec.",
        "Set `spec` to the task's repository-relative spec path.";
    executor_report_rejected: Error, Violation,
        "The report is valid but not `complete` (status_partial or status_failed), so completion is rejected.",
        "Finish the task and report `status: complete`.";
    unexpected_file: Error, Violation,
        "A changed path outside .mastermind/ is not declared by the task (touches, creates, expected_docs).",
        "Declare the path in the spec's front matter, or revert the change.";
    missing_expected_file: Warning, Violation,
        "A declared path did not change.",
        "Make the planned change, or drop the path from the spec.";
    creation_not_added: Error, Violation,
        "A path declared in `creates` was not added.",
        "Add the file, or declare it under `touches` if it already existed.";
    creation_exists_in_baseline: Error, Violation,
        "A path declared in `creates` already exists at the task's baseline.",
        "Declare it under `touches` instead of `creates`.";
    expected_doc_deleted: Error, Violation,
        "A declared expected_docs entry was deleted; a deletion does not update documentation.",
        "Restore and update the document.";
    executor_report_missing_changed_file: Error, Violation,
        "A changed file is missing from the report's files_modified.",
        "List every changed file outside .mastermind/ in files_modified.";
    executor_report_unchanged_file: Error, Violation,
        "The report lists a file in files_modified that did not change.",
        "Remove the path from files_modified, or make the change it claims.";
    scope_diff: Note, Violation,
        "Declared versus real changed paths, as a diff.",
        "Lines with - are declared but unchanged; lines with + changed but are undeclared.";
    verification_requirement_unmet: Error, Violation,
        "A declared command has no passing report row (missing_result, not_passed or conflicting_results).",
        "Run the declared command and record it in the report's verifications with result: pass.";
    observed_exit_code_nonzero: Error, Violation,
        "A report row claims a pass but records a nonzero exit code.",
        "Fix the failure and re-run; a pass must exit 0.";
    observed_zero_tests: Error, Violation,
        "A report row claims a passing test run that ran zero tests.",
        "Make the test command select the tests it is meant to run.";
    path_not_utf8: Error, Violation,
        "A changed path is not valid UTF-8 and cannot match any declaration.",
        "Rename the file to a UTF-8 path.";

    // ---- git and views (the gate's edge) -------------------------------
    git_repository_unavailable: Error, CannotCheck,
        "No git repository could be opened.",
        "Run inside a git repository (or set GIT_DIR).";
    git_revision_unknown: Error, CannotCheck,
        "A revision could not be resolved to a commit.",
        "Check the revision name; in CI, fetch the branches the gate compares.";
    git_object_unavailable: Error, CannotCheck,
        "A git object needed for the check is missing or unreadable.",
        "Fetch the missing history (`git fetch`) or repair the repository (`git fsck`).";
    git_index_unavailable: Error, CannotCheck,
        "The index could not be read.",
        "Repair the index (`git reset` re-creates it from HEAD) and stage again.";
    git_index_unmerged: Error, CannotCheck,
        "The index has unmerged (conflicted) paths.",
        "Resolve the conflicts and `git add` the results before committing.";
    git_merge_conflict: Error, CannotCheck,
        "The head does not merge cleanly into the base, so the tree that would land is unknown.",
        "Rebase the branch on the base (or merge the base into it) and resolve the conflicts.";
    git_shallow_history: Error, CannotCheck,
        "The clone is shallow and hides the commits the gate must compare.",
        "Fetch full history: actions/checkout `fetch-depth: 0`, GitLab `GIT_DEPTH: 0`, or `git fetch --unshallow`.";
    git_no_merge_base: Error, CannotCheck,
        "Base and head share no history.",
        "Check that --base and --head name the right commits.";
    git_worktree_unavailable: Error, CannotCheck,
        "The working tree could not be read.",
        "Run in a non-bare repository with readable files.";

    // ---- verification receipt v1 (section 4) ---------------------------
    receipt_too_large: Error, Violation,
        "A receipt file larger than 128 KiB makes the whole inspection fail closed.",
        "Delete the receipt and re-run the check with the runner.";
    receipt_invalid: Error, Violation,
        "The receipt is not JSON or does not match receipt schema v1.",
        "Re-run the check to write a fresh receipt; see `mastermind-hooks schema receipt-v1`.";
    receipt_version_or_attempt_invalid: Error, Violation,
        "schema_version and snapshot_version must be 1 and attempt at least 1.",
        "Re-run the check to write a fresh receipt.";
    receipt_source_unknown: Error, Violation,
        "The receipt's provenance is not `local_runner_unsigned`.",
        "Only receipts written by the verification runner count; re-run the check.";
    receipt_run_id_invalid: Error, Violation,
        "run_id must be 32 lowercase hex characters.",
        "Re-run the check to write a fresh receipt.";
    receipt_binding_mismatch: Error, Violation,
        "The receipt is bound to a different declaration, task or runner.",
        "Re-run the check for the current declaration.";
    receipt_pending: Error, Violation,
        "The receipt is `pending`: the run never finished.",
        "Re-run the check and let it finish.";
    receipt_inputs_changed: Error, Violation,
        "The repository changed while the check ran.",
        "Re-run the check without editing files meanwhile.";
    receipt_failed: Error, Violation,
        "The check ran and failed.",
        "Fix the failure and re-run the check.";
    receipt_timeout: Error, Violation,
        "The check hit its declared timeout.",
        "Make the check faster or raise `timeout_secs`, then re-run.";
    receipt_interrupted: Error, Violation,
        "The check run was interrupted.",
        "Re-run the check.";
    receipt_output_limit: Error, Violation,
        "The check wrote more than 1 MiB to stdout or stderr.",
        "Quieten the command and re-run.";
    receipt_spawn_failed: Error, Violation,
        "The check's command could not be started.",
        "Fix argv[0] or the PATH and re-run.";
    receipt_io_failed: Error, Violation,
        "The runner hit an I/O error while running the check.",
        "Re-run the check.";
    receipt_outcome_invalid: Error, Violation,
        "The receipt claims a pass that its recorded outcome does not support.",
        "Re-run the check with the runner; hand-edited receipts never count.";
    receipt_intrinsically_current: Note, Violation,
        "The receipt is intrinsically sound; freshness needs the live task.",
        "Use `mastermind-hooks check` to compare it with the repository.";

    // ---- receipts in every view, the runner, acceptance (issue 5) -------
    receipt_missing: Error, Violation,
        "An observed check of the task has no receipt in this view.",
        "Run `mastermind-hooks verification run <spec> --id <id>` and commit the receipt with the change.";
    receipt_unverifiable: Error, Violation,
        "A Mastermind v1 receipt binds the live working tree and cannot be checked in a tree view.",
        "Run the check with `mastermind-hooks verification run` to write a tree receipt, or set receipts.accept_unverifiable_v1.";
    receipt_snapshot_changed: Error, Violation,
        "The receipt's snapshot differs from the content of this view: files changed after the check ran.",
        "Re-run the check on the content you are committing, pushing or merging.";
    receipt_spec_changed: Error, Violation,
        "The task's spec changed after the check ran.",
        "Re-run the check against the current spec.";
    receipt_executable_changed: Error, Violation,
        "The check's executable resolves to different bytes than when it ran (or no longer resolves).",
        "Re-run the check with the current executable.";
    receipt_lock_missing: Error, Violation,
        "The task's verification directory has no run.lock, so its v1 receipts are not accepted.",
        "Re-run the check with a verification runner, which creates run.lock.";
    snapshot_unavailable: Error, CannotCheck,
        "The repository snapshot a receipt is compared with could not be taken.",
        "Fix the condition in the message (limits, symlinks, conflicts, git errors) and run again.";
    acceptance_criterion_unmet: Error, Violation,
        "An acceptance criterion has a listed check without a current receipt.",
        "Run every check the criterion lists on the current content.";
    verification_busy: Error, CannotCheck,
        "Another verification runner holds the task's run.lock.",
        "Wait for the other run to finish, then run again.";
    observed_verification_not_declared: Error, CannotCheck,
        "The spec declares no observed check (`verify[].run`) with this id.",
        "Pass the `run.id` of an observed check declared in the spec's front matter.";
    verification_spec_invalid: Error, CannotCheck,
        "The spec cannot be used to run a check (unreadable, outside the repository, or invalid front matter).",
        "Fix the spec (see `mastermind-hooks validate <spec>`) and run again.";
    verification_io_failed: Error, CannotCheck,
        "The runner could not write its receipt or take a snapshot.",
        "Fix the file system problem in the message and run again.";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_round_trip_and_are_unique_snake_case() {
        let mut seen = HashSet::new();
        for &code in Code::ALL {
            let name = code.as_str();
            assert!(seen.insert(name), "duplicate code {name}");
            assert_eq!(Code::from_name(name), Some(code));
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name} is not snake_case"
            );
            assert!(code.summary().ends_with('.'), "{name} summary");
            assert!(!code.help().is_empty(), "{name} help");
        }
    }
}
