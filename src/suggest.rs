//! "Did you mean": the known word closest to a misspelt one, when it is close
//! enough to be a likely typo. Pure.

/// The candidate nearest to `word` by edit distance (ties: the first), if it
/// is within a third of the longer word's length (at least one edit) and is
/// not `word` itself. Case differences count as one edit each.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let distance = strsim::damerau_levenshtein(word, candidate);
        let longer = word.chars().count().max(candidate.chars().count());
        if distance > (longer / 3).max(1) {
            continue;
        }
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// ` (did you mean `x`?)`, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|near| format!(" (did you mean `{near}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["require_task", "receipts", "severity", "exclude", "version"];

    #[test]
    fn typos_find_their_word_and_strangers_find_nothing() {
        let near = |w| closest(w, KEYS.iter().copied());
        assert_eq!(near("requre_task"), Some("require_task"));
        assert_eq!(near("require-task"), Some("require_task"));
        assert_eq!(near("reciepts"), Some("receipts"));
        assert_eq!(near("Severity"), Some("severity"));
        assert_eq!(near("excludes"), Some("exclude"));
        assert_eq!(near("surprise"), None);
        assert_eq!(near("x"), None);
        assert_eq!(near("severity"), None, "an exact match is no suggestion");
        assert_eq!(closest("a", []), None);
        assert_eq!(
            did_you_mean("verison", KEYS.iter().copied()),
            " (did you mean `version`?)"
        );
    }
}
