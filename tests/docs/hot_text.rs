//! build/hot-text.ld, the linker script build.rs passes for release builds,
//! may only order code: one output section of input-section patterns, put
//! before `.text`. Anything else a hand edit or a broken generator could add
//! (discarding sections, keeping them, assignments, other sections) would
//! change what the linker builds, so it fails here first.

const SCRIPT: &str = "build/hot-text.ld";

#[test]
fn the_hot_text_script_only_orders_code() {
    let text = std::fs::read_to_string(SCRIPT).expect(SCRIPT);
    let body_start = text.find("*/\n").expect("the generated header comment") + 3;
    let body: Vec<&str> = text[body_start..].lines().collect();
    assert_eq!(
        body[..3],
        ["SECTIONS", "{", "  .text.hot : {"],
        "{SCRIPT}: opening"
    );
    assert_eq!(
        body[body.len() - 3..],
        ["  }", "}", "INSERT BEFORE .text;"],
        "{SCRIPT}: closing"
    );
    let patterns = &body[3..body.len() - 3];
    assert!(
        patterns.len() > 100,
        "{SCRIPT}: only {} patterns",
        patterns.len()
    );
    for line in patterns {
        let rust = line
            .strip_prefix("    *(.text.")
            .and_then(|rest| rest.strip_suffix("*)"))
            .and_then(|rest| rest.split_once("* .text.unlikely."));
        if let Some((name, cold)) = rust {
            assert_eq!(name, cold, "{SCRIPT}: two names in {line}");
            assert!(
                name.starts_with("_ZN") || name.starts_with("_R"),
                "{SCRIPT}: not a Rust function: {line}"
            );
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_$.*".contains(c)),
                "{SCRIPT}: unexpected character in {line}"
            );
            continue;
        }
        // C code: a start file or an archive's member, by name.
        let file = line
            .strip_prefix("    *")
            .and_then(|rest| rest.strip_suffix("(.text .text.*)"))
            .unwrap_or_else(|| panic!("{SCRIPT}: not an input-section pattern: {line}"));
        assert!(
            file.ends_with(".o")
                && file
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.*:+-".contains(c)),
            "{SCRIPT}: not an object file or archive member: {line}"
        );
    }
}
