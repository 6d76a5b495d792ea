//! The display form of an argv (contracts `mastermind.md` section 5) and the
//! declaration hash that binds a receipt to `[command, declaration]`.
//!
//! The display form is only for comparison with the spec's `cmd`; execution
//! always uses the argv array.

use serde::Serialize;
use sha2::{Digest, Sha256};

fn needs_no_quotes(arg: &str) -> bool {
    !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:+-=@%".contains(&b))
}

/// Join argv with single spaces, single-quoting any argument that is empty
/// or contains a byte outside `[A-Za-z0-9_./:+\-=@%]`.
pub fn display_command(argv: &[String]) -> String {
    argv.iter()
        .map(|arg| {
            if needs_no_quotes(arg) {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An observed check's `run` block, keys in the order the hash needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDeclaration {
    pub id: String,
    pub argv: Vec<String>,
    pub cwd: String,
    pub timeout_secs: u64,
}

/// SHA-256 (lowercase hex) of the compact JSON array `[command, declaration]`.
pub fn declaration_sha256(command: &str, run: &RunDeclaration) -> String {
    // Serializing a tuple of a str and a plain struct cannot fail.
    let bytes = serde_json::to_vec(&(command, run)).unwrap_or_default();
    hex::encode(Sha256::digest(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn display_examples_from_the_contract() {
        assert_eq!(
            display_command(&argv(&["cargo", "test", "--locked"])),
            "cargo test --locked"
        );
        assert_eq!(display_command(&argv(&["echo", "it's"])), r"echo 'it'\''s'");
        assert_eq!(
            display_command(&argv(&["x", "two words", ""])),
            "x 'two words' ''"
        );
        assert_eq!(
            display_command(&argv(&["a=b@c%d:e+f/g.h_i-j"])),
            "a=b@c%d:e+f/g.h_i-j"
        );
        for special in [
            ",", "~", "#", "*", "$", "\"", "!", "^", "&", ";", "(", "[", "{", "<", "|", "?", "\\",
            "\t", "é",
        ] {
            assert_eq!(
                display_command(&argv(&[special])),
                format!("'{special}'"),
                "{special:?}"
            );
        }
    }

    #[test]
    fn declaration_hash_matches_the_contract_example() {
        let run = RunDeclaration {
            id: "test".into(),
            argv: argv(&["/usr/bin/true"]),
            cwd: ".".into(),
            timeout_secs: 1,
        };
        let bytes = serde_json::to_vec(&("/usr/bin/true", &run)).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"["/usr/bin/true",{"id":"test","argv":["/usr/bin/true"],"cwd":".","timeout_secs":1}]"#
        );
        assert_eq!(
            declaration_sha256("/usr/bin/true", &run),
            "7367512ac075bdbf1bc6831e5d377571619d4c079cfdec81e67b7f15b5d8bd8f"
        );
        // Non-ASCII stays raw UTF-8 and `/` is not escaped.
        let run = RunDeclaration {
            id: "é".into(),
            ..run
        };
        let bytes = serde_json::to_vec(&("a/b", &run)).unwrap();
        assert!(
            String::from_utf8(bytes)
                .unwrap()
                .starts_with(r#"["a/b",{"id":"é""#)
        );
    }
}
