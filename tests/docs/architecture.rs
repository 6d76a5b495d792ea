//! The layers of `src/`, as the development chapter draws them, held to the
//! code: every `crate::`, `super::` and `self::` path (brace groups of `use`
//! declarations included, and paths through a module a file imported by
//! name) is resolved to the module file it names, and
//!
//! * no files import each other in a circle (a parent module declaring,
//!   re-exporting or calling its own children is not an import);
//! * a module imports only from layers below its own, or from a peer of its
//!   own layer where [`PEERS`] allows it;
//! * a command module imports no other command module but the shared
//!   rendering ([`SHARED_CHILDREN`]).
//!
//! Comments, string literals and `#[cfg(test)]` items (unit-test modules)
//! are left out: tests may reach anywhere. The violations that exist today
//! and are being removed are listed, with the reason, in [`KNOWN_VIOLATIONS`];
//! anything else fails, naming the file, the line, the import and the rule.
//!
//! The reader is a small tokenizer, not a Rust parser: a path that resolves
//! through a re-export names the re-exporting module, and macros' insides
//! are read as plain tokens.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top to bottom. A module may import from any layer below its
/// own; within its own layer only what [`PEERS`] lists.
const LAYERS: &[&[&str]] = &[
    &["main", "cli"],
    &["commands"],
    &["gate", "runner", "install", "agent", "scaffold"],
    &["repo", "digest", "render"],
    &[
        "artifact",
        "config",
        "report",
        "bookkeeping",
        "input",
        "process_env",
        "safe_fs",
        "crash",
    ],
    &["contract"],
    &["schema", "suggest", "diff"],
    &["diagnostic"],
    &["codes"],
];

/// Imports allowed inside one layer: (importer, imported), each one-way.
/// These are the peer imports `src/` has; a new one is a design decision
/// (say why here) or a sign that something belongs a layer down.
const PEERS: &[(&str, &str)] = &[
    // The binary runs the library's command line.
    ("main", "cli"),
    // A receipt's executable is identified the way the runner identifies it.
    ("gate", "runner"),
    // Adopting the gate recognises the harness entries `install --agent`
    // writes, as `agent` models them.
    ("gate", "agent"),
    // ... and the hook managers' files whose lines `install` prints, as
    // `install` names them.
    ("gate", "install"),
    // `install --agent` edits the harnesses' settings as `agent` models them.
    ("install", "agent"),
    // A scaffolded task's declared checks are classified as the gate does.
    ("scaffold", "gate"),
    // The digests walk the repository's trees, index and working tree.
    ("digest", "repo"),
    // The configuration file is an artifact, and bounds its own reading.
    ("artifact", "config"),
    // Task artifacts are recognised only inside a task folder.
    ("artifact", "bookkeeping"),
    // Agent files are bookkeeping by the configuration's globs.
    ("bookkeeping", "config"),
    // Input is read through the safe file system.
    ("input", "safe_fs"),
    // Schema errors suggest the nearest known name.
    ("schema", "suggest"),
];

/// Children of a module that its other children may import; any other
/// import between two children of these modules is a violation.
const SHARED_CHILDREN: &[(&str, &[&str])] = &[("commands", &["output", "emit"])];

/// Imports that break a rule today and are being removed (issue 22): each
/// (importing file, imported file). They are left out of every check here.
/// Remove an entry once its import is gone; an entry that no longer matches
/// an import fails `every_known_violation_is_still_an_import`. Empty this
/// list when the gate owns the modes' setup and scaffolding has its own home.
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[];

#[test]
fn no_import_circles_between_files() {
    let graph = Graph::of_tree(Path::new("src"));
    let problems = graph.circles(&allowed());
    assert!(
        problems.is_empty(),
        "import circles in src/ (rule: no file imports, directly or through others, a file that imports it; \
         move the shared part down into a module both can import):\n{}",
        problems.join("\n")
    );
}

