//! The index file's stage-0 files read straight into a [`FileList`], for
//! `check --staged`: one pass over the bytes, where decoding the whole
//! index with gix (every entry's stat data, then a copy of its paths into
//! the list) cost twice as long and twice the memory.
//!
//! Only the layouts `git` writes day to day are read here: versions 2, 3
//! and 4, with the cache-tree extension (`TREE`) and the optional ones the
//! gate does not need (resolve-undo, untracked cache, fsmonitor, the entry
//! offset tables). Anything else (an unmerged path, a sparse directory, a
//! split index, an unknown mandatory extension, a path of 4095 bytes or
//! more, any byte out of place) returns `None`, and the caller decodes the
//! index with gix as before, which gives the error or the view. So this is
//! a fast path with one answer: where it answers, it answers exactly what
//! the gix decoding gives (`tests` compares both).
//!
//! Pure: bytes in, a list out. The trailing checksum is the caller's (the
//! gate verifies it on a thread of its own and voids the run if it fails).

use super::{Entry, FileList, index_mode};
use gix::ObjectId;
use gix::index::extension::Tree as CachedTree;

/// The stage-0 files of an index (intent-to-add entries left out, as git
/// leaves them out of a commit) in index order, and its cached trees.
pub(super) struct Listed {
    pub files: FileList,
    pub cache: Option<CachedTree>,
    /// No intent-to-add nor skip-worktree entry: views may lean on the
    /// cached trees (`super::trusted_cache`).
    pub cache_trusted: bool,
}

/// Entry flag bits as stored (big-endian `u16` after the object id).
const PATH_LEN: u16 = 0x0fff;
const STAGE: u16 = 0x3000;
const EXTENDED: u16 = 0x4000;
/// Extended flag bits (version 3 and later).
const INTENT_TO_ADD: u16 = 0x2000;
const SKIP_WORKTREE: u16 = 0x4000;
/// The bytes of an entry before its object id: ctime, mtime (seconds and
/// nanoseconds each), dev, ino, mode, uid, gid, size.
const STAT_BYTES: usize = 40;
const MODE_AT: usize = 24;

/// Read the index `data` (the whole file) of a repository whose objects
/// are `kind`, or `None` where the gix decoding must answer instead.
pub(super) fn list(data: &[u8], kind: gix::hash::Kind) -> Option<Listed> {
    let hash_len = kind.len_in_bytes();
    let (header, mut rest) = data.split_at_checked(12)?;
    if &header[..4] != b"DIRC" {
        return None;
    }
    let version = be32(&header[4..8])?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(be32(&header[8..12])?).ok()?;
    // Every entry takes at least its stat data, id and flags: a count the
    // file cannot hold is not believed (nor reserved for).
    let smallest = STAT_BYTES + hash_len + 2 + 1;
    if count > rest.len() / smallest {
        return None;
    }
    let mut files = FileList::with_capacity(count, rest.len().saturating_sub(count * smallest));
    let mut previous: Vec<u8> = Vec::new();
    let mut cache_trusted = true;
    for index in 0..count {
        let start = rest;
        let (fixed, after) = rest.split_at_checked(STAT_BYTES + hash_len + 2)?;
        let raw_mode = be32(&fixed[MODE_AT..MODE_AT + 4])?;
        let oid = object_id(&fixed[STAT_BYTES..STAT_BYTES + hash_len])?;
        let flags = u16::from_be_bytes([fixed[fixed.len() - 2], fixed[fixed.len() - 1]]);
        let mut after = after;
        let mut intent_to_add = false;
        if flags & EXTENDED != 0 {
            let (extended, tail) = after.split_at_checked(2)?;
            let extended = u16::from_be_bytes([extended[0], extended[1]]);
            if extended & !(INTENT_TO_ADD | SKIP_WORKTREE) != 0 {
                return None;
            }
            intent_to_add = extended & INTENT_TO_ADD != 0;
            cache_trusted &= extended & (INTENT_TO_ADD | SKIP_WORKTREE) == 0;
            after = tail;
        }
        if flags & STAGE != 0 {
            return None;
        }
        let path: &[u8];
        if version == 4 {
            let (strip, tail) = varint(after)?;
            if index == 0 && strip != 0 {
                return None;
            }
            let keep = previous.len().checked_sub(strip)?;
            let nul = tail.iter().position(|b| *b == 0)?;
            previous.truncate(keep);
            previous.extend_from_slice(&tail[..nul]);
            path = &previous;
            rest = &tail[nul + 1..];
        } else {
            let len = usize::from(flags & PATH_LEN);
            if len == usize::from(PATH_LEN) {
                return None;
            }
            let (name, _) = after.split_at_checked(len)?;
            path = name;
            // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
            let used = start.len() - after.len() + len;
            let padded = (used + 8) & !7;
            rest = start.get(padded..)?;
        }
        if intent_to_add {
            continue;
        }
        let mode = index_mode(gix::index::entry::Mode::from_bits_truncate(raw_mode))?;
        files.push(path, Entry { mode, oid });
    }
    let cache = extensions(rest, kind)?;
    Some(Listed {
        files,
        cache,
        cache_trusted,
    })
}

