//! The sha256-by-blob-id cache: a hook re-hashes only content it has not
//! seen. An optimisation only; it can never make a stale receipt current.
//! The same layout holds the tree-v2 directory digests by tree id
//! (`tree-v2-memo`).
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
//! 1. every row carries a tag, HMAC-SHA-256 under a per-user key kept
//!    *outside* the repository (`$XDG_STATE_HOME/mastermind-hooks/cache-key`,
//!    else `~/.local/state/...`; 32 random bytes, created once, mode 0600,
//!    refused when it is not a regular file owned by this user with no
//!    group/other permissions), over the row's id and value and the table
//!    it belongs to (stem and object format). A row that fails its tag is a
//!    miss, never a value; a file whose first row fails (copied from
//!    elsewhere, planted in `.git/` by a tool, restored by a CI cache step)
//!    is ignored as a whole;
//! 2. the file is bound to the object format (name, header and every tag),
//!    so a SHA-1 cache is never read for a SHA-256 repository, and to its
//!    stem, so a row moved from one table to the other never verifies;
//! 3. any doubt about the file (missing key, wrong magic, version, format,
//!    length, first tag) means "no cache": everything is recomputed and the
//!    file rewritten;
//! 4. `check --ci` never reads the cache at all: the verdict that guards
//!    the base branch depends only on the objects being merged.
//!
//! **Why a tag per row, not one MAC over the file.** A pre-commit check
//! looks up a few hundred ids in a table of tens of thousands; one MAC meant
//! reading and hashing the whole file before the first lookup. With a tag
//! per row the file is mapped, a lookup is a binary search touching a few
//! pages, and only the row it finds is authenticated (two SHA-256
//! compressions for a SHA-1 row). Rows can then be truncated, reordered,
//! duplicated or replayed from an older file of the same table, but each
//! still carries the key holder's tag for exactly its id and value: the
//! worst a file edited without the key can do is make lookups miss.
//!
//! What remains: a process running as the same user can read the key and
//! forge rows. Such a process can equally write a receipt claiming any
//! outcome (receipts are `local_runner_unsigned`), so the cache adds no
//! power; CI is the check that does not depend on the local machine.
//!
//! File layout (`<git common dir>/mastermind-hooks/<stem>-<format>`):
//! 16-byte magic `mmh-sha256-cache`, u32 LE version 2, u32 LE object format
//! (1 SHA-1, 2 SHA-256), u64 LE row count, then the rows sorted strictly by
//! id: id bytes, 32-byte value, 16-byte tag. The length is exactly that. The
//! tag is the first 16 bytes of HMAC-SHA-256(key, domain ‖ id ‖ value),
//! where the domain is `mmh-sha256-cache v2`, a zero byte, the format code
//! (u32 LE), the stem's length (u64 LE) and bytes, zero-padded to a multiple
//! of 64 bytes (SHA-256's block, so the keyed state after it is computed
//! once per table). At most [`MAX_ENTRIES`] rows (17 MiB of SHA-1 rows);
//! when full, rows used by the current run are kept first. Written to a
//! temporary file and renamed into place, never written in place.

use crate::repo::Repo;
use gix::ObjectId;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 16] = b"mmh-sha256-cache";
/// Version 2: a tag per row (version 1 had one MAC over the file).
pub const VERSION: u32 = 2;
pub const MAX_ENTRIES: usize = 1 << 18;
const HEADER_LEN: usize = 16 + 4 + 4 + 8;
const VALUE_LEN: usize = 32;
pub const TAG_LEN: usize = 16;
pub const KEY_LEN: usize = 32;
/// The longest row: a SHA-256 id, the value and the tag.
const MAX_STRIDE: usize = 32 + VALUE_LEN + TAG_LEN;
/// The first bytes of every tag's domain.
const DOMAIN_LABEL: &[u8] = b"mmh-sha256-cache v2";
/// SHA-256's block size, to which the domain is padded.
const BLOCK: usize = 64;
/// The stem of the sha256-by-blob-id table.
pub const SHA256_STEM: &str = "sha256-cache";

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
            // SHA-256, the one other format gix knows (its `Kind` is
            // non-exhaustive).
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

    /// The bytes of one row.
    fn stride(self) -> usize {
        self.id_len() + VALUE_LEN + TAG_LEN
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
    /// The first row's tag fails: another key (or no key) wrote the file.
    Mac,
}

