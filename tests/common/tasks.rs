//! Tasks with an observed check, the way an agent makes them: a spec that
//! declares the files and one check, the edit, a real `verification run`,
//! and a complete report.

use super::{TestRepo, status, text};

/// The spec path of a task.
pub fn spec_path(name: &str) -> String {
    format!(".mastermind/tasks/{name}/spec.md")
}

/// Write a task whose observed check `unit` greps `needle` in `file`.
pub fn write_spec(repo: &TestRepo, name: &str, touches: &[&str], file: &str, needle: &str) {
    let touches: String = touches.iter().map(|t| format!("  - file: {t}\n")).collect();
    let cmd = format!("grep -q {needle} {file}");
    repo.write(
        &spec_path(name),
        &format!(
            "---\nmode: verified\ntouches:\n{touches}verify:\n  - cmd: {cmd}\n    run:\n      id: unit\n      argv: [grep, -q, {needle}, {file}]\n      cwd: .\n      timeout_secs: 60\n---\n# Task {name}\n"
        ),
    );
}

/// Write a complete report listing `files`.
pub fn write_report(repo: &TestRepo, name: &str, files: &[&str], file: &str, needle: &str) {
    let listed: String = if files.is_empty() {
        " []\n".to_string()
    } else {
        format!(
            "\n{}",
            files
                .iter()
                .map(|f| format!("  - {f}\n"))
                .collect::<String>()
        )
    };
    repo.write(
        &format!(".mastermind/tasks/{name}/executor-report.md"),
        &format!(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: .mastermind/tasks/{name}/spec.md\nstatus: complete\nphases: []\nfiles_modified:{listed}claims: []\ndefects: []\nverifications:\n  - cmd: grep -q {needle} {file}\n    result: pass\n```\n<!-- mastermind:report-end -->\n"
        ),
    );
}

/// Run the task's check and write its receipt; panics unless it passed.
pub fn verify(repo: &TestRepo, name: &str) {
    let out = repo.run(
        &["verification", "run", &spec_path(name), "--id", "unit"],
        None,
    );
    assert_eq!(status(&out), 0, "verification run: {}", text(&out));
}

/// An agent's whole task in the working tree (not staged): spec, the edit
/// of `file` to contain `needle`, the check's receipt, the report.
pub fn do_task(repo: &TestRepo, name: &str, file: &str, needle: &str) {
    write_spec(repo, name, &[file], file, needle);
    do_work(repo, name, file, needle);
}

/// The work under the spec of task `name` written before (its check
/// `unit` greps `needle` in `file`): the edit of `file` to contain
/// `needle`, the check's receipt, a complete report listing `file`.
pub fn do_work(repo: &TestRepo, name: &str, file: &str, needle: &str) {
    repo.write(file, &format!("{needle}\n"));
    verify(repo, name);
    write_report(repo, name, &[file], file, needle);
}

/// `task new NAME --touches FILE --check CHECK`, as a planner makes a
/// task; panics unless it succeeded.
pub fn task_new(repo: &TestRepo, name: &str, file: &str, check: &str) {
    let out = repo.run(
        &["task", "new", name, "--touches", file, "--check", check],
        None,
    );
    assert_eq!(status(&out), 0, "{}", text(&out));
}

/// The spec and complete report of task `name` with one observed check
/// per `(id, argv)` (each with `timeout_secs`), changing `files`.
pub fn write_task_with_checks(
    repo: &TestRepo,
    name: &str,
    files: &[&str],
    checks: &[(&str, &[&str])],
    timeout_secs: u64,
) {
    let dir = format!(".mastermind/tasks/{name}");
    let mut verify = String::new();
    let mut rows = String::new();
    for (id, argv) in checks {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let cmd = serde_json::to_string(
            &mastermind_hooks::contract::mastermind::argv_display::display_command(&argv),
        )
        .unwrap();
        verify.push_str(&format!(
            "  - cmd: {cmd}\n    run:\n      id: {id}\n      argv: {}\n      cwd: .\n      timeout_secs: {timeout_secs}\n",
            serde_json::to_string(&argv).unwrap()
        ));
        rows.push_str(&format!("  - cmd: {cmd}\n    result: pass\n"));
    }
    let touches: String = files.iter().map(|f| format!("  - file: {f}\n")).collect();
    repo.write(
        &format!("{dir}/spec.md"),
        &format!("---\nmode: verified\ntouches:\n{touches}verify:\n{verify}---\n# Task {name}\n"),
    );
    let listed: String = files.iter().map(|f| format!("  - {f}\n")).collect();
    repo.write(
        &format!("{dir}/executor-report.md"),
        &format!(
            "# Report\n\n<!-- mastermind:report-begin -->\n```yaml\nschema_version: 1\nspec: {dir}/spec.md\nstatus: complete\nphases: []\nfiles_modified:\n{listed}claims: []\ndefects: []\nverifications:\n{rows}```\n<!-- mastermind:report-end -->\n"
        ),
    );
}

/// Rewrite the territory record of a receipt (a JSON value, schema version
/// 2) to claim the files as they are in the working tree now: what a forger
/// who can write the tree can do, since the record's hash is public.
pub fn forge_territory(repo: &TestRepo, receipt: &mut serde_json::Value) {
    use mastermind_hooks::contract::mastermind::territory::{Leaf, Territory};
    use sha2::{Digest, Sha256};
    let record: Territory =
        serde_json::from_value(receipt["territory"].clone()).expect("a territory record");
    let run_id = receipt["run_id"].as_str().expect("run_id").to_string();
    let leaves = record.leaves(&run_id).expect("the record reads back");
    let forged = Territory::record(
        &run_id,
        leaves.iter().map(|r| {
            let leaf = match std::fs::read(repo.path().join(r.path)) {
                Ok(bytes) => Leaf::Present {
                    mode: "100644".into(),
                    sha256: hex::encode(Sha256::digest(&bytes)),
                },
                Err(_) => Leaf::Absent,
            };
            (r.path, leaf, r.changed)
        }),
    );
    receipt["territory"] = serde_json::to_value(forged).unwrap();
}