#[test]
fn imports_go_down_the_layers() {
    let graph = Graph::of_tree(Path::new("src"));
    let problems = graph.layer_violations(&allowed());
    assert!(
        problems.is_empty(),
        "imports against the layers of src/ (tests/docs/architecture.rs; docs/src/development.md):\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_module_has_a_layer_and_every_layer_entry_a_module() {
    let graph = Graph::of_tree(Path::new("src"));
    let tops: BTreeSet<&str> = graph.files.values().filter_map(|f| f.top()).collect();
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let unlisted: Vec<_> = tops.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "src/ has modules with no layer: {unlisted:?}; add each to LAYERS in tests/docs/architecture.rs \
         (and to the picture in docs/src/development.md)"
    );
    let missing: Vec<_> = listed.difference(&tops).collect();
    assert!(
        missing.is_empty(),
        "LAYERS in tests/docs/architecture.rs names {missing:?}, which src/ lacks: remove them"
    );
}

#[test]
fn every_known_violation_is_still_an_import() {
    let graph = Graph::of_tree(Path::new("src"));
    let edges: BTreeSet<(String, String)> = graph
        .edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    for (from, to) in KNOWN_VIOLATIONS {
        assert!(
            edges.contains(&(from.to_string(), to.to_string())),
            "{from} no longer imports {to}: remove the entry from KNOWN_VIOLATIONS in tests/docs/architecture.rs"
        );
    }
}

/// gix's methods that read references, which it can do in the files store
/// only: anywhere but `src/repo/refs.rs` they would misread a reftable
/// repository (`Repo::head_commit` and the like are the project's own, and
/// choose gix or git per repository).
const GIX_REF_READS: &[&str] = &[
    "head",
    "head_id",
    "head_name",
    "head_ref",
    "head_tree",
    "head_tree_id",
    "rev_parse",
    "rev_parse_single",
    "find_reference",
    "try_find_reference",
    "references",
];

/// The file that owns reading references (issue 51).
const REFS_MODULE: &str = "src/repo/refs.rs";

#[test]
fn references_are_read_only_where_every_ref_store_is_handled() {
    let graph = Graph::of_tree(Path::new("src"));
    assert!(
        graph.files.contains_key(REFS_MODULE),
        "{REFS_MODULE} is gone"
    );
    let found: Vec<String> = graph
        .calls
        .iter()
        .filter(|(path, _, name)| path != REFS_MODULE && GIX_REF_READS.contains(&name.as_str()))
        .map(|(path, line, name)| format!("{path}:{line}: `.{name}(`"))
        .collect();
    assert!(
        found.is_empty(),
        "references read outside {REFS_MODULE} (rule: gix reads the files ref store only, so every \
         reference goes through crate::repo::refs, which asks git for the other stores; use \
         Repo::resolve_commit, Repo::head_commit, Repo::head_ref_name or Repo::reference):\n{}",
        found.join("\n")
    );
    let reader = Graph::of_sources(&[(
        "src/a.rs",
        "fn f(r: &gix::Repository) { r.head_name(); }\n#[cfg(test)]\nmod tests { fn g(r: &gix::Repository) { r.head(); } }\n",
    )]);
    let names: Vec<&str> = reader.calls.iter().map(|(_, _, n)| n.as_str()).collect();
    assert_eq!(names, ["head_name"], "calls in unit tests are left out");
}

/// The reader on its own, on a made-up tree: brace groups, `self`,
/// `super`, imported modules used by name, and what it must not read.
#[test]
fn the_reader_resolves_groups_super_self_and_imported_modules() {
    let graph = Graph::of_sources(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        (
            "src/a/mod.rs",
            "//! A.\npub mod x;\npub mod y;\npub use self::x::X;\n",
        ),
        (
            "src/a/x.rs",
            "use super::y::{self as why, Y};\nuse crate::{b::{self}, c::*};\n\
             pub fn f() { why::g(); b::inner::h(); }\n",
        ),
        ("src/a/y.rs", "pub fn g() { super::super::c::k(); }\n"),
        ("src/b/mod.rs", "pub mod inner;\n"),
        (
            "src/b/inner.rs",
            "// use crate::a::x;\n/* crate::a::y */\nconst S: &str = \"crate::a::x\";\n\
             const R: &str = r#\"crate::a::\"y\"#;\nconst L: char = '\"';\n\
             fn h<'a>(s: &'a str) -> &'a str { s }\n\
             pub(in crate::b) fn i() {}\n\
             #[cfg(test)]\nmod tests {\n    use crate::a::x;\n}\n\
             #[cfg(test)]\nmod more;\n",
        ),
        ("src/b/inner/more.rs", "use crate::a::y;\n"),
        ("src/c.rs", "pub fn k() {}\n"),
    ]);
    let edges: BTreeSet<(&str, &str, usize)> = graph
        .edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str(), e.line))
        .collect();
    assert_eq!(
        edges,
        BTreeSet::from([
            ("src/a/x.rs", "src/a/y.rs", 1),
            ("src/a/x.rs", "src/b/mod.rs", 2),
            ("src/a/x.rs", "src/c.rs", 2),
            ("src/a/x.rs", "src/a/y.rs", 3),
            ("src/a/x.rs", "src/b/inner.rs", 3),
            ("src/a/y.rs", "src/c.rs", 1),
        ]),
        "{:#?}",
        graph.edges
    );
    assert!(!graph.files.contains_key("src/b/inner/more.rs"));
}

