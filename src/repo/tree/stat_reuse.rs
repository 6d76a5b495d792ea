//! When a working-tree file need not be read: the stat-reuse rule.
//!
//! Git answers "did this file change?" from the index's stat data: a file
//! whose `lstat` matches its index entry, where the entry is not *racy*, has
//! the entry's blob as its content (git's `Documentation/technical/racy-git`).
//! The working-tree view does the same, more strictly, so that the digest of
//! what is on disk stays exact:
//!
//! * every field is compared (mtime and ctime with nanoseconds, size, inode,
//!   device, uid, gid), whatever `core.trustctime` or `core.checkStat` say;
//!   a stricter rule only costs a read, never a wrong digest;
//! * an entry is racy when its mtime or ctime is not older than the index
//!   file itself (whole seconds, as git without `USE_NSEC`): the file may
//!   have changed in the same tick after it was staged;
//! * a size of 0 recorded for a non-empty blob is git's mark for a racily
//!   clean entry it found modified ("smudged"): never reused;
//! * intent-to-add, skip-worktree and unmerged entries are never reused;
//! * content filters break the rule's premise (the blob is the *cleaned*
//!   content, the digest covers the bytes on disk), so no entry is reused
//!   where a clean conversion could apply: `core.autocrlf` set, or an
//!   attributes file (`.gitattributes` of the path's directories, the
//!   repository's `info/attributes`, the user's and the system's) that sets
//!   or gives a value to `text`, `eol`, `crlf`, `filter`, `ident` or
//!   `working-tree-encoding`, or defines a macro. Unsetting (`-text`,
//!   `binary`) converts nothing and keeps the rule.
//!
//! Pure except for [`Plan::new`] and [`Plan::converting_dirs`], which read
//! the configuration and the attribute files.

use super::super::Repo;
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Flags, Stat};
use std::path::{Path, PathBuf};

/// Attribute files larger than this are not scanned: reuse is turned off
/// where they apply.
const MAX_ATTRIBUTES_BYTES: u64 = 1024 * 1024;

/// The attributes whose presence can make a clean conversion non-identity.
const CONVERTING: &[&str] = &[
    "text",
    "eol",
    "crlf",
    "filter",
    "ident",
    "working-tree-encoding",
];

/// True when an attributes file's text could make git convert content on
/// its way into the index (pure). Comments and blank lines are ignored;
/// unset (`-attr`) and unspecified (`!attr`) states convert nothing; any
/// macro definition is treated as converting (its expansion is not
/// followed).
pub fn attributes_may_convert(text: &[u8]) -> bool {
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        if line.starts_with(b"[attr]") {
            return true;
        }
        // A quoted pattern may hold spaces: skip past its closing quote.
        let rest = if line.starts_with(b"\"") {
            match line[1..].find_byte(b'"') {
                Some(end) => &line[end + 2..],
                None => return true,
            }
        } else {
            match line.find_byteset(b" \t") {
                Some(end) => &line[end..],
                None => continue,
            }
        };
        for token in rest.fields() {
            if token.starts_with(b"-") || token.starts_with(b"!") {
                continue;
            }
            let name = token.split_str("=").next().unwrap_or_default();
            if CONVERTING.iter().any(|c| c.as_bytes() == name) {
                return true;
            }
        }
    }
    false
}

/// The whole-seconds timestamp of the index file and the directories
/// where conversion may apply: everything needed to decide per entry.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// No entry may be reused (configuration or a global attributes file).
    off: bool,
    /// Directory prefixes (ending in `/`, or empty for the root) whose
    /// `.gitattributes` may convert: entries under them are read.
    converting_dirs: Vec<BString>,
    /// The index file's mtime, whole seconds.
    index_secs: i64,
}

/// What reading one attributes file found.
enum Scan {
    Absent,
    Identity,
    MayConvert,
}

fn scan_file(path: &Path) -> Scan {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Scan::Absent,
        Ok(m) if m.is_file() && m.len() <= MAX_ATTRIBUTES_BYTES => {
            match crate::input::read_bounded_no_follow(path, MAX_ATTRIBUTES_BYTES as usize) {
                Ok(bytes) if !attributes_may_convert(&bytes) => Scan::Identity,
                _ => Scan::MayConvert,
            }
        }
        // A directory, link, FIFO or oversize file: git may read it
        // differently from here; assume the worst.
        _ => Scan::MayConvert,
    }
}

fn scan_blob(repo: &gix::Repository, id: ObjectId) -> Scan {
    match repo.find_blob(id) {
        Ok(blob) if !attributes_may_convert(&blob.data) => Scan::Identity,
        _ => Scan::MayConvert,
    }
}

