//! How a schema's `pattern` becomes a regex in this build.
//!
//! The release binary builds the `regex` crate with its Unicode Perl
//! classes (`\s`, `\w`, `\d`) and without its other Unicode tables (case
//! folding, general categories, scripts). Those tables are arrays of slices:
//! every entry is a pointer the loader relocates when the position-
//! independent binary starts, about 160 KB of relocated data (about 40
//! page faults) paid by every hook run whether or not a regex is ever
//! compiled (development chapter, issue 29). Without the case-folding table a
//! case-insensitive group cannot be compiled by the crate, so the one form
//! the embedded schemas use, a group of ASCII words such as
//! `(?i:held|drift|broken)`, is written out here with each letter as the
//! class of every character that folds to it (Unicode's simple case
//! folding, as the crate would have matched it: `k` also matches the Kelvin
//! sign U+212A and `s` the long s U+017F). Any other case-insensitive form,
//! and any `\p{..}` class, is refused with an error, so a schema edit that
//! needs a table this build lacks fails when the schema is compiled (a unit
//! test compiles every embedded schema) instead of matching differently.

/// The regex source for the schema pattern `source`: case-insensitive
/// groups of ASCII words written out letter by letter; every other part as
/// written.
pub fn regex_source(source: &str) -> Result<String, String> {
    if source.contains("\\p") || source.contains("\\P") {
        return Err(format!(
            "`{source}`: Unicode property classes (\\p{{..}}) are not built into this binary"
        ));
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("(?") {
        let (before, group) = rest.split_at(at);
        out.push_str(before);
        let escaped = before.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1;
        let (flags, after_flags) = group[2..].split_at(
            group[2..]
                .find(|c| !"imsxuUR-".contains(c))
                .unwrap_or(group.len() - 2),
        );
        if escaped || !flags.contains('i') || !after_flags.starts_with([':', ')']) {
            out.push_str("(?");
            rest = &group[2..];
            continue;
        }
        let body = match (flags, after_flags.strip_prefix(':')) {
            ("i", Some(body)) => body,
            _ => return Err(unsupported(source)),
        };
        let Some(end) = body.find(')') else {
            return Err(format!("`{source}`: unclosed `(?i:` group"));
        };
        let words = &body[..end];
        if !words
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '|' | '_' | '-'))
        {
            return Err(unsupported(source));
        }
        out.push_str("(?:");
        for c in words.chars() {
            push_folded(&mut out, c);
        }
        out.push(')');
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Why the case-insensitive part of `source` cannot be compiled here.
fn unsupported(source: &str) -> String {
    format!(
        "`{source}`: only a `(?i:...)` group of ASCII words can be case-insensitive in this build"
    )
}

/// `c` as the class of every character whose simple case folding equals
/// its own; characters without case as themselves.
fn push_folded(out: &mut String, c: char) {
    if !c.is_ascii_alphabetic() {
        out.push(c);
        return;
    }
    out.push('[');
    out.push(c.to_ascii_lowercase());
    out.push(c.to_ascii_uppercase());
    match c.to_ascii_lowercase() {
        'k' => out.push_str("\\x{212A}"),
        's' => out.push_str("\\x{17F}"),
        _ => {}
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        regex::Regex::new(&regex_source(pattern).unwrap())
            .unwrap()
            .is_match(text)
    }

    #[test]
    fn patterns_without_case_insensitive_groups_are_kept_as_written() {
        for source in [
            "^[a-z0-9_]+$",
            "^j-[a-z0-9-]+-[0-9]+-[0-9]+-R-[0-9]{2}$",
            "^perf-reviewer-(phase[1-7]|pass-(load|stress|spike|soak))$",
            "^(?:a|b)\\s+$",
            "^([0-9]+m)?([0-9]+s)?$",
        ] {
            assert_eq!(regex_source(source).unwrap(), source);
        }
    }

    #[test]
    fn a_case_insensitive_group_of_words_matches_as_unicode_case_folding_did() {
        let pattern = "^(?i:held|drift|broken)$";
        for text in ["held", "HELD", "Drift", "bRoKeN", "bro\u{212A}en"] {
            assert!(matches(pattern, text), "{text}");
        }
        for text in ["hel", "heldx", " held", "broke n", "b\u{0280}oken"] {
            assert!(!matches(pattern, text), "{text}");
        }
        assert!(matches("^(?i:ss)$", "\u{17F}S"));
        // An escaped parenthesis opens no group.
        assert_eq!(regex_source(r"^a\(?i:b$").unwrap(), r"^a\(?i:b$");
        assert!(matches("^(?i:a-b_1)$", "A-B_1"));
    }

    /// Each written-out letter matches exactly the characters the regex
    /// crate's own Unicode case folding matches for it (tests build the
    /// crate with its tables, through the dev-dependencies), over every
    /// character of the planes that have case.
    #[test]
    fn the_written_out_letters_equal_the_crates_own_folding() {
        let letters: Vec<char> = ('a'..='z').collect();
        let alternation = |folded: bool| {
            let groups: Vec<String> = letters
                .iter()
                .map(|l| {
                    let mut one = String::new();
                    if folded {
                        push_folded(&mut one, *l);
                    } else {
                        one = format!("(?i:{l})");
                    }
                    format!("({one})")
                })
                .collect();
            regex::Regex::new(&format!("^(?:{})$", groups.join("|"))).unwrap()
        };
        let (own, written) = (alternation(false), alternation(true));
        let which = |re: &regex::Regex, text: &str| {
            re.captures(text)
                .and_then(|c| (1..=letters.len()).find(|i| c.get(*i).is_some()))
        };
        let mut buffer = [0u8; 4];
        let mut folding = 0;
        for c in (0u32..0x2_0000).filter_map(char::from_u32) {
            let text = c.encode_utf8(&mut buffer);
            let expected = which(&own, text);
            assert_eq!(expected, which(&written, text), "{c:?}");
            folding += usize::from(expected.is_some());
        }
        assert_eq!(
            folding, 54,
            "52 ASCII letters, the Kelvin sign and the long s"
        );
    }

    #[test]
    fn other_case_insensitive_forms_and_property_classes_are_refused() {
        for source in [
            "(?i)abc",
            "^(?i:a.c)$",
            "^(?i:[a-c])$",
            "^(?i:é)$",
            "^(?mi:a)$",
            "\\p{L}+",
            "\\PL",
            "^(?i:abc",
        ] {
            assert!(regex_source(source).is_err(), "{source}");
        }
    }
}
