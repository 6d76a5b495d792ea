//! Commit signatures as git itself verifies them (DESIGN.md section 5,
//! "Identity the agent cannot forge"): one `git log --no-walk --stdin`
//! over the commits a rule asks about, with `gpg.ssh.allowedSignersFile`
//! pointing at a private temporary copy of the allowed-signers file the
//! caller read from the protected branch (git-config(1), `gpg.ssh.*`;
//! git-log(1), the `%G?` and `%GS` placeholders).
//!
//! Only git's good-and-trusted verdict (`G`) names a signer: for SSH the
//! principal of the allowed-signers line whose key made the signature; for
//! GPG and X.509 the key's user id, where the machine's keyring trusts it.
//! A good signature by a key the file does not list (`U`), a bad one (`B`),
//! an expired or revoked key (`X`, `Y`, `R`), one git cannot check (`E`)
//! and no signature at all (`N`) name nobody. Nothing is written to the
//! repository; the temporary file is removed when the check ends.

use super::{Repo, RepoError, Result};
use crate::codes::Code;
use gix::ObjectId;
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// What git says of one commit's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    /// A good signature by a signer git trusts: the allowed-signers
    /// principal (SSH) or the key's user id (GPG, X.509).
    Verified { principal: String },
    /// The commit carries no signature.
    Unsigned,
    /// A signature git does not vouch for, with git's status letter and
    /// what it means.
    Unverified { status: char, why: &'static str },
}

/// What a `%G?` letter other than `G` and `N` means, for messages.
fn meaning(status: char) -> &'static str {
    match status {
        'U' => "a good signature by a key no allowed signer holds",
        'B' => "a bad signature (the commit was changed after signing, or the key does not match)",
        'X' => "a good signature that has expired",
        'Y' => "a good signature by an expired key",
        'R' => "a good signature by a revoked key",
        'E' => {
            "a signature git could not check (the verifying program, ssh-keygen or gpg, is missing or failed)"
        }
        // `G` without a signer: nobody to name.
        'G' => "a good signature that names no signer",
        _ => "a signature git reports in a way this tool does not know",
    }
}

/// Parse `%H%x1f%G?%x1f%GS%x1e` records.
pub fn parse(output: &str) -> HashMap<ObjectId, Signature> {
    let mut out = HashMap::new();
    for record in output.split('\u{1e}') {
        let record = record.trim_start_matches('\n');
        let mut fields = record.split('\u{1f}');
        let (Some(id), Some(status), signer) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let Ok(id) = ObjectId::from_hex(id.trim().as_bytes()) else {
            continue;
        };
        let status = status.trim().chars().next().unwrap_or('E');
        let signer = signer.map(str::trim).unwrap_or("");
        let signature = match status {
            'G' if !signer.is_empty() => Signature::Verified {
                principal: signer.to_string(),
            },
            'N' => Signature::Unsigned,
            other => Signature::Unverified {
                status: other,
                why: meaning(other),
            },
        };
        out.insert(id, signature);
    }
    out
}

fn failed(message: String) -> RepoError {
    RepoError::new(Code::signature_check_failed, message)
}

/// Verify the signatures of `commits`. `allowed_signers` is the content of
/// the allowed-signers file (none: SSH signatures name nobody). Every
/// commit gets an answer; a commit git does not report is an error.
pub fn verify(
    repo: &Repo,
    commits: &[ObjectId],
    allowed_signers: Option<&[u8]>,
) -> Result<HashMap<ObjectId, Signature>> {
    if commits.is_empty() {
        return Ok(HashMap::new());
    }
    // A private file (mode 0600, unique name) outside the repository: git
    // reads it by path, and the protected branch's blob is its content.
    let mut file = tempfile::Builder::new()
        .prefix("mastermind-hooks-allowed-signers-")
        .tempfile()
        .map_err(|e| {
            failed(format!(
                "cannot write the allowed-signers file for git: {e}"
            ))
        })?;
    file.write_all(allowed_signers.unwrap_or_default())
        .and_then(|()| file.flush())
        .map_err(|e| {
            failed(format!(
                "cannot write the allowed-signers file for git: {e}"
            ))
        })?;
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(repo.git_dir())
        .arg("--no-replace-objects")
        .arg("-c")
        .arg(format!(
            "gpg.ssh.allowedSignersFile={}",
            file.path().display()
        ))
        .args(["-c", "log.showSignature=false"])
        .args([
            "log",
            "--no-walk=unsorted",
            "--no-color",
            "--stdin",
            "--format=%H%x1f%G?%x1f%GS%x1e",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot run git to verify commit signatures: {e}")))?;
    let input: String = commits.iter().map(|id| format!("{id}\n")).collect();
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| failed("git's stdin is unavailable".to_string()))?;
    // git reads every revision before it writes, but a writer thread keeps
    // a long list from ever waiting on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .map_err(|e| failed(format!("git (verifying signatures) did not finish: {e}")))?;
    let wrote = writer
        .join()
        .map_err(|_| failed("writing to git failed".to_string()))?;
    if !output.status.success() || wrote.is_err() {
        return Err(failed(format!(
            "git could not verify the commits' signatures ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let verdicts = parse(&stdout);
    if let Some(missing) = commits.iter().find(|id| !verdicts.contains_key(*id)) {
        return Err(failed(format!(
            "git verified the signatures but said nothing of commit {missing}"
        )));
    }
    Ok(verdicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_good_signature_with_a_signer_names_someone() {
        let a = "1".repeat(40);
        let b = "2".repeat(40);
        let c = "3".repeat(40);
        let d = "4".repeat(40);
        let output = format!(
            "{a}\u{1f}G\u{1f}alice@example.com\u{1e}\n{b}\u{1f}U\u{1f}\u{1e}\n{c}\u{1f}N\u{1f}\u{1e}\n{d}\u{1f}G\u{1f}\u{1e}\n"
        );
        let verdicts = parse(&output);
        let id = |hex: &str| ObjectId::from_hex(hex.as_bytes()).unwrap();
        assert_eq!(
            verdicts[&id(&a)],
            Signature::Verified {
                principal: "alice@example.com".into()
            }
        );
        assert!(matches!(
            verdicts[&id(&b)],
            Signature::Unverified { status: 'U', .. }
        ));
        assert_eq!(verdicts[&id(&c)], Signature::Unsigned);
        assert!(matches!(
            verdicts[&id(&d)],
            Signature::Unverified { status: 'G', .. }
        ));
        assert!(parse("garbage").is_empty());
    }
}