/// The user's attributes file: `core.attributesFile`, else
/// `$XDG_CONFIG_HOME/git/attributes`, else `~/.config/git/attributes`.
fn user_attributes(repo: &Repo) -> Option<PathBuf> {
    let config = repo.gix().config_snapshot();
    if let Some(value) = config.string("core.attributesFile") {
        let value = value.to_str_lossy().into_owned();
        return match value.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
            None => Some(PathBuf::from(value)),
        };
    }
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(|x| PathBuf::from(x).join("git/attributes"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/git/attributes"))
        })
}

/// True when `core.autocrlf` is set to anything but false.
pub fn autocrlf_on(repo: &Repo) -> bool {
    let config = repo.gix().config_snapshot();
    match config.string("core.autocrlf") {
        None => false,
        Some(value) => !matches!(
            value.to_str_lossy().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        ),
    }
}

impl Plan {
    /// Decide what applies to every entry of the index `index`: whether
    /// configuration or a global attributes file turns reuse off, and the
    /// index's timestamp. No directory's `.gitattributes` is looked at yet
    /// ([`Plan::converting_dirs`] finds those), so the plan is provisional
    /// until [`Plan::with_converting`] takes them in.
    pub fn new(repo: &Repo, index: &gix::index::File) -> Plan {
        let index_secs = index.timestamp().unix_seconds();
        let off = autocrlf_on(repo)
            || std::env::var_os("GIT_ATTR_SOURCE").is_some()
            || repo.gix().config_snapshot().string("attr.tree").is_some()
            || [
                Some(repo.gix().common_dir().join("info/attributes")),
                user_attributes(repo),
                Some(PathBuf::from("/etc/gitattributes")),
            ]
            .into_iter()
            .flatten()
            .any(|path| matches!(scan_file(&path), Scan::MayConvert));
        Plan {
            off,
            converting_dirs: Vec::new(),
            index_secs,
        }
    }

    /// The directories (prefixes ending in `/`, or empty for the root) whose
    /// `.gitattributes` may convert, for the index `index` of the working
    /// tree at `root`; `listed`, when the untracked walk read the
    /// directories, says which of them held a `.gitattributes` (a directory
    /// it did not read is looked in). Empty for a plan that is off.
    pub fn converting_dirs(
        &self,
        repo: &gix::Repository,
        root: &Path,
        index: &gix::index::File,
        listed: Option<&super::untracked::ListedDirs>,
    ) -> Vec<BString> {
        if self.off {
            return Vec::new();
        }
        // Every directory holding a tracked file, and its ancestors, may
        // hold a `.gitattributes` (tracked or not, ignored or not): git
        // reads the working tree's copy first, then the index's.
        let mut dirs: std::collections::BTreeSet<&[u8]> = [&b""[..]].into();
        let mut previous: &[u8] = b"";
        for entry in index.entries() {
            let path: &[u8] = entry.path(index);
            let dir = path.rfind_byte(b'/').map_or(&b""[..], |i| &path[..=i]);
            // The index is sorted: most files share the last one's directory.
            if dir == previous {
                continue;
            }
            previous = dir;
            let mut end = 0;
            while let Some(slash) = dir[end..].find_byte(b'/') {
                end += slash + 1;
                dirs.insert(&dir[..end]);
            }
        }
        let mut converting_dirs = Vec::new();
        for dir in dirs {
            let mut rel = BString::from(dir);
            rel.extend_from_slice(b".gitattributes");
            let on_disk = |relative: &Path| match listed.and_then(|l| l.get(dir)) {
                Some(false) => Scan::Absent,
                _ => scan_file(&root.join(relative)),
            };
            let scan = match gix::path::from_bstr(rel.as_bstr()) {
                Ok(relative) => match on_disk(&relative) {
                    Scan::Absent => match index.entry_by_path(rel.as_bstr()) {
                        Some(entry) => scan_blob(repo, entry.id),
                        None => Scan::Absent,
                    },
                    found => found,
                },
                Err(_) => Scan::MayConvert,
            };
            if matches!(scan, Scan::MayConvert) {
                converting_dirs.push(BString::from(dir));
            }
        }
        converting_dirs
    }

    /// The plan with the directories whose `.gitattributes` may convert
    /// ([`Plan::converting_dirs`]): entries under them are read. A
    /// converting root turns reuse off.
    pub fn with_converting(self, converting_dirs: Vec<BString>) -> Plan {
        Plan {
            off: self.off || converting_dirs.iter().any(|d| d.is_empty()),
            converting_dirs,
            index_secs: self.index_secs,
        }
    }

    /// True when no entry at `path` may be reused whatever its stat data
    /// (reuse off, or `path` under a converting directory).
    pub fn converts_under(&self, path: &[u8]) -> bool {
        self.off || self.converting_dirs.iter().any(|d| path.starts_with(d))
    }

