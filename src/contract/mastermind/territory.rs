//! What a check ran on over its task's territory: the record a tree
//! receipt of schema version 2 carries (`territory`), so that whether the
//! receipt is current can be decided from the receipt and what lands alone,
//! whichever commit carries it (a merge, a squash, a rebase, a
//! cherry-pick).
//!
//! The record holds two lists of lines, each sorted by the path's bytes,
//! no path in both: `changed`, the paths the task had changed when the
//! check ran (its commits' paths and every path where the content differed
//! from HEAD), and `unchanged`, the declared files it had not. A line is
//!
//! ```text
//! <mode> <sha256> <path>     a file, symlink or submodule: its git mode in
//!                            octal and the SHA-256 the tree digest gives
//!                            it (of the content; of a symlink's target
//!                            text; of a submodule's commit id in hex)
//! absent <path>              the path did not exist when the check ran
//! ```
//!
//! The record's `sha256` is taken over the domain tag
//! `mastermind-hooks-territory-v1`, the receipt's `run_id` and the lines
//! (`c ` before a changed one, `u ` before an unchanged one), which binds
//! them to the run that wrote them: a record edited by hand, combined by a
//! textual merge or copied from another receipt no longer matches its
//! hash. The gate never takes the record's paths as the territory: it
//! compares every path of the territory as it judges it on the landing,
//! and a path the record lacks is stale. Where what lands is the protected
//! branch's own content, only an unchanged path is trusted: a file the task
//! changed must land as the check saw it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The domain tag of the record's hash.
pub const TERRITORY_DOMAIN: &[u8] = b"mastermind-hooks-territory-v1\0";

/// The word that marks a path absent when the check ran.
pub const ABSENT: &str = "absent";

/// The modes a recorded path may have (git's, in octal).
pub const MODES: [&str; 4] = ["100644", "100755", "120000", "160000"];

/// The record as a receipt carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Territory {
    /// The paths the task had changed when the check ran, one line each.
    pub changed: Vec<String>,
    /// The declared files the task had not changed, one line each.
    pub unchanged: Vec<String>,
    /// SHA-256 (hex) of the domain tag, the `run_id` and the lines.
    pub sha256: String,
}

/// One path's content when the check ran.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// Present: git's mode in octal and the SHA-256 (lowercase hex) the
    /// tree digest gives it.
    Present {
        mode: String,
        sha256: String,
    },
    Absent,
}

impl Leaf {
    /// The leaf as a record line says it.
    fn line(&self, path: &str) -> String {
        match self {
            Leaf::Present { mode, sha256 } => format!("{mode} {sha256} {path}"),
            Leaf::Absent => format!("{ABSENT} {path}"),
        }
    }
}

/// One recorded path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded<'a> {
    pub path: &'a str,
    pub leaf: Leaf,
    /// The task had changed it when the check ran.
    pub changed: bool,
}

/// The hash that binds the lines to the run `run_id`.
pub fn binding_sha256(run_id: &str, changed: &[String], unchanged: &[String]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(TERRITORY_DOMAIN);
    hasher.update(run_id.as_bytes());
    hasher.update([0]);
    for (mark, lines) in [(b"c ", changed), (b"u ", unchanged)] {
        for line in lines {
            hasher.update(mark);
            hasher.update(line.as_bytes());
            hasher.update([0]);
        }
    }
    hex::encode(hasher.finalize())
}

impl Territory {
    /// The record of `leaves` (path, leaf, whether the task had changed
    /// it; any order, each path once) for the run `run_id`.
    pub fn record<'a>(
        run_id: &str,
        leaves: impl IntoIterator<Item = (&'a str, Leaf, bool)>,
    ) -> Self {
        let mut sorted: Vec<(&str, Leaf, bool)> = leaves.into_iter().collect();
        sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        sorted.dedup_by(|a, b| a.0 == b.0);
        let mut changed = Vec::new();
        let mut unchanged = Vec::new();
        for (path, leaf, was_changed) in &sorted {
            let line = leaf.line(path);
            if *was_changed {
                changed.push(line);
            } else {
                unchanged.push(line);
            }
        }
        Territory {
            sha256: binding_sha256(run_id, &changed, &unchanged),
            changed,
            unchanged,
        }
    }

