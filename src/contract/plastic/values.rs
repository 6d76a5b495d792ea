//! One normalisation for every value of a completion report: emphasis,
//! backticks, quotes and a final period do not matter, case does not
//! matter, `none` and `n/a` (and their spellings: `None.`, `(none)`, `N/A`,
//! `no deviations`) mean "does not apply", and numbers are read however
//! they are written (`2/3`, `2 of 3`, `checked: 2, total: 3`, `two of
//! three`).

/// A value with markup dropped and whitespace collapsed: `**Delivered.**`
/// is `delivered`. Lower case.
pub fn normalize(value: &str) -> String {
    let cleaned: String = value
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '"' | '\u{201c}' | '\u{201d}'))
        .collect();
    let cleaned = cleaned
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let cleaned = cleaned.trim_matches(|c: char| c == '_' || c == '\'' || c.is_whitespace());
    cleaned.trim_end_matches(['.', '!']).trim().to_string()
}

/// The first line of a value that has text.
fn first_line(value: &str) -> &str {
    value
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

/// The words of a normalised value: runs of letters, digits, `/`, `-`,
/// `.` and `'` (so `n/a`, `non-goals` and `don't` stay whole).
pub fn tokens(normalized: &str) -> Vec<&str> {
    normalized
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '/' | '-' | '.' | '\'')))
        .map(|t| t.trim_matches(['.', '-', '\'']))
        .filter(|t| !t.is_empty())
        .collect()
}

const NONE_WORDS: &[&str] = &[
    "none", "n/a", "na", "n.a", "nil", "nothing", "no", "not", "-",
];

/// True when the value says the field does not apply: it starts with
/// `none`, `n/a`, `nil`, `nothing`, `not applicable` or `no <thing>`
/// (`No deviations.`, `None this turn`, `(none)`, `—`), but not `none of`.
pub fn is_not_applicable(value: &str) -> bool {
    let line = first_line(value);
    let normalized = normalize(line.trim_start_matches(['-', '*', '+', ' ']));
    let normalized = normalized.trim_start_matches('(');
    if normalized.is_empty() || matches!(normalized, "\u{2014}" | "\u{2013}" | "-" | "(none)") {
        return !line.is_empty();
    }
    let words = tokens(normalized);
    let Some(first) = words.first() else {
        return false;
    };
    let second = words.get(1).copied();
    match *first {
        "not" => second.is_some_and(|w| matches!(w, "applicable" | "relevant" | "needed")),
        "none" | "nothing" => second != Some("of") && second != Some("but"),
        "no" => second.is_some(),
        word => NONE_WORDS.contains(&word) && !matches!(word, "no" | "not"),
    }
}

/// True when the first word of a value is `word` (`delivered`,
/// `Delivered ✅`, `delivered (6/6 items)`, `delivered and verified`), not
/// a longer word (`delivered-ish`).
pub fn starts_with_word(value: &str, word: &str) -> bool {
    let normalized = normalize(first_line(value));
    let normalized = normalized.trim_start_matches(|c: char| !c.is_alphanumeric());
    tokens(normalized).first() == Some(&word)
}

/// The first word of a value, when it is `word` exactly and what follows
/// it is nothing, or an aside after punctuation (`pass — all criteria
/// hold`, `delivered (6/6)`), never more words (`pass with notes`).
pub fn is_word_then_aside(value: &str, word: &str) -> bool {
    let normalized = normalize(first_line(value));
    let normalized = normalized.trim_start_matches(|c: char| !c.is_alphanumeric());
    let Some(rest) = normalized.strip_prefix(word) else {
        return false;
    };
    // After a space, anything but another word is an aside (`pass —
    // all hold`, `pass ✅`, `pass 5/5`); a dash is an aside only when
    // spaced (`delivered-ish` is another word).
    rest.is_empty()
        || rest.starts_with(" - ")
        || rest.starts_with(|c: char| {
            matches!(
                c,
                '(' | '[' | ',' | ';' | ':' | '.' | '\u{2014}' | '\u{2013}' | '|'
            )
        })
        || (rest.starts_with(char::is_whitespace)
            && !rest.trim_start().starts_with(char::is_alphabetic))
}

