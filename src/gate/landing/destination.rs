//! Where a landing lands (DESIGN.md section 5, "Where work lands"): the
//! branch a commit, a push, a pre-receive update or a CI run changes, and
//! the repository's default branch as the mode knows it.
//!
//! Whether that branch is protected is the configuration's to say, read
//! from the protected target like every key: the default branch always is,
//! and `protected_branches` adds globs (`main` and `develop` for git-flow,
//! `release/*`). A landing on a protected branch is judged strictly; on any
//! other branch it is work in progress ([`crate::gate::work_in_progress`]),
//! for anyone's work. A mode that cannot tell which branch a change lands
//! on (a detached HEAD, a tag, CI by hand), or that does not know the
//! default branch for a branch no pattern names, judges strictly.

use crate::config::Globs;

/// The branch a landing changes, as its mode knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The branch's short name (`main`, `release/1.x`).
    pub branch: String,
    /// The repository's default branch as the mode knows it (the server's
    /// `HEAD`, the remote's, the platform's, the clone's); `None`: unknown.
    pub default_branch: Option<String>,
    /// How the mode names the branch in messages: `branch feature`, `the
    /// pushed branch feature`, `the pull request's target branch feature`.
    pub subject: String,
}

impl Destination {
    /// A destination named `branch <branch>` in messages.
    pub fn branch(branch: impl Into<String>, default_branch: Option<String>) -> Destination {
        let branch = branch.into();
        Destination {
            subject: format!("branch {branch}"),
            branch,
            default_branch,
        }
    }

    /// True when the branch is protected: the default branch, or a branch
    /// `protected` names.
    pub fn is_protected(&self, protected: &Globs) -> bool {
        protected.is_match(&self.branch) || self.default_branch.as_deref() == Some(&self.branch)
    }

    /// Why the landing is work in progress: its branch is not protected.
    /// `None` where it is protected, or where the default branch is
    /// unknown (it could be this branch: strict).
    pub fn unprotected(&self, protected: &Globs) -> Option<String> {
        if self.is_protected(protected) {
            return None;
        }
        let default = self.default_branch.as_deref()?;
        let patterns = protected.patterns();
        Some(if patterns.is_empty() {
            format!(
                "{} is not the default branch {default}, the only protected branch",
                self.subject
            )
        } else {
            format!(
                "{} is neither the default branch {default} nor one of protected_branches ({})",
                self.subject,
                patterns.join(", ")
            )
        })
    }
}

/// The short name of a branch ref (`refs/heads/x` is `x`); `None` for
/// anything else (tags, notes, other refs).
pub fn branch_of_ref(refname: &str) -> Option<&str> {
    refname
        .strip_prefix("refs/heads/")
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn protected(text: &str) -> Globs {
        Config::parse(text.as_bytes(), "t")
            .unwrap()
            .protected_branches
    }

    #[test]
    fn the_default_branch_is_always_protected_and_the_list_adds_branches() {
        let none = protected("");
        let flow = protected("protected_branches: [main, develop, 'release/*']\n");
        let at = |branch: &str| Destination::branch(branch, Some("develop".to_string()));
        assert_eq!(at("develop").unprotected(&none), None);
        assert_eq!(at("develop").unprotected(&flow), None);
        assert!(
            at("main")
                .unprotected(&none)
                .is_some_and(|why| why.contains("branch main is not the default branch develop"))
        );
        assert_eq!(at("main").unprotected(&flow), None);
        assert_eq!(at("release/1.x").unprotected(&flow), None);
        assert_eq!(
            at("release/1.x/hotfix").unprotected(&flow),
            None,
            "`*` crosses `/`, as in a rule's `branches`: more is protected, never less"
        );
        assert_eq!(at("Release/2").unprotected(&flow), None, "case-insensitive");
        let why = at("feature/x").unprotected(&flow).unwrap();
        assert!(
            why.contains("branch feature/x is neither the default branch develop nor one of protected_branches (main, develop, release/*)"),
            "{why}"
        );
    }

    #[test]
    fn an_unknown_default_branch_is_strict_unless_a_pattern_decides() {
        let flow = protected("protected_branches: ['release/*']\n");
        let unknown = |branch: &str| Destination::branch(branch, None);
        assert_eq!(unknown("feature").unprotected(&flow), None);
        assert_eq!(unknown("release/1").unprotected(&flow), None);
    }

    #[test]
    fn only_branch_refs_have_a_branch() {
        assert_eq!(branch_of_ref("refs/heads/release/1.x"), Some("release/1.x"));
        assert_eq!(branch_of_ref("refs/tags/v1"), None);
        assert_eq!(branch_of_ref("refs/heads/"), None);
        assert_eq!(branch_of_ref("main"), None);
    }
}
