//! Tests of subagent-return checking, kept beside the module they test.
use super::*;
use serde_json::json;

fn codes_of(text: &str, role: Option<&str>) -> Vec<Code> {
    check(text.as_bytes(), role)
        .1
        .into_iter()
        .map(|d| d.code)
        .collect()
}

/// JSON text with `handover` first (serde_json sorts keys).
fn render(document: &Value) -> String {
    match document {
        Value::Object(map) => {
            let mut parts: Vec<String> = Vec::new();
            let ordered = map
                .iter()
                .filter(|(k, _)| *k == "handover")
                .chain(map.iter().filter(|(k, _)| *k != "handover"));
            for (key, value) in ordered {
                parts.push(format!("{}: {}", Value::String(key.clone()), value));
            }
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

fn codes(document: &Value, role: Option<&str>) -> Vec<Code> {
    codes_of(&render(document), role)
}

fn handover(role: &str, status: &str) -> Value {
    json!({"role": role, "cycle": 1, "status": status, "next-action": "orchestrator advances"})
}

/// One valid return per schema role.
fn valid(role: ReturnRole) -> Value {
    match role {
        ReturnRole::Composer => json!({
                "handover": handover("composer-j-login", "new-tests-landed"),
                "journey": "j-login", "pass": 1, "tests-added": 3, "run-time": "4m30s",
                "summary": "three tests for the login journey"}),
        ReturnRole::ReviewerInloop => json!({
                "handover": handover("reviewer-inloop", "greenlight"),
                "journey": "j-login", "pass": 1, "cycle": 1,
                "summary": "every expectation is covered"}),
        ReturnRole::Probe => json!({
                "handover": handover("probe", "findings-emitted"),
                "journey": "j-cart", "findings-emitted": 1, "finding-ids": ["j-cart-4-01"]}),
        ReturnRole::PhaseValidator => json!({
                "handover": handover("phase-validator", "greenlight"),
                "phase": 2,
                "exit-criteria-checked": [{"criterion": "app-context.md exists", "satisfied": true,
                                           "evidence": "sentinel on line 1"}],
                "findings": [],
                "summary": "Phase 2 exit criteria satisfied."}),
        ReturnRole::SectionAgent => json!({
                "handover": handover("section-agent", "section-complete"),
                "section": "checkout", "kind": "section", "spill": "tests/e2e/docs/.subagent-returns/s.md"}),
        ReturnRole::Phase4PrioritiseAuthor => json!({
                "handover": handover("phase4-prioritise-author", "journey-map-authored"),
                "journey-map": {"path": "tests/e2e/docs/journey-map.md", "pages-discovered": 12,
                                "flows-identified": 5, "priority-breakdown": {"P0": 2, "P1": 3}},
                "cycles-consumed": 2, "convergence-status": "converged"}),
        ReturnRole::WorkflowReviewer => json!({
                "handover": handover("workflow-reviewer-phase2", "approved"),
                "verdict": "approve", "phase": 2, "pass": null, "cycle": null,
                "attestation": "phase 2 exit criteria verified",
                "checklist": [{"item": "journey map exists", "satisfied": true}]}),
        ReturnRole::PerfReviewer => json!({
                "handover": handover("perf-reviewer-pass-load", "rejected"),
                "verdict": "reject", "phase": null, "pass": "load",
                "findings": [{"checklist-item": "p95 recorded", "what-missing": "no p95",
                              "fix-instruction": "record p95"}]}),
        ReturnRole::RepairWorker => json!({
                "handover": handover("repair-worker-login-spec", "completed"),
                "file": "tests/e2e/login.spec.ts",
                "tests": [{"title": "logs in", "outcome": "healed", "fix": "wait for the heading",
                           "stability-runs": {"passed": 10, "total": 10}}]}),
        ReturnRole::Plumber => json!({
                "handover": handover("plumber-hooks", "repaired"),
                "approval": "yes, repair the hooks", "diagnosis": "hash mismatch",
                "changes": [{"target": ".claude/hooks/x.sh", "action": "reinstalled", "why": "drifted"}],
                "verification": "the gate allows again", "ledgerRow": null}),
    }
}

#[test]
fn a_valid_return_per_role_passes_with_and_without_role() {
    for &role in ReturnRole::ALL {
        let document = valid(role);
        assert_eq!(
            codes(&document, Some(role.name())),
            vec![],
            "{}",
            role.name()
        );
        if role != ReturnRole::Plumber {
            assert_eq!(codes(&document, None), vec![], "{} routed", role.name());
        }
    }
    // YAML is as good as JSON.
    let yaml = "handover:\n  role: probe-j-cart\n  cycle: 1\n  status: clean\n  next-action: none\njourney: j-cart\n";
    assert_eq!(codes_of(yaml, None), vec![]);
    // plumber-* has no prefix route.
    assert_eq!(
        codes(&valid(ReturnRole::Plumber), None),
        vec![Code::subagent_return_role_unknown]
    );
}

#[test]
fn transport_rules() {
    assert_eq!(codes_of("", None), vec![Code::subagent_return_empty]);
    assert_eq!(codes_of("null\n", None), vec![Code::subagent_return_empty]);
    assert_eq!(
        codes_of("{}", Some("probe")),
        vec![Code::subagent_return_empty]
    );
    assert_eq!(codes_of("[]", None), vec![Code::subagent_return_empty]);
    assert_eq!(
        codes_of("[1]", None),
        vec![Code::subagent_return_not_mapping]
    );
    assert_eq!(
        codes_of("All done, tests landed.", None),
        vec![Code::subagent_return_not_mapping]
    );
    let fenced = format!("```json\n{}\n```\n", valid(ReturnRole::Probe));
    assert_eq!(codes_of(&fenced, None), vec![Code::yaml_syntax]);
    let bullet = "- **j-x-1-1-R-01** [must-fix] — title\n";
    assert_eq!(codes_of(bullet, None), vec![Code::yaml_syntax]);
    assert_eq!(
        codes_of(
            "{\"handover\": {\"role\": \"probe\"}, \"handover\": {}}",
            None
        ),
        vec![Code::yaml_duplicate_key]
    );
    assert_eq!(
        codes_of("{\"summary\": \"x\"}", None),
        vec![Code::subagent_return_handover_missing]
    );
    assert_eq!(
        codes_of("handover: probe\n", None),
        vec![Code::subagent_return_handover_missing]
    );
    assert_eq!(
        codes_of("{\"handover\": {\"cycle\": 1}}", None),
        vec![Code::subagent_return_role_unknown]
    );
    assert_eq!(
        codes(&json!({"handover": handover("j-login", "done")}), None),
        vec![Code::subagent_return_role_unknown]
    );
    assert_eq!(
        codes(&valid(ReturnRole::Probe), Some("selector-development-x")),
        vec![Code::role_option_unknown]
    );
}

#[test]
fn ajv_conditionals_missing_handover_fires_every_then_off_enum_none() {
    let (_, d) = check(b"{\"journey\": \"j-login\"}", Some("composer"));
    let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
    for field in [
        "handover",
        "blocked-reason",
        "skip-authorisation",
        "tests-added",
        "summary",
    ] {
        assert!(
            messages
                .iter()
                .any(|m| m.contains(&format!("`{field}` is a required property"))),
            "{field}: {messages:?}"
        );
    }
    assert!(
        d.iter()
            .all(|d| d.code == Code::subagent_return_schema_violation)
    );
    let mut off_enum = valid(ReturnRole::Composer);
    off_enum["handover"]["status"] = json!("bogus");
    off_enum.as_object_mut().map(|m| m.remove("summary"));
    let (_, d) = check(render(&off_enum).as_bytes(), None);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].json_pointer.as_deref(), Some("/handover/status"));
}

/// Apply `edit` to a valid return of `role` and expect exactly
/// `expected` (repeats of one code, such as several schema errors for
/// one break, count once).
fn case(role: ReturnRole, edit: impl FnOnce(&mut Value), expected: &[Code]) {
    let mut document = valid(role);
    edit(&mut document);
    let mut found = codes(&document, Some(role.name()));
    found.dedup();
    assert_eq!(found, expected, "{document}");
}

fn remove(document: &mut Value, key: &str) {
    document.as_object_mut().map(|m| m.remove(key));
}

#[test]
fn contract_layer_envelope_rules() {
    use ReturnRole::*;
    let schema = Code::subagent_return_schema_violation;
    // First key.
    let late = render(&valid(Probe)).replacen(
        "{\"handover\": ",
        "{\"journey\": \"j-cart\", \"handover\": ",
        1,
    );
    let late = late.replacen(", \"journey\": \"j-cart\"}", "}", 1);
    assert_eq!(
        codes_of(&late, Some("probe")),
        vec![Code::subagent_return_handover_not_first],
        "{late}"
    );
    // Exactly the four fields (plus the schema's two extensions).
    case(
        Probe,
        |d| d["handover"]["phase"] = json!(2),
        &[Code::subagent_return_handover_extra_field],
    );
    case(
        Probe,
        |d| d["handover"]["dispatch-mode"] = json!("per-journey"),
        &[],
    );
    // cycle required, an integer >= 1 (the schema takes any string).
    case(
        Probe,
        |d| {
            d["handover"].as_object_mut().map(|h| h.remove("cycle"));
        },
        &[Code::subagent_return_cycle_invalid],
    );
    // A numeric string is the cycle number (the schema admits strings);
    // other strings are not.
    case(Probe, |d| d["handover"]["cycle"] = json!("1"), &[]);
    case(Probe, |d| d["handover"]["cycle"] = json!("02"), &[]);
    case(
        Probe,
        |d| d["handover"]["cycle"] = json!("one"),
        &[Code::subagent_return_cycle_invalid],
    );
    case(
        Probe,
        |d| d["handover"]["cycle"] = json!("0"),
        &[Code::subagent_return_cycle_invalid],
    );
    case(
        Probe,
        |d| d["handover"]["cycle"] = json!(0),
        &[schema, Code::subagent_return_cycle_invalid],
    );
    case(Probe, |d| d["handover"]["cycle"] = json!(2), &[]);
    // --role and handover.role must agree.
    case(
        Probe,
        |d| d["handover"]["role"] = json!("composer-j-cart"),
        &[Code::subagent_return_role_mismatch],
    );
    case(
        Probe,
        |d| d["handover"]["role"] = json!("probe-j-cart"),
        &[],
    );
}

#[test]
fn contract_layer_role_rules() {
    use ReturnRole::*;
    let schema = Code::subagent_return_schema_violation;
    case(
        PhaseValidator,
        |d| remove(d, "summary"),
        &[Code::subagent_return_summary_missing],
    );
    case(
        PhaseValidator,
        |d| d["summary"] = json!(" "),
        &[Code::subagent_return_summary_missing],
    );
    case(
        PhaseValidator,
        |d| remove(d, "phase"),
        &[Code::subagent_return_phase_invalid],
    );
    case(
        PhaseValidator,
        |d| d["phase"] = json!(8),
        &[Code::subagent_return_phase_invalid],
    );
    case(
        PhaseValidator,
        |d| d["phase"] = json!(9),
        &[schema, Code::subagent_return_phase_invalid],
    );
    case(PhaseValidator, |d| d["phase"] = json!(7), &[]);
    case(
        PhaseValidator,
        |d| d["exit-criteria-checked"] = json!([]),
        &[Code::subagent_return_exit_criteria_empty],
    );
    // Section 2.5 and its worked example leave `findings` off a greenlight.
    case(PhaseValidator, |d| remove(d, "findings"), &[]);
    case(
        PhaseValidator,
        |d| d["findings"] = json!("none"),
        &[schema, Code::subagent_return_greenlight_findings],
    );
    case(
        PhaseValidator,
        |d| d["findings"] = json!([{"id": "pv-2-01"}]),
        &[Code::subagent_return_greenlight_findings],
    );
    case(
        PhaseValidator,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            d["findings"] = json!([{"id": "pv-2-01", "criterion": "c", "issue": "i", "fix": "f"}]);
        },
        &[],
    );
    case(
        PhaseValidator,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            d["findings"] = json!([{"id": "pv-2-01"}]);
            remove(d, "summary");
        },
        &[Code::subagent_return_summary_missing],
    );
    // Reviewer.
    case(
        ReviewerInloop,
        |d| remove(d, "summary"),
        &[Code::subagent_return_summary_missing],
    );
    let finding = json!({"id": "j-login-1-1-R-01", "priority": "must-fix", "title": "No lockout test",
                             "scope": "login", "expected": "lockout", "observed": "no test"});
    case(
        ReviewerInloop,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            remove(d, "summary");
            d["missing-scenarios"] = json!([finding.clone()]);
        },
        &[],
    );
    case(
        ReviewerInloop,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            d["missing-scenarios"] = json!([finding.clone()]);
        },
        &[Code::subagent_return_summary_forbidden],
    );
    case(
        ReviewerInloop,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            remove(d, "summary");
            d["craft-issues"] = json!([]);
        },
        &[Code::subagent_return_must_fix_missing],
    );
    case(
        ReviewerInloop,
        |d| d["handover"]["status"] = json!("batch-complete"),
        &[],
    );
}