#[test]
fn the_rules_name_the_file_the_import_and_the_rule() {
    let graph = Graph::of_sources(&[
        (
            "src/lib.rs",
            "pub mod codes;\npub mod diagnostic;\npub mod commands;\n",
        ),
        ("src/codes.rs", "use crate::diagnostic::Severity;\n"),
        ("src/diagnostic.rs", "use crate::codes::Code;\n"),
        (
            "src/commands/mod.rs",
            "pub mod check;\npub mod output;\npub mod ci_env;\n",
        ),
        (
            "src/commands/check.rs",
            "use super::output::render;\nuse super::ci_env::Event;\n",
        ),
        ("src/commands/output.rs", "pub fn render() {}\n"),
        ("src/commands/ci_env.rs", "pub struct Event;\n"),
    ]);
    let none = BTreeSet::new();
    let circles = graph.circles(&none);
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(
        circles[0]
            .contains("src/codes.rs:1: `crate::diagnostic::Severity` imports src/diagnostic.rs")
            && circles[0]
                .contains("src/diagnostic.rs:1: `crate::codes::Code` imports src/codes.rs"),
        "{}",
        circles[0]
    );
    let layers = graph.layer_violations(&none);
    assert_eq!(layers.len(), 2, "{layers:#?}");
    assert!(
        layers[0].starts_with("src/codes.rs:1: `crate::diagnostic::Severity` goes up from codes")
            && layers[0].contains("to diagnostic (layer 8: diagnostic)"),
        "{}",
        layers[0]
    );
    assert!(
        layers[1].starts_with("src/commands/check.rs:2: `super::ci_env::Event`")
            && layers[1].contains("commands::output, commands::emit"),
        "{}",
        layers[1]
    );
    let allowed = BTreeSet::from([(
        "src/commands/check.rs".to_string(),
        "src/commands/ci_env.rs".to_string(),
    )]);
    assert_eq!(graph.layer_violations(&allowed).len(), 1);
}

fn allowed() -> BTreeSet<(String, String)> {
    KNOWN_VIOLATIONS
        .iter()
        .map(|(from, to)| (from.to_string(), to.to_string()))
        .collect()
}

// ---- the model: files, their modules and the imports between them -------

/// One source file and the module it is.
#[derive(Debug)]
struct File {
    /// The module path (`["gate", "scope"]`); `["main"]` for the binary's
    /// `main.rs`, empty for `lib.rs`.
    module: Vec<String>,
}

impl File {
    /// The top-level module, the unit of the layers (none for `lib.rs`).
    fn top(&self) -> Option<&str> {
        self.module.first().map(String::as_str)
    }
}

/// An import of one file by another, where the code says it.
#[derive(Debug)]
struct Edge {
    from: String,
    to: String,
    line: usize,
    /// The path as written (a brace group's member spelled out).
    path: String,
}

struct Graph {
    /// By file path (`src/gate/scope.rs`).
    files: BTreeMap<String, File>,
    edges: Vec<Edge>,
    /// Every method call outside unit tests (`.name(`): file, line, name.
    calls: Vec<(String, usize, String)>,
}

impl Graph {
    /// Every `.rs` file under `root` (the repository's `src/`).
    fn of_tree(root: &Path) -> Graph {
        let mut paths = Vec::new();
        walk(root, &mut paths);
        paths.sort();
        let sources: Vec<(String, String)> = paths
            .iter()
            .map(|p| {
                let text =
                    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                (p.display().to_string(), text)
            })
            .collect();
        let borrowed: Vec<(&str, &str)> = sources
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        Graph::of_sources(&borrowed)
    }

