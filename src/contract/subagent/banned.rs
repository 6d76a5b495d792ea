//! Tokens a subagent return must not contain: leftovers of earlier schema
//! revisions (contract B.6). Every key and string value is scanned, so each
//! hit has a JSON pointer.

use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// Which token set applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenSet {
    /// Every schema-routed return.
    Common,
    /// Reviewer and phase-validator returns: also `nice-to-have`,
    /// `greenlight-with-notes` and a top-level `notes`.
    ReviewerFamily,
}

/// One banned token found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub pointer: String,
    pub token: String,
}

static LEGACY_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^A-Za-z0-9])((?:AF|P4|REG)-[A-Z0-9]+(?:-[A-Z0-9]+)*|BUG-[0-9]{3,})").unwrap()
});

const BRACKETS: &[&str] = &["[p0]", "[blocker]", "[no-impact]"];
const REVIEWER_WORDS: &[&str] = &["nice-to-have", "greenlight-with-notes"];
const RATIONALISATION: &str = "no-new-tests-by-rationalisation";

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn scan_text(text: &str, set: TokenSet, pointer: &str, hits: &mut Vec<Hit>) {
    let lower = text.to_lowercase();
    let mut hit = |token: &str| {
        hits.push(Hit {
            pointer: pointer.to_string(),
            token: token.to_string(),
        })
    };
    if lower.contains(RATIONALISATION) {
        hit(RATIONALISATION);
    }
    for bracket in BRACKETS {
        if lower.contains(bracket) {
            hit(bracket);
        }
    }
    if let Some(found) = LEGACY_ID.captures(text).and_then(|c| c.get(1)) {
        hit(found.as_str());
    }
    if set == TokenSet::ReviewerFamily {
        for word in REVIEWER_WORDS {
            if lower.contains(word) {
                hit(word);
            }
        }
    }
}

fn walk(value: &Value, set: TokenSet, pointer: &mut String, hits: &mut Vec<Hit>) {
    match value {
        Value::String(text) => scan_text(text, set, pointer, hits),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                walk(item, set, pointer, hits);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape(key));
                scan_text(key, set, pointer, hits);
                walk(item, set, pointer, hits);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Every banned token in `document`, in document order.
pub fn scan(document: &Value, set: TokenSet) -> Vec<Hit> {
    let mut hits = Vec::new();
    let mut pointer = String::new();
    walk(document, set, &mut pointer, &mut hits);
    for status in ["/handover/status", "/status"] {
        if document.pointer(status).and_then(Value::as_str) == Some("no-new-tests") {
            hits.push(Hit {
                pointer: status.to_string(),
                token: "no-new-tests".to_string(),
            });
        }
    }
    if set == TokenSet::ReviewerFamily && document.get("notes").is_some() {
        hits.push(Hit {
            pointer: "/notes".to_string(),
            token: "top-level `notes`".to_string(),
        });
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tokens(document: Value, set: TokenSet) -> Vec<(String, String)> {
        scan(&document, set)
            .into_iter()
            .map(|h| (h.pointer, h.token))
            .collect()
    }

    #[test]
    fn each_banned_token_is_found_with_its_pointer() {
        let hit = |p: &str, t: &str| (p.to_string(), t.to_string());
        assert_eq!(
            tokens(json!({"summary": "see AF-12"}), TokenSet::Common),
            vec![hit("/summary", "AF-12")]
        );
        assert_eq!(
            tokens(
                json!({"ids": ["P4-CART-BUG-03", "REG-AB-01", "BUG-123"]}),
                TokenSet::Common
            ),
            vec![
                hit("/ids/0", "P4-CART-BUG-03"),
                hit("/ids/1", "REG-AB-01"),
                hit("/ids/2", "BUG-123")
            ]
        );
        assert_eq!(
            tokens(json!({"t": "- **x** [Blocker] y"}), TokenSet::Common),
            vec![hit("/t", "[blocker]")]
        );
        assert_eq!(
            tokens(
                json!({"reason": "no-new-tests-by-rationalisation"}),
                TokenSet::Common
            ),
            vec![hit("/reason", RATIONALISATION)]
        );
        assert_eq!(
            tokens(
                json!({"handover": {"status": "no-new-tests"}}),
                TokenSet::Common
            ),
            vec![hit("/handover/status", "no-new-tests")]
        );
        assert_eq!(
            tokens(
                json!({"summary": "a nice-to-have", "notes": []}),
                TokenSet::ReviewerFamily
            ),
            vec![
                hit("/summary", "nice-to-have"),
                hit("/notes", "top-level `notes`")
            ]
        );
    }

    #[test]
    fn near_misses_are_clean() {
        for document in [
            json!({"id": "j-login-4-1-R-01", "summary": "LEAF-12 and REGEX and p4-lower"}),
            json!({"summary": "a nice-to-have", "notes": []}),
            json!({"tests": [{"notes": "flaky once"}]}),
            json!({"status": "no-new-tests-needed"}),
        ] {
            assert!(
                tokens(document.clone(), TokenSet::Common).is_empty(),
                "{document}"
            );
        }
        assert!(tokens(json!({"tests": [{"notes": "x"}]}), TokenSet::ReviewerFamily).is_empty());
    }
}