/// The conditional requirements and notable types of every role schema
/// (contract B.4): each break is the schema layer's, and the valid
/// return it was made from passes.
#[test]
fn schema_layer_rules_per_role() {
    use ReturnRole::*;
    let schema = &[Code::subagent_return_schema_violation][..];
    let set = |d: &mut Value, pointer: &str, value: Value| {
        if let Some(slot) = d.pointer_mut(pointer) {
            *slot = value;
        }
    };
    // Composer: status-dependent fields and the field types.
    case(Composer, |d| remove(d, "tests-added"), schema);
    case(
        Composer,
        |d| {
            d["handover"]["status"] = json!("blocked");
        },
        schema,
    );
    case(
        Composer,
        |d| {
            d["handover"]["status"] = json!("blocked");
            d["blocked-reason"] = json!("server down");
        },
        &[],
    );
    case(
        Composer,
        |d| {
            d["handover"]["status"] = json!("skipped");
        },
        schema,
    );
    case(
        Composer,
        |d| {
            d["handover"]["status"] = json!("skipped");
            d["skip-authorisation"] = json!("user: skip it");
        },
        &[],
    );
    case(Composer, |d| set(d, "/journey", json!("login")), schema);
    case(
        Composer,
        |d| set(d, "/run-time", json!("4 minutes")),
        schema,
    );
    case(Composer, |d| d["cleanup"] = json!("skipped"), schema);
    case(Composer, |d| d["cleanup"] = json!("not-needed"), &[]);
    // Reviewer: improvements-needed needs a list; findings are closed objects.
    case(
        ReviewerInloop,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
            remove(d, "summary");
        },
        &[
            Code::subagent_return_schema_violation,
            Code::subagent_return_must_fix_missing,
        ],
    );
    let finding = json!({"id": "j-login-1-1-R-01", "title": "t", "scope": "s", "expected": "e", "observed": "o"});
    let mut extra = finding.clone();
    extra["why"] = json!("not in the schema's object");
    case(
        ReviewerInloop,
        |d| d["craft-issues"] = json!([extra]),
        schema,
    );
    let mut one_digit = finding.clone();
    one_digit["id"] = json!("j-login-1-1-R-1");
    case(
        ReviewerInloop,
        |d| d["craft-issues"] = json!([one_digit]),
        schema,
    );
    case(
        ReviewerInloop,
        |d| d["craft-issues"] = json!([finding.clone()]),
        &[],
    );
    // Probe.
    case(Probe, |d| remove(d, "finding-ids"), schema);
    case(Probe, |d| d["findings-emitted"] = json!(0), schema);
    case(
        Probe,
        |d| {
            d["handover"]["status"] = json!("blocked");
        },
        schema,
    );
    case(
        Probe,
        |d| {
            d["handover"]["status"] = json!("clean");
            remove(d, "finding-ids");
            remove(d, "findings-emitted");
        },
        &[],
    );
    // Phase validator: greenlight needs the criteria list; improvements-needed findings.
    case(
        PhaseValidator,
        |d| remove(d, "exit-criteria-checked"),
        schema,
    );
    case(
        PhaseValidator,
        |d| {
            d["handover"]["status"] = json!("improvements-needed");
        },
        schema,
    );
    // Section agent.
    case(SectionAgent, |d| remove(d, "spill"), schema);
    case(SectionAgent, |d| d["spill"] = json!(""), schema);
    case(SectionAgent, |d| d["kind"] = json!("edge-probe"), schema);
    case(
        SectionAgent,
        |d| {
            d["kind"] = json!("edge-probe");
            d["edge-findings"] = json!([{"id": "e1", "summary": "s"}]);
        },
        &[],
    );
    case(SectionAgent, |d| remove(d, "kind"), schema);
    // Phase-4 prioritise-author.
    case(
        Phase4PrioritiseAuthor,
        |d| remove(d, "convergence-status"),
        schema,
    );
    case(
        Phase4PrioritiseAuthor,
        |d| d["journey-map"]["priority-breakdown"]["P4"] = json!(1),
        schema,
    );
    case(
        Phase4PrioritiseAuthor,
        |d| d["journey-map"]["extra"] = json!(1),
        schema,
    );
    case(
        Phase4PrioritiseAuthor,
        |d| {
            d["handover"]["status"] = json!("blocked");
        },
        schema,
    );
    // Workflow and perf reviewers.
    case(WorkflowReviewer, |d| remove(d, "attestation"), schema);
    case(WorkflowReviewer, |d| d["checklist"] = json!([]), schema);
    case(
        WorkflowReviewer,
        |d| d["checklist"][0]["satisfied"] = json!(false),
        schema,
    );
    case(
        WorkflowReviewer,
        |d| d["handover"]["role"] = json!("workflow-reviewer-phase9"),
        schema,
    );
    case(WorkflowReviewer, |d| d["phase"] = json!(9), schema);
    case(WorkflowReviewer, |d| remove(d, "verdict"), schema);
    case(PerfReviewer, |d| remove(d, "findings"), schema);
    case(PerfReviewer, |d| d["verdict"] = json!("escalate"), &[]);
    case(PerfReviewer, |d| d["pass"] = json!("burst"), schema);
    case(
        PerfReviewer,
        |d| d["handover"]["role"] = json!("perf-reviewer-phase8"),
        schema,
    );
    // Repair worker.
    case(RepairWorker, |d| remove(&mut d["tests"][0], "fix"), schema);
    case(
        RepairWorker,
        |d| d["tests"][0]["outcome"] = json!("app-bug"),
        schema,
    );
    case(
        RepairWorker,
        |d| d["tests"][0]["outcome"] = json!("known-defect"),
        &[],
    );
    case(RepairWorker, |d| d["tests"] = json!([]), schema);
    case(
        RepairWorker,
        |d| d["tests"][0]["stability-runs"]["total"] = json!(0),
        schema,
    );
    // Plumber.
    case(Plumber, |d| remove(d, "approval"), schema);
    case(
        Plumber,
        |d| d["changes"][0]["action"] = json!("patched"),
        schema,
    );
    // The schema's role pattern, and the seed's kebab-case rule with the fix.
    case(
        Plumber,
        |d| d["handover"]["role"] = json!("plumber-Hooks"),
        &[
            Code::subagent_return_schema_violation,
            Code::subagent_return_role_not_kebab_case,
        ],
    );
    case(Plumber, |d| d["ledgerRow"] = json!({"deviation": "x"}), &[]);
    // The envelope itself (every role).
    case(
        Probe,
        |d| {
            d["handover"]
                .as_object_mut()
                .map(|h| h.remove("next-action"));
        },
        schema,
    );
    case(Probe, |d| d["handover"]["next-action"] = json!(""), schema);
    case(
        Probe,
        |d| d["handover"]["dispatch-mode"] = json!("batched"),
        schema,
    );
    case(
        Probe,
        |d| d["handover"]["parallel-wave-size"] = json!(0),
        &[Code::subagent_return_schema_violation],
    );
}