    /// A plan that never reuses (for tests and as a fallback).
    pub fn never() -> Plan {
        Plan {
            off: true,
            ..Plan::default()
        }
    }

    /// The stat data of `entry` when it may stand for the file's content:
    /// `None` when the file must be read whatever its stat says.
    pub fn vouching(&self, entry: &gix::index::Entry, path: &[u8]) -> Option<Stat> {
        self.vouching_parts(entry.stat, entry.id, entry.flags, entry.stage_raw(), path)
    }

    /// [`Plan::vouching`] from an entry's parts (pure).
    pub fn vouching_parts(
        &self,
        stat: Stat,
        id: ObjectId,
        flags: Flags,
        stage: u32,
        path: &[u8],
    ) -> Option<Stat> {
        if stage != 0
            || flags.intersects(Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE)
            || self.converts_under(path)
        {
            return None;
        }
        let racy = i64::from(stat.mtime.secs) >= self.index_secs
            || i64::from(stat.ctime.secs) >= self.index_secs;
        let smudged = stat.size == 0 && id != ObjectId::empty_blob(id.kind());
        (!racy && !smudged).then_some(stat)
    }
}

/// True when the disk's stat data is exactly the recorded one (pure).
pub fn stat_matches(recorded: &Stat, disk: &Stat) -> bool {
    recorded == disk
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::index::entry::stat::Time;

    fn stat(mtime: u32, ctime: u32, size: u32) -> Stat {
        Stat {
            mtime: Time {
                secs: mtime,
                nsecs: 5,
            },
            ctime: Time {
                secs: ctime,
                nsecs: 7,
            },
            dev: 1,
            ino: 2,
            uid: 3,
            gid: 4,
            size,
        }
    }

    #[test]
    fn racy_smudged_and_special_entries_never_vouch() {
        let plan = Plan {
            off: false,
            converting_dirs: vec!["conv/".into()],
            index_secs: 1000,
        };
        let blob = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let empty = ObjectId::empty_blob(gix::hash::Kind::Sha1);
        let none = Flags::empty();
        let ok = |s: Stat, id, flags, stage, path: &[u8]| {
            plan.vouching_parts(s, id, flags, stage, path).is_some()
        };
        assert!(ok(stat(999, 999, 10), blob, none, 0, b"a"));
        // Changed in the index's second or later: racy.
        assert!(!ok(stat(1000, 999, 10), blob, none, 0, b"a"));
        assert!(!ok(stat(999, 1000, 10), blob, none, 0, b"a"));
        assert!(!ok(stat(1001, 999, 10), blob, none, 0, b"a"));
        // Size 0 for a non-empty blob: smudged by git. An empty file is fine.
        assert!(!ok(stat(999, 999, 0), blob, none, 0, b"a"));
        assert!(ok(stat(999, 999, 0), empty, none, 0, b"a"));
        assert!(!ok(stat(999, 999, 10), blob, Flags::INTENT_TO_ADD, 0, b"a"));
        assert!(!ok(stat(999, 999, 10), blob, Flags::SKIP_WORKTREE, 0, b"a"));
        assert!(!ok(stat(999, 999, 10), blob, none, 2, b"a"));
        assert!(!ok(stat(999, 999, 10), blob, none, 0, b"conv/a"));
        assert!(ok(stat(999, 999, 10), blob, none, 0, b"conversion"));
        assert!(
            Plan::never()
                .vouching_parts(stat(1, 1, 1), blob, none, 0, b"a")
                .is_none()
        );
    }

    #[test]
    fn only_identical_stat_data_matches() {
        let base = stat(5, 6, 7);
        assert!(stat_matches(&base, &base));
        let mut other = base;
        other.ctime.nsecs += 1;
        assert!(!stat_matches(&base, &other));
        let mut other = base;
        other.ino += 1;
        assert!(!stat_matches(&base, &other));
    }

    #[test]
    fn converting_attributes_are_recognised() {
        for text in [
            "* text=auto\n",
            "*.sh text eol=lf\n",
            "*.txt crlf\n",
            "*.bin filter=lfs diff=lfs merge=lfs -text\n",
            "*.c ident\n",
            "*.utf16 working-tree-encoding=UTF-16\n",
            "[attr]mine text\n",
            "\"a b\" eol=crlf\n",
            "\"unterminated text\n",
        ] {
            assert!(attributes_may_convert(text.as_bytes()), "{text}");
        }
        for text in [
            "",
            "# * text=auto\n",
            "*.png binary\n",
            "*.png -text -diff\n",
            "*.md linguist-documentation diff=markdown\n",
            "*.c !text\n",
            "textfile export-ignore\n",
            "\"text with space\" -text\n",
            "pattern-alone\n",
        ] {
            assert!(!attributes_may_convert(text.as_bytes()), "{text}");
        }
    }
}