    /// The graph of files given as (path under `src/`, text).
    fn of_sources(sources: &[(&str, &str)]) -> Graph {
        let mut files = BTreeMap::new();
        let mut by_module: BTreeMap<Vec<String>, String> = BTreeMap::new();
        for (path, _) in sources {
            let module = module_of(path);
            by_module.insert(module.clone(), path.to_string());
            files.insert(path.to_string(), File { module });
        }
        let mut read = Vec::new();
        let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
        for (path, text) in sources {
            let tokens = tokenize(text);
            let (tokens, test_modules, whole_file) = without_test_items(tokens);
            let module = files[*path].module.clone();
            if whole_file {
                test_only.insert(module.clone());
            }
            for name in test_modules {
                let mut child = module.clone();
                child.push(name);
                test_only.insert(child);
            }
            read.push((path.to_string(), module, tokens));
        }
        // Unit-test module files, and everything under them, are not read.
        let is_test = |module: &Vec<String>| test_only.iter().any(|t| module.starts_with(t));
        files.retain(|_, f| !is_test(&f.module));
        by_module.retain(|m, _| !is_test(m));
        let mut edges = Vec::new();
        let mut calls = Vec::new();
        for (path, module, tokens) in read {
            if is_test(&module) {
                continue;
            }
            for at in 0..tokens.len() {
                if is_punct(&tokens, at, '.')
                    && is_punct(&tokens, at + 2, '(')
                    && let Some(name) = ident_at(&tokens, at + 1)
                {
                    calls.push((path.clone(), tokens[at + 1].line, name.to_string()));
                }
            }
            for (line, written, target) in imports(&module, &tokens, &by_module) {
                let Some((found, _)) = longest_module(&target, &by_module) else {
                    continue;
                };
                // A module naming itself, or a parent its own children.
                if found.starts_with(&module) {
                    continue;
                }
                edges.push(Edge {
                    from: path.clone(),
                    to: by_module[&found].clone(),
                    line,
                    path: written,
                });
            }
        }
        Graph {
            files,
            edges,
            calls,
        }
    }

    fn top_of(&self, path: &str) -> Option<&str> {
        self.files[path].top()
    }

    /// Every circle of imports, one message each, with the imports that
    /// close it.
    fn circles(&self, allowed: &BTreeSet<(String, String)>) -> Vec<String> {
        let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for e in self.live(allowed) {
            next.entry(e.from.as_str())
                .or_default()
                .insert(e.to.as_str());
        }
        strongly_connected(&next)
            .into_iter()
            .filter(|component| component.len() > 1)
            .map(|component| {
                let inside: Vec<String> = self
                    .live(allowed)
                    .filter(|e| {
                        component.contains(&e.from.as_str()) && component.contains(&e.to.as_str())
                    })
                    .map(|e| format!("  {}:{}: `{}` imports {}", e.from, e.line, e.path, e.to))
                    .collect();
                format!(
                    "circle through {}:\n{}",
                    component.join(", "),
                    inside.join("\n")
                )
            })
            .collect()
    }

    /// Every import against the layers or a module's shared children.
    fn layer_violations(&self, allowed: &BTreeSet<(String, String)>) -> Vec<String> {
        let layer = |top: &str| LAYERS.iter().position(|l| l.contains(&top));
        let mut problems = Vec::new();
        for e in self.live(allowed) {
            let from = &self.files[&e.from].module;
            let to = &self.files[&e.to].module;
            let (Some(from_top), Some(to_top)) = (self.top_of(&e.from), self.top_of(&e.to)) else {
                continue;
            };
            let at = format!("{}:{}: `{}`", e.from, e.line, e.path);
            if from_top == to_top {
                let Some((_, shared)) = SHARED_CHILDREN.iter().find(|(m, _)| *m == from_top) else {
                    continue;
                };
                let (Some(from_child), Some(to_child)) = (from.get(1), to.get(1)) else {
                    continue;
                };
                if from_child != to_child && !shared.contains(&to_child.as_str()) {
                    let names: Vec<String> =
                        shared.iter().map(|s| format!("{from_top}::{s}")).collect();
                    problems.push(format!(
                        "{at} imports {}, another child of {from_top}: its children share only {} \
                         (move what both need into a lower layer)",
                        e.to,
                        names.join(", ")
                    ));
                }
                continue;
            }
            let (Some(from_layer), Some(to_layer)) = (layer(from_top), layer(to_top)) else {
                // every_module_has_a_layer_and_every_layer_entry_a_module says which.
                continue;
            };
            // Layers are counted from 1, the top, in messages.
            let describe = |top: &str, at: usize| {
                format!("{top} (layer {}: {})", at + 1, LAYERS[at].join(", "))
            };
            if to_layer < from_layer {
                problems.push(format!(
                    "{at} goes up from {} to {}: a module imports only from layers below its own",
                    describe(from_top, from_layer),
                    describe(to_top, to_layer),
                ));
            } else if to_layer == from_layer && !PEERS.contains(&(from_top, to_top)) {
                problems.push(format!(
                    "{at} imports {to_top} from {from_top}, a peer in layer {} ({}) that PEERS \
                     does not allow: move the shared part down a layer",
                    from_layer + 1,
                    LAYERS[from_layer].join(", ")
                ));
            }
        }
        problems
    }

