//! The two small diffs messages show: a unified diff of two sorted path
//! sets (declared scope against changed paths), and a character diff of a
//! short text against what it should be (`[-removed-]{+added+}`). Written
//! here because both inputs are small and simple: a general diff library
//! cost more to build than everything it did for the gate.

use std::collections::BTreeSet;
use std::fmt::Write;

/// A unified diff (`--- left`, `+++ right`, one hunk with every line as
/// context) of two sorted sets of lines; empty when they are equal. Lines
/// of `old` only are `-`, lines of `new` only are `+`, and within a run of
/// changes between two common lines the removals come first.
pub fn sorted_sets(old: &BTreeSet<&str>, new: &BTreeSet<&str>, left: &str, right: &str) -> String {
    if old == new {
        return String::new();
    }
    let mut body = String::new();
    let (mut removed, mut added): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let flush = |body: &mut String, removed: &mut Vec<&str>, added: &mut Vec<&str>| {
        for line in removed.drain(..) {
            let _ = writeln!(body, "-{line}");
        }
        for line in added.drain(..) {
            let _ = writeln!(body, "+{line}");
        }
    };
    let (mut a, mut b) = (old.iter().peekable(), new.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x == y => {
                flush(&mut body, &mut removed, &mut added);
                let _ = writeln!(body, " {x}");
                a.next();
                b.next();
            }
            (Some(x), Some(y)) if x < y => {
                removed.push(x);
                a.next();
            }
            (Some(_), Some(y)) => {
                added.push(y);
                b.next();
            }
            (Some(x), None) => {
                removed.push(x);
                a.next();
            }
            (None, Some(y)) => {
                added.push(y);
                b.next();
            }
            (None, None) => break,
        }
    }
    flush(&mut body, &mut removed, &mut added);
    format!(
        "--- {left}\n+++ {right}\n@@ -{} +{} @@\n{body}",
        range(old.len()),
        range(new.len())
    )
}

/// A hunk range over a whole file of `len` lines, as unified diffs write it:
/// `1` for one line, `1,N` for more, `0,0` for none.
fn range(len: usize) -> String {
    match len {
        0 => "0,0".to_string(),
        1 => "1".to_string(),
        n => format!("1,{n}"),
    }
}

/// Above this many cells the character diff gives up on finding the
/// smallest change and shows the differing middle whole.
const MAX_CELLS: usize = 1 << 22;

/// `actual` as it must change to become `expected`, character by character:
/// kept text as it is, `[-removed-]` and `{+added+}`. A smallest change
/// (a longest common subsequence), matching characters as early as possible.
pub fn inline(actual: &str, expected: &str) -> String {
    let a: Vec<char> = actual.chars().collect();
    let b: Vec<char> = expected.chars().collect();
    // What both share at the ends needs no table.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out = String::new();
    out.extend(&a[..prefix]);
    let mut ops = Vec::with_capacity(mid_a.len() + mid_b.len());
    if (mid_a.len() + 1).saturating_mul(mid_b.len() + 1) > MAX_CELLS {
        ops.extend(mid_a.iter().map(|c| (Op::Remove, *c)));
        ops.extend(mid_b.iter().map(|c| (Op::Add, *c)));
    } else {
        lcs_ops(mid_a, mid_b, &mut ops);
    }
    let mut open: Option<Op> = None;
    for (op, c) in ops {
        if open != Some(op) {
            close(&mut out, open);
            match op {
                Op::Remove => out.push_str("[-"),
                Op::Add => out.push_str("{+"),
                Op::Keep => {}
            }
            open = Some(op);
        }
        out.push(c);
    }
    close(&mut out, open);
    out.extend(&a[a.len() - suffix..]);
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

fn close(out: &mut String, open: Option<Op>) {
    match open {
        Some(Op::Remove) => out.push_str("-]"),
        Some(Op::Add) => out.push_str("+}"),
        _ => {}
    }
}

/// The edit of `a` into `b` along a longest common subsequence: a table of
/// the LCS of every pair of suffixes, walked from the start, keeping a
/// character as soon as both sides have it and removing before adding.
fn lcs_ops(a: &[char], b: &[char], ops: &mut Vec<(Op, char)>) {
    let width = b.len() + 1;
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((Op::Keep, a[i]));
            i += 1;
            j += 1;
        } else if j == b.len()
            || (i < a.len() && table[(i + 1) * width + j] >= table[i * width + j + 1])
        {
            ops.push((Op::Remove, a[i]));
            i += 1;
        } else {
            ops.push((Op::Add, b[j]));
            j += 1;
        }
    }
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
    fn a_character_diff_keeps_the_earliest_match() {
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
}
