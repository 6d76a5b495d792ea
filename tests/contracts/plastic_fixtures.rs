//! The real savepoint ledgers of plastic's intents 337 and 340 (byte-identical
//! copies, see `tests/cmd/plastic.in/store/PROVENANCE.md`) pass with no
//! finding at all, and stay byte-identical.

use mastermind_hooks::artifact::{self, Kind};
use sha2::{Digest, Sha256};

const STORE: &str = "tests/cmd/plastic.in/store";

const LEDGERS: &[(&str, &str)] = &[
    (
        "337--roadmap-graph/savepoint.md",
        "f79de35a34c2790a7568ed48a9f47028909a7bd3e5743a815aaa57e62d5451eb",
    ),
    (
        "340--runner-core-in-session/savepoint.md",
        "1c6e605b748b56a02f078d4a4166ef3f562ba94c9a1a137ad0ba11fb909b9b64",
    ),
];

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{STORE}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn real_ledgers_are_untouched_and_pass_without_findings() {
    for (path, sha256) in LEDGERS {
        let bytes = read(path);
        assert_eq!(
            hex::encode(Sha256::digest(&bytes)),
            *sha256,
            "{path} was edited; re-copy it from plastic, never patch it to fit"
        );
        assert_eq!(
            Kind::infer(&format!("{STORE}/{path}")),
            Some(Kind::PlasticSavepoints)
        );
        let checked = artifact::check(Kind::PlasticSavepoints, &bytes);
        assert!(
            checked.diagnostics.is_empty(),
            "{path}: {:?}",
            checked.diagnostics
        );
    }
}

#[test]
fn real_ledgers_are_read_entry_by_entry() {
    use mastermind_hooks::contract::plastic::savepoints::{self, Subject};
    let (entries, _) = savepoints::check(&read(LEDGERS[1].0));
    assert_eq!(entries.len(), 41);
    assert_eq!(entries.first().map(|e| &e.subject), Some(&Subject::What));
    assert_eq!(entries.last().map(|e| e.text.as_str()), Some("delivered"));
    let transitions = entries.iter().filter(|e| e.subject.is_transition()).count();
    assert_eq!(transitions, 32);
}

#[test]
fn real_insights_sections_pass() {
    for path in [
        "337--roadmap-graph/337--roadmap-graph.md",
        "340--runner-core-in-session/340--runner-core-in-session.md",
    ] {
        assert_eq!(
            Kind::infer(&format!("{STORE}/{path}")),
            Some(Kind::PlasticIntent)
        );
        let (section, diagnostics) =
            mastermind_hooks::contract::plastic::intent::check(&read(path));
        assert!(diagnostics.is_empty(), "{path}: {diagnostics:?}");
        assert!(section.entries.len() >= 9, "{path}");
    }
}
