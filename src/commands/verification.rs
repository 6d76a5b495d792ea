//! `mastermind-hooks verification run SPEC --id ID [--json]`: run one
//! observed check and write its tree receipt. Exit 0 only for a pass; 1 for
//! a check that ran and did not pass; 2 for a refusal or a run that could
//! not be carried out (spawn or I/O failure).

use crate::commands::emit;
use crate::contract::receipt::{Status, status_name};
use crate::diagnostic::ExitStatus;
use crate::render::human;
use crate::runner;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub fn run(spec: &str, id: &str, json: bool) -> ExitStatus {
    let interrupt = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, interrupt.clone()) {
            eprintln!("error[verification_io_failed]: cannot handle signal {signal}: {e}");
            return ExitStatus::CannotCheck;
        }
    }
    // A file-size limit (or a full quota) must surface as a write error that
    // is cleaned up and reported, not kill the runner mid-write.
    let size_limit_hit = Arc::new(AtomicBool::new(false));
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, size_limit_hit) {
        eprintln!("error[verification_io_failed]: cannot handle SIGXFSZ: {e}");
        return ExitStatus::CannotCheck;
    }
    let finished = match runner::run(Path::new(spec), id, &interrupt) {
        Ok(finished) => finished,
        Err(diagnostic) => {
            let mut text = String::new();
            human::diagnostic(&mut text, &diagnostic);
            eprint!("{text}");
            return ExitStatus::CannotCheck;
        }
    };
    let receipt = &finished.receipt;
    let text = if json {
        match serde_json::to_string_pretty(receipt) {
            Ok(t) => t + "\n",
            Err(_) => return ExitStatus::CannotCheck,
        }
    } else {
        let outcome = match (receipt.exit_code, receipt.signal) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "no exit status".to_string(),
        };
        let reason = receipt
            .reason
            .as_deref()
            .map(|r| format!(", {r}"))
            .unwrap_or_default();
        format!(
            "verification `{}`: {} ({outcome}, {} ms{reason}); receipt {} (attempt {}). A local record of an observed run, not an independent attestation.\n",
            receipt.check_id,
            status_name(receipt.status),
            receipt.duration_ms,
            finished.path.display(),
            receipt.attempt
        )
    };
    if emit(&text).is_err() {
        return ExitStatus::CannotCheck;
    }
    match receipt.status {
        Status::Passed if receipt.passed() => ExitStatus::Pass,
        Status::SpawnFailed | Status::IoFailed => ExitStatus::CannotCheck,
        _ => ExitStatus::Violations,
    }
}
