//! The sha256-by-blob-id cache: a hook re-hashes only content it has not
//! seen. An optimisation only; it can never make a stale receipt current.
//!
//! **Why it needs more than a checksum.** A tree-v1 digest is built from the
//! sha256 of every file. A blob id determines a blob's content, so an honest
//! entry is right forever; the danger is a *wrong* entry. Anyone who can
//! write the cache could map the id of new, untested content to the sha256
//! of the content a receipt was written for, and the new tree would digest
//! exactly like the old one: a stale receipt would look current. Checking an
//! entry costs as much as recomputing it, and a plain checksum is recomputed
//! by whoever edits the file. So:
//!
//! 1. the file is authenticated with HMAC-SHA-256 under a per-user key kept
//!    *outside* the repository (`$XDG_STATE_HOME/mastermind-hooks/cache-key`,
//!    else `~/.local/state/...`; 32 random bytes, created once, mode 0600,
//!    refused when it is not a regular file owned by this user with no
//!    group/other permissions). A cache copied from elsewhere, planted in
//!    `.git/` by a tool, restored by a CI cache step, truncated, or edited
//!    fails the MAC and is ignored as a whole;
//! 2. the file is bound to the object format (name, header and MAC), so a
//!    SHA-1 cache is never read for a SHA-256 repository;
//! 3. any doubt (missing key, wrong magic, version, format, length, order,
//!    MAC) means "no cache": everything is recomputed and the file rewritten;
//! 4. `check --ci` never reads the cache at all: the verdict that guards
//!    the base branch depends only on the objects being merged.
//!
//! What remains: a process running as the same user can read the key and
//! forge entries. Such a process can equally write a receipt claiming any
//! outcome (receipts are `local_runner_unsigned`), so the cache adds no
//! power; CI is the check that does not depend on the local machine.
//!
//! File layout (`<git common dir>/mastermind-hooks/sha256-cache-<format>`):
//! 16-byte magic `mmh-sha256-cache`, u32 LE version 1, u32 LE object format
//! (1 SHA-1, 2 SHA-256), u64 LE entry count, then the entries sorted strictly
//! by blob id (id bytes, 32-byte sha256), then the 32-byte MAC over all of
//! the above. At most [`MAX_ENTRIES`] entries (16 MiB); when full, entries
//! used by the current run are kept first. Written to a temporary file and
//! renamed into place.

use crate::repo::Repo;
use gix::ObjectId;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 16] = b"mmh-sha256-cache";
pub const VERSION: u32 = 1;
pub const MAX_ENTRIES: usize = 1 << 18;
const HEADER_LEN: usize = 16 + 4 + 4 + 8;
const MAC_LEN: usize = 32;
pub const KEY_LEN: usize = 32;

/// An object format the cache knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sha1,
    Sha256,
}

impl Format {
    pub fn of(kind: gix::hash::Kind) -> Format {
        match kind {
            gix::hash::Kind::Sha1 => Format::Sha1,
            #[allow(unreachable_patterns)]
            _ => Format::Sha256,
        }
    }

    fn code(self) -> u32 {
        match self {
            Format::Sha1 => 1,
            Format::Sha256 => 2,
        }
    }

    pub fn id_len(self) -> usize {
        match self {
            Format::Sha1 => 20,
            Format::Sha256 => 32,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Sha1 => "sha1",
            Format::Sha256 => "sha256",
        }
    }
}

/// Why a cache file was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    TooShort,
    Magic,
    Version,
    Format,
    Count,
    Length,
    Mac,
    Order,
}

fn mac(key: &[u8; KEY_LEN], data: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(data);
    mac
}

/// Serialize sorted, unique entries (pure).
pub fn encode(
    format: Format,
    key: &[u8; KEY_LEN],
    entries: &BTreeMap<Vec<u8>, [u8; 32]>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + entries.len() * (format.id_len() + 32) + MAC_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&format.code().to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (id, sha) in entries {
        out.extend_from_slice(id);
        out.extend_from_slice(sha);
    }
    let tag = mac(key, &out).finalize().into_bytes();
    out.extend_from_slice(&tag);
    out
}