const UNITS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: &[&str] = &[
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// A number written in words (`seven`, `twenty-one`, `forty two`), with the
/// count of tokens it used.
fn word_number(tokens: &[&str]) -> Option<(u64, usize)> {
    let first = *tokens.first()?;
    if let Some(n) = UNITS.iter().position(|w| *w == first) {
        return Some((n as u64, 1));
    }
    let (tens, unit) = match first.split_once('-') {
        Some((tens, unit)) => (tens, Some(unit)),
        None => (first, None),
    };
    let t = TENS.iter().position(|w| !w.is_empty() && *w == tens)? as u64 * 10;
    let unit_of = |w: &str| {
        UNITS[1..10]
            .iter()
            .position(|u| *u == w)
            .map(|p| p as u64 + 1)
    };
    match unit {
        Some(unit) => Some((t + unit_of(unit)?, 1)),
        None => match tokens.get(1).and_then(|w| unit_of(w)) {
            Some(u) => Some((t + u, 2)),
            None => Some((t, 1)),
        },
    }
}

/// A piece of a value read for numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Number(u64),
    Word(String),
    Slash,
}

fn pieces(value: &str) -> Vec<Piece> {
    let lower = normalize(value);
    let mut raw: Vec<String> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, raw: &mut Vec<String>| {
        if !current.is_empty() {
            raw.push(std::mem::take(current));
        }
    };
    for c in lower.chars() {
        if c.is_ascii_digit() {
            if current.chars().next().is_some_and(|f| !f.is_ascii_digit()) {
                flush(&mut current, &mut raw);
            }
            current.push(c);
        } else if c.is_alphabetic() || c == '-' {
            if current.chars().next().is_some_and(|f| f.is_ascii_digit()) {
                flush(&mut current, &mut raw);
            }
            current.push(c);
        } else {
            flush(&mut current, &mut raw);
            if c == '/' {
                raw.push("/".to_string());
            }
        }
    }
    flush(&mut current, &mut raw);
    let raw: Vec<&str> = raw
        .iter()
        .map(|s| s.trim_matches('-'))
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut index = 0;
    while index < raw.len() {
        let token = raw[index];
        if token == "/" {
            out.push(Piece::Slash);
            index += 1;
        } else if let Ok(n) = token.parse::<u64>() {
            out.push(Piece::Number(n));
            index += 1;
        } else if let Some((n, used)) = word_number(&raw[index..]) {
            out.push(Piece::Number(n));
            index += used;
        } else {
            out.push(Piece::Word(token.to_string()));
            index += 1;
        }
    }
    out
}

/// Every number in a value, digits or words, in order.
pub fn numbers(value: &str) -> Vec<u64> {
    pieces(value)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Number(n) => Some(n),
            _ => None,
        })
        .collect()
}

const CHECKED_WORDS: &[&str] = &[
    "checked",
    "done",
    "complete",
    "completed",
    "implemented",
    "ticked",
    "finished",
];
const TOTAL_WORDS: &[&str] = &["total", "items", "overall"];

