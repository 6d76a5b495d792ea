//! Entry point: parse arguments, run one command, map the result to an exit
//! status. A panic anywhere is reported and exits 2, never 0.

use mastermind_hooks::cli::{self, Cli};
use mastermind_hooks::diagnostic::ExitStatus;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A panic anywhere is reported and exits 2 (src/crash.rs); the release
    // profile aborts on panic, so nothing here may rely on unwinding.
    mastermind_hooks::crash::install_hook();
    let cli = match Cli::from_process() {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version print and exit 0; usage errors exit 2.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    // Debug builds only: lets the test suite prove that a panic exits 2.
    #[cfg(debug_assertions)]
    if std::env::var_os("MASTERMIND_HOOKS_DEBUG_PANIC").is_some() {
        panic!("panic requested by MASTERMIND_HOOKS_DEBUG_PANIC");
    }
    let status: ExitStatus = cli::run(cli);
    ExitCode::from(status.code() as u8)
}