/// A verified table: entry bytes sorted by id, looked up by binary search
/// within the run of rows that share the id's first two bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    id_len: usize,
    entries: Vec<u8>,
    /// `buckets[p]..buckets[p + 1]` are the rows whose id starts with the
    /// big-endian 16-bit prefix `p` (empty: search the whole table).
    buckets: Vec<u32>,
}

const BUCKETS: usize = 1 << 16;

impl Table {
    fn stride(&self) -> usize {
        self.id_len + 32
    }

    pub fn len(&self) -> usize {
        if self.id_len == 0 {
            0
        } else {
            self.entries.len() / self.stride()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn id_at(&self, index: usize) -> &[u8] {
        let start = index * self.stride();
        &self.entries[start..start + self.id_len]
    }

    fn sha_at(&self, index: usize) -> [u8; 32] {
        let start = index * self.stride() + self.id_len;
        let mut out = [0; 32];
        out.copy_from_slice(&self.entries[start..start + 32]);
        out
    }

    pub fn get(&self, id: &[u8]) -> Option<[u8; 32]> {
        self.position(id).map(|index| self.sha_at(index))
    }

    /// The row of `id` in the sorted table.
    fn position(&self, id: &[u8]) -> Option<usize> {
        if id.len() != self.id_len {
            return None;
        }
        let (mut low, mut high) = match (self.buckets.is_empty(), id) {
            (false, [a, b, ..]) => {
                let prefix = usize::from(*a) << 8 | usize::from(*b);
                (
                    self.buckets[prefix] as usize,
                    self.buckets[prefix + 1] as usize,
                )
            }
            _ => (0, self.len()),
        };
        while low < high {
            let mid = (low + high) / 2;
            match self.id_at(mid).cmp(id) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Index the rows by their ids' first two bytes (ids are sorted).
    fn with_buckets(mut self) -> Table {
        if self.id_len < 2 {
            return self;
        }
        let mut buckets = vec![0u32; BUCKETS + 1];
        for row in 0..self.len() {
            let id = self.id_at(row);
            let prefix = usize::from(id[0]) << 8 | usize::from(id[1]);
            buckets[prefix + 1] += 1;
        }
        for p in 0..BUCKETS {
            buckets[p + 1] += buckets[p];
        }
        self.buckets = buckets;
        self
    }

    fn iter(&self) -> impl Iterator<Item = (&[u8], [u8; 32])> {
        (0..self.len()).map(|i| (self.id_at(i), self.sha_at(i)))
    }
}

/// Verify and parse a cache file (pure). Any doubt is a rejection.
pub fn decode(mut bytes: Vec<u8>, format: Format, key: &[u8; KEY_LEN]) -> Result<Table, Rejection> {
    if bytes.len() < HEADER_LEN + MAC_LEN {
        return Err(Rejection::TooShort);
    }
    if &bytes[..16] != MAGIC {
        return Err(Rejection::Magic);
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if u32_at(16) != VERSION {
        return Err(Rejection::Version);
    }
    if u32_at(20) != format.code() {
        return Err(Rejection::Format);
    }
    let mut count = [0u8; 8];
    count.copy_from_slice(&bytes[24..32]);
    let count = u64::from_le_bytes(count);
    if count > MAX_ENTRIES as u64 {
        return Err(Rejection::Count);
    }
    let stride = format.id_len() + 32;
    let body_len = HEADER_LEN + count as usize * stride;
    if bytes.len() != body_len + MAC_LEN {
        return Err(Rejection::Length);
    }
    let (body, tag) = bytes.split_at(body_len);
    mac(key, body)
        .verify_slice(tag)
        .map_err(|_| Rejection::Mac)?;
    // Keep the file's own buffer: the rows are its middle.
    bytes.truncate(body_len);
    bytes.drain(..HEADER_LEN);
    let table = Table {
        id_len: format.id_len(),
        entries: bytes,
        buckets: Vec::new(),
    };
    for i in 1..table.len() {
        if table.id_at(i - 1) >= table.id_at(i) {
            return Err(Rejection::Order);
        }
    }
    Ok(table.with_buckets())
}

/// What happened when the cache was opened (for tests and benchmarks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadState {
    /// No file yet.
    Absent,
    Loaded(usize),
    Rejected(Rejection),
    Unreadable,
}

/// The cache of one repository for one process.
pub struct Sha256Cache {
    path: PathBuf,
    key: [u8; KEY_LEN],
    format: Format,
    table: Table,
    state: LoadState,
    fresh: BTreeMap<Vec<u8>, [u8; 32]>,
    /// Rows of `table` this run read (kept first when the file is pruned).
    used: Vec<bool>,
}

/// The per-user key file location.
fn key_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local/state"))
        })?;
    Some(state.join("mastermind-hooks").join("cache-key"))
}

#[cfg(unix)]
fn private_to_this_user(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    metadata.is_file() && metadata.uid() == me && metadata.permissions().mode() & 0o077 == 0
}

#[cfg(not(unix))]
fn private_to_this_user(metadata: &std::fs::Metadata) -> bool {
    metadata.is_file()
}

fn read_key(path: &Path) -> Option<[u8; KEY_LEN]> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !private_to_this_user(&metadata) || metadata.len() != KEY_LEN as u64 {
        return None;
    }
    let bytes =
        crate::safe_fs::read_bounded(path, KEY_LEN, crate::safe_fs::Follow::NoLinks).ok()?;
    bytes.try_into().ok()
}

fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Make `path` a directory (`mkdir -p`, mode 0700 for what is created,
/// never through a link planted on the way: [`crate::safe_fs::create_dirs`]).
fn private_dir(path: &Path) -> std::io::Result<()> {
    crate::safe_fs::create_dirs(path, 0o700)
        .map(drop)
        .map_err(std::io::Error::from)
}

/// Load the per-user key, creating it once (no-replace, so two processes
/// racing agree on one key).
pub fn load_or_create_key() -> Option<[u8; KEY_LEN]> {
    let path = key_path()?;
    if let Some(key) = read_key(&path) {
        return Some(key);
    }
    let dir = path.parent()?;
    private_dir(dir).ok()?;
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).ok()?;
    let temp = dir.join(format!("cache-key.tmp.{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let written = private_file(&temp).and_then(|mut file| {
        file.write_all(&key)?;
        file.sync_all()
    });
    let linked = written.and_then(|()| std::fs::hard_link(&temp, &path));
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Some(key),
        // Someone else won the race: use theirs.
        Err(_) => read_key(&path),
    }
}

impl Sha256Cache {
    /// Open the cache of `repo`, or `None` when no key is available (then
    /// every sha256 is computed).
    pub fn open(repo: &Repo) -> Option<Sha256Cache> {
        Sha256Cache::open_named(repo, "sha256-cache")
    }

    /// Open another table of the same layout and key beside the cache:
    /// `<stem>-<format>` (the tree-v2 directory digests by tree id live in
    /// `tree-v2-memo`). Tables are keyed by object id, and an object id
    /// names one object of one type, so a blob's entry can never answer
    /// for a tree or the other way round.
    pub fn open_named(repo: &Repo, stem: &str) -> Option<Sha256Cache> {
        let key = load_or_create_key()?;
        let format = Format::of(repo.gix().object_hash());
        Some(Sha256Cache::at(
            Sha256Cache::path_named(repo, stem),
            key,
            format,
        ))
    }

    /// Where [`Sha256Cache::open_named`] keeps the table `stem`.
    pub fn path_named(repo: &Repo, stem: &str) -> PathBuf {
        let format = Format::of(repo.gix().object_hash());
        repo.gix()
            .common_dir()
            .join("mastermind-hooks")
            .join(format!("{stem}-{}", format.name()))
    }

