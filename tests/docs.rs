//! Documentation stays true: README's reason-code table is exactly what
//! `mastermind-hooks codes` prints. Refresh with `UPDATE_README=1 cargo test --test docs`.

const BEGIN: &str = "<!-- codes:begin -->\n";
const END: &str = "<!-- codes:end -->";

#[test]
fn readme_lists_every_reason_code() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let start = readme.find(BEGIN).expect("codes:begin marker") + BEGIN.len();
    let end = readme.find(END).expect("codes:end marker");
    let table = mastermind_hooks::commands::codes::markdown_table();
    if readme[start..end] != table {
        if std::env::var_os("UPDATE_README").is_some() {
            let updated = format!("{}{}{}", &readme[..start], table, &readme[end..]);
            std::fs::write("README.md", updated).expect("write README.md");
        } else {
            panic!(
                "README.md's reason-code table is stale: run UPDATE_README=1 cargo test --test docs"
            );
        }
    }
}

#[test]
fn changelog_mentions_the_current_version() {
    let changelog = std::fs::read_to_string("CHANGELOG.md").expect("CHANGELOG.md");
    assert!(changelog.contains(env!("CARGO_PKG_VERSION")));
}
