//! Documentation stays true: the book's reason-code page is exactly what
//! `mastermind-hooks codes` prints. Refresh with `UPDATE_DOCS=1 cargo test --test docs`.

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