/// The keyed HMAC state with one table's domain absorbed; each tag goes on
/// from a copy of it.
#[derive(Clone)]
struct Tagger(Hmac<Sha256>);

impl Tagger {
    fn new(key: &[u8; KEY_LEN], format: Format, stem: &str) -> Tagger {
        let mut domain = Vec::with_capacity(2 * BLOCK);
        domain.extend_from_slice(DOMAIN_LABEL);
        domain.push(0);
        domain.extend_from_slice(&format.code().to_le_bytes());
        domain.extend_from_slice(&(stem.len() as u64).to_le_bytes());
        domain.extend_from_slice(stem.as_bytes());
        domain.resize(domain.len().next_multiple_of(BLOCK), 0);
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
            .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
        mac.update(&domain);
        Tagger(mac)
    }

    fn tag(&self, id: &[u8], value: &[u8; VALUE_LEN]) -> [u8; TAG_LEN] {
        let full = self
            .0
            .clone()
            .chain_update(id)
            .chain_update(value)
            .finalize()
            .into_bytes();
        let mut tag = [0; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    /// Whether a row's tag is this table's tag of its id and value (compared
    /// in constant time).
    fn holds(&self, row: &[u8]) -> bool {
        let Some(signed) = row.len().checked_sub(TAG_LEN) else {
            return false;
        };
        let (signed, tag) = row.split_at(signed);
        self.0
            .clone()
            .chain_update(signed)
            .verify_truncated_left(tag)
            .is_ok()
    }
}

/// A table's bytes, header included: the file mapped, or the buffer just
/// written to it.
enum Rows {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Rows {
    fn bytes(&self) -> &[u8] {
        match self {
            Rows::Mapped(map) => map,
            Rows::Owned(bytes) => bytes,
        }
    }
}

/// A table whose header and length hold; each row's tag is checked when a
/// lookup finds it.
pub struct Table {
    format: Format,
    count: usize,
    rows: Rows,
    tagger: Tagger,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("format", &self.format)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl Table {
    fn empty(format: Format, tagger: Tagger) -> Table {
        Table {
            format,
            count: 0,
            rows: Rows::Owned(Vec::new()),
            tagger,
        }
    }

    /// The table over a whole file's bytes, or why not. Beyond the header
    /// and length only the first row's tag is checked: a file under another
    /// key is rejected as a whole, as before rows had tags.
    fn over(rows: Rows, format: Format, tagger: Tagger) -> Result<Table, Rejection> {
        let count = check_header(rows.bytes(), format)?;
        let table = Table {
            format,
            count,
            rows,
            tagger,
        };
        if count > 0 && table.verified(0).is_none() {
            return Err(Rejection::Mac);
        }
        Ok(table)
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Row `index`'s bytes (id, value, tag).
    fn row(&self, index: usize) -> Option<&[u8]> {
        let stride = self.format.stride();
        let start = HEADER_LEN + index.checked_mul(stride)?;
        self.rows.bytes().get(start..start + stride)
    }

    /// The row holding `id`, by binary search. A file out of order (which
    /// only a key holder can write) makes some ids unfound, nothing worse.
    fn position(&self, id: &[u8]) -> Option<usize> {
        let id_len = self.format.id_len();
        if id.len() != id_len {
            return None;
        }
        let (mut low, mut high) = (0, self.count);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.row(mid)?[..id_len].cmp(id) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Row `index`'s id and value when its tag holds. The row is copied
    /// first, so the bytes authenticated are the bytes returned even if the
    /// mapped file changed underneath.
    fn verified(&self, index: usize) -> Option<([u8; MAX_STRIDE], [u8; VALUE_LEN])> {
        let stride = self.format.stride();
        let mut copy = [0u8; MAX_STRIDE];
        copy[..stride].copy_from_slice(self.row(index)?);
        if !self.tagger.holds(&copy[..stride]) {
            return None;
        }
        let id_len = self.format.id_len();
        let mut value = [0; VALUE_LEN];
        value.copy_from_slice(&copy[id_len..id_len + VALUE_LEN]);
        Some((copy, value))
    }

    /// The row of `id` and its authenticated value. The id is compared
    /// again in the authenticated copy: a file rewritten in place between
    /// the search and the copy cannot answer for another id.
    fn lookup(&self, id: &[u8]) -> Option<(usize, [u8; VALUE_LEN])> {
        let index = self.position(id)?;
        let (row, value) = self.verified(index)?;
        (row.get(..id.len()) == Some(id)).then_some((index, value))
    }

    pub fn get(&self, id: &[u8]) -> Option<[u8; VALUE_LEN]> {
        self.lookup(id).map(|(_, value)| value)
    }

    /// The file's bytes with `fresh` merged in: fresh entries are tagged,
    /// old rows copied as they are (their tags are checked when found). Over
    /// `bound` rows, the rows in `used` are kept first, then the others in
    /// order; fresh entries are always kept unless they alone pass it. Rows
    /// come out strictly ascending: an old row out of order, or one a fresh
    /// entry replaces, is dropped. Also returns the row count.
    fn merged(
        &self,
        fresh: &BTreeMap<Vec<u8>, [u8; VALUE_LEN]>,
        used: &BTreeSet<usize>,
        bound: usize,
    ) -> (Vec<u8>, usize) {
        let (id_len, stride) = (self.format.id_len(), self.format.stride());
        let fresh_len = fresh.len();
        let mut spare = bound.saturating_sub(fresh_len + used.len());
        let mut old = (0..self.count)
            .filter(|row| {
                used.contains(row)
                    || (spare > 0 && {
                        spare -= 1;
                        true
                    })
            })
            .filter_map(|row| self.row(row))
            .peekable();
        let mut fresh = fresh.iter().filter(|(id, _)| id.len() == id_len).peekable();
        let mut out = header(self.format, 0);
        out.reserve((fresh_len + self.count).min(bound) * stride);
        let mut count = 0;
        let mut new_row = [0u8; MAX_STRIDE];
        while count < bound {
            let row: &[u8] = match (fresh.peek(), old.peek()) {
                (None, None) => break,
                (Some((id, _)), Some(row)) if row[..id_len] < id[..] => {
                    old.next().unwrap_or_default()
                }
                (Some(_), _) => match fresh.next() {
                    Some((id, value)) => {
                        new_row[..id_len].copy_from_slice(id);
                        new_row[id_len..id_len + VALUE_LEN].copy_from_slice(value);
                        new_row[id_len + VALUE_LEN..stride]
                            .copy_from_slice(&self.tagger.tag(id, value));
                        &new_row[..stride]
                    }
                    None => break,
                },
                (None, Some(_)) => old.next().unwrap_or_default(),
            };
            let ascending = row.len() == stride
                && (out.len() == HEADER_LEN || out[out.len() - stride..][..id_len] < row[..id_len]);
            if ascending {
                out.extend_from_slice(row);
                count += 1;
            }
        }
        out[24..32].copy_from_slice(&(count as u64).to_le_bytes());
        (out, count)
    }
}

/// A file header for `count` rows.
fn header(format: Format, count: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&format.code().to_le_bytes());
    out.extend_from_slice(&(count as u64).to_le_bytes());
    out
}

/// The row count of a file whose header and length are what `format`
/// expects, or why not.
fn check_header(bytes: &[u8], format: Format) -> Result<usize, Rejection> {
    let Some(header) = bytes.get(..HEADER_LEN) else {
        return Err(Rejection::TooShort);
    };
    let (magic, rest) = header.split_at(16);
    let (version, rest) = rest.split_at(4);
    let (code, count) = rest.split_at(4);
    if magic != MAGIC {
        return Err(Rejection::Magic);
    }
    let le32 = |b: &[u8]| b.try_into().map(u32::from_le_bytes).ok();
    if le32(version) != Some(VERSION) {
        return Err(Rejection::Version);
    }
    if le32(code) != Some(format.code()) {
        return Err(Rejection::Format);
    }
    let count = count
        .try_into()
        .map(u64::from_le_bytes)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n <= MAX_ENTRIES)
        .ok_or(Rejection::Count)?;
    if bytes.len() != HEADER_LEN + count * format.stride() {
        return Err(Rejection::Length);
    }
    Ok(count)
}

/// Serialize sorted, unique entries of table `stem` (pure).
pub fn encode(
    format: Format,
    stem: &str,
    key: &[u8; KEY_LEN],
    entries: &BTreeMap<Vec<u8>, [u8; VALUE_LEN]>,
) -> Vec<u8> {
    let table = Table::empty(format, Tagger::new(key, format, stem));
    table.merged(entries, &BTreeSet::new(), usize::MAX).0
}

/// A table of `stem` over a file's bytes (pure). Any doubt about the file
/// is a rejection; rows are checked when found.
pub fn decode(
    bytes: Vec<u8>,
    format: Format,
    stem: &str,
    key: &[u8; KEY_LEN],
) -> Result<Table, Rejection> {
    Table::over(Rows::Owned(bytes), format, Tagger::new(key, format, stem))
}

/// The table in the file at `path`, and how opening it went. Nothing is
/// read but the header and the first row: the file is mapped.
fn load(path: &Path, format: Format, tagger: &Tagger) -> (Table, LoadState) {
    use crate::safe_fs::{Error, Follow};
    let empty = || Table::empty(format, tagger.clone());
    // No link followed, and a FIFO never blocks the open (the descriptor is
    // then refused as not a regular file).
    let file = match crate::safe_fs::open_read(path, Follow::NoLinks) {
        Ok(file) => file,
        Err(Error::NotFound) => return (empty(), LoadState::Absent),
        Err(Error::Symlink | Error::NotRegular(_)) => {
            return (empty(), LoadState::Rejected(Rejection::Length));
        }
        Err(_) => return (empty(), LoadState::Unreadable),
    };
    let limit = HEADER_LEN + MAX_ENTRIES * format.stride();
    let len = match file.metadata().map(|m| usize::try_from(m.len())) {
        Ok(Ok(len)) if len <= limit => len,
        Ok(_) => return (empty(), LoadState::Rejected(Rejection::Length)),
        Err(_) => return (empty(), LoadState::Unreadable),
    };
    if len < HEADER_LEN {
        return (empty(), LoadState::Rejected(Rejection::TooShort));
    }
    // SAFETY: the mapping is read-only and private; this tool replaces the
    // file by renaming a new one over it, never by writing into it. Someone
    // writing into it anyway can make a lookup miss (each row is copied
    // before its tag is checked, and only the copy is returned), and one
    // truncating it underneath would at worst fault the read, as with the
    // index's mapping in `repo::tree`.
    let map = match unsafe { memmap2::MmapOptions::new().len(len).map(&file) } {
        Ok(map) => map,
        Err(_) => return (empty(), LoadState::Unreadable),
    };
    match Table::over(Rows::Mapped(map), format, tagger.clone()) {
        Ok(table) => {
            let n = table.len();
            (table, LoadState::Loaded(n))
        }
        Err(why) => (empty(), LoadState::Rejected(why)),
    }
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
    /// The table's stem: part of every tag.
    stem: String,
    table: Table,
    state: LoadState,
    fresh: BTreeMap<Vec<u8>, [u8; VALUE_LEN]>,
    /// Rows of `table` this run read (kept first when the file is pruned).
    used: BTreeSet<usize>,
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
    // A run opens the sha256 cache and the tree memo: the key is read from
    // disk once per location.
    static KNOWN: std::sync::Mutex<Option<(PathBuf, [u8; KEY_LEN])>> = std::sync::Mutex::new(None);
    let mut known = KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((at, key)) = known.as_ref()
        && *at == path
    {
        return Some(*key);
    }
    let key = load_or_create_key_at(&path)?;
    *known = Some((path, key));
    Some(key)
}

/// [`load_or_create_key`] for the key file at `path`, from disk.
fn load_or_create_key_at(path: &Path) -> Option<[u8; KEY_LEN]> {
    if let Some(key) = read_key(path) {
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
    let linked = written.and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Some(key),
        // Someone else won the race: use theirs.
        Err(_) => read_key(path),
    }
}

impl Sha256Cache {
    /// Open the cache of `repo`, or `None` when no key is available (then
    /// every sha256 is computed).
    pub fn open(repo: &Repo) -> Option<Sha256Cache> {
        Sha256Cache::open_named(repo, SHA256_STEM)
    }

    /// Open another table of the same layout and key beside the cache:
    /// `<stem>-<format>` (the tree-v2 directory digests by tree id live in
    /// `tree-v2-memo`). Tables are keyed by object id, and an object id
    /// names one object of one type, so a blob's entry can never answer
    /// for a tree or the other way round; the stem is part of every tag, so
    /// a row copied from one table to the other never verifies either.
    pub fn open_named(repo: &Repo, stem: &str) -> Option<Sha256Cache> {
        let key = load_or_create_key()?;
        let format = Format::of(repo.gix().object_hash());
        Some(Sha256Cache::at_named(
            Sha256Cache::path_named(repo, stem),
            stem,
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

    /// Open a sha256 cache file with an explicit key (tests and
    /// benchmarks).
    pub fn at(path: PathBuf, key: [u8; KEY_LEN], format: Format) -> Sha256Cache {
        Sha256Cache::at_named(path, SHA256_STEM, key, format)
    }

    /// Open the table `stem` in the file at `path` with an explicit key.
    pub fn at_named(path: PathBuf, stem: &str, key: [u8; KEY_LEN], format: Format) -> Sha256Cache {
        let (table, state) = load(&path, format, &Tagger::new(&key, format, stem));
        Sha256Cache {
            path,
            key,
            format,
            stem: stem.to_owned(),
            table,
            state,
            fresh: BTreeMap::new(),
            used: BTreeSet::new(),
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
        Sha256Cache::at_named(
            dir.join(format!("{stem}-{}", self.format.name())),
            stem,
            self.key,
            self.format,
        )
    }

    pub fn state(&self) -> &LoadState {
        &self.state
    }

    /// The object format the table's ids belong to.
    pub fn format(&self) -> Format {
        self.format
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
        let (row, value) = self.table.lookup(bytes)?;
        self.used.insert(row);
        Some(value)
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

    /// Write the merged table if anything new was learned, and serve it
    /// from then on. Failures are ignored: the cache is an optimisation.
    pub fn save(&mut self) {
        if self.fresh.is_empty() {
            return;
        }
        let fresh = std::mem::take(&mut self.fresh);
        let (bytes, count) = self.table.merged(&fresh, &self.used, MAX_ENTRIES);
        let Some(dir) = self.path.parent() else {
            return;
        };
        if private_dir(dir).is_err() {
            return;
        }
        let mut suffix = [0u8; 8];
        let _ = getrandom::fill(&mut suffix);
        let temp = dir.join(format!(
            ".{}.tmp.{}.{}",
            self.stem,
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
        self.table = Table {
            format: self.format,
            count,
            rows: Rows::Owned(bytes),
            tagger: self.table.tagger.clone(),
        };
        self.state = LoadState::Loaded(count);
        self.used.clear();
    }
}

/// A local table ([`Sha256Cache::open_named`]) opened on first need, or
/// never where the run may not read local caches (no repository given).
pub struct LazyTable<'r> {
    /// The repository and the table's stem, while it is not yet opened.
    source: Option<(&'r Repo, &'static str)>,
    table: Option<Sha256Cache>,
}

impl<'r> LazyTable<'r> {
    /// The table `stem` of `repo`; `None`: a table that is never opened.
    pub fn new(repo: Option<&'r Repo>, stem: &'static str) -> LazyTable<'r> {
        LazyTable {
            source: repo.map(|repo| (repo, stem)),
            table: None,
        }
    }

    /// A table already open (an explicit file, for tests and benchmarks).
    pub fn opened(table: Sha256Cache) -> LazyTable<'r> {
        LazyTable {
            source: None,
            table: Some(table),
        }
    }

    /// Whether [`LazyTable::get`] can give a table.
    pub fn available(&self) -> bool {
        self.source.is_some() || self.table.is_some()
    }

    /// The table, opened now if it was not yet.
    pub fn get(&mut self) -> Option<&mut Sha256Cache> {
        if let Some((repo, stem)) = self.source.take() {
            self.table = Sha256Cache::open_named(repo, stem);
        }
        self.table.as_mut()
    }

    /// The table if it was opened, without opening it.
    pub fn if_opened(&self) -> Option<&Sha256Cache> {
        self.table.as_ref()
    }

    /// Write what the table learned (see [`Sha256Cache::save`]).
    pub fn save(&mut self) {
        if let Some(table) = self.table.as_mut() {
            table.save();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; KEY_LEN] = [7; KEY_LEN];
    const STRIDE: usize = 20 + 32 + TAG_LEN;

    fn entries(n: u8) -> BTreeMap<Vec<u8>, [u8; 32]> {
        (0..n)
            .map(|i| (vec![i; 20], [i.wrapping_mul(3); 32]))
            .collect()
    }

    fn sha1(bytes: Vec<u8>) -> Result<Table, Rejection> {
        decode(bytes, Format::Sha1, SHA256_STEM, &KEY)
    }

    fn rejection(bytes: Vec<u8>) -> Option<Rejection> {
        sha1(bytes).err()
    }

    /// The byte range of row `i`.
    fn row(i: usize) -> std::ops::Range<usize> {
        HEADER_LEN + i * STRIDE..HEADER_LEN + (i + 1) * STRIDE
    }

    #[test]
    fn round_trip_and_lookup() {
        let bytes = encode(Format::Sha1, SHA256_STEM, &KEY, &entries(50));
        assert_eq!(bytes.len(), HEADER_LEN + 50 * STRIDE);
        let table = sha1(bytes).unwrap();
        assert_eq!(table.len(), 50);
        for (id, value) in entries(50) {
            assert_eq!(table.get(&id), Some(value), "{id:?}");
        }
        assert_eq!(table.get(&[200; 20]), None);
        assert_eq!(table.get(&[7; 32]), None, "wrong id length");
        let empty = encode(Format::Sha1, SHA256_STEM, &KEY, &BTreeMap::new());
        assert!(sha1(empty).unwrap().is_empty());
        // SHA-256 ids.
        let wide: BTreeMap<Vec<u8>, [u8; 32]> = (0..9u8).map(|i| (vec![i; 32], [i; 32])).collect();
        let table = decode(
            encode(Format::Sha256, SHA256_STEM, &KEY, &wide),
            Format::Sha256,
            SHA256_STEM,
            &KEY,
        )
        .unwrap();
        assert_eq!(table.get(&[4; 32]), Some([4; 32]));
        assert_eq!(table.get(&[4; 20]), None);
    }

    #[test]
    fn a_forged_row_is_a_miss_and_the_others_still_hit() {
        let good = encode(Format::Sha1, SHA256_STEM, &KEY, &entries(4));
        // Map id 1 to another sha256, and separately break id 2's tag.
        let mut forged = good.clone();
        forged[row(1).start + 20] ^= 1;
        forged[row(2).end - 1] ^= 1;
        let table = sha1(forged).unwrap();
        assert_eq!(table.get(&[1; 20]), None);
        assert_eq!(table.get(&[2; 20]), None);
        assert_eq!(table.get(&[0; 20]), Some([0; 32]));
        assert_eq!(table.get(&[3; 20]), Some([9; 32]));
        // The first row forged: the file is not ours at all.
        let mut first = good;
        first[row(0).start + 20] ^= 1;
        assert_eq!(rejection(first), Some(Rejection::Mac));
    }

    #[test]
    fn a_row_from_the_other_table_never_verifies() {
        let memo: BTreeMap<Vec<u8>, [u8; 32]> =
            (0..4u8).map(|i| (vec![i; 20], [0xee; 32])).collect();
        let memo = encode(Format::Sha1, "tree-v2-memo", &KEY, &memo);
        assert_eq!(rejection(memo.clone()), Some(Rejection::Mac));
        // Row 2 of the memo spliced into the cache at its sorted place.
        let mut spliced = encode(Format::Sha1, SHA256_STEM, &KEY, &entries(4));
        spliced[row(2)].copy_from_slice(&memo[row(2)]);
        let table = sha1(spliced).unwrap();
        assert_eq!(table.get(&[2; 20]), None);
        assert_eq!(table.get(&[1; 20]), Some([3; 32]));
        // Nor does a row under another object format's domain.
        let other = Tagger::new(&KEY, Format::Sha256, SHA256_STEM);
        let ours = Tagger::new(&KEY, Format::Sha1, SHA256_STEM);
        assert_ne!(other.tag(&[1; 20], &[3; 32]), ours.tag(&[1; 20], &[3; 32]));
    }

    #[test]
    fn every_doubt_about_the_file_rejects_it_whole() {
        let good = encode(Format::Sha1, SHA256_STEM, &KEY, &entries(4));
        assert_eq!(
            rejection(good[..good.len() - 1].to_vec()),
            Some(Rejection::Length)
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(rejection(longer), Some(Rejection::Length));
        assert_eq!(
            decode(good.clone(), Format::Sha1, SHA256_STEM, &[8; KEY_LEN]).err(),
            Some(Rejection::Mac)
        );
        assert_eq!(
            decode(good.clone(), Format::Sha256, SHA256_STEM, &KEY).err(),
            Some(Rejection::Format)
        );
        assert_eq!(rejection(good[..10].to_vec()), Some(Rejection::TooShort));
        let mut magic = good.clone();
        magic[0] = b'x';
        assert_eq!(rejection(magic), Some(Rejection::Magic));
        let mut count = good.clone();
        count[24..32].copy_from_slice(&(MAX_ENTRIES as u64 + 1).to_le_bytes());
        assert_eq!(rejection(count), Some(Rejection::Count));
        let mut v1 = good;
        v1[16..20].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(rejection(v1), Some(Rejection::Version));
    }

    #[test]
    fn rows_out_of_order_give_misses_never_wrong_values() {
        let map = entries(4);
        let good = encode(Format::Sha1, SHA256_STEM, &KEY, &map);
        let rows: Vec<&[u8]> = (0..4).map(|i| &good[row(i)]).collect();
        // Every order of the four rows, and one row in every place.
        let mut orders: Vec<Vec<usize>> = Vec::new();
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    for d in 0..4 {
                        orders.push(vec![a, b, c, d]);
                    }
                }
            }
        }
        for order in orders {
            let mut bytes = good[..HEADER_LEN].to_vec();
            for &i in &order {
                bytes.extend_from_slice(rows[i]);
            }
            let table = sha1(bytes).unwrap();
            for (id, value) in &map {
                let found = table.get(id);
                assert!(found.is_none() || found == Some(*value), "{order:?}");
            }
        }
    }

    #[test]
    fn merging_keeps_used_rows_first_and_stays_sorted() {
        let table = sha1(encode(Format::Sha1, SHA256_STEM, &KEY, &entries(6))).unwrap();
        let fresh: BTreeMap<Vec<u8>, [u8; 32]> =
            [(vec![9; 20], [9; 32]), (vec![2; 20], [0xaa; 32])]
                .into_iter()
                .collect();
        let used: BTreeSet<usize> = [4].into_iter().collect();
        let (bytes, count) = table.merged(&fresh, &used, 4);
        assert_eq!(count, 4);
        let merged = sha1(bytes).unwrap();
        // Fresh entries (one replacing row 2), the used row 4, then row 0.
        assert_eq!(merged.get(&[9; 20]), Some([9; 32]));
        assert_eq!(merged.get(&[2; 20]), Some([0xaa; 32]));
        assert_eq!(merged.get(&[4; 20]), Some([12; 32]));
        assert_eq!(merged.get(&[0; 20]), Some([0; 32]));
        assert_eq!(merged.get(&[1; 20]), None);
        // Unbounded, everything is kept once.
        let (bytes, count) = table.merged(&fresh, &BTreeSet::new(), MAX_ENTRIES);
        assert_eq!(count, 7);
        assert_eq!(sha1(bytes).unwrap().get(&[2; 20]), Some([0xaa; 32]));
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
        assert_eq!(cache.fresh_len(), 0);
        assert_eq!(cache.get(&id(1)), Some([1; 32]), "served after the save");
        let mut again = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(again.state(), &LoadState::Loaded(2));
        assert_eq!(again.get(&id(2)), Some([2; 32]));
        again.insert(&id(3), [3; 32]);
        again.save();
        assert_eq!(again.get(&id(3)), Some([3; 32]));
        let mut third = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(third.state(), &LoadState::Loaded(3));
        assert_eq!(third.get(&id(1)), Some([1; 32]));
        // Another user's key (or a planted file) is not trusted.
        let foreign = Sha256Cache::at(path.clone(), [9; KEY_LEN], Format::Sha1);
        assert_eq!(foreign.state(), &LoadState::Rejected(Rejection::Mac));
        // Nor is the file read as another table.
        let mut memo = Sha256Cache::at_named(path.clone(), "tree-v2-memo", KEY, Format::Sha1);
        assert_eq!(memo.state(), &LoadState::Rejected(Rejection::Mac));
        assert_eq!(memo.get(&id(1)), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_version_1_file_is_rejected_and_rewritten_as_version_2() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache");
        // Version 1: the rows without tags, then one MAC over the file.
        let mut v1 = MAGIC.to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&1u64.to_le_bytes());
        v1.extend_from_slice(&[1; 20]);
        v1.extend_from_slice(&[1; 32]);
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY)
            .unwrap()
            .chain_update(&v1)
            .finalize()
            .into_bytes();
        v1.extend_from_slice(&mac);
        std::fs::write(&path, &v1).unwrap();
        let mut cache = Sha256Cache::at(path.clone(), KEY, Format::Sha1);
        assert_eq!(cache.state(), &LoadState::Rejected(Rejection::Version));
        let id = ObjectId::from_bytes_or_panic(&[1; 20]);
        assert_eq!(cache.get(&id), None);
        cache.insert(&id, [1; 32]);
        cache.save();
        let mut again = Sha256Cache::at(path, KEY, Format::Sha1);
        assert_eq!(again.state(), &LoadState::Loaded(1));
        assert_eq!(again.get(&id), Some([1; 32]));
    }

    #[cfg(unix)]
    #[test]
    fn links_and_fifos_are_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(
            &target,
            encode(Format::Sha1, SHA256_STEM, &KEY, &entries(2)),
        )
        .unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let linked = Sha256Cache::at(link, KEY, Format::Sha1);
        assert_eq!(linked.state(), &LoadState::Rejected(Rejection::Length));
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let piped = Sha256Cache::at(fifo, KEY, Format::Sha1);
        assert_eq!(piped.state(), &LoadState::Rejected(Rejection::Length));
        let absent = Sha256Cache::at(dir.path().join("none/cache"), KEY, Format::Sha1);
        assert_eq!(absent.state(), &LoadState::Absent);
        assert_eq!(
            Sha256Cache::at(target, KEY, Format::Sha1).state(),
            &LoadState::Loaded(2)
        );
    }
}
