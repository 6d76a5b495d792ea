//! The two diffs messages show, both rendered by the `similar` crate: a
//! unified diff of two sorted path sets (declared scope against changed
//! paths), and a character diff of a short text against what it should be
//! (`[-removed-]{+added+}`).

use similar::{ChangeTag, TextDiff};
use std::collections::BTreeSet;

/// A unified diff (`--- left`, `+++ right`, one hunk with every line as
/// context) of two sorted sets of lines; empty when they are equal.
pub fn sorted_sets(old: &BTreeSet<&str>, new: &BTreeSet<&str>, left: &str, right: &str) -> String {
    if old == new {
        return String::new();
    }
    let lines = |set: &BTreeSet<&str>| -> String { set.iter().map(|p| format!("{p}\n")).collect() };
    let (old, new) = (lines(old), lines(new));
    TextDiff::from_lines(&old, &new)
        .unified_diff()
        // Every line as context: one hunk, the whole of both sets.
        .context_radius(usize::MAX / 4)
        .header(left, right)
        .to_string()
}

/// Above this many cells (characters of one side times the other's) the
/// character diff does not search for the smallest change and shows the
/// differing middle whole: a message never costs quadratic time on a
/// hostile line.
const MAX_CELLS: usize = 1 << 22;

/// `actual` as it must change to become `expected`, character by character:
/// kept text as it is, `[-removed-]` and `{+added+}` (similar's Myers diff
/// of the characters).
pub fn inline(actual: &str, expected: &str) -> String {
    let (a, b) = (actual.chars().count(), expected.chars().count());
    let mut out = String::new();
    if (a + 1).saturating_mul(b + 1) > MAX_CELLS {
        // What both share at the ends, kept; the middle replaced whole.
        let prefix: usize = actual
            .chars()
            .zip(expected.chars())
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| x.len_utf8())
            .sum();
        let (rest_a, rest_b) = (&actual[prefix..], &expected[prefix..]);
        let suffix: usize = rest_a
            .chars()
            .rev()
            .zip(rest_b.chars().rev())
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| x.len_utf8())
            .sum();
        let (mid_a, mid_b) = (
            &rest_a[..rest_a.len() - suffix],
            &rest_b[..rest_b.len() - suffix],
        );
        out.push_str(&actual[..prefix]);
        if !mid_a.is_empty() {
            out.push_str(&format!("[-{mid_a}-]"));
        }
        if !mid_b.is_empty() {
            out.push_str(&format!("{{+{mid_b}+}}"));
        }
        out.push_str(&rest_a[rest_a.len() - suffix..]);
        return out;
    }
    let diff = TextDiff::from_chars(actual, expected);
    let mut open: Option<ChangeTag> = None;
    let close = |out: &mut String, tag: Option<ChangeTag>| match tag {
        Some(ChangeTag::Delete) => out.push_str("-]"),
        Some(ChangeTag::Insert) => out.push_str("+}"),
        _ => {}
    };
    for change in diff.iter_all_changes() {
        let tag = change.tag();
        if open != Some(tag) {
            close(&mut out, open);
            match tag {
                ChangeTag::Delete => out.push_str("[-"),
                ChangeTag::Insert => out.push_str("{+"),
                ChangeTag::Equal => {}
            }
            open = Some(tag);
        }
        out.push_str(change.value());
    }
    close(&mut out, open);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
        items.iter().copied().collect()
    }

    #[test]
    fn a_unified_diff_of_path_sets() {
        assert_eq!(
            sorted_sets(
                &set(&["src/lib.py"]),
                &set(&["src/lib.py", "src/other.py"]),
                "declared",
                "changed"
            ),
            "--- declared\n+++ changed\n@@ -1 +1,2 @@\n src/lib.py\n+src/other.py\n"
        );
        assert_eq!(
            sorted_sets(&set(&["b", "c"]), &set(&["a", "c", "d"]), "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,3 @@\n-b\n+a\n c\n+d\n"
        );
        assert_eq!(
            sorted_sets(&set(&[]), &set(&["a"]), "x", "y"),
            "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n"
        );
        assert_eq!(sorted_sets(&set(&["a"]), &set(&["a"]), "x", "y"), "");
    }

    #[test]
    fn a_character_diff_marks_removals_and_additions() {
        assert_eq!(
            inline(
                "python -m pytest  tests/test_lib.py",
                "python -m pytest tests/test_lib.py"
            ),
            "python -m pytest [- -]tests/test_lib.py"
        );
        assert_eq!(
            inline("make test", "make check"),
            "make [-t-]{+ch+}e[-st-]{+ck+}"
        );
        assert_eq!(inline("abc", "abc"), "abc");
        assert_eq!(inline("", "ab"), "{+ab+}");
        assert_eq!(inline("ab", ""), "[-ab-]");
        assert_eq!(inline("é x", "é y"), "é [-x-]{+y+}");
    }

    #[test]
    fn a_huge_difference_is_shown_whole() {
        let a = "a".repeat(3000) + &"x".repeat(3000);
        let b = "y".repeat(3000);
        let diff = inline(&a, &b);
        assert!(diff.starts_with("[-aaa") && diff.ends_with("yyy+}"));
    }

    /// The text before (`-` and context) and after (`+` and context) a
    /// unified diff's one hunk.
    fn sides(diff: &str) -> (Vec<&str>, Vec<&str>) {
        let body = diff.lines().skip(3);
        let old = body
            .clone()
            .filter_map(|l| l.strip_prefix(' ').or_else(|| l.strip_prefix('-')))
            .collect();
        let new = body
            .filter_map(|l| l.strip_prefix(' ').or_else(|| l.strip_prefix('+')))
            .collect();
        (old, new)
    }

    /// One side of a character diff: `keep` the marked parts of one kind,
    /// drop those of the other.
    fn side(diff: &str, keep: (&str, &str), drop: (&str, &str)) -> String {
        let mut out = String::new();
        let mut rest = diff;
        loop {
            let next_keep = rest.find(keep.0);
            let next_drop = rest.find(drop.0);
            match (next_keep, next_drop) {
                (Some(k), d) if d.is_none_or(|d| k < d) => {
                    out.push_str(&rest[..k]);
                    let inner = &rest[k + keep.0.len()..];
                    let end = inner.find(keep.1).expect("closed");
                    out.push_str(&inner[..end]);
                    rest = &inner[end + keep.1.len()..];
                }
                (_, Some(d)) => {
                    out.push_str(&rest[..d]);
                    let inner = &rest[d + drop.0.len()..];
                    let end = inner.find(drop.1).expect("closed");
                    rest = &inner[end + drop.1.len()..];
                }
                _ => {
                    out.push_str(rest);
                    return out;
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_path_set_diff_holds_both_sets(
            old in proptest::collection::btree_set("[a-d]{1,3}", 0..12),
            new in proptest::collection::btree_set("[a-d]{1,3}", 0..12),
        ) {
            let old: BTreeSet<&str> = old.iter().map(String::as_str).collect();
            let new: BTreeSet<&str> = new.iter().map(String::as_str).collect();
            let diff = sorted_sets(&old, &new, "x", "y");
            if old == new {
                proptest::prop_assert_eq!(diff, "");
            } else {
                proptest::prop_assert!(diff.starts_with("--- x\n+++ y\n@@ -"), "{}", diff);
                let (a, b) = sides(&diff);
                proptest::prop_assert_eq!(a, old.into_iter().collect::<Vec<_>>());
                proptest::prop_assert_eq!(b, new.into_iter().collect::<Vec<_>>());
            }
        }

        #[test]
        fn a_character_diff_holds_both_texts(a in "[ab é]{0,24}", b in "[ab é]{0,24}") {
            let diff = inline(&a, &b);
            proptest::prop_assert_eq!(side(&diff, ("[-", "-]"), ("{+", "+}")), a);
            proptest::prop_assert_eq!(side(&diff, ("{+", "+}"), ("[-", "-]")), b);
        }
    }
}