#[test]
fn banned_tokens_by_role_family() {
    use ReturnRole::*;
    let banned = Code::subagent_return_banned_token;
    case(
        Composer,
        |d| d["summary"] = json!("fixed AF-CH-01 again"),
        &[banned],
    );
    case(
        Composer,
        |d| d["summary"] = json!("[p0] login broken"),
        &[banned],
    );
    case(Composer, |d| d["summary"] = json!("a nice-to-have"), &[]);
    case(
        ReviewerInloop,
        |d| d["summary"] = json!("greenlight-with-notes"),
        &[banned],
    );
    case(PhaseValidator, |d| d["notes"] = json!(["x"]), &[banned]);
    case(
        RepairWorker,
        |d| d["tests"][0]["notes"] = json!("flaky once"),
        &[],
    );
}

#[test]
fn envelope_sanity_for_no_schema_prefixes() {
    let ok = json!({"handover": {"role": "cleanup-ledger", "cycle": 0, "status": "done", "next-action": "x"}});
    assert_eq!(codes(&ok, None), vec![]);
    let text_cycle = json!({"handover": {"role": "fd-x", "cycle": "01"}});
    assert_eq!(codes(&text_cycle, None), vec![]);
    let bad_cycle = json!({"handover": {"role": "fd-x", "cycle": "one"}});
    assert_eq!(
        codes(&bad_cycle, None),
        vec![Code::subagent_return_cycle_invalid]
    );
    assert_eq!(
        codes(&json!({"summary": "x"}), Some("phase1-scan")),
        vec![Code::subagent_return_handover_missing]
    );
}

