//! `check --push` (pre-push): every pushed ref lands on what the remote
//! already has. git gives one `<local ref> <local id> <remote ref> <remote
//! id>` line per ref on stdin; what the remote has comes from the remote
//! itself (`git ls-remote`), never from local remote-tracking refs, which
//! anyone with the working copy can move. A new ref lands on the newest
//! commit of the remote's default branch that it contains, and the
//! default branch only moves forward.

use super::destination::{Destination, branch_of_ref};
use super::judge::{Collected, judge};
use super::{At, Landing, Target, ViewKind, is_zero, steps};
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::repo::remote;
use crate::repo::tree::short;
use crate::repo::{Repo, RepoError};
use gix::ObjectId;
use std::io::Read;

/// One line of git's pre-push input.
struct PushLine {
    local_ref: String,
    local: String,
    remote_ref: String,
    remote: String,
}

fn parse_push_input(input: &str) -> Result<Vec<PushLine>, Diagnostic> {
    let mut lines = Vec::new();
    for (number, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let valid_id =
            |s: &str| (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
        if fields.len() != 4 || !valid_id(fields[1]) || !valid_id(fields[3]) {
            return Err(Diagnostic::new(
                Code::usage_invalid,
                format!(
                    "pre-push input line {} is not `<local ref> <local id> <remote ref> <remote id>`: {line:?}",
                    number + 1
                ),
            ));
        }
        lines.push(PushLine {
            local_ref: fields[0].to_string(),
            local: fields[1].to_string(),
            remote_ref: fields[2].to_string(),
            remote: fields[3].to_string(),
        });
    }
    Ok(lines)
}

/// One ref update to judge: the commits from what the other side already
/// has to `tip`. Shared by `--push` and `--receive`.
pub struct Update {
    /// The protected target: the ref's old tip, or for a new ref the
    /// default branch's tip (`None`: nothing there yet).
    pub target: Option<ObjectId>,
    /// Landed history the other side already has (the target, the default
    /// branch's tip): never part of the change.
    pub hidden: Vec<ObjectId>,
    pub tip: ObjectId,
    /// The branch being updated (for the untasked policy).
    pub branch: Option<String>,
    pub label: String,
    /// The default branch's tip, when `tip` shares no history with it.
    pub unrelated_to: Option<ObjectId>,
}

impl Update {
    /// The update of a ref from `old` (none: a new ref) to `tip`, on a
    /// remote whose default branch is at `default_tip` (`updates_default`:
    /// this ref is that branch).
    pub fn new(
        repo: &Repo,
        old: Option<ObjectId>,
        tip: ObjectId,
        default_tip: Option<ObjectId>,
        updates_default: bool,
        branch: Option<String>,
        label: String,
    ) -> Result<Update, RepoError> {
        let mut hidden: Vec<ObjectId> = old.into_iter().collect();
        let default_tip = default_tip.filter(|id| repo.has_commit(*id));
        hidden.extend(default_tip.filter(|d| Some(*d) != old));
        let unrelated_to = match default_tip {
            Some(default) if !updates_default && repo.merge_base(default, tip)?.is_none() => {
                Some(default)
            }
            _ => None,
        };
        Ok(Update {
            target: old.or(default_tip),
            hidden,
            tip,
            branch,
            label,
            unrelated_to,
        })
    }

    /// The update as a landing: its commits on its target, whose
    /// configuration is in force.
    pub fn landing(self, repo: &Repo, kind: ViewKind) -> Result<Landing, RepoError> {
        let steps = steps::commits(repo, &[self.tip], &self.hidden)?;
        let base_label = match self.target {
            Some(id) => format!("commit {}", short(id)),
            None => "the empty tree (nothing on the remote yet)".to_string(),
        };
        let target = Target::at(repo, self.target, base_label.clone())?;
        let tip = At::Tree(repo.commit_tree(self.tip)?);
        let tip_label = format!("commit {}", short(self.tip));
        Ok(Landing {
            kind,
            target,
            base: self.target,
            base_label,
            steps,
            heads: vec![self.tip],
            unrelated_to: self.unrelated_to,
            pending: None,
            lands: tip,
            lands_label: tip_label.clone(),
            tip,
            tip_label,
            branch: self.branch,
            label: Some(self.label),
            identity: Default::default(),
            destination: None,
            landed_locally: None,
        })
    }
}

/// How to check a branch by hand, for `check --push` run outside git.
const PUSH_BY_HAND: &str = "To check a branch by hand, run `mastermind-hooks check --ci --base origin/main --head HEAD`; to replay a push, pipe git's lines (`<local ref> <local sha> <remote ref> <remote sha>`) into `mastermind-hooks check --push REMOTE URL`.";

fn branch_of(refname: &str) -> String {
    refname
        .strip_prefix("refs/heads/")
        .unwrap_or(refname)
        .to_string()
}

/// Judge every ref of the push git describes on stdin.
pub fn check(
    repo: &Repo,
    remote: Option<&str>,
    url: Option<&str>,
    out: &mut Collected,
) -> Result<(), RepoError> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        out.note(
            Diagnostic::new(
                Code::usage_invalid,
                "check --push reads the ref lines git gives a pre-push hook on stdin, and stdin is a terminal: there is no push to check, so nothing was checked",
            )
            .with_hint(PUSH_BY_HAND),
        );
        return Ok(());
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        out.note(Diagnostic::new(
            Code::usage_invalid,
            format!("cannot read git's pre-push lines from stdin: {e}"),
        ));
        return Ok(());
    }
    let lines = match parse_push_input(&input) {
        Ok(lines) => lines,
        Err(d) => {
            out.note(d);
            return Ok(());
        }
    };
    if lines.is_empty() {
        out.note(
            Diagnostic::new(
                Code::push_no_refs,
                "git passed no ref lines on stdin: nothing is being pushed, so nothing was checked",
            )
            .with_hint(PUSH_BY_HAND),
        );
    }
    let pushed: Vec<&PushLine> = lines.iter().filter(|l| !is_zero(&l.local)).collect();
    if pushed.is_empty() {
        return Ok(());
    }
    // What the remote already has, from the remote itself: local
    // remote-tracking refs are anyone's to write.
    let advertised = match url.or(remote) {
        Some(place) => remote::advertised(repo, place),
        None => Err(RepoError::new(
            Code::push_base_unknown,
            "check --push needs the remote (git passes its name and URL to pre-push)",
        )),
    };
    for line in pushed {
        let label = format!(
            "{} -> {}{}",
            line.local_ref,
            remote.map(|r| format!("{r} ")).unwrap_or_default(),
            line.remote_ref
        );
        let Some(tip) = repo.commit_of(&line.local)? else {
            out.note(super::not_a_commit(&line.remote_ref, &line.local));
            continue;
        };
        let old = if is_zero(&line.remote) {
            None
        } else {
            ObjectId::from_hex(line.remote.as_bytes())
                .ok()
                .filter(|id| repo.has_commit(*id))
        };
        if old.is_none() && !is_zero(&line.remote) {
            out.note(Diagnostic::new(
                Code::git_revision_unknown,
                format!(
                    "the remote's {} is at {}, which this repository does not have; fetch first (`git fetch`), then push again",
                    line.remote_ref, line.remote
                ),
            ));
            continue;
        }
        // As pre-receive does: the remote's default branch only moves
        // forward (a forced update would drop work that has landed).
        if let (Ok(refs), Some(old)) = (&advertised, old)
            && refs.default_ref.as_deref() == Some(line.remote_ref.as_str())
            && !repo.is_ancestor(old, tip)?
        {
            out.note(
                Diagnostic::new(
                    Code::default_branch_rewritten,
                    format!(
                        "{label}: {} is the remote's default branch and {} does not contain its tip {}: the forced update would drop work that has landed",
                        line.remote_ref,
                        short(tip),
                        short(old)
                    ),
                )
                .with_hint(format!(
                    "merge or rebase onto {} (`git pull --rebase`) and push without --force",
                    short(old)
                )),
            );
            continue;
        }
        // The protected target: the ref's old tip, or for a new ref the
        // remote's default branch as it is now (its tip must be here).
        let default_tip = match (&advertised, old) {
            (Ok(refs), None) => match refs.default_target(repo) {
                Ok(tip) => tip,
                Err(e) => {
                    out.fail(e);
                    continue;
                }
            },
            (Ok(refs), Some(_)) => refs.default_tip,
            (Err(_), Some(_)) => None,
            (Err(e), None) => {
                out.note(e.to_diagnostic());
                continue;
            }
        };
        let updates_default = advertised
            .as_ref()
            .is_ok_and(|refs| refs.default_ref.as_deref() == Some(line.remote_ref.as_str()));
        let update = Update::new(
            repo,
            old,
            tip,
            default_tip,
            updates_default,
            Some(branch_of(&line.remote_ref)),
            label,
        )?;
        let mut landing = update.landing(repo, ViewKind::Push)?;
        // The branch pushed from (the agent recognisers' and
        // `source_branches`' branch), and the remote's default branch,
        // where the planning findings read a task's landed spec and report.
        landing.identity.source_branch = line
            .local_ref
            .strip_prefix("refs/heads/")
            .map(str::to_string);
        landing.identity.protected = advertised
            .as_ref()
            .ok()
            .and_then(|refs| refs.default_tip)
            .filter(|id| repo.has_commit(*id));
        // Where the push lands: the pushed branch, beside the remote's
        // default branch (its own HEAD). Unless it is protected, its work is
        // work in progress; a tag, or a remote that names no default
        // branch, is judged strictly.
        landing.destination = branch_of_ref(&line.remote_ref).map(|branch| {
            let default = advertised
                .as_ref()
                .ok()
                .and_then(|refs| refs.default_ref.as_deref())
                .and_then(branch_of_ref)
                .map(str::to_string);
            Destination::branch(branch, default)
        });
        judge(repo, &landing, out);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_lines_parse_and_reject_garbage() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let lines = parse_push_input(&format!(
            "refs/heads/a {one} refs/heads/a {zero}\n\nrefs/heads/b {zero} refs/heads/b {one}\n"
        ))
        .unwrap();
        assert_eq!(lines.len(), 2);
        assert!(is_zero(&lines[0].remote) && is_zero(&lines[1].local));
        assert_eq!(lines[0].remote_ref, "refs/heads/a");
        assert!(is_zero(&"0".repeat(64)));
        assert!(!is_zero(""), "an empty id is no id, not the zero id");
        assert!(parse_push_input("refs/heads/a abc refs/heads/a def\n").is_err());
        assert!(parse_push_input("one two three\n").is_err());
    }

    #[test]
    fn branch_names_drop_the_heads_prefix_only() {
        assert_eq!(branch_of("refs/heads/feature/x"), "feature/x");
        assert_eq!(branch_of("refs/tags/v1"), "refs/tags/v1");
    }
}