/// A checklist progress count `(checked, total)` however it is written:
/// `2/3`, `2 / 3`, `2 of 3`, `2 out of 3`, `checked 2 / total 3`,
/// `checked: 2, total: 3`, `2 checked, 3 total`, `two of three`.
pub fn progress(value: &str) -> Option<(u64, u64)> {
    let pieces = pieces(value);
    let number_at = |i: usize| match pieces.get(i) {
        Some(Piece::Number(n)) => Some(*n),
        _ => None,
    };
    let word_at = |i: usize| match pieces.get(i) {
        Some(Piece::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    // Labelled counts: `checked 2, total 3` (numbers after their words) or
    // `2 checked, 3 total` (before), as the `total` word shows.
    let labelled = |names: &[&str], after: bool| {
        (0..pieces.len()).find_map(|i| {
            let word = word_at(i)?;
            if !names.contains(&word) {
                return None;
            }
            if after {
                number_at(i + 1)
            } else {
                i.checked_sub(1).and_then(number_at)
            }
        })
    };
    for after in [true, false] {
        if let (Some(checked), Some(total)) =
            (labelled(CHECKED_WORDS, after), labelled(&["total"], after))
        {
            return Some((checked, total));
        }
    }
    // `A / B`, `A of B`, `A out of B`.
    for i in 0..pieces.len() {
        let Some(checked) = number_at(i) else {
            continue;
        };
        let total = match (pieces.get(i + 1), word_at(i + 2)) {
            (Some(Piece::Slash), _) => number_at(i + 2),
            (Some(Piece::Word(w)), _) if w == "of" => number_at(i + 2),
            (Some(Piece::Word(w)), Some("of")) if w == "out" => number_at(i + 3),
            _ => None,
        };
        if let Some(total) = total {
            return Some((checked, total));
        }
    }
    // `2 checked, 3 items`.
    for after in [false, true] {
        if let (Some(checked), Some(total)) =
            (labelled(CHECKED_WORDS, after), labelled(TOTAL_WORDS, after))
        {
            return Some((checked, total));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_normalisation() {
        assert_eq!(normalize("**Delivered.**"), "delivered");
        assert_eq!(normalize("`blocked`"), "blocked");
        assert_eq!(normalize("  _Pass_ "), "pass");
        for word in [
            "delivered",
            "Delivered",
            "**delivered**",
            "delivered.",
            "`DELIVERED`",
        ] {
            assert!(is_word_then_aside(word, "delivered"), "{word}");
        }
        assert!(is_word_then_aside("pass — all five criteria hold", "pass"));
        assert!(is_word_then_aside("✅ pass", "pass"));
        assert!(is_word_then_aside("delivered (6/6 items)", "delivered"));
        assert!(is_word_then_aside("pass ✅", "pass"));
        assert!(starts_with_word("Delivered ✅", "delivered"));
        assert!(starts_with_word("delivered and verified", "delivered"));
        assert!(!starts_with_word("delivered-ish", "delivered"));
        assert!(!starts_with_word("undelivered", "delivered"));
        assert!(!is_word_then_aside("pass with notes", "pass"));
        assert!(!is_word_then_aside("delivered-ish", "delivered"));
        assert!(!is_word_then_aside("passed", "pass"));
    }

    #[test]
    fn not_applicable_spellings() {
        for value in [
            "none",
            "None.",
            "NONE",
            "n/a",
            "N/A",
            "`n/a`",
            "(none)",
            "n/a (no code written)",
            "None this turn",
            "No deviations.",
            "no blockers; watch n3",
            "Nothing to report",
            "not applicable",
            "—",
            "none — nothing new",
            "NA",
        ] {
            assert!(is_not_applicable(value), "{value}");
        }
        for value in [
            "none of the tests failed",
            "leases first (autonomous)",
            "no",
            "notes below",
            "nonexistent path",
            "",
            "node-graph runner",
        ] {
            assert!(!is_not_applicable(value), "{value}");
        }
    }

    #[test]
    fn numbers_in_digits_and_words() {
        assert_eq!(numbers("214 runs, 0 failures"), [214, 0]);
        assert_eq!(numbers("seven criteria"), [7]);
        assert_eq!(numbers("twenty-one tests, forty two assertions"), [21, 42]);
        assert!(numbers("all green").is_empty());
        assert!(numbers("someone").is_empty());
    }

    #[test]
    fn progress_however_written() {
        for (value, expected) in [
            ("2/3", (2, 3)),
            ("2 / 3", (2, 3)),
            ("2 of 3", (2, 3)),
            ("2 out of 3 items", (2, 3)),
            ("checked 2 / total 3", (2, 3)),
            ("checked: 2, total: 3", (2, 3)),
            ("Checked: 2 · Total: 3", (2, 3)),
            ("2 checked, 3 total", (2, 3)),
            ("two of three", (2, 3)),
            (
                "ACTION_1, ACTION_2 -> items 1-2 checked off (2 / 6)",
                (2, 6),
            ),
            ("n1 and n2 done: 5/12 checked", (5, 12)),
            ("twelve of twelve", (12, 12)),
        ] {
            assert_eq!(progress(value), Some(expected), "{value}");
        }
        assert_eq!(progress("most of them"), None);
        assert_eq!(progress("ACTION_1 and ACTION_2"), None);
    }
}