    /// Open a cache file with an explicit key (tests and benchmarks).
    pub fn at(path: PathBuf, key: [u8; KEY_LEN], format: Format) -> Sha256Cache {
        let limit = (HEADER_LEN + MAX_ENTRIES * (format.id_len() + 32) + MAC_LEN) as u64;
        let (table, state) = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (Table::default(), LoadState::Absent)
            }
            Err(_) => (Table::default(), LoadState::Unreadable),
            Ok(m) if !m.is_file() || m.len() > limit => {
                (Table::default(), LoadState::Rejected(Rejection::Length))
            }
            Ok(_) => match crate::safe_fs::read_bounded(
                &path,
                usize::try_from(limit).unwrap_or(usize::MAX),
                crate::safe_fs::Follow::NoLinks,
            ) {
                Err(_) => (Table::default(), LoadState::Unreadable),
                Ok(bytes) => match decode(bytes, format, &key) {
                    Ok(table) => {
                        let n = table.len();
                        (table, LoadState::Loaded(n))
                    }
                    Err(why) => (Table::default(), LoadState::Rejected(why)),
                },
            },
        };
        Sha256Cache {
            path,
            key,
            format,
            table,
            state,
            fresh: BTreeMap::new(),
            used: Vec::new(),
        }
    }

    /// Another table beside this one, with the same key and format (see
    /// [`Sha256Cache::open_named`]).
    pub fn sibling(&self, stem: &str) -> Sha256Cache {
        let dir = self
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Sha256Cache::at(
            dir.join(format!("{stem}-{}", self.format.name())),
            self.key,
            self.format,
        )
    }

    pub fn state(&self) -> &LoadState {
        &self.state
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The cached sha256 of a blob's content.
    pub fn get(&mut self, id: &ObjectId) -> Option<[u8; 32]> {
        let bytes = id.as_bytes();
        if let Some(found) = self.fresh.get(bytes) {
            return Some(*found);
        }
        let row = self.table.position(bytes)?;
        if self.used.len() != self.table.len() {
            self.used = vec![false; self.table.len()];
        }
        self.used[row] = true;
        Some(self.table.sha_at(row))
    }

    /// Remember a sha256 computed from the blob's own bytes.
    pub fn insert(&mut self, id: &ObjectId, sha256: [u8; 32]) {
        if id.as_bytes().len() == self.format.id_len() && self.table.get(id.as_bytes()).is_none() {
            self.fresh.insert(id.as_bytes().to_vec(), sha256);
        }
    }

    /// Entries learned by this process.
    pub fn fresh_len(&self) -> usize {
        self.fresh.len()
    }

    /// Write the merged table if anything new was learned. Failures are
    /// ignored: the cache is an optimisation.
    pub fn save(&mut self) {
        if self.fresh.is_empty() {
            return;
        }
        let mut merged: BTreeMap<Vec<u8>, [u8; 32]> = std::mem::take(&mut self.fresh);
        // Keep what this run used, then the rest, up to the bound.
        let mut rest = Vec::new();
        for (row, (id, sha)) in self.table.iter().enumerate() {
            if self.used.get(row).copied().unwrap_or(false) {
                merged.insert(id.to_vec(), sha);
            } else {
                rest.push((id.to_vec(), sha));
            }
        }
        for (id, sha) in rest {
            if merged.len() >= MAX_ENTRIES {
                break;
            }
            merged.insert(id, sha);
        }
        while merged.len() > MAX_ENTRIES {
            merged.pop_last();
        }
        let bytes = encode(self.format, &self.key, &merged);
        let Some(dir) = self.path.parent() else {
            return;
        };
        if private_dir(dir).is_err() {
            return;
        }
        let mut suffix = [0u8; 8];
        let _ = getrandom::fill(&mut suffix);
        let temp = dir.join(format!(
            ".sha256-cache.tmp.{}.{}",
            std::process::id(),
            hex::encode(suffix)
        ));
        let written = private_file(&temp).and_then(|mut file| file.write_all(&bytes));
        if written
            .and_then(|()| std::fs::rename(&temp, &self.path))
            .is_err()
        {
            let _ = std::fs::remove_file(&temp);
            return;
        }
        if let Ok(table) = decode(bytes, self.format, &self.key) {
            self.state = LoadState::Loaded(table.len());
            self.table = table;
            self.used.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; KEY_LEN] = [7; KEY_LEN];

    fn entries(n: u8) -> BTreeMap<Vec<u8>, [u8; 32]> {
        (0..n)
            .map(|i| (vec![i; 20], [i.wrapping_mul(3); 32]))
            .collect()
    }

    #[test]
    fn round_trip_and_lookup() {
        let bytes = encode(Format::Sha1, &KEY, &entries(50));
        let table = decode(bytes.clone(), Format::Sha1, &KEY).unwrap();
        assert_eq!(table.len(), 50);
        assert_eq!(table.get(&[7; 20]), Some([21; 32]));
        assert_eq!(table.get(&[200; 20]), None);
        assert_eq!(table.get(&[7; 32]), None, "wrong id length");
        let empty = encode(Format::Sha1, &KEY, &BTreeMap::new());
        assert!(
            decode(empty.clone(), Format::Sha1, &KEY)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn prefix_buckets_find_every_id_and_nothing_else() {
        // Ids sharing a two-byte prefix, ids at both ends of the prefix space.
        let mut map = BTreeMap::new();
        for (a, b, c) in [
            (0u8, 0u8, 0u8),
            (0, 0, 9),
            (0, 1, 0),
            (0x7f, 0xff, 1),
            (0x80, 0, 0),
            (0xff, 0xff, 0xff),
            (0xff, 0xff, 0x10),
        ] {
            let mut id = vec![c; 20];
            id[0] = a;
            id[1] = b;
            map.insert(id, [a ^ c; 32]);
        }
        let table = decode(encode(Format::Sha1, &KEY, &map), Format::Sha1, &KEY).unwrap();
        for (id, sha) in &map {
            assert_eq!(table.get(id), Some(*sha), "{id:?}");
            let mut other = id.clone();
            other[19] ^= 1;
            if !map.contains_key(&other) {
                assert_eq!(table.get(&other), None, "{other:?}");
            }
        }
    }

    #[test]
    fn every_doubt_rejects_the_whole_file() {
        let good = encode(Format::Sha1, &KEY, &entries(4));
        // A forged entry: map id 1 to another sha256, keep the layout.
        let mut forged = good.clone();
        forged[HEADER_LEN + 52 + 20] ^= 1;
        assert_eq!(
            decode(forged.clone(), Format::Sha1, &KEY),
            Err(Rejection::Mac)
        );
        // Truncated, extended, other key, other format, bad magic.
        assert_eq!(
            decode(good[..good.len() - 1].to_vec(), Format::Sha1, &KEY),
            Err(Rejection::Length)
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            decode(longer.clone(), Format::Sha1, &KEY),
            Err(Rejection::Length)
        );
        assert_eq!(
            decode(good.clone(), Format::Sha1, &[8; KEY_LEN]),
            Err(Rejection::Mac)
        );
        assert_eq!(
            decode(good.clone(), Format::Sha256, &KEY),
            Err(Rejection::Format)
        );
        assert_eq!(
            decode(good[..10].to_vec(), Format::Sha1, &KEY),
            Err(Rejection::TooShort)
        );
        let mut magic = good.clone();
        magic[0] = b'x';
        assert_eq!(
            decode(magic.clone(), Format::Sha1, &KEY),
            Err(Rejection::Magic)
        );
        // A correctly authenticated but unsorted file (a bug elsewhere).
        let mut body = good[..good.len() - MAC_LEN].to_vec();
        let (a, b) = (HEADER_LEN, HEADER_LEN + 52);
        let first: Vec<u8> = body[a..a + 52].to_vec();
        let second: Vec<u8> = body[b..b + 52].to_vec();
        body[a..a + 52].copy_from_slice(&second);
        body[b..b + 52].copy_from_slice(&first);
        let tag = mac(&KEY, &body).finalize().into_bytes();
        body.extend_from_slice(&tag);
        assert_eq!(
            decode(body.clone(), Format::Sha1, &KEY),
            Err(Rejection::Order)
        );
    }

    #[test]
    fn save_merges_bounds_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/cache");
        let mut cache = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(cache.state(), &LoadState::Absent);
        let id = |i: u8| ObjectId::from_bytes_or_panic(&[i; 20]);
        cache.insert(&id(1), [1; 32]);
        cache.insert(&id(2), [2; 32]);
        cache.save();
        let mut again = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(again.state(), &LoadState::Loaded(2));
        assert_eq!(again.get(&id(2)), Some([2; 32]));
        again.insert(&id(3), [3; 32]);
        again.save();
        let third = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(third.state(), &LoadState::Loaded(3));
        // Another user's key (or a planted file) is not trusted.
        let foreign = Sha256Cache::at(path.clone(), [9; KEY_LEN], Format::Sha1);
        assert_eq!(foreign.state(), &LoadState::Rejected(Rejection::Mac));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
