//! The registry of reason codes: every rule this tool enforces has exactly one
//! stable snake_case code, declared here with its default severity, what it
//! means and how to fix it.
//!
//! Variants are spelled exactly like the code they print, so a single grep for
//! a code (`executor_report_sentinel_pair`) finds its definition here, the
//! place that raises it, its tests and its documentation.

use serde::Serialize;

/// How serious a finding is. Only `Error` fails a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

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
        "The kind of the file could not be inferred from its name (or, for a file found in a directory, from the configured agent-file globs), and the run counts it: `--strict`, or no other file was checked.",
        "Pass --kind with one of the kinds named in the message.";
    file_skipped: Note, Violation,
        "A file whose kind cannot be told (or an entry that is no regular file) was skipped, not judged; `--strict` counts it instead.",
        "Pass --kind to judge the file, name only the files to check, or add a glob for it to the configuration (`plastic_reports`, `subagent_returns`, ...).";
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
    json_comment: Error, Violation,
        "A document written as JSON holds a `//` or `/* */` comment; JSON has no comments, and a YAML reader takes one for part of a key.",
        "Delete the comment, or carry the note in a field of its own.";

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
        "An observed check breaks an argv limit (1..64 items, argv[0] non-empty, <= 8192 bytes each, no NUL, <= 32768 total) or the timeout limit (1..3600 s); the message names each limit broken.",
        "Fix what the message and its JSON pointer name: `run.argv` (or the item shown) or `run.timeout_secs`.";
    verification_argv_shell_operator: Error, Violation,
        "An observed check's argv holds a bare shell operator (`&&`, `||`, `;` or `|`): argv runs without a shell, so the operator reaches the program as an argument and the command after it never runs. The task-runtime contract: shell syntax requires an explicitly declared shell.",
        "Declare the shell and give it the whole command line as one item: `argv: [sh, -c, 'npm run build && npm run lint']` with `cmd: sh -c 'npm run build && npm run lint'`; or declare each command as its own check.";
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
    push_no_refs: Note, Violation,
        "`check --push` read no ref lines on stdin: nothing was being pushed, so nothing was checked.",
        "Nothing to do inside a pre-push hook; by hand, check a branch with `mastermind-hooks check --ci --base origin/main --head HEAD`.";
    usage_invalid: Error, CannotCheck,
        "The command line or the input the gate was handed is malformed.",
        "Check the arguments; see `mastermind-hooks check --help`.";
    no_task_changed: Note, Violation,
        "No task folder changed in this view; nothing to check against a task.",
        "Nothing to do, unless `require_task` demands that changes belong to a task.";
    task_required: Error, Violation,
        "The untasked policy (or require_task) denies a change that belongs to no task (a warning on a branch that is not protected: work in progress).",
        "Make the change as part of a task (commit it together with a change to its .mastermind/tasks/<task>/ folder), or ask for the base's untasked rules to allow it.";
    task_spec_missing: Error, Violation,
        "A changed task folder has no spec.md in the view.",
        "Add the task's spec.md (or remove the stray files from the task folder).";
    task_state_invalid: Error, Violation,
        "The task's state.json is not a JSON object with a string baseline_ref.",
        "Let the controller rewrite state.json (run-task pre-flight) or fix it.";
    task_baseline_unavailable: Error, Violation,
        "The task's baseline_ref names a commit this repository does not have.",
        "Set baseline_ref in state.json to a commit the base already has (or remove it: the parent of the task's first commit is then its baseline), or fetch the missing history.";
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
    executor_report_unfilled: Error, Violation,
        "The report is still the skeleton `task new` wrote: its status (and a test runner's tests_run) are placeholders.",
        "Fill in the report: set `status` to complete, partial or failed (partial and failed need a defect), list files_modified, and record each verification row.";
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
    ledger_section_rewritten: Error, Violation,
        "An edit of the adversarial-findings ledger rewrote or removed an existing journey's section.",
        "Only append to the end of one journey's section; never rewrite another journey's findings.";
    path_not_utf8: Error, Violation,
        "A changed path is not valid UTF-8 and cannot match any declaration.",
        "Rename the file to a UTF-8 path.";

    // ---- the model of a change: attribution and trust (DESIGN.md section 5)
    task_baseline_invalid: Error, Violation,
        "A task's baseline_ref must be an ancestor of the protected target the change lands on (HEAD, the remote's commit, the default branch's or the target branch's tip).",
        "Point baseline_ref in state.json at a commit the base already has, or remove it.";
    task_archived: Note, Violation,
        "A task folder was removed (the task is archived); its earlier commits were judged when they landed.",
        "Nothing to do; set this code's severity to refuse archiving.";
    untasked_change: Note, Violation,
        "A change belongs to no task (a step that touched no task folder, a configuration change, or what an archiving step changed besides the task).",
        "Make the change part of a task if it should be; CI and pre-receive refuse it unless the protected branch's untasked rules allow it.";
    spec_bom: Error, Violation,
        "A spec must not start with a byte-order mark: the reference reads it as a legacy spec and drops its front matter.",
        "Remove the three bytes EF BB BF before `---`.";
    spec_frontmatter_removed: Error, Violation,
        "A spec that has front matter on the base cannot become a legacy spec.",
        "Restore the front matter block.";
    spec_loosened: Error, Violation,
        "A change cannot drop an observed check, a declared command or an acceptance criterion that the base's spec declares.",
        "Restore what the diff shows as removed; a planner changes the plan on the base.";
    spec_changed_with_work: Error, Violation,
        "A spec that is on the base changes only in a planning change (one that touches nothing outside the task's artifacts).",
        "Land the spec change on its own first, then the work; or restore the base's spec.";
    spec_not_on_base: Error, Violation,
        "specs.require_on_base: every task's spec must already be on the base before work for it lands.",
        "Land the spec first (a change that only adds it), then the work.";
    config_change_invalid: Error, Violation,
        "The change brings an invalid .mastermind/hooks.yaml.",
        "Fix the key or value named in the message; check it with `mastermind-hooks validate .mastermind/hooks.yaml`.";
    hooks_config_invalid: Error, Violation,
        "The file is not a valid .mastermind/hooks.yaml (validate --kind hooks-config).",
        "Fix the key or value named in the message; `mastermind-hooks schema hooks-config-v1` prints the schema.";
    config_loosened: Warning, Violation,
        "The change makes the gate's configuration (.mastermind/hooks.yaml, or the allowed-signers file it names) judge later changes more leniently: a looser key, a rule that names a new principal, a new key or principal among the allowed signers.",
        "Review each loosened item; the change itself is judged by the base's configuration.";
    config_repaired: Note, Violation,
        "The base's configuration is invalid and this change only repairs it; nothing else was judged more leniently.",
        "Nothing to do.";
    gate_adopted: Note, Violation,
        "The change adopts the gate: it brings the gate's own files (.mastermind/hooks.yaml, the allowed-signers file it names, the agent hooks `install --agent` writes, hook-manager lines that run the gate) to a base with no gate configuration, so they are not untasked changes.",
        "Review the policy it adds (config_loosened lists what it allows beyond the defaults); it judges the next change once this one has landed. Land the CI workflow in a change of its own after it (see the CI chapter, \"Adopting the gate\").";
    config_repair_loosened: Error, Violation,
        "A change that repairs the protected target's invalid configuration may fix it, never judge more leniently than the newest valid configuration before it (a deletion only repairs where there was none).",
        "Repair the file so that it keeps everything the newest valid configuration asked for; loosen it later in a change of its own, which the valid configuration judges.";
    config_deprecated: Warning, Violation,
        "The protected configuration uses a setting that is read as its replacement.",
        "Write the replacement named in the message in .mastermind/hooks.yaml.";
    ref_history_unrelated: Error, Violation,
        "A pushed branch or tag shares no history with the default branch, so no landed history vouches for its base.",
        "Base the ref on the default branch, or allow such refs with `refs: {allow_unrelated_histories: true}` on the default branch.";
    ref_not_a_commit: Note, Violation,
        "A pushed tag names a tree or a blob: it carries no commit, so no task, and is not judged.",
        "Nothing to do; tag commits to have them judged.";
    task_planned: Note, Violation,
        "A change that only plans a task (its spec changes, none of its steps changes content, and its report is absent or the skeleton `task new` wrote) is judged as a plan: only its spec, until its work comes.",
        "Land the plan, then do the work in a change of its own.";
    task_created: Error, Violation,
        "A task whose spec is not on the protected branch is planned in this change: with planning.new_tasks: planner (the default) the planning policy decides who may (a listed planner's plan is a note, anyone else's an error in CI and pre-receive, a warning in the local hooks and on branches that are not protected); with `anyone`, a note.",
        "Have a planner land the spec (alone in a change of theirs, or first in this change in a commit they sign), then do the work under it; or add a `planning.rules` allow rule keyed on `actors`, `pushers` or `signers` on the protected branch.";
    task_copied: Error, Violation,
        "A new task folder's spec is, byte for byte, the spec of another task on the protected branch (a copy, or a rename): the planning policy decides who may give a planned scope to another task.",
        "Have a planner land the copy, or start the task with a plan of its own (`mastermind-hooks task new NAME`).";
    control_file_changed: Error, Violation,
        "The change changes a control file (the gate's configuration, the allowed-signers file, or a path planning.control_files lists: CI definitions, CODEOWNERS, server hooks by default): planning, never task work, graded by the planning policy.",
        "Have a planner make the change (a pull request, push or signed commit the planning rules allow); a task cannot carry it, whatever its spec declares.";
    verification_file_not_receipt: Error, Violation,
        "Under a task's verification/ only what the runners write for the checks its spec declares is bookkeeping (`<id>.tree.json`, the reference's `<id>.json` where no tree receipt lands, an empty run.lock); any other file there is content no receipt can vouch for.",
        "Move the file out of verification/ (and declare it in the spec's scope), or delete it if it is the receipt of a check the spec no longer declares.";
    mastermind_symlink: Error, Violation,
        "Nothing under .mastermind/ may be a symlink.",
        "Replace the link with the file it points to, or move it out of .mastermind/.";
    spec_widened: Error, Violation,
        "A change widens the scope (touches, creates, expected_docs) of a task whose spec is on the protected branch; the planning policy decides who may (a listed planner's change is a note, anyone else's an error in CI and pre-receive).",
        "Have a planner land the wider spec, or add a `planning.rules` allow rule keyed on what the platform vouches for (`actors`, `pushers`, `signers`) to .mastermind/hooks.yaml on the protected branch; or restore the protected branch's scope.";
    task_reopened: Error, Violation,
        "A change does new work for a task whose report on the protected branch says `complete`; the planning policy decides who may reopen a finished task.",
        "Start a new task for the new work (`mastermind-hooks task new NAME`), or have a planner reopen it (a `planning.rules` allow rule keyed on `actors`, `pushers` or `signers`).";
    condition_unknown_locally: Note, Violation,
        "A rule keys on a condition only some modes know (pushers: pre-receive; actors: CI; signers: every mode but pre-commit); where a mode cannot know it, the rule does not apply.",
        "Nothing to do: CI and pre-receive apply the rule; the local hooks fall back to the default.";
    allowed_signers_unavailable: Warning, Violation,
        "identity.allowed_signers names a file the protected branch does not have as a readable regular file, so no SSH signature names a signer.",
        "Add the allowed-signers file (git's gpg.ssh.allowedSignersFile format) at the configured path on the protected branch, or fix the path.";
    work_in_progress: Warning, Violation,
        "A task is unfinished (its report is not `complete` or missing, a declared command or check has no passing, current record) on a branch that is not protected (the default branch and `protected_branches` are): its commit or push passes with warnings, and what lands on a protected branch must be complete.",
        "Finish the task before it lands: run the commands the message names, set `status: complete` in the report, commit; or set `work_in_progress: deny` on the protected branch to refuse unfinished work everywhere.";
    ci_definition_changed: Warning, Violation,
        "The change edits a CI definition (.github/workflows/, .github/actions/, .gitlab-ci.yml, .gitlab/*.yml).",
        "Review the pipeline change; protect CI definitions as the CI chapter describes.";

    // ---- git and views (the gate's edge) -------------------------------
    push_base_unknown: Error, CannotCheck,
        "pre-push could not ask the remote which commits it already has (git ls-remote failed), so a new branch has no trustworthy base.",
        "Check that the remote is reachable (`git ls-remote <remote>`), then push again.";
    signature_check_failed: Error, CannotCheck,
        "git could not verify the commits' signatures that a `signers` rule asks about.",
        "Make git able to run here (`git log --show-signature` on the commit shows what fails); SSH signatures need `ssh-keygen` on PATH.";
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
    git_index_cache_tree_mismatch: Error, CannotCheck,
        "The index's cached trees (its cache-tree extension) name other files than the index lists, so `git commit` would write a tree other than the one staged.",
        "Recreate the index, then stage again: `git reset -q` (it keeps your working files), `git add <paths>`, and commit.";
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
    git_not_found: Error, CannotCheck,
        "git could not be started: there is no `git` program on the PATH the gate runs with (a server hook's environment, a container image or a chroot without git).",
        "Install git 2.38 or newer where the gate runs and put it on PATH; a pre-receive hook environment (GitHub Enterprise Server's chroot, a container) needs git beside mastermind-hooks.";
    git_version_unsupported: Error, CannotCheck,
        "The installed git is too old for what the gate asks of it (merges need `git merge-tree --write-tree`, git 2.38 or newer; a reftable repository's references need git 2.45 or newer).",
        "Install git 2.38 or newer (2.45 or newer for reftable repositories) and run again.";
    git_object_format_unsupported: Error, CannotCheck,
        "The repository uses an object format (hash) this build cannot read: it reads SHA-1 and SHA-256.",
        "Keep the repository in SHA-1 or SHA-256 (`git init --object-format=sha256`), or use a build of mastermind-hooks that reads its format.";
    git_partial_clone: Error, CannotCheck,
        "The clone is partial (`--filter`) and lacks objects the gate reads: every file of what lands, and the trees of the commits it compares.",
        "Fetch the objects with `git fetch --refetch --no-filter origin`, or clone without `--filter` (actions/checkout: leave `filter` unset).";

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
        "What lands differs from the content the receipt's check ran on, on a path of its task's territory (the declared files and the paths the task changed) that is not the protected branch's own content, or the receipt does not record such a path (a receipt of schema version 1 records no paths and must describe the commit that carries it).",
        "Re-run the check on the content you are committing, pushing or merging and commit its receipt, or let CI re-run it on what lands (`mastermind-hooks check --ci --rerun`).";
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
    // ---- issue 7: plastic reports, insights, savepoints; subagent returns,
    // finding blocks and the adversarial-findings ledger
    // (contracts plastic-and-subagent-returns.md) ------------------------
    role_option_unknown: Error, CannotCheck,
        "The --role value names no role of the file's kind.",
        "Pass a plastic role (brainstorming, spec, planner, executor, reviewer) or a subagent role or description prefix (see `mastermind-hooks validate --help`).";
    plastic_report_empty: Error, Violation,
        "The completion report is empty.",
        "End the agent's turn with the envelope fields and the role payload.";
    plastic_report_preamble: Warning, Violation,
        "The report is prose-stripped: nothing but a title may precede the first envelope field.",
        "Drop the greeting or preamble; start with the Role field.";
    plastic_report_field_missing: Error, Violation,
        "An envelope field (Role, Intent id and stage, Status, Artifacts written, Verification / tests run, Checklist deltas, Deviations from spec, Blockers / handoff notes, Insights) is missing.",
        "Add the field; write `n/a` or `none` when it does not apply.";
    plastic_report_field_empty: Error, Violation,
        "A report field has no value.",
        "Write the value, or `n/a` / `none` when it does not apply.";
    plastic_report_field_duplicated: Error, Violation,
        "A report field label appears more than once.",
        "Keep one entry per field; continue a long value on indented lines.";
    plastic_report_role_unknown: Error, Violation,
        "The Role is not one of brainstorming, spec, planner, executor or reviewer (`plastic-<role>` and `spec-specialist` are accepted).",
        "Write the canonical role name.";
    plastic_report_role_mismatch: Error, Violation,
        "The report's Role is not the role it was validated for (--role).",
        "Validate with the role the agent was dispatched as, or correct the Role field.";
    plastic_report_intent_invalid: Error, Violation,
        "The intent id is missing or is not an id such as `337` or `4a1c1`.",
        "Write the active intent id (a string of letters, digits, `.`, `_` or `-`).";
    plastic_report_stage_invalid: Error, Violation,
        "The stage must name a cycle stage: What, Why, How, Exec (or Done).",
        "Write the stage just completed, e.g. `How`.";
    plastic_report_status_invalid: Error, Violation,
        "Status must be exactly `delivered` or `blocked`.",
        "Write `delivered` or `blocked`; say why in Blockers / handoff notes.";
    plastic_report_payload_missing: Error, Violation,
        "A part of the role's payload is missing.",
        "Add the payload part named in the message (docs/src/other-contracts.md, plastic role payloads).";
    plastic_report_payload_invalid: Error, Violation,
        "A payload part has a malformed value (tier, verdict, count or checked/total).",
        "Write the value in the form named in the message.";
    plastic_report_insight_unmarked: Error, Violation,
        "An executor insight lacks the `(autonomous)` marker.",
        "Append `(autonomous)` to every executor insight, or write `none`.";
    plastic_report_synthesized: Warning, Violation,
        "The report is the synthesized fallback (`scripts/agent-report`), not an agent-authored delivered report.",
        "Re-dispatch the agent for a real completion report; the fallback only says what the filesystem shows (`contracts.synthesized_reports: error` makes this an error).";
    plastic_synthesized_malformed: Error, Violation,
        "A synthesized fallback report deviates from the fixed ten-line form.",
        "Regenerate it with `scripts/agent-report <intent_dir>`; never hand-edit it.";
    plastic_insight_malformed: Error, Violation,
        "An insight line is not `YYYY-MM-DDTHH:MM:SSZ · stage · author — text` (U+00B7 and U+2014, single spaces).",
        "Append insights with `scripts/insight-append`, which writes the prefix.";
    plastic_insight_timestamp_invalid: Error, Violation,
        "An insight timestamp is not a real UTC date and time.",
        "Use the time the insight was written, e.g. `2026-09-10T07:06:10Z`.";
    plastic_insight_out_of_order: Error, Violation,
        "Insights are append-only, newest last: a timestamp is earlier than the one before it.",
        "Move the entry to its place in time order; never reorder existing entries.";
    plastic_intent_insights_missing: Warning, Violation,
        "The intent file has no `## Insights` section.",
        "Add `## Insights` (the template placeholder line may stay under it).";
    plastic_intent_insights_duplicated: Error, Violation,
        "The intent file has more than one `## Insights` heading.",
        "Merge the sections into the first one.";
    plastic_savepoint_line_malformed: Error, Violation,
        "A savepoint line is not `{timestamp}  {subject}  {text}` (fields separated by two or more spaces, exactly three fields).",
        "Separate the fields with two spaces and keep runs of spaces out of the text.";
    plastic_savepoint_timestamp_invalid: Error, Violation,
        "A savepoint timestamp is not a real UTC time to the second (`YYYY-MM-DDTHH:MM:SSZ`).",
        "Write the timestamp as `now.utc.iso8601` does.";
    plastic_savepoint_subject_unknown: Error, Violation,
        "A savepoint subject is not What, Why, How, Exec, Done, Review, Commit, Report, Lock, Tier, Intent or a node id.",
        "Use a subject from the savepoint subject table (docs/src/other-contracts.md).";
    plastic_savepoint_text_invalid: Error, Violation,
        "A savepoint line's text is not one its subject allows.",
        "Write the text the subject allows (see the message).";
    plastic_savepoint_done_invalid: Error, Violation,
        "A `Done` line must read `delivered` or `abandoned`.",
        "Write `Done  delivered` or `Done  abandoned`.";
    plastic_savepoint_transition_invalid: Error, Violation,
        "A transition line (Intent or node subject) is torn: unknown state, unreadable field, or a required field missing.",
        "Write `<state> key=value ...` with a known state and its required fields.";
    plastic_savepoint_phantom: Warning, Violation,
        "A (subject, text) pair is repeated among non-transition lines: the later line is a phantom.",
        "Remove the repeated line (plastic's writer never writes a pair twice).";
    plastic_savepoint_out_of_order: Warning, Violation,
        "A savepoint line is older than an earlier line of the same family: the ledger is append-only, newest last.",
        "Keep lines in time order; rebuild with `rebuild_savepoint` if in doubt.";
    subagent_return_empty: Error, Violation,
        "The subagent return is empty (or only `null`, `{}` or `[]`).",
        "Return one JSON object whose first key is `handover`.";
    subagent_return_not_mapping: Error, Violation,
        "A subagent return must be one YAML or JSON mapping; prose, fences and lists are not extracted.",
        "Return only the JSON object: no preamble, no ``` fence, no trailing prose.";
    subagent_return_role_unknown: Error, CannotCheck,
        "No return schema is routed to the return's role, so it cannot be checked.",
        "Pass --role with a schema role (composer, reviewer-inloop, probe, phase-validator, section-agent, phase4-prioritise-author, workflow-reviewer, perf-reviewer, repair-worker, plumber) or a routed description prefix.";
    subagent_return_schema_violation: Error, Violation,
        "Schema layer: the return does not match its role's JSON Schema.",
        "Fix the value at the JSON pointer shown; see `mastermind-hooks schema subagent-<role>`.";
    subagent_return_handover_missing: Error, Violation,
        "Contract layer: the return has no `handover` mapping.",
        "Start the return with a `handover` object: role, cycle, status, next-action.";
    subagent_return_handover_not_first: Error, Violation,
        "Contract layer: `handover` must be the first key of the return.",
        "Move `handover` to the top of the object.";
    subagent_return_handover_extra_field: Error, Violation,
        "Contract layer: the handover envelope holds only role, cycle, status and next-action (plus the schema's dispatch-mode and parallel-wave-size).",
        "Move the field to the top level of the return.";
    subagent_return_cycle_invalid: Error, Violation,
        "Contract layer: `handover.cycle` is required and must be an integer >= 1 (a string of digits such as `\"2\"` counts).",
        "Write the dispatch cycle as a number, e.g. `cycle: 1`.";
    subagent_return_role_not_kebab_case: Warning, Violation,
        "Contract layer: `handover.role` should be a kebab-case slug (lower-case letters and digits joined by single hyphens: `composer-j-login-flow`), as seed 004 section 2.0 says; the reference schema does not enforce it.",
        "Write the role in lower case with hyphens, e.g. `reviewer-inloop` rather than `reviewer_inloop` or `ReviewerInloop`.";
    subagent_return_next_action_multiline: Warning, Violation,
        "Contract layer: `handover.next-action` should be a one-line directive, as seed 004 section 2.0 says; the reference schema does not enforce it.",
        "Write one line saying what the orchestrator does next; put explanations in `summary` or the role's payload.";
    subagent_return_value_cut_by_comment: Warning, Violation,
        "A plain (unquoted) YAML value is followed by ` #` on its line: YAML reads everything from there as a comment, so the value is cut short without any error (`next-action: fix issue #12` is `fix issue`).",
        "Quote the value (`next-action: \"fix issue #12\"`) or write the return as JSON; if the `#` text is a comment, put it on a line of its own.";
    subagent_return_role_mismatch: Error, Violation,
        "Contract layer: `handover.role` routes to a different schema than --role.",
        "Validate with the role the subagent was dispatched as, or correct `handover.role`.";
    subagent_return_summary_missing: Error, Violation,
        "Contract layer: a non-blank `summary` is required (phase-validator on both statuses, reviewer on greenlight).",
        "Add a one-line `summary`.";
    subagent_return_summary_forbidden: Error, Violation,
        "Contract layer: a reviewer `improvements-needed` return carries findings, not a `summary`.",
        "Drop `summary`, or return `greenlight` if nothing must be fixed.";
    subagent_return_phase_invalid: Error, Violation,
        "Contract layer: a phase-validator return needs `phase`, an integer 1 to 7.",
        "Write the pipeline phase that was validated.";
    subagent_return_exit_criteria_empty: Error, Violation,
        "Contract layer: `exit-criteria-checked` needs at least one criterion row.",
        "List every exit criterion checked, with `criterion`, `satisfied` and `evidence`.";
    subagent_return_greenlight_findings: Error, Violation,
        "Contract layer: a phase-validator `greenlight` has no findings (`findings: []` or no `findings` key).",
        "Drop the findings, or return `improvements-needed` with them.";
    subagent_return_must_fix_missing: Error, Violation,
        "Contract layer: a reviewer `improvements-needed` return needs at least one must-fix finding.",
        "List the finding under missing-scenarios, craft-issues or verification-misses, or return `greenlight`.";
    subagent_return_banned_token: Error, Violation,
        "Contract layer: the return contains a banned token from a prior schema revision.",
        "Remove the token named in the message (legacy ids, `[p0]`/`[blocker]`/`[no-impact]`, `nice-to-have`, `greenlight-with-notes`, top-level `notes`, `no-new-tests`).";
    finding_blocks_empty: Error, Violation,
        "No finding block (`- **<ID>** [<severity>] — <title>`) was found.",
        "Format each finding as the canonical block, or validate the file as another kind.";
    finding_head_form_invalid: Error, Violation,
        "A finding block's head is written as a `*`, `+` or numbered list item or as a heading; the contract's head is a `- **<ID>**` bullet (seed 004 section 1 and its section 4.1 regex). The block is judged as written all the same.",
        "Write the head `- **<ID>** [<severity>] — <title>` (a `-` bullet, the id in bold) with its sub-bullets indented two spaces below it.";
    finding_head_malformed: Error, Violation,
        "A finding line is not `- **<ID>** [<bracket>] — <title>` at the scheme's indentation.",
        "Write the bold id, the bracket and an em dash (U+2014) with single spaces.";
    finding_id_invalid: Error, Violation,
        "A finding id follows none of the schemes (`<journey>-<pass>-<nn>`, `<journey>-<nn>`, `<journey>-<pass>-<cycle>-R-<nn>`, `pv-<phase>-<nn>`, `ai-<category>-<nn>`).",
        "Use the scheme for the finding's source; `nn` is two digits.";
    finding_id_banned: Error, Violation,
        "A legacy finding id scheme (`AF-`, `P4-…-BUG-`, `REG-`, `BUG-NNN`) is used.",
        "Re-issue the finding under the canonical scheme.";
    finding_id_duplicated: Error, Violation,
        "A finding id is used twice; ids are never reused.",
        "Give the second finding the next free number.";
    finding_severity_invalid: Error, Violation,
        "A Stage A severity must be critical, high, medium, low or info.",
        "Use the rubric; DOM-only or no-impact findings are `info`.";
    finding_priority_invalid: Error, Violation,
        "Reviewer and phase-validator findings carry the fixed `[must-fix]` bracket.",
        "Write `[must-fix]`.";
    finding_title_invalid: Error, Violation,
        "A finding title is one non-empty line without a trailing period.",
        "Shorten the title to one line and drop the final period.";
    finding_fields_mismatch: Error, Violation,
        "A finding block's sub-bullets are not exactly the scheme's fields, in order.",
        "Write exactly the fields named in the message, one `- key: value` line each.";
    finding_field_empty: Error, Violation,
        "A finding field has no value.",
        "Write one sentence, or `none` for coverage.";
    finding_coverage_invalid: Error, Violation,
        "coverage must be `none`, `<spec path> › <test name>` or `app-wide:<pattern-id>`.",
        "Name the covering test with U+203A between path and test name, or write `none`.";
    finding_category_invalid: Error, Violation,
        "A missing-scenario category must be mobile, error-state, edge-case, adversarial, accessibility, i18n, lifecycle or concurrency.",
        "Pick the closest category.";
    ledger_sentinel_missing: Warning, Violation,
        "Line 1 of the ledger should be `<!-- coverage-expansion-adversarial:generated -->` (the older reference guide's header; the current schema reference's header has none).",
        "Restore the sentinel as the first line.";
    ledger_header_invalid: Error, Violation,
        "The ledger header (title, Generated by, Pass 4/5 and Dedup dates, Cross-cutting findings) is missing or malformed.",
        "Restore the header lines in the order of the ledger schema.";
    ledger_journey_invalid: Error, Violation,
        "A journey heading must be `### j-<slug>`.",
        "Name the journey section `### j-<slug>`.";
    ledger_journey_duplicated: Error, Violation,
        "A journey has more than one `### j-<slug>` section.",
        "Append new passes to the journey's existing section.";
    ledger_pass_header_invalid: Error, Violation,
        "A pass header must be `**Pass <N> — <probe|consolidation> (YYYY-MM-DD)**`.",
        "Use an em dash (U+2014) and an ISO date.";
    ledger_pass_kind_mismatch: Error, Violation,
        "Pass 4 is `probe` and Pass 5 is `consolidation`.",
        "Write the kind that matches the pass number.";
    ledger_pass_order: Error, Violation,
        "A journey's pass blocks are missing, repeated or out of order (Pass 4, then Pass 5).",
        "Keep one block per pass, in pass order.";
    ledger_scope_invalid: Error, Violation,
        "Each pass needs one `Scope: <text>` prose line before its findings.",
        "Write one `Scope:` line right after the pass header; no bullet.";
    ledger_finding_heading_invalid: Error, Violation,
        "A `####` heading must be a finding: `#### <ID> [<severity>] — <title>`.",
        "Fix the heading; no other `####` headings are allowed.";
    ledger_finding_id_mismatch: Error, Violation,
        "A pass finding's id must be `<journey>-<pass>-<nn>` for its own journey and pass.",
        "Renumber the finding under its journey and pass.";
    ledger_only_invalid: Error, Violation,
        "`ledger-only` must be `true` or `false`.",
        "Write `true` for a suspected bug without a regression test, else `false`.";
    ledger_summary_invalid: Error, Violation,
        "Each pass closes with `**Pass <N> summary:** probes=N, boundaries=M, suspected-bugs=K (crit=x, high=y, med=z, low=w)`.",
        "Write the summary line with integers only and the pass's own number.";
    ledger_summary_count_mismatch: Error, Violation,
        "A pass summary's counts contradict the findings listed in the pass.",
        "Count the `ledger-only: true` findings per severity again.";
    ledger_unexpected_line: Error, Violation,
        "A line does not belong where it is in the ledger structure.",
        "Move or remove the line; see the ledger schema in docs/src/other-contracts.md.";
    // ---- issue 15: the plastic and subagent-return contracts as their
    // authors wrote them; dispatch routing (seed 004 section 4.4) --------
    plastic_report_delivered_with_blockers: Warning, Violation,
        "A `delivered` report names a blocker of its own work (a warning: no seed sentence states the rule, this tool infers it).",
        "Set Status to `blocked` if the work is blocked; if what is blocked is unrelated to this change, say so (`unrelated to this change`), or write `Blockers: none` and keep the note under handoff notes.";
    plastic_report_prompt_part_missing: Warning, Violation,
        "A part only the plastic role prompts ask for (brainstorming Tier recommendation, spec Tier, planner Tier shape) is missing; the contract document does not list it.",
        "Add the Tier line the role prompt asks for (`contracts.role_prompt_rules: error` makes this an error).";
    plastic_report_prompt_part_invalid: Warning, Violation,
        "A part only the plastic role prompts ask for (a Tier line) is malformed.",
        "Write the tier as `S`, `M` or `L` (or small, medium, large), as the message says.";
    subagent_dispatch_unknown: Warning, CannotCheck,
        "The dispatch description starts with no prefix of the routing table, so no return contract applies.",
        "Dispatch under a routed prefix (composer-, reviewer-, probe-, phase-validator-, ...; j- and sj- are free-form), or set `contracts.unknown_dispatch` (allow, warn, block) in .mastermind/hooks.yaml.";
    subagent_selector_convention: Warning, Violation,
        "A selector-development return departs from its documented convention (status, mode, the seven guardrails, skipped_reason, blocked_artifact).",
        "Return the convention's JSON object; the departure is reported, never blocked (the convention is not harness-validated).";
    // ---- hooks: install, uninstall, status (DESIGN.md section 7) -------
    hook_git_unavailable: Error, CannotCheck,
        "git could not be run or did not say where it runs hooks (git 2.31 or newer is needed).",
        "Install git 2.31 or newer, put it on PATH, and fix any configuration error git reports.";
    hook_bare_repository: Error, CannotCheck,
        "A bare repository has no working tree, so git never runs its pre-commit or pre-push hooks.",
        "Run the command in a clone with a working tree.";
    hook_outside_worktree: Error, CannotCheck,
        "The command ran inside the git directory, not in the working tree.",
        "Run it from the working tree (the repository's top directory or below).";
    hook_path_not_local: Error, CannotCheck,
        "core.hooksPath comes from global, system or command-line configuration, not from this repository.",
        "Set core.hooksPath in this repository (`git config core.hooksPath DIR`) or unset it; pass --force to write to a global or system hooks directory anyway.";
    hook_legacy_conflict: Error, CannotCheck,
        "A foreign hook cannot be kept as `HOOK.legacy`: that file exists, or the hook runs `HOOK.legacy` itself.",
        "Move the `.legacy` file away, or run `mastermind-hooks check` from the other hook manager instead, then install again.";
    hook_file_unusable: Error, CannotCheck,
        "The hook path is a directory or special file, not a hook.",
        "Move it away, then install again.";
    hook_write_failed: Error, CannotCheck,
        "A hook file could not be read, written, moved or removed.",
        "Check the permissions of the hooks directory and try again; shims are written atomically, so nothing is half-written.";
    hook_binary_unavailable: Error, CannotCheck,
        "The absolute path of the running mastermind-hooks could not be found or cannot be written into a shim.",
        "Run mastermind-hooks by a path without line breaks (for example from PATH), then install again.";
    hook_shim_newer: Error, CannotCheck,
        "The installed shim comes from a newer mastermind-hooks (a newer shim version).",
        "Use the newer mastermind-hooks, or pass --force to install this version's shim.";
    hook_manager_config_unreadable: Error, CannotCheck,
        "git runs another hook manager's script, and that manager's configuration file cannot be read as the manager reads it, so whether it runs the gate cannot be told.",
        "Fix the configuration file named in the message (the manager itself refuses it too), then run `mastermind-hooks status` again.";
    hook_not_installed: Error, Violation,
        "git runs no mastermind-hooks shim for this hook, so the gate does not run.",
        "Run `mastermind-hooks install`.";
    hook_shim_outdated: Error, Violation,
        "The installed shim is an older shim version.",
        "Run `mastermind-hooks install` to upgrade it.";
    hook_shim_modified: Error, Violation,
        "The installed shim differs from what install writes for it.",
        "Run `mastermind-hooks install` to rewrite it.";
    hook_shim_not_executable: Error, Violation,
        "The shim lacks the execute bit, so git ignores it.",
        "Run `mastermind-hooks install` to restore its mode.";
    hook_binary_missing: Error, Violation,
        "The binary the shim runs is missing or not executable, so the hook falls back to PATH or fails.",
        "Reinstall mastermind-hooks, then run `mastermind-hooks install` to point the shim at it.";
    hook_legacy_orphan: Warning, Violation,
        "A `HOOK.legacy` file exists but no mastermind-hooks shim runs it.",
        "Rename it back to the hook's name if it is yours, or delete it.";
    hook_manager_present: Error, CannotCheck,
        "The hook is a script another hook manager (pre-commit, prek, lefthook, husky, hk) wrote; install does not wrap it.",
        "Add the gate to that manager's configuration with the recipe printed (docs/src/hooks.md has each), or remove the manager first.";
    hook_path_tracked: Error, CannotCheck,
        "core.hooksPath names a directory tracked in the repository; install would rewrite committed files.",
        "Run `mastermind-hooks install --force` to write portable shims there (they run mastermind-hooks from PATH), then commit them; or unset core.hooksPath.";
    hook_shim_stray: Note, Violation,
        "A mastermind-hooks shim sits in a hooks directory git does not use (core.hooksPath points elsewhere).",
        "Delete it, or unset core.hooksPath; `mastermind-hooks install` writes where git runs hooks.";
    // ---- agent-harness hooks (agent-hook, install --agent) -------------
    agent_hook_payload_unrecognised: Error, CannotCheck,
        "The hook payload on stdin is not one the chosen harness documents for this command.",
        "Check `--harness` and the event the harness runs the command on; `mastermind-hooks install --agent <harness>` writes the right entries.";
    agent_hook_deadline_exceeded: Error, CannotCheck,
        "The gate did not finish before the agent hook's deadline, so nothing was judged.",
        "Run `mastermind-hooks check --worktree` to see why it is slow, or raise `--timeout` (keep it below the harness's hook timeout).";
    agent_hook_loop_guard_released: Warning, Violation,
        "The agent was sent back to work too many times in a row, so the loop guard let it stop although its work still fails.",
        "Read the findings, fix them, and run `mastermind-hooks check --worktree`; raise agent_hooks.max_consecutive_blocks if the agent needs more attempts.";
    subagent_dispatch_unrouted: Error, CannotCheck,
        "The subagent's dispatch description routes to no return contract, or could not be recovered.",
        "Dispatch with a routed prefix (composer-, reviewer-, probe-, phase-validator-, ...) or a bare j-/sj- slug, or set agent_hooks.subagent.unknown to allow.";
    agent_settings_unusable: Error, CannotCheck,
        "The harness's hook settings file cannot be read, parsed or written.",
        "Fix or move the file named in the message (it must be a JSON object whose `hooks` is an object), then run the command again.";
    agent_hook_not_installed: Error, Violation,
        "The harness runs no mastermind-hooks agent hook for this event.",
        "Run `mastermind-hooks install --agent <harness>`.";
    agent_hook_outdated: Error, Violation,
        "The harness's hook entry runs another command or binary than `install --agent` writes.",
        "Run `mastermind-hooks install --agent <harness>` to rewrite it.";
    agent_hook_override_refused: Error, Violation,
        "The per-user override MASTERMIND_HOOKS_BIN names a program that does not answer as mastermind-hooks, so the agent hooks do not use it.",
        "Point MASTERMIND_HOOKS_BIN at mastermind-hooks where the message says it is set, or remove it; the agent hooks then run mastermind-hooks from PATH.";
    agent_hook_binary_outdated: Error, Violation,
        "The mastermind-hooks the agent hooks would run does not speak the agent-hook protocol of their settings (an older version).",
        "Upgrade it (`cargo install --locked --path .` in a clone of mastermind-hooks at the version that wrote the settings, or a newer release), or rewrite the settings with that binary's `install --agent <harness>`.";
    agent_hook_protocol_unknown: Error, CannotCheck,
        "The agent hook settings pass an agent-hook protocol this binary does not speak.",
        "Install the mastermind-hooks the settings were written by (upgrade it), or rewrite the settings with `mastermind-hooks install --agent <harness>`.";
    agent_hook_binary_missing: Error, Violation,
        "The harness's agent hooks run mastermind-hooks from `MASTERMIND_HOOKS_BIN` or PATH, and neither leads to an executable on this machine, so every agent hook blocks the agent.",
        "Install mastermind-hooks (`cargo install --locked --path .` in a clone of it) so that it is on PATH, or set `MASTERMIND_HOOKS_BIN` to its path (for Claude Code, in `.claude/settings.local.json` under `env`).";

    // ---- the runner: safe files, isolated runs, CI re-runs (issues 13, 18)
    verification_path_unsafe: Error, CannotCheck,
        "A file or directory the runner writes (the task directory, verification/, run.lock) is a symbolic link or a special file; the runner never writes through links.",
        "Remove the link or special file named in the message (`rm -- PATH`), then run again.";
    verification_submodule_unusable: Error, CannotCheck,
        "A submodule checkout is at another commit than the tree records, or has modified or untracked files, so a check would run on content its receipt cannot name.",
        "Run `git submodule update` (or commit the submodule's new commit) and clean the submodule, then run again.";
    verification_territory_too_large: Error, CannotCheck,
        "The record of what the check runs on over its task's territory (every declared file and every path the task changed) would make the receipt larger than receipts may be (128 KiB), so the check was not run and no receipt was touched.",
        "Split the task so that each declares and changes fewer files (about a thousand paths fit), or leave generated files out of the working tree (.gitignore), then run again.";
    verification_isolation_failed: Error, CannotCheck,
        "The isolated checkout could not be written (an unsafe path in the tree, a temporary directory inside the repository, or a disk error).",
        "Fix the condition in the message (for example point TMPDIR outside the repository), then run again.";
    verification_kept_aside: Note, Violation,
        "An isolated run did not pass: its receipt is kept aside under the git directory and the task's earlier receipt is left as it was.",
        "Fix what the isolated run shows (often a dependency the worktree lacks: add its install command to `rerun.setup`), then run it again; a pass replaces the task's receipt.";
    rerun_passed: Note, Violation,
        "The observed check passed again when CI re-ran it on the tree that lands.",
        "Nothing to do.";
    rerun_failed: Error, Violation,
        "The observed check did not pass when CI re-ran it on the tree that lands (its receipt, if any, describes other content or no pass).",
        "Reproduce it with `mastermind-hooks verification run <spec> --id <id> --isolated`, fix the failure, commit the new receipt and push.";
    rerun_contradicts_receipt: Error, Violation,
        "The receipt records a pass on exactly the tree that lands (its digest is the landing's), but the check fails when CI re-runs it there.",
        "Reproduce it with `mastermind-hooks verification run <spec> --id <id> --isolated`, fix the failure, commit the new receipt and push.";
    rerun_unavailable: Error, CannotCheck,
        "CI could not re-run the observed check: it cannot start there, a tool it calls is missing (exit 126 or 127), the --rerun-timeout budget ran out, or the run was interrupted.",
        "Install the project's dependencies before the checks run (a workflow step before the gate, or `rerun.setup` in .mastermind/hooks.yaml), or raise --rerun-timeout, then run the job again.";
    rerun_setup_failed: Error, CannotCheck,
        "A `rerun.setup` command could not prepare the worktree of the landing (it could not start, failed, timed out, or changed files of the landing), so no check could be re-run there.",
        "Fix the command in `rerun.setup` of .mastermind/hooks.yaml on the protected branch, or what the change did to the files it reads, then run the job again.";
    rerun_place: Note, Violation,
        "Where and how the re-run executed the checks: the CI workspace (a clean checkout of exactly the landing) or a git worktree of the landing, and which CI credentials it withheld from them.",
        "Nothing to do; to re-run in the workspace, check out the landing (the merge ref, the pushed commit) and install dependencies before the gate without leaving untracked files.";
    attestation_unwritable: Error, CannotCheck,
        "`check --ci --rerun --attestation FILE` cannot write the statement: its directory does not exist or is not writable (checked before any check runs), or writing failed at the end.",
        "Make the attestation file's directory exist and writable (outside the repository's tracked files), then run the job again.";
    output_unwritable: Error, CannotCheck,
        "An `--output FORMAT=FILE` cannot be written: its directory does not exist or is not writable, FILE is a directory, `-`, or a FIFO, socket or device (`/dev/null`: the output replaces the file, never writes through it), or two outputs (or an output and the attestation or the job summary) name the same file. Checked before anything runs.",
        "Create the directory first (`mkdir -p DIR`), give each output its own file, and keep `--format` for stdout; then run again.";
    attestation_mismatch: Error, Violation,
        "The statement does not attest that the commit passed the re-run: another subject, a predicate of another shape, or a verdict other than pass.",
        "Verify the statement the job wrote for this commit; if its verdict is not pass, fix the failures it lists and run the job again.";
    attestation_unusable: Error, CannotCheck,
        "The statement cannot be read: not a file, not JSON, not an in-toto Statement v1, or the commit to verify against cannot be resolved.",
        "Pass the statement `check --ci --rerun --attestation FILE` wrote (or the DSSE envelope around it) and a commit of this repository.";

    // ---- CI events, outputs and the server side ------------------------
    ci_base_unknown: Error, CannotCheck,
        "`check --ci` could not tell the base to compare with from the CI platform's event data.",
        "Run on a pull request, merge group, push or merge request pipeline, or pass --base REV (the action's `base` input, GitLab's MASTERMIND_HOOKS_BASE) outside CI.";
    ci_override_refused: Error, CannotCheck,
        "In CI, a base or head the change could set must agree with the platform's event data, and test-only knobs are refused.",
        "Remove the override (the action's `base`/`head` inputs, MASTERMIND_HOOKS_BASE/HEAD, MASTERMIND_HOOKS_CMD) or set it to what the event says.";
    findings_folded: Warning, Violation,
        "There are more findings than the output format may carry; the rest are counted in this one.",
        "Run `mastermind-hooks check` with `--format human` or `--format json` to see every finding, and fix the ones listed first.";
    default_branch_rewritten: Error, Violation,
        "A push rewrites the default branch (its old tip is not an ancestor of the new one), which would drop work that has landed.",
        "Merge or rebase onto the branch's current tip and push without `--force`.";
    receive_ref_skipped: Note, Violation,
        "A pushed ref outside refs/heads/ and refs/tags/, or a deletion, lands no code and is not judged.",
        "Nothing to do; push branches and tags to have them judged.";
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
