//! The five plastic roles that send completion reports, and the spellings
//! that map onto them (`plastic-executor`, `spec-specialist`, ...).

use std::fmt;

/// A canonical plastic role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Why exploration.
    Brainstorming,
    /// Why to How: the spec specialist.
    Spec,
    /// How: the plan.
    Planner,
    /// Exec: the code.
    Executor,
    /// The final gate: an independent reviewer.
    Reviewer,
}

impl Role {
    pub const ALL: &'static [Role] = &[
        Role::Brainstorming,
        Role::Spec,
        Role::Planner,
        Role::Executor,
        Role::Reviewer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Brainstorming => "brainstorming",
            Role::Spec => "spec",
            Role::Planner => "planner",
            Role::Executor => "executor",
            Role::Reviewer => "reviewer",
        }
    }

    /// Map a role as written (`--role` or the report's Role field) onto a
    /// canonical role: case-insensitive, Markdown emphasis and backticks
    /// ignored, `plastic-` prefix dropped, `spec-specialist` is `spec`,
    /// `final reviewer` is `reviewer`. A value like `executor (Exec)` is read
    /// by its first word.
    pub fn parse(text: &str) -> Option<Role> {
        let cleaned: String = text
            .chars()
            .filter(|c| !matches!(c, '*' | '`' | '_' | '"' | '\''))
            .collect::<String>()
            .trim()
            .to_lowercase();
        let exact = |name: &str| {
            let name = name.strip_prefix("plastic-").unwrap_or(name);
            match name {
                "brainstorming" => Some(Role::Brainstorming),
                "spec" | "spec-specialist" | "spec specialist" => Some(Role::Spec),
                "planner" => Some(Role::Planner),
                "executor" => Some(Role::Executor),
                "reviewer" | "final reviewer" | "final-reviewer" => Some(Role::Reviewer),
                _ => None,
            }
        };
        exact(&cleaned).or_else(|| {
            // The first role named in the value (`the executor`, `Executor
            // agent (plastic-executor)`), a two-word name first.
            let words: Vec<&str> = cleaned
                .split(|c: char| {
                    c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | ':' | '/')
                })
                .filter(|w| !w.is_empty())
                .collect();
            (0..words.len()).find_map(|i| {
                words
                    .get(i..i + 2)
                    .and_then(|pair| exact(&pair.join(" ")))
                    .or_else(|| exact(words[i]))
            })
        })
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_map_onto_the_five_roles() {
        for (text, role) in [
            ("executor", Role::Executor),
            ("plastic-executor", Role::Executor),
            ("Plastic-Planner", Role::Planner),
            ("`plastic-spec-specialist`", Role::Spec),
            ("spec-specialist", Role::Spec),
            ("spec", Role::Spec),
            ("**brainstorming**", Role::Brainstorming),
            ("final reviewer (final gate)", Role::Reviewer),
            ("reviewer", Role::Reviewer),
            ("executor (Exec)", Role::Executor),
            ("the executor", Role::Executor),
            ("Executor agent (plastic-executor)", Role::Executor),
            ("plastic planner", Role::Planner),
        ] {
            assert_eq!(Role::parse(text), Some(role), "{text}");
        }
        for text in [
            "enforcer",
            "plastic-enforcer",
            "n/a",
            "",
            "exec",
            "plastic-node-work",
        ] {
            assert_eq!(Role::parse(text), None, "{text}");
        }
        for &role in Role::ALL {
            assert_eq!(Role::parse(role.name()), Some(role));
        }
    }
}