    fn live<'a>(
        &'a self,
        allowed: &'a BTreeSet<(String, String)>,
    ) -> impl Iterator<Item = &'a Edge> {
        self.edges
            .iter()
            .filter(|e| !allowed.contains(&(e.from.clone(), e.to.clone())))
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/lib.rs` is the crate, `src/main.rs` the binary, `src/a/mod.rs` and
/// `src/a.rs` are `a`, `src/a/b.rs` is `a::b`.
fn module_of(path: &str) -> Vec<String> {
    let rel = path.strip_prefix("src/").unwrap_or(path);
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    match parts.as_slice() {
        [one] if one == "lib" => vec![],
        [one] if one == "main" => vec!["main".to_string()],
        _ => parts,
    }
}

/// The longest prefix of `path` that is a module with a file, and whether
/// it is all of `path`.
fn longest_module(
    path: &[String],
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<(Vec<String>, bool)> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains_key(prefix))
        .map(|prefix| {
            let exact = prefix.len() == path.len();
            (prefix, exact)
        })
}

// ---- reading: tokens without comments, literals and test items ----------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    /// A string, character or number literal, or a lifetime.
    Lit,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let is_ident = |c: char| c == '_' || c.is_alphanumeric();
    // Skips a quoted literal whose opening quote is at `i`; counts lines.
    let skip_quoted = |i: &mut usize, line: &mut usize, quote: char| {
        *i += 1;
        while *i < chars.len() && chars[*i] != quote {
            if chars[*i] == '\\' {
                *i += 1;
            }
            if chars.get(*i) == Some(&'\n') {
                *line += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => {
                out.push(Token {
                    tok: Tok::Lit,
                    line,
                });
                skip_quoted(&mut i, &mut line, '"');
            }
            '\'' => {
                out.push(Token {
                    tok: Tok::Lit,
                    line,
                });
                if next == Some('\\') || chars.get(i + 2) == Some(&'\'') {
                    skip_quoted(&mut i, &mut line, '\'');
                } else {
                    // A lifetime or a label.
                    i += 1;
                    while i < chars.len() && is_ident(chars[i]) {
                        i += 1;
                    }
                }
            }
            c if c.is_ascii_digit() => {
                out.push(Token {
                    tok: Tok::Lit,
                    line,
                });
                while i < chars.len()
                    && (is_ident(chars[i])
                        || chars[i] == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
                {
                    i += 1;
                }
            }
            c if is_ident(c) => {
                let start = i;
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let quote = chars.get(i).copied();
                // Byte, C and raw strings: b"", c"", r"", r#""#, br"", cr"".
                if matches!(word.as_str(), "r" | "br" | "cr") && matches!(quote, Some('"' | '#')) {
                    let mut hashes = 0;
                    while chars.get(i) == Some(&'#') {
                        hashes += 1;
                        i += 1;
                    }
                    if chars.get(i) == Some(&'"') {
                        out.push(Token {
                            tok: Tok::Lit,
                            line,
                        });
                        i += 1;
                        loop {
                            if i >= chars.len() {
                                break;
                            }
                            if chars[i] == '"'
                                && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#'))
                            {
                                i += 1 + hashes;
                                break;
                            }
                            if chars[i] == '\n' {
                                line += 1;
                            }
                            i += 1;
                        }
                    } else {
                        // A raw identifier, r#name.
                        let start = i;
                        while i < chars.len() && is_ident(chars[i]) {
                            i += 1;
                        }
                        let name: String = chars[start..i].iter().collect();
                        out.push(Token {
                            tok: Tok::Ident(name),
                            line,
                        });
                    }
                } else if matches!(word.as_str(), "b" | "c") && quote == Some('"') {
                    out.push(Token {
                        tok: Tok::Lit,
                        line,
                    });
                    skip_quoted(&mut i, &mut line, '"');
                } else if word == "b" && quote == Some('\'') {
                    out.push(Token {
                        tok: Tok::Lit,
                        line,
                    });
                    skip_quoted(&mut i, &mut line, '\'');
                } else {
                    out.push(Token {
                        tok: Tok::Ident(word),
                        line,
                    });
                }
            }
            ':' if next == Some(':') => {
                out.push(Token {
                    tok: Tok::Sep,
                    line,
                });
                i += 2;
            }
            c => {
                out.push(Token {
                    tok: Tok::Punct(c),
                    line,
                });
                i += 1;
            }
        }
    }
    out
}

fn is_punct(tokens: &[Token], at: usize, c: char) -> bool {
    tokens.get(at).is_some_and(|t| t.tok == Tok::Punct(c))
}

fn ident_at(tokens: &[Token], at: usize) -> Option<&str> {
    match tokens.get(at).map(|t| &t.tok) {
        Some(Tok::Ident(name)) => Some(name),
        _ => None,
    }
}

/// The index after the group that opens at `at` (`(`, `[` or `{`).
fn after_group(tokens: &[Token], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Whether the tokens at `at` are exactly `#[cfg(test)]` (or `#![...]`).
fn cfg_test_at(tokens: &[Token], at: usize) -> Option<usize> {
    let inner = is_punct(tokens, at + 1, '!');
    let open = at + 1 + usize::from(inner);
    let words = [
        is_punct(tokens, at, '#'),
        is_punct(tokens, open, '['),
        ident_at(tokens, open + 1) == Some("cfg"),
        is_punct(tokens, open + 2, '('),
        ident_at(tokens, open + 3) == Some("test"),
        is_punct(tokens, open + 4, ')'),
        is_punct(tokens, open + 5, ']'),
    ];
    words.iter().all(|w| *w).then_some(open + 6)
}

/// The tokens without `#[cfg(test)]` items; the names of the modules
/// declared `#[cfg(test)] mod name;` (their files are tests); and whether
/// the whole file is `#![cfg(test)]`.
fn without_test_items(tokens: Vec<Token>) -> (Vec<Token>, Vec<String>, bool) {
    let whole = is_punct(&tokens, 1, '!') && cfg_test_at(&tokens, 0).is_some();
    let mut kept = Vec::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(mut j) = cfg_test_at(&tokens, i) else {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        };
        // Further attributes, then the item up to its `;` or its body.
        while is_punct(&tokens, j, '#') {
            j = after_group(&tokens, j + 1);
        }
        let start = j;
        while j < tokens.len() {
            match tokens[j].tok {
                Tok::Punct(';') => {
                    j += 1;
                    break;
                }
                Tok::Punct('{') => {
                    j = after_group(&tokens, j);
                    break;
                }
                Tok::Punct('(' | '[') => j = after_group(&tokens, j),
                _ => j += 1,
            }
        }
        let item: Vec<&str> = (start..j).filter_map(|k| ident_at(&tokens, k)).collect();
        if let Some(at) = item.iter().position(|w| *w == "mod")
            && is_punct(&tokens, j - 1, ';')
            && let Some(name) = item.get(at + 1)
        {
            test_modules.push(name.to_string());
        }
        i = j;
    }
    (kept, test_modules, whole)
}

// ---- resolving paths -------------------------------------------------------

/// One `use` tree's leaves: the segments as written and the name the leaf
/// is imported as.
fn use_tree(
    tokens: &[Token],
    mut at: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    if is_punct(tokens, at, '{') {
        at += 1;
        while at < tokens.len() && !is_punct(tokens, at, '}') {
            at = use_tree(tokens, at, prefix, out);
            if is_punct(tokens, at, ',') {
                at += 1;
            }
        }
        return at + 1;
    }
    let mut path = prefix.to_vec();
    loop {
        match tokens.get(at).map(|t| &t.tok) {
            Some(Tok::Ident(name)) => {
                // `self` in a group names the group's own module.
                if !(name == "self" && !path.is_empty() && path.len() == prefix.len()) {
                    path.push(name.clone());
                }
                at += 1;
            }
            Some(Tok::Punct('*')) => {
                out.push((path, String::new()));
                return at + 1;
            }
            Some(Tok::Punct('{')) => return use_tree(tokens, at, &path, out),
            _ => break,
        }
        if tokens.get(at).map(|t| &t.tok) == Some(&Tok::Sep) {
            at += 1;
        } else {
            break;
        }
    }
    let mut name = path.last().cloned().unwrap_or_default();
    if ident_at(tokens, at) == Some("as") {
        name = ident_at(tokens, at + 1).unwrap_or_default().to_string();
        at += 2;
    }
    out.push((path, name));
    at
}

/// `segments` as written in `module`, made absolute, where they can be:
/// `crate::`, `super::`, `self::`, the binary's `mastermind_hooks::`, a
/// child module, or a module imported by name (`aliases`).
fn absolute(
    module: &[String],
    segments: &[String],
    aliases: &BTreeMap<String, Vec<String>>,
    modules: &BTreeMap<Vec<String>, String>,
) -> Option<Vec<String>> {
    let (first, rest) = segments.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => vec![],
        "mastermind_hooks" if module == ["main"] => vec![],
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        name => {
            let mut child = module.to_vec();
            child.push(name.to_string());
            if let Some(target) = aliases.get(name) {
                target.clone()
            } else if modules.contains_key(&child) {
                child
            } else {
                return None;
            }
        }
    };
    let mut rest = rest.iter().peekable();
    while rest.peek().is_some_and(|s| *s == "super") {
        base.pop();
        rest.next();
    }
    base.extend(rest.cloned());
    Some(base)
}

/// Every path in `tokens` that names a module of the crate: (line, the path
/// as written, the absolute path).
fn imports(
    module: &[String],
    tokens: &[Token],
    modules: &BTreeMap<Vec<String>, String>,
) -> Vec<(usize, String, Vec<String>)> {
    // Modules imported by name (`use crate::contract::mastermind::spec;`,
    // `use crate::artifact::{self, Kind};`), for paths through them.
    let mut aliases = BTreeMap::new();
    for (at, token) in tokens.iter().enumerate() {
        if token.tok != Tok::Ident("use".into()) {
            continue;
        }
        let mut leaves = Vec::new();
        use_tree(tokens, at + 1, &[], &mut leaves);
        for (segments, name) in leaves {
            if let Some(path) = absolute(module, &segments, &aliases, modules)
                && let Some((_, true)) = longest_module(&path, modules)
                && !name.is_empty()
            {
                aliases.insert(name, path);
            }
        }
    }
    let mut found = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let starts_path = matches!(tokens[at].tok, Tok::Ident(_))
            && tokens.get(at + 1).map(|t| &t.tok) == Some(&Tok::Sep)
            && !(at > 0 && tokens[at - 1].tok == Tok::Sep)
            // `pub(in crate::x)` is a visibility, not an import.
            && !(at > 0 && tokens[at - 1].tok == Tok::Ident("in".into()) && is_punct(tokens, at.wrapping_sub(2), '('));
        if !starts_path {
            at += 1;
            continue;
        }
        let mut leaves = Vec::new();
        let next = use_tree(tokens, at, &[], &mut leaves);
        for (segments, _) in leaves {
            if let Some(path) = absolute(module, &segments, &aliases, modules) {
                found.push((tokens[at].line, segments.join("::"), path));
            }
        }
        at = next.max(at + 1);
    }
    found
}

/// Tarjan's strongly connected components, each sorted.
fn strongly_connected<'a>(next: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        components: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(v: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in next.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.components.push(component);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    let nodes: BTreeSet<&str> = next
        .iter()
        .flat_map(|(v, ws)| std::iter::once(*v).chain(ws.iter().copied()))
        .collect();
    for v in nodes {
        if !state.index.contains_key(v) {
            visit(v, next, &mut state);
        }
    }
    state.components
}