#[test]
fn yaml_scalars_resolve_as_the_core_schema() {
    let yaml = |cycle: &str| {
        format!(
            "handover:\n  role: probe-j-cart\n  cycle: {cycle}\n  status: clean\n  next-action: advance\njourney: j-cart\n"
        )
    };
    for cycle in ["1", "02", "+3", "0o7", "0x1F", "2.0", "'2'"] {
        assert_eq!(codes_of(&yaml(cycle), None), vec![], "{cycle}");
    }
    let (parsed, _) = check(yaml("02").as_bytes(), None);
    assert_eq!(parsed.unwrap().document["handover"]["cycle"], json!(2));
    for cycle in ["0", "'x'", "1_000", "0X1F", "true"] {
        assert!(
            codes_of(&yaml(cycle), None).contains(&Code::subagent_return_cycle_invalid),
            "{cycle}"
        );
    }
}

#[test]
fn the_envelope_alone() {
    let envelope = r#"{"role": "composer-j-login", "cycle": 1, "status": "new-tests-landed", "next-action": "reviewer next"}"#;
    assert_eq!(codes_of(envelope, Some("handover")), vec![]);
    // A whole return: only its envelope is judged.
    let whole = format!("{{\"handover\": {envelope}, \"tests-added\": \"many\"}}");
    assert_eq!(codes_of(&whole, Some("handover")), vec![]);
    let (_, d) = check(
        r#"{"role": "x", "cycle": 0, "status": "s", "phase": 2}"#.as_bytes(),
        Some("handover"),
    );
    let found: Vec<(Code, Option<&str>)> = d
        .iter()
        .map(|d| (d.code, d.json_pointer.as_deref()))
        .collect();
    assert_eq!(
        found,
        vec![
            (Code::subagent_return_schema_violation, Some("")),
            (Code::subagent_return_schema_violation, Some("/cycle")),
            (Code::subagent_return_handover_extra_field, Some("/phase")),
            (Code::subagent_return_cycle_invalid, Some("/cycle")),
        ]
    );
    let nested = r#"{"handover": {"role": "x", "status": "s", "next-action": "n", "cycle": 1, "journey": "j-x"}}"#;
    let (_, d) = check(nested.as_bytes(), Some("handover"));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].json_pointer.as_deref(), Some("/handover/journey"));
}

