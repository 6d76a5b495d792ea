//! Declared file scope (contracts `mastermind.md` section 3.4): which paths a
//! spec declares, their admission (normalization and limits) and conflicts.
//!
//! Scope is `touches[].file ∪ creates[] ∪ expected_docs[]` when the front
//! matter declares any of them, else the body's backticked paths.

use super::model::ParsedSpec;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use std::collections::BTreeMap;

pub const MAX_DECLARATIONS: usize = 1024;
pub const MAX_PATH_BYTES: usize = 4096;
pub const MAX_PATH_COMPONENTS: usize = 64;

/// What a declared path is declared as (a path may be several).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// The path as written in the spec (first spelling seen).
    pub display: String,
    pub touched: bool,
    pub created: bool,
    pub document: bool,
    /// Declared only through a backticked mention in a legacy spec.
    pub mentioned: bool,
}

/// The admitted scope: normalized path -> target, plus admission problems.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    pub targets: BTreeMap<String, Target>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Normalize a declared path to its repository-relative form, or say which
/// rule it breaks.
pub fn normalize(file: &str) -> Result<String, Code> {
    if file.len() > MAX_PATH_BYTES {
        return Err(Code::path_limit_exceeded);
    }
    let mut path = file.replace('\\', "/");
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_string();
    }
    let bytes = path.as_bytes();
    if path.is_empty()
        || path.chars().any(char::is_control)
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic())
        || path
            .split('/')
            .any(|segment| segment.is_empty() || segment == "." || segment == "..")
    {
        return Err(Code::target_path_invalid);
    }
    if path.split('/').count() > MAX_PATH_COMPONENTS {
        return Err(Code::path_limit_exceeded);
    }
    Ok(path)
}

#[derive(Clone, Copy)]
enum Role {
    Touch,
    Create,
    Document,
    Mention,
}

/// Every declared path of a spec with its role and a pointer to it.
fn declarations(spec: &ParsedSpec) -> Vec<(&str, Role, Option<String>)> {
    match spec.frontmatter.as_ref().filter(|fm| fm.has_file_scope()) {
        Some(fm) => fm
            .touches
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    t.file.as_str(),
                    Role::Touch,
                    Some(format!("/touches/{i}/file")),
                )
            })
            .chain(
                fm.creates
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.as_str(), Role::Create, Some(format!("/creates/{i}")))),
            )
            .chain(fm.expected_docs.iter().enumerate().map(|(i, f)| {
                (
                    f.as_str(),
                    Role::Document,
                    Some(format!("/expected_docs/{i}")),
                )
            }))
            .collect(),
        None => spec
            .mentioned_files
            .iter()
            .map(|f| (f.as_str(), Role::Mention, None))
            .collect(),
    }
}

/// Admit every declared path of a spec.
pub fn admit(spec: &ParsedSpec) -> Admission {
    let declared = declarations(spec);
    if declared.len() > MAX_DECLARATIONS {
        return Admission {
            targets: BTreeMap::new(),
            diagnostics: vec![Diagnostic::new(
                Code::declaration_limit_exceeded,
                format!(
                    "declaration_limit_exceeded: {} paths declared (at most {MAX_DECLARATIONS})",
                    declared.len()
                ),
            )],
        };
    }
    let mut admission = Admission::default();
    for (file, role, pointer) in declared {
        match normalize(file) {
            Ok(relative) => {
                let target = admission.targets.entry(relative).or_insert_with(|| Target {
                    display: file.to_string(),
                    ..Target::default()
                });
                match role {
                    Role::Touch => target.touched = true,
                    Role::Create => target.created = true,
                    Role::Document => target.document = true,
                    Role::Mention => target.mentioned = true,
                }
            }
            Err(code) => {
                let shown: String = file.chars().take(120).collect();
                let mut d = Diagnostic::new(
                    code,
                    format!(
                        "{}: declared path `{}`",
                        code.as_str(),
                        shown.escape_debug()
                    ),
                );
                if let Some(pointer) = pointer {
                    d = d.with_pointer(pointer);
                }
                admission.diagnostics.push(d);
            }
        }
    }
    for (relative, target) in &admission.targets {
        if target.created && target.touched {
            admission.diagnostics.push(Diagnostic::new(
                Code::creation_touch_conflict,
                format!(
                    "creation_touch_conflict: `{}` is declared in both creates and touches",
                    target.display
                ),
            ));
        }
        for (index, _) in relative.match_indices('/') {
            if let Some(ancestor) = admission.targets.get(&relative[..index]) {
                admission.diagnostics.push(Diagnostic::new(
                    Code::declaration_ancestor_conflict,
                    format!(
                        "declaration_ancestor_conflict: `{}` is a directory of the declared `{}`",
                        ancestor.display, target.display
                    ),
                ));
                break;
            }
        }
    }
    admission
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::mastermind::spec::tests::codes;

    #[test]
    fn normalization() {
        assert_eq!(normalize("src/a.rs"), Ok("src/a.rs".into()));
        assert_eq!(normalize("././src\\a.rs"), Ok("src/a.rs".into()));
        for bad in [
            "", "/abs", "a//b", "a/./b", "../x", "a/..", "a/", "C:/x", "c:x", "a\tb", "a\u{7f}",
        ] {
            assert_eq!(normalize(bad), Err(Code::target_path_invalid), "{bad:?}");
        }
        assert_eq!(normalize(&"a".repeat(4097)), Err(Code::path_limit_exceeded));
        assert!(normalize(&"a".repeat(4096)).is_ok());
        let deep = vec!["d"; 65].join("/");
        assert_eq!(normalize(&deep), Err(Code::path_limit_exceeded));
        assert!(normalize(&vec!["d"; 64].join("/")).is_ok());
    }

    fn spec(scope: &str) -> String {
        format!("---\n{scope}---\n")
    }

    #[test]
    fn admission_rules() {
        assert!(
            codes(&spec(
                "touches:\n  - file: src/a.rs\ncreates: [src/b.rs]\nexpected_docs: [README.md]\n"
            ))
            .is_empty()
        );
        assert_eq!(
            codes(&spec("creates: ['../x.rs']\n")),
            [Code::target_path_invalid]
        );
        assert_eq!(
            codes(&spec(
                "touches:\n  - file: src/a.rs\ncreates: [./src/a.rs]\n"
            )),
            [Code::creation_touch_conflict]
        );
        assert_eq!(
            codes(&spec("touches:\n  - file: src\n  - file: src/a.rs\n")),
            [Code::declaration_ancestor_conflict]
        );
        let many: String = (0..1025).map(|i| format!("  - f{i}.rs\n")).collect();
        assert_eq!(
            codes(&spec(&format!("creates:\n{many}"))),
            [Code::declaration_limit_exceeded]
        );
        let exactly: String = (0..1024).map(|i| format!("  - f{i}.rs\n")).collect();
        assert!(codes(&spec(&format!("creates:\n{exactly}"))).is_empty());
    }

    #[test]
    fn legacy_specs_admit_mentioned_paths() {
        let text = "# Task\n\n## Scope\nEdit `src/a.rs` and `../outside.md`.\n";
        assert_eq!(
            codes(text),
            [Code::spec_frontmatter_absent, Code::target_path_invalid]
        );
        // A front matter without file scope also falls back to mentions.
        let text = "---\nmode: lite\n---\n## Scope\nEdit `src/a.rs`.\n";
        let (spec, _) = crate::contract::mastermind::spec::check(text.as_bytes());
        assert!(admit(&spec).targets.contains_key("src/a.rs"));
    }
}
