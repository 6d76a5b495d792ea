//! Documentation stays true: the book's reason-code page is exactly what
//! `mastermind-hooks codes` prints. Refresh with `UPDATE_DOCS=1 cargo test --test docs`.
//! `architecture` holds the source to the layers the development chapter
//! draws.
//!
//! One test binary: `cargo test --test docs [filter]`.

mod architecture;

const BEGIN: &str = "<!-- codes:begin -->\n";
const END: &str = "<!-- codes:end -->";
const CODES_PAGE: &str = "docs/src/codes.md";

#[test]
fn the_book_lists_every_reason_code() {
    let readme = std::fs::read_to_string(CODES_PAGE).expect(CODES_PAGE);
    let start = readme.find(BEGIN).expect("codes:begin marker") + BEGIN.len();
    let end = readme.find(END).expect("codes:end marker");
    let table = mastermind_hooks::commands::codes::markdown_table();
    if readme[start..end] != table {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let updated = format!("{}{}{}", &readme[..start], table, &readme[end..]);
            std::fs::write(CODES_PAGE, updated).expect("write the codes page");
        } else {
            panic!("docs/src/codes.md is stale: run UPDATE_DOCS=1 cargo test --test docs");
        }
    }
}

#[test]
fn changelog_mentions_the_current_version() {
    let changelog = std::fs::read_to_string("CHANGELOG.md").expect("CHANGELOG.md");
    assert!(changelog.contains(env!("CARGO_PKG_VERSION")));
}

/// The documents a reader follows: README, the book, the example's guide.
fn documents() -> Vec<std::path::PathBuf> {
    let mut docs = vec![
        std::path::PathBuf::from("README.md"),
        "examples/README.md".into(),
        "CHANGELOG.md".into(),
    ];
    let mut chapters: Vec<_> = std::fs::read_dir("docs/src")
        .expect("docs/src")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

/// Text outside fenced code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
        match &fence {
            None if ticks >= 3 => fence = Some("`".repeat(ticks)),
            Some(open) if trimmed.trim_end() == open => fence = None,
            None => {
                out.push_str(line);
                out.push('\n');
            }
            Some(_) => {}
        }
    }
    out
}

/// mdBook's heading ids: lowercase; letters, digits, `_` and `-` kept;
/// spaces become `-`; everything else dropped.
fn heading_ids(text: &str) -> Vec<String> {
    prose(text)
        .lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|heading| {
            heading
                .trim_start_matches('#')
                .trim()
                .chars()
                .filter_map(|c| match c {
                    c if c.is_alphanumeric() || c == '_' || c == '-' => {
                        Some(c.to_lowercase().next().unwrap_or(c))
                    }
                    c if c.is_whitespace() => Some('-'),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_link_and_named_file_in_the_documents_exists() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let named = regex::Regex::new(
        r"`((?:src|tests|docs|examples|schemas|hooks|ci-templates|bench|fuzz|\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_]|\.pre-commit-hooks\.yaml|Cargo\.toml|CHANGELOG\.md)`",
    )
    .unwrap();
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("read document");
        let dir = doc.parent().unwrap_or(std::path::Path::new(""));
        let prose = prose(&text);
        for target in link.captures_iter(&prose).map(|c| c[1].to_string()) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.clone()
            } else {
                dir.join(path)
            };
            if !file.exists() {
                broken.push(format!("{}: link to missing {target}", doc.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let ids = heading_ids(&std::fs::read_to_string(&file).unwrap_or_default());
                if !ids.iter().any(|id| id == anchor) {
                    broken.push(format!(
                        "{}: no heading #{anchor} in {}",
                        doc.display(),
                        file.display()
                    ));
                }
            }
        }
        for path in named.captures_iter(&prose).map(|c| c[1].to_string()) {
            if !std::path::Path::new(&path).exists() {
                broken.push(format!(
                    "{}: names `{path}`, which the repository lacks",
                    doc.display()
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken references:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_book_summary_lists_every_chapter_once() {
    let summary = std::fs::read_to_string("docs/src/SUMMARY.md").expect("SUMMARY.md");
    let link = regex::Regex::new(r"\]\(([^)#]+\.md)\)").unwrap();
    let listed: Vec<String> = link
        .captures_iter(&summary)
        .map(|c| c[1].to_string())
        .collect();
    let mut chapters: Vec<String> = documents()
        .iter()
        .filter(|p| p.starts_with("docs/src") && !p.ends_with("SUMMARY.md"))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    chapters.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, chapters, "SUMMARY.md and docs/src/ disagree");
    let book = std::fs::read_to_string("docs/book.toml").expect("book.toml");
    assert!(book.contains("src = \"src\""));
}

#[test]
fn install_points_at_recipes_the_book_has() {
    use mastermind_hooks::install::managers::Manager;
    for manager in Manager::ALL {
        let (file, anchor) = manager.recipe_anchor().split_once('#').expect("an anchor");
        let ids = heading_ids(&std::fs::read_to_string(file).expect(file));
        assert!(
            ids.iter().any(|id| id == anchor),
            "{}",
            manager.recipe_anchor()
        );
        let chapter = std::fs::read_to_string(file).expect(file);
        for line in manager
            .recipe()
            .lines()
            .filter(|l| l.contains("mastermind-hooks check"))
        {
            let command = &line[line.find("mastermind-hooks check").unwrap_or(0)..];
            let command = command.trim_end_matches(['"', '}', ' ']);
            assert!(chapter.contains(command), "{manager:?}: {command}");
        }
    }
}

/// Every attack of the threat model's table names the tests that draw it
/// (`module::test` of the `gate` binary), and each of them exists: a row
/// nobody tests is a promise nobody keeps.
#[test]
fn every_row_of_the_threat_model_names_tests_that_exist() {
    let text = std::fs::read_to_string("docs/src/threat-model.md").expect("threat model");
    let start = text.find("| attack |").expect("the attack table");
    let named = regex::Regex::new(r"`([a-z_0-9]+)::([a-z_0-9]+)`").unwrap();
    let mut rows = 0;
    let mut problems = Vec::new();
    for line in text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
    {
        rows += 1;
        let cells: Vec<&str> = line.split(" | ").collect();
        let tested = cells.last().copied().unwrap_or_default();
        let tests: Vec<(String, String)> = named
            .captures_iter(tested)
            .map(|c| (c[1].to_string(), c[2].to_string()))
            .collect();
        if tests.is_empty() {
            problems.push(format!("no test named: {line}"));
        }
        for (module, test) in tests {
            let file = format!("tests/gate/{module}.rs");
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            if !source.contains(&format!("#[test]\nfn {test}()")) {
                problems.push(format!("{file} has no test `{test}`"));
            }
        }
    }
    assert!(rows > 30, "the table was not found whole ({rows} rows)");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