/// The object id stored as `bytes`. A SHA-1 id is copied straight in: gix's
/// checked conversion for any hash (63 instructions an entry) was 5% of
/// `check --staged`'s main thread on the bench's limit repository.
fn object_id(bytes: &[u8]) -> Option<ObjectId> {
    match <[u8; 20]>::try_from(bytes) {
        Ok(sha1) => Some(ObjectId::Sha1(sha1)),
        Err(_) => ObjectId::try_from(bytes).ok(),
    }
}

/// The cached trees from the extensions (and the trailing checksum) after
/// the entries, or `None` where an extension asks for the gix decoding.
fn extensions(data: &[u8], kind: gix::hash::Kind) -> Option<Option<CachedTree>> {
    let hash_len = kind.len_in_bytes();
    let body_len = data.len().checked_sub(hash_len)?;
    let mut body = &data[..body_len];
    let mut cache = None;
    while !body.is_empty() {
        let (head, tail) = body.split_at_checked(8)?;
        let size = usize::try_from(be32(&head[4..8])?).ok()?;
        let (content, tail) = tail.split_at_checked(size)?;
        match &head[..4] {
            b"TREE" => cache = gix::index::extension::tree::decode(content, kind, None),
            // Optional extensions the gate does not read.
            b"REUC" | b"UNTR" | b"FSMN" | b"EOIE" | b"IEOT" => {}
            // A lowercase signature is mandatory (`link`: a split index,
            // `sdir`: a sparse one); gix knows what to make of them.
            signature if signature[0].is_ascii_lowercase() => return None,
            _ => {}
        }
        body = tail;
    }
    Some(cache)
}

fn be32(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.try_into().ok()?))
}

/// Git's offset varint (version 4's "bytes to strip"): seven bits a byte,
/// high bit set on all but the last, each continuation adding one.
fn varint(data: &[u8]) -> Option<(usize, &[u8])> {
    let (&first, mut rest) = data.split_first()?;
    let mut value = usize::from(first & 0x7f);
    let mut byte = first;
    while byte & 0x80 != 0 {
        let (&next, tail) = rest.split_first()?;
        value = value.checked_add(1)?.checked_mul(128)? | usize::from(next & 0x7f);
        byte = next;
        rest = tail;
    }
    Some((value, rest))
}

#[cfg(test)]
mod tests {
    use super::super::View;
    use super::*;
    use crate::repo::test_git::{conflicted_merge, git, repository_with};
    use proptest::prelude::*;
    use std::path::Path;

