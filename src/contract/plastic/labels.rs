//! Labels matched by meaning. Plastic fixes what a completion report says,
//! not the words of its labels: the contract document's own wording ("Actions
//! implemented this turn, mapped to checklist items checked off"), its
//! rephrasings ("Implemented actions", "Checklist progress"), word order and
//! punctuation all name the same part.
//!
//! A label is reduced to its content words (lower case, split on anything
//! that is not a letter or digit, a parenthesised aside and stop words
//! dropped). A [`Concept`] has signatures, each a list of stem groups that
//! must all be present (a word matches a stem when it starts with it), and a
//! vocabulary of words its wording uses. A label names the concept whose
//! signature scores highest, provided few of its words are left unexplained
//! by the concept's stems and vocabulary.

/// One way to name a concept: every group must match a word; the score
/// says how specific the signature is.
pub type Signature = (u8, &'static [&'static [&'static str]]);

/// What a label can name.
#[derive(Debug)]
pub struct Concept {
    pub signatures: &'static [Signature],
    /// Words (stems) of the concept's wording that explain a label's words
    /// without scoring.
    pub vocabulary: &'static [&'static str],
}

/// How a label matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    /// The signature's score.
    pub score: u8,
    /// Content words the concept does not explain.
    pub unexplained: usize,
}

impl Match {
    /// A match that is unlikely to be prose: a specific signature and every
    /// word explained.
    pub fn is_strong(self) -> bool {
        self.score >= 2 && self.unexplained == 0
    }
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "for", "in", "on", "at", "with", "this", "that",
    "these", "those", "its", "it", "is", "are", "was", "were", "be", "been", "by", "from", "as",
    "so", "per", "each", "any", "all", "every", "one", "line", "what", "which", "who", "when",
    "where", "into", "about", "than", "then", "just", "also", "only", "plus", "our", "my", "your",
    "their", "i", "we", "you", "if", "do", "does", "did", "has", "have", "had", "will", "should",
    "can", "may", "must", "up", "via", "turn", "my", "me", "us", "here", "there", "e", "g", "eg",
    "ie", "etc", "s", "vs",
];

/// Words that name a section of a report, never a field: a label made of
/// them (`## Payload`, `**Envelope**`, `# Completion report`) is a
/// heading.
const STRUCTURAL: &[&str] = &["payload", "envelope", "completion", "report"];