#[test]
fn a_stage_a_id_in_a_reviewer_return_names_the_r_subformat() {
    let mut document = valid(ReturnRole::ReviewerInloop);
    document["handover"]["status"] = json!("improvements-needed");
    document.as_object_mut().map(|m| m.remove("summary"));
    document["missing-scenarios"] = json!([{"id": "j-login-4-01", "title": "t", "scope": "s", "expected": "e", "observed": "o"}]);
    let (_, d) = check(render(&document).as_bytes(), None);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0].json_pointer.as_deref(),
        Some("/missing-scenarios/0/id")
    );
    assert!(
        d[0].message
            .contains("is a Stage A id, not the Stage B `-R-` subformat"),
        "{}",
        d[0].message
    );
    // Markdown bullets in a YAML return: the message names the bullet.
    let (_, d) = check(
            "handover:\n  role: reviewer-j-login\n  cycle: 1\n  status: improvements-needed\n  next-action: fix\nmissing-scenarios:\n  - **j-login-4-1-R-01** [must-fix] — No lockout test\n".as_bytes(),
            None,
        );
    assert_eq!(d[0].code, Code::yaml_syntax);
    assert_eq!(d[0].line, Some(7));
    assert!(
        d[0].message
            .contains("`- **j-login-4-1-R-01**` is YAML alias syntax"),
        "{}",
        d[0].message
    );
}