    /// What the gix decoding makes of the same bytes: the view's files and
    /// the cached trees, or `None` where it refuses the index.
    fn by_gix(data: &[u8], kind: gix::hash::Kind) -> Option<(FileList, Option<CachedTree>)> {
        let (state, _) = gix::index::State::from_bytes(
            data,
            std::time::SystemTime::UNIX_EPOCH.into(),
            kind,
            Default::default(),
        )
        .ok()?;
        let file = gix::index::File::from_state(state, "index");
        let view = View::from_index_file(&file, super::super::IndexShape::Plain)
            .ok()?
            .0;
        Some(((*view.entries).clone(), file.tree().cloned()))
    }

    /// The fast path's answer, checked against gix's: where it reads the
    /// index, gix reads the same files and cached trees.
    fn agrees(data: &[u8], kind: gix::hash::Kind) -> Option<Listed> {
        let listed = list(data, kind)?;
        let (files, cache) = by_gix(data, kind).expect("gix reads what the fast path reads");
        assert_eq!(listed.files.clone().into_sorted_unique(), files);
        assert_eq!(listed.cache, cache);
        Some(listed)
    }

    /// A repository whose index has what a working day leaves in one:
    /// nested directories, an executable, a symlink, a gitlink, a long
    /// path, an intent-to-add file, a skip-worktree file, cached trees
    /// some of which `git add` invalidated.
    fn busy_repository() -> tempfile::TempDir {
        let dir = repository_with(&[
            ("README.md", "hi\n"),
            ("src/a.rs", "a\n"),
            ("src/deep/er/b.rs", "b\n"),
            ("src/deep/c.rs", "c\n"),
            ("tools/run.sh", "#!/bin/sh\n"),
            ("z/last", "z\n"),
        ]);
        let root = dir.path();
        git(
            root,
            &["update-index", "--add", "--chmod=+x", "tools/run.sh"],
        );
        std::os::unix::fs::symlink("README.md", root.join("link")).unwrap();
        let long = format!("{}/file", "d".repeat(200));
        std::fs::create_dir_all(root.join("d".repeat(200))).unwrap();
        std::fs::write(root.join(&long), "long\n").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "base"]);
        let commit = git(root, &["rev-parse", "HEAD"]);
        git(
            root,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{commit},vendor/sub"),
            ],
        );
        std::fs::write(root.join("src/deep/c.rs"), "changed\n").unwrap();
        git(root, &["add", "src/deep/c.rs"]);
        std::fs::write(root.join("new.txt"), "new\n").unwrap();
        git(root, &["add", "-N", "new.txt"]);
        git(root, &["update-index", "--skip-worktree", "z/last"]);
        dir
    }

    fn index_bytes(root: &Path) -> Vec<u8> {
        std::fs::read(root.join(".git/index")).unwrap()
    }

    /// The object format of the repository at `root` (`GIT_DEFAULT_HASH`
    /// chose it).
    fn kind_of(root: &Path) -> gix::hash::Kind {
        match git(root, &["rev-parse", "--show-object-format"]).as_str() {
            "sha256" => gix::hash::Kind::Sha256,
            _ => gix::hash::Kind::Sha1,
        }
    }

    #[test]
    fn every_index_version_is_read_as_gix_reads_it() {
        let dir = busy_repository();
        let root = dir.path();
        let kind = kind_of(root);
        for version in ["2", "3", "4"] {
            git(root, &["update-index", "--index-version", version]);
            let data = index_bytes(root);
            let listed = agrees(&data, kind).unwrap_or_else(|| panic!("version {version} is read"));
            let paths: Vec<String> = listed.files.iter().map(|(p, _)| p.to_string()).collect();
            assert!(paths.contains(&"vendor/sub".to_string()), "{paths:?}");
            assert!(paths.contains(&"z/last".to_string()), "{paths:?}");
            assert!(
                !paths.contains(&"new.txt".to_string()),
                "intent-to-add: {paths:?}"
            );
            assert!(listed.cache.is_some(), "version {version}: cached trees");
        }
        // Cached trees written whole.
        git(root, &["write-tree"]);
        agrees(&index_bytes(root), kind).expect("a fully cached index is read");
    }

    #[test]
    fn what_only_gix_knows_is_left_to_it() {
        let dir = busy_repository();
        let root = dir.path();
        let kind = kind_of(root);
        // A path too long for the length field.
        let long = format!("{}f", "p/".repeat(2100));
        let blob = git(root, &["hash-object", "-w", "README.md"]);
        git(
            root,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("100644,{blob},{long}"),
            ],
        );
        assert!(list(&index_bytes(root), kind).is_none());
        git(root, &["update-index", "--force-remove", &long]);
        agrees(&index_bytes(root), kind).expect("read again without it");
        // A split index (the mandatory `link` extension).
        git(root, &["update-index", "--split-index"]);
        assert!(list(&index_bytes(root), kind).is_none());
        git(root, &["update-index", "--no-split-index"]);
        agrees(&index_bytes(root), kind).expect("read again once whole");
        // An unmerged path.
        git(root, &["commit", "-qam", "second"]);
        conflicted_merge(root, "README.md");
        assert!(list(&index_bytes(root), kind).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Any byte of an index changed: the fast path either leaves the
        /// index to gix or reads exactly what gix reads (and never panics).
        #[test]
        fn a_damaged_index_is_read_as_gix_reads_it_or_not_at_all(
            version in 2u8..=4,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        ) {
            let (kind, data) = SAMPLES.with(|(kind, samples)| (*kind, samples[usize::from(version - 2)].clone()));
            let mut data = data;
            for (at, byte) in edits {
                let i = at.index(data.len());
                data[i] = byte;
            }
            if let Some(listed) = list(&data, kind) {
                let gix = by_gix(&data, kind);
                prop_assert!(gix.is_some(), "the fast path read what gix refuses");
                let (files, cache) = gix.unwrap();
                prop_assert_eq!(listed.files.into_sorted_unique(), files);
                prop_assert_eq!(listed.cache, cache);
            }
        }
    }

    thread_local! {
        /// The busy repository's object format and its index in versions
        /// 2, 3 and 4.
        static SAMPLES: (gix::hash::Kind, Vec<Vec<u8>>) = {
            let dir = busy_repository();
            let samples = ["2", "3", "4"]
                .iter()
                .map(|version| {
                    git(dir.path(), &["update-index", "--index-version", version]);
                    index_bytes(dir.path())
                })
                .collect();
            (kind_of(dir.path()), samples)
        };
    }

    #[test]
    fn varint_reads_what_git_writes() {
        // Git's encode_varint: 0 -> [0], 127 -> [127], 128 -> [0x80, 0],
        // 16511 -> [0xff, 0x7f].
        assert_eq!(varint(&[0]), Some((0, &[][..])));
        assert_eq!(varint(&[127, 9]), Some((127, &[9][..])));
        assert_eq!(varint(&[0x80, 0]), Some((128, &[][..])));
        assert_eq!(varint(&[0xff, 0x7f]), Some((16511, &[][..])));
        assert_eq!(varint(&[0x80]), None);
        assert_eq!(varint(&[0xff; 16]), None);
    }

    #[test]
    fn what_is_not_an_index_is_left_to_gix() {
        let kind = gix::hash::Kind::Sha1;
        assert!(list(b"", kind).is_none());
        assert!(list(b"DIRC\0\0\0\x05\0\0\0\0", kind).is_none());
        let mut empty = b"DIRC\0\0\0\x02\0\0\0\0".to_vec();
        empty.extend_from_slice(&[0; 20]);
        let listed = list(&empty, kind).expect("an empty index is read");
        assert!(listed.files.is_empty());
        assert!(listed.cache.is_none());
        // A count the file cannot hold.
        let mut lying = b"DIRC\0\0\0\x02\xff\xff\xff\xff".to_vec();
        lying.extend_from_slice(&[0; 20]);
        assert!(list(&lying, kind).is_none());
    }
}