/// The content words of a label as written.
pub fn words(label: &str) -> Vec<String> {
    // A backticked span inside a label is an example value (`Verdict:
    // \`pass\` or \`blockers found\``), unless it is the whole label.
    let without_code = strip_code_spans(label);
    let label = if without_code.chars().any(char::is_alphanumeric) {
        without_code.as_str()
    } else {
        label
    };
    let lower = label.to_lowercase();
    // A parenthesised aside (`(checked / total)`) qualifies the label.
    let mut plain = String::with_capacity(lower.len());
    let mut depth = 0usize;
    for c in lower.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let plain = plain
        .replace("hand-off", "handoff")
        .replace("hand off", "handoff");
    plain
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// The label without its backticked spans.
fn strip_code_spans(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut inside = false;
    for c in label.chars() {
        if c == '`' {
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out
}

/// True when a label names a section of the report (`Payload`, `Common
/// envelope`, `Completion report`), not a field.
pub fn is_structural(label: &str) -> bool {
    let words = words(label);
    !words.is_empty()
        && (words
            .iter()
            .any(|w| matches_stem(w, "payload") || matches_stem(w, "envelope"))
            || words
                .iter()
                .all(|w| STRUCTURAL.iter().any(|s| matches_stem(w, s))))
}

/// A word matches a stem when it starts with it; a stem ending in `$`
/// matches only the word itself (`ac$` is not `action`).
fn matches_stem(word: &str, stem: &str) -> bool {
    match stem.strip_suffix('$') {
        Some(exact) => word == exact,
        None => word.starts_with(stem),
    }
}

/// How `words` name `concept`, if they do.
pub fn score(concept: &Concept, words: &[String]) -> Option<Match> {
    if words.is_empty()
        || words.len() > 16
        || words
            .iter()
            .all(|w| STRUCTURAL.iter().any(|s| matches_stem(w, s)))
        || words
            .iter()
            .any(|w| matches_stem(w, "payload") || matches_stem(w, "envelope") || w == "completion")
    {
        return None;
    }
    let best = concept
        .signatures
        .iter()
        .filter(|(_, groups)| {
            groups.iter().all(|group| {
                words
                    .iter()
                    .any(|w| group.iter().any(|s| matches_stem(w, s)))
            })
        })
        .map(|(score, _)| *score)
        .max()?;
    let explained = |w: &String| {
        concept
            .signatures
            .iter()
            .flat_map(|(_, groups)| groups.iter())
            .flat_map(|group| group.iter())
            .chain(concept.vocabulary.iter())
            .any(|s| matches_stem(w, s))
    };
    let unexplained = words
        .iter()
        .filter(|w| !explained(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .count();
    Some(Match {
        score: best,
        unexplained,
    })
}

/// The best of `candidates` for a label, when one matches within
/// `max_unexplained`: highest score, then fewest unexplained words, then
/// the earliest candidate.
pub fn best<'a, T: Copy>(
    label: &str,
    candidates: impl IntoIterator<Item = (T, &'a Concept)>,
    max_unexplained: usize,
) -> Option<(T, Match)> {
    let words = words(label);
    let mut best: Option<(T, Match)> = None;
    for (target, concept) in candidates {
        let Some(found) = score(concept, &words) else {
            continue;
        };
        // A generic one-word signature must explain every word.
        if found.unexplained > max_unexplained || (found.score < 2 && found.unexplained > 0) {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, current)) => {
                found.score > current.score
                    || (found.score == current.score && found.unexplained < current.unexplained)
            }
        };
        if better {
            best = Some((target, found));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTIONS: Concept = Concept {
        signatures: &[
            (3, &[&["action"], &["implement", "done"]]),
            (1, &[&["action"]]),
        ],
        vocabulary: &["mapped", "checklist", "item", "checked", "off", "total"],
    };
    const CHECKLIST: Concept = Concept {
        signatures: &[
            (2, &[&["checklist"], &["delta", "checked"]]),
            (1, &[&["checklist"]]),
        ],
        vocabulary: &["item", "off"],
    };

    #[test]
    fn words_drop_asides_stop_words_and_markup() {
        assert_eq!(
            words(
                "Actions implemented this turn, mapped to checklist items checked off (checked / total)"
            ),
            [
                "actions",
                "implemented",
                "mapped",
                "checklist",
                "items",
                "checked",
                "off"
            ]
        );
        assert_eq!(words("**Hand-off notes**"), ["handoff", "notes"]);
        assert_eq!(words("intent_id"), ["intent", "id"]);
        assert_eq!(words("Verdict: `pass` or `blockers found`"), ["verdict"]);
        assert_eq!(words("`Role`"), ["role"]);
    }

    #[test]
    fn the_most_specific_concept_wins() {
        let candidates = || [("actions", &ACTIONS), ("checklist", &CHECKLIST)];
        let pick = |label: &str| best(label, candidates(), 2).map(|(t, _)| t);
        assert_eq!(pick("Actions implemented"), Some("actions"));
        assert_eq!(pick("Implemented actions (3/9)"), Some("actions"));
        assert_eq!(
            pick("Actions implemented this turn, mapped to checklist items checked off"),
            Some("actions")
        );
        assert_eq!(pick("Checklist deltas"), Some("checklist"));
        assert_eq!(pick("Checklist items checked off"), Some("checklist"));
        assert_eq!(pick("The tests were run with cargo"), None);
        assert_eq!(pick("Payload actions"), None);
        let strong = best("Actions implemented", candidates(), 2).unwrap().1;
        assert!(strong.is_strong());
        let weak = best("Actions", candidates(), 2).unwrap().1;
        assert!(!weak.is_strong());
    }
}