#[test]
fn diagnostics_locate_the_value() {
    let text = "{\n  \"handover\": {\n    \"role\": \"probe\",\n    \"cycle\": \"x\",\n    \"status\": \"clean\",\n    \"next-action\": \"x\"\n  }\n}\n";
    let (_, d) = check(text.as_bytes(), None);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::subagent_return_cycle_invalid);
    assert_eq!(d[0].line, Some(4));
    assert_eq!(d[0].json_pointer.as_deref(), Some("/handover/cycle"));
}

#[test]
fn the_seeds_one_line_and_kebab_case_rules_warn() {
    let mut document = valid(ReturnRole::Probe);
    document["handover"]["role"] = json!("Probe_j_cart");
    document["handover"]["next-action"] =
        json!("advance to the next journey\nthen rerun the probe");
    let (_, found) = check(render(&document).as_bytes(), Some("probe"));
    let warned: Vec<(Code, Severity, Option<&str>)> = found
        .iter()
        .map(|d| (d.code, d.severity, d.json_pointer.as_deref()))
        .collect();
    use crate::codes::Severity;
    assert_eq!(
        warned,
        [
            (
                Code::subagent_return_role_not_kebab_case,
                Severity::Warning,
                Some("/handover/role")
            ),
            (
                Code::subagent_return_next_action_multiline,
                Severity::Warning,
                Some("/handover/next-action")
            ),
        ],
        "{found:?}"
    );
    assert!(
        found[0].message.contains("write `probe-j-cart`"),
        "{}",
        found[0].message
    );
    for role in [
        "composer-j-login-flow",
        "phase4-prioritise-author",
        "reviewer-inloop",
    ] {
        assert!(super::super::rules::tests_support::kebab(role), "{role}");
    }
    for role in [
        "ReviewerInloop",
        "reviewer_inloop",
        "probe--x",
        "-probe",
        "probe-",
    ] {
        assert!(!super::super::rules::tests_support::kebab(role), "{role}");
    }
}