    /// The recorded paths, sorted by their bytes, or what makes the record
    /// unusable: a malformed line, paths out of order, repeated or in both
    /// lists, or a hash that does not bind the lines to `run_id`.
    pub fn leaves(&self, run_id: &str) -> Result<Vec<Recorded<'_>>, String> {
        let mut out: Vec<Recorded<'_>> =
            Vec::with_capacity(self.changed.len() + self.unchanged.len());
        for (list, lines, changed) in [
            ("changed", &self.changed, true),
            ("unchanged", &self.unchanged, false),
        ] {
            let mut last: Option<&str> = None;
            for (index, line) in lines.iter().enumerate() {
                let (path, leaf) = parse_line(line).ok_or_else(|| {
                    format!("territory.{list}[{index}] is not `<mode> <sha256> <path>` or `absent <path>`")
                })?;
                if let Some(last) = last
                    && last.as_bytes() >= path.as_bytes()
                {
                    return Err(format!(
                        "territory.{list}[{index}] ({path}) is not after {last}: the paths must be sorted by their bytes, each once"
                    ));
                }
                last = Some(path);
                out.push(Recorded {
                    path,
                    leaf,
                    changed,
                });
            }
        }
        out.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        if let Some(pair) = out.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(format!(
                "territory records {} as both changed and unchanged",
                pair[0].path
            ));
        }
        if !self.sha256.eq_ignore_ascii_case(&binding_sha256(
            run_id,
            &self.changed,
            &self.unchanged,
        )) {
            return Err(
                "territory.sha256 does not bind the recorded paths to this run_id: the record was edited, merged or copied after the run wrote it".to_string(),
            );
        }
        Ok(out)
    }
}

/// One record line: its path and leaf.
fn parse_line(line: &str) -> Option<(&str, Leaf)> {
    let (first, rest) = line.split_once(' ')?;
    let (path, leaf) = if first == ABSENT {
        (rest, Leaf::Absent)
    } else {
        let (sha256, path) = rest.split_once(' ')?;
        let hex = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !MODES.contains(&first) || !hex {
            return None;
        }
        (
            path,
            Leaf::Present {
                mode: first.to_string(),
                sha256: sha256.to_string(),
            },
        )
    };
    let well_formed = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\0')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    well_formed.then_some((path, leaf))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(sha: char) -> Leaf {
        Leaf::Present {
            mode: "100644".into(),
            sha256: sha.to_string().repeat(64),
        }
    }

    #[test]
    fn a_record_sorts_its_paths_into_two_lists_and_reads_back() {
        let record = Territory::record(
            "r1",
            [
                ("src/b.py", file('b'), true),
                ("gone.py", Leaf::Absent, true),
                ("src/a b.py", file('a'), false),
            ],
        );
        assert_eq!(
            record.changed,
            [
                "absent gone.py".to_string(),
                format!("100644 {} src/b.py", "b".repeat(64)),
            ]
        );
        assert_eq!(
            record.unchanged,
            [format!("100644 {} src/a b.py", "a".repeat(64))]
        );
        let leaves = record.leaves("r1").unwrap();
        let read: Vec<(&str, bool)> = leaves.iter().map(|r| (r.path, r.changed)).collect();
        assert_eq!(
            read,
            [("gone.py", true), ("src/a b.py", false), ("src/b.py", true)]
        );
        assert_eq!(leaves[0].leaf, Leaf::Absent);
        assert_eq!(leaves[1].leaf, file('a'));
    }

    #[test]
    fn the_hash_binds_the_lines_and_their_lists_to_the_run() {
        let record = Territory::record("r1", [("a.py", file('a'), true)]);
        let problem = record.leaves("r2").unwrap_err();
        assert!(problem.contains("does not bind"), "{problem}");
        let mut edited = record.clone();
        edited.changed[0] = format!("100644 {} a.py", "c".repeat(64));
        assert!(edited.leaves("r1").is_err(), "an edited line");
        let mut moved = record.clone();
        moved.unchanged = std::mem::take(&mut moved.changed);
        assert!(
            moved.leaves("r1").is_err(),
            "a line moved between the lists"
        );
        let mut upper = record.clone();
        upper.sha256 = upper.sha256.to_uppercase();
        assert!(upper.leaves("r1").is_ok(), "the hash compares in any case");
    }

    #[test]
    fn malformed_unsorted_or_repeated_lines_are_refused() {
        let sha = "a".repeat(64);
        for (changed, unchanged) in [
            (vec![format!("100644 {sha}")], vec![]),
            (vec![format!("100600 {sha} a.py")], vec![]),
            (vec![format!("100644 {} a.py", "A".repeat(64))], vec![]),
            (vec![format!("100644 {sha} ../a.py")], vec![]),
            (vec![], vec![format!("100644 {sha} /a.py")]),
            (vec!["absent ".to_string()], vec![]),
            (vec!["gone a.py".to_string()], vec![]),
            (
                vec![format!("100644 {sha} b.py"), "absent a.py".to_string()],
                vec![],
            ),
            (
                vec!["absent a.py".to_string(), "absent a.py".to_string()],
                vec![],
            ),
            (
                vec!["absent a.py".to_string()],
                vec!["absent a.py".to_string()],
            ),
        ] {
            let record = Territory {
                sha256: binding_sha256("r", &changed, &unchanged),
                changed: changed.clone(),
                unchanged: unchanged.clone(),
            };
            assert!(record.leaves("r").is_err(), "{changed:?} {unchanged:?}");
        }
    }
}
