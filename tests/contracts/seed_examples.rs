//! Every worked example of the seed documents validates, with its
//! placeholders filled (`tests/data/seed-examples/`, see its README): the
//! executor and audit tails (seeds 000/001), the plastic envelope and every
//! role payload in the contract's own wording and in its plain-label,
//! bold-label and heading renderings (seed 002), the phase-validator
//! greenlight of section 2.5, the ledger of section 3.4 (under the header of
//! section 3.1) and the finding block of section 1 (seed 004).
//!
//! "Validates" means no error. The only warnings allowed are named per
//! example, with the lower source that states the rule.

use mastermind_hooks::artifact::{self, Kind};
use mastermind_hooks::codes::Code;
use mastermind_hooks::contract::subagent::dispatch::{self, DispatchRoute};
use mastermind_hooks::contract::subagent::routing::ReturnRole;
use mastermind_hooks::diagnostic::Diagnostic;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/seed-examples");

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// No error; every warning's code is in `allowed`.
fn validates(path: &str, diagnostics: &[Diagnostic], allowed: &[Code]) {
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{path}: {errors:#?}");
    for d in diagnostics {
        assert!(
            allowed.contains(&d.code),
            "{path}: unexpected {} {}",
            d.code.as_str(),
            d.message
        );
    }
}

#[test]
fn the_mastermind_tails() {
    // The seed's tail lists a defect and a failing check, so it is filled as
    // a `partial` report: valid, and reported as not complete.
    let report = read("executor-report.md");
    validates(
        "executor-report.md",
        &artifact::check(Kind::ExecutorReport, &report).diagnostics,
        &[Code::executor_report_incomplete],
    );
    let tail = read("audit-tail.md");
    validates(
        "audit-tail.md",
        &artifact::check(Kind::AuditTail, &tail).diagnostics,
        &[],
    );
}

#[test]
fn every_plastic_role_in_every_rendering() {
    let roles = [
        "brainstorming",
        "spec-specialist",
        "planner",
        "executor",
        "reviewer",
    ];
    let renderings = ["contract-wording", "plain", "bold", "heading"];
    for role in roles {
        for rendering in renderings {
            let path = format!("plastic/{role}-{rendering}.md");
            let bytes = read(&path);
            // The Tier lines are asked for only by the role prompts, which
            // the contract document does not reproduce: a warning.
            let allowed = [Code::plastic_report_prompt_part_missing];
            validates(
                &path,
                &artifact::check(Kind::PlasticReport, &bytes).diagnostics,
                &allowed,
            );
            // The same with the role given, in plastic's own spelling.
            let option = format!("plastic-{role}");
            validates(
                &path,
                &artifact::check_with_role(Kind::PlasticReport, &bytes, Some(&option)).diagnostics,
                &allowed,
            );
            let (report, _) = mastermind_hooks::contract::plastic::report::check(&bytes, None);
            let report = report.unwrap_or_else(|| panic!("{path}: no report"));
            assert_eq!(report.intent_id, "412", "{path}");
        }
    }
}

#[test]
fn the_phase_validator_greenlight_of_section_2_5() {
    let bytes = read("phase-validator-greenlight.json");
    validates(
        "phase-validator-greenlight.json",
        &artifact::check(Kind::SubagentReturn, &bytes).diagnostics,
        &[],
    );
    let outcome =
        dispatch::check_dispatched(&bytes, "phase-validator-2: check the phase 2 exit criteria");
    assert_eq!(
        outcome.route,
        DispatchRoute::Schema(ReturnRole::PhaseValidator)
    );
    validates("phase-validator-greenlight.json", &outcome.diagnostics, &[]);
    // The envelope alone.
    validates(
        "phase-validator-greenlight.json",
        &artifact::check_with_role(Kind::SubagentReturn, &bytes, Some("handover")).diagnostics,
        &[],
    );
}

#[test]
fn the_ledger_of_section_3_4_and_the_finding_block_of_section_1() {
    let ledger = read("ledger/adversarial-findings.md");
    assert_eq!(
        Kind::infer("ledger/adversarial-findings.md"),
        Some(Kind::FindingsLedger)
    );
    // Section 3.1's header has no generated-by sentinel; only the older
    // reference guide puts one on line 1, so its absence is a warning.
    validates(
        "ledger/adversarial-findings.md",
        &artifact::check(Kind::FindingsLedger, &ledger).diagnostics,
        &[Code::ledger_sentinel_missing],
    );
    let block = read("finding-block.md");
    validates(
        "finding-block.md",
        &artifact::check(Kind::FindingBlocks, &block).diagnostics,
        &[],
    );
}