#[test]
fn an_unquoted_hash_that_cuts_a_value_short_warns() {
    let yaml = "handover:\n  role: probe-j-cart\n  cycle: 1\n  status: clean\n  next-action: fix issue #12 then rerun\njourney: j-cart\n";
    let (checked, found) = check(yaml.as_bytes(), None);
    assert_eq!(
        checked.unwrap().document["handover"]["next-action"],
        "fix issue",
        "what YAML reads"
    );
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.code, Code::subagent_return_value_cut_by_comment);
    assert_eq!(d.severity, crate::codes::Severity::Warning);
    assert_eq!(d.json_pointer.as_deref(), Some("/handover/next-action"));
    assert_eq!(d.line, Some(5));
    assert!(
        d.hint
            .as_deref()
            .unwrap_or_default()
            .contains(r#"`next-action: "fix issue #12 then rerun"`"#),
        "{:?}",
        d.hint
    );
    // Quoted, or a comment set apart by two spaces: nothing to say.
    for fine in [
        yaml.replace("fix issue #12 then rerun", "\"fix issue #12 then rerun\""),
        yaml.replace("fix issue #12 then rerun", "fix issue  # see #12"),
    ] {
        assert_eq!(codes_of(&fine, None), vec![], "{fine}");
    }
    // The envelope alone too.
    assert_eq!(
        codes_of(yaml, Some("handover")),
        vec![Code::subagent_return_value_cut_by_comment]
    );
}
