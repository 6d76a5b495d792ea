//! Where the agent's work lands, as the remote reports it: the stop hook
//! judges everything since the merge base with the remote's default branch
//! (and with the upstream, whichever is older), so a push of the agent's
//! own branch (`git push -u`, which makes the upstream the agent's tip) or a
//! moved remote-tracking ref (`git update-ref refs/remotes/origin/main
//! HEAD`, `git remote set-head`) hides nothing.
//!
//! The remote is asked once per session (`git ls-remote --symref`, bounded
//! by a deadline and killed past it) and the answer remembered in the agent
//! hooks' state under the git directory (one small file per remote, the
//! latest session's); it is asked again only when the
//! clone's own tracking ref of that branch has moved since (a fetch, or a
//! hand on the ref). When the remote's tip is not in the clone, it is
//! fetched (objects only: no ref is written). When the remote cannot be
//! asked, the clone's own view stands in, and the reason says so.

use super::facts;
use super::loop_guard::Store;
use crate::repo::Repo;
use crate::repo::remote;
use gix::ObjectId;
use std::path::Path;
use std::time::{Duration, Instant};

/// The longest the remote is waited for at one stop.
const ASK_BUDGET: Duration = Duration::from_secs(15);

/// The default branch as the stop hook judges against it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// The remote's default branch (its name and tip), when the remote
    /// told and the clone has (or fetched) the tip.
    pub default: Option<(String, ObjectId)>,
    /// Why the clone's own view stands in, when it does.
    pub note: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
struct Remembered {
    version: u32,
    key: String,
    /// The session that asked: another session asks again.
    session: String,
    branch: Option<String>,
    tip: Option<String>,
}

/// The remote the work goes to: the current branch's upstream remote, else
/// `origin`, else the first one.
pub fn remote_of(repo: &Repo) -> Option<String> {
    let gix = repo.gix();
    let names: Vec<String> = gix.remote_names().iter().map(|n| n.to_string()).collect();
    let branch = repo
        .head_ref_name()
        .and_then(|n| n.strip_prefix("refs/heads/").map(str::to_string));
    if let Some(branch) = branch {
        let config = gix.config_snapshot();
        if let Some(name) = config.string(format!("branch.{branch}.remote").as_str()) {
            let name = name.to_string();
            if names.contains(&name) {
                return Some(name);
            }
        }
    }
    if names.iter().any(|n| n == "origin") {
        return Some("origin".to_string());
    }
    names.into_iter().next()
}

fn local_tip(repo: &Repo, remote: &str, branch: &str) -> Option<ObjectId> {
    repo.resolve_commit(&format!("refs/remotes/{remote}/{branch}"))
        .ok()
}

/// Ask `remote` for its default branch: `(branch, tip)`, `None` when it
/// has none (an empty remote).
fn ask_remote(
    dir: &Path,
    remote: &str,
    deadline: Instant,
) -> Result<Option<(String, ObjectId)>, String> {
    let output = facts::git(dir, &["ls-remote", "--symref", "--", remote], deadline)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("`git ls-remote {remote}` failed"))?;
    let advertised = remote::parse(&String::from_utf8_lossy(&output));
    Ok(match (advertised.default_ref, advertised.default_tip) {
        (Some(name), Some(tip)) => Some((
            name.strip_prefix("refs/heads/")
                .unwrap_or(&name)
                .to_string(),
            tip,
        )),
        _ => None,
    })
}

/// The landing target for the stop of `session`, within `deadline`.
pub fn ask(repo: &Repo, store: Option<&Store>, session: &str, deadline: Instant) -> Target {
    let Some(remote) = remote_of(repo) else {
        return Target::default(); // no remote: the clone's own default branch
    };
    let dir = repo.workdir().unwrap_or(repo.git_dir()).to_path_buf();
    // One record per remote (the latest session's), so the state stays
    // one small file however many sessions come.
    let key = format!("landing-target:{remote}");
    let remembered: Option<Remembered> = store
        .and_then(|s| s.load_bytes(&key).ok().flatten())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(|r: &Remembered| r.version == 1 && r.key == key && r.session == session);
    let from_memory = |r: &Remembered| -> Option<(String, ObjectId)> {
        let tip = ObjectId::from_hex(r.tip.as_ref()?.as_bytes()).ok()?;
        Some((r.branch.clone()?, tip))
    };
    // The remembered answer holds while the clone's tracking ref of that
    // branch has not moved away from it.
    let fresh = remembered.as_ref().is_some_and(|r| match from_memory(r) {
        Some((branch, tip)) => local_tip(repo, &remote, &branch).is_none_or(|local| local == tip),
        None => true,
    });
    let answer = if fresh {
        Ok(remembered.as_ref().and_then(from_memory))
    } else {
        let asked = ask_remote(&dir, &remote, deadline.min(Instant::now() + ASK_BUDGET));
        if let (Ok(told), Some(store)) = (&asked, store) {
            let record = Remembered {
                version: 1,
                key: key.clone(),
                session: session.to_string(),
                branch: told.as_ref().map(|(b, _)| b.clone()),
                tip: told.as_ref().map(|(_, t)| t.to_string()),
            };
            if let Ok(bytes) = serde_json::to_vec(&record) {
                let _ = store.save_bytes(&key, &bytes);
            }
        }
        match (asked, remembered.as_ref().and_then(from_memory)) {
            (Ok(told), _) => Ok(told),
            (Err(_), Some(known)) => Ok(Some(known)),
            (Err(why), None) => Err(why),
        }
    };
    match answer {
        Err(why) => Target {
            default: None,
            note: Some(format!(
                "the remote `{remote}` could not be asked for its default branch ({why}), so this clone's own view of it stands in"
            )),
        },
        Ok(None) => Target::default(),
        Ok(Some((branch, tip))) => {
            if !repo.has_commit(tip) {
                let hex = tip.to_string();
                let _ = facts::git(
                    &dir,
                    &[
                        "fetch",
                        "--quiet",
                        "--no-tags",
                        "--no-write-fetch-head",
                        &remote,
                        &hex,
                    ],
                    deadline.min(Instant::now() + ASK_BUDGET),
                );
            }
            if repo.has_commit(tip) {
                Target {
                    default: Some((branch, tip)),
                    note: None,
                }
            } else {
                Target {
                    default: None,
                    note: Some(format!(
                        "the remote `{remote}` reports its default branch {branch} at {tip}, which this clone lacks and could not fetch, so this clone's own view of it stands in (`git fetch {remote}` brings it)"
                    )),
                }
            }
        }
    }
}
