//! One module per subcommand; each returns the process exit status.

pub mod acceptance;
pub mod agent_hook;
pub mod attestation;
pub mod check;
pub mod codes;
pub mod digest;
pub mod hooks;
pub mod init;
pub mod output;
pub mod schema;
pub mod task;
pub mod validate;
pub mod verification;

use std::io::Write;

/// Write to stdout; a closed pipe (`| head`) is not an error.
pub fn emit(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
