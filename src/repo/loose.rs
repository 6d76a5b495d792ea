//! Loose objects read with one `read` of their file.
//!
//! What a hook reads is mostly loose: the blobs just staged, the trees and
//! commit of the last commit. gix maps every loose object into memory and
//! unmaps it again; in a process with a second thread alive each unmapping
//! interrupts the other core to flush its TLB (3% of `check --staged`), and
//! a blob read with a size limit read the object twice (its header first).
//! Here the file is read into a buffer and inflated once, the limit checked
//! on the header before the body is inflated, and what was read is kept
//! for the rest of the process ([`Seen`]): a run read the same commit and
//! trees up to five times.
//!
//! Only the repository's own object directory is read, and only what reads
//! cleanly: anything else (an object in a pack or an alternate, a file that
//! is not regular, a stream or header that does not decode, a size that
//! does not match) answers `None`, and the caller asks gix, which answers
//! or gives the error it always gave. Like gix, the object's id is not
//! recomputed from its bytes.

use super::Repo;
use gix::ObjectId;
use gix::object::Kind;
use rustix::fs::{Mode, OFlags};

/// A loose file larger than this is left to gix (a loose object that big is
/// rare, and gix reads it without a copy in memory of the compressed file).
const MAX_LOOSE_FILE: u64 = 16 * 1024 * 1024;

/// Loose objects of at most this size are kept once read.
const KEPT_OBJECT_BYTES: usize = 256 * 1024;
/// And this much of them in all.
const KEPT_BYTES: usize = 16 * 1024 * 1024;

/// What one process has read of the loose objects: a gate run reads the
/// same commits and trees several times (the landing, the task's history,
/// its steps' changes). An object found unreadable here is remembered as
/// such too; that only sends its next reads to gix, which is never wrong.
#[derive(Default)]
pub(crate) struct Seen {
    objects: std::collections::HashMap<ObjectId, Option<std::rc::Rc<KeptObject>>>,
    bytes: usize,
    /// The file names of the fan-out directories (`objects/xx`, by their
    /// first byte) where a read missed, listed then (empty: no such
    /// directory): in a packed repository every object was an `open` that
    /// failed (14,700 of them for `check --ci` over the bench's 1,000
    /// merges), now one listing per directory. An object written loose
    /// after the listing is not missed: the caller asks gix.
    listed: std::collections::HashMap<u8, std::collections::HashSet<Vec<u8>>>,
}

/// A loose object kept once read: its kind and its bytes.
type KeptObject = (Kind, Vec<u8>);

/// What [`Repo::read_loose`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Loose {
    /// The object, of this kind, is in the buffer.
    Read(Kind),
    /// The object is larger than the limit: its size (nothing is read).
    TooLarge(u64),
}

impl Repo {
    /// Read the loose object `id` of the repository's own object directory
    /// into `out` (cleared first), or only its size when it is larger than
    /// `limit` bytes. `None` where gix must answer (see the module).
    pub(crate) fn read_loose(
        &self,
        id: &ObjectId,
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Option<Loose> {
        if let Some(known) = self.loose_seen.borrow().objects.get(id) {
            let (kind, data) = known.as_deref()?;
            if data.len() > limit {
                return Some(Loose::TooLarge(data.len() as u64));
            }
            out.clear();
            out.extend_from_slice(data);
            return Some(Loose::Read(*kind));
        }
        let hex = id.to_hex().to_string();
        let fan_out = id.as_bytes().first().copied().unwrap_or_default();
        if let Some(names) = self.loose_seen.borrow().listed.get(&fan_out)
            && !names.contains(&hex.as_bytes()[2..])
        {
            return None;
        }
        let mut path = self.gix().objects.store_ref().path().to_path_buf();
        path.push(&hex[..2]);
        path.push(&hex[2..]);
        let file = read_small_file(&path);
        let missed = file.is_none();
        let found = file.and_then(|compressed| inflate_object(&compressed, out, limit));
        let mut seen = self.loose_seen.borrow_mut();
        if missed && !seen.listed.contains_key(&fan_out) {
            let names = path
                .parent()
                .and_then(|dir| std::fs::read_dir(dir).ok())
                .map(|entries| {
                    entries
                        .filter_map(|entry| entry.ok())
                        .map(|entry| entry.file_name().into_encoded_bytes())
                        .collect()
                })
                .unwrap_or_default();
            seen.listed.insert(fan_out, names);
        }
        match found {
            Some(Loose::Read(kind))
                if out.len() <= KEPT_OBJECT_BYTES && seen.bytes + out.len() <= KEPT_BYTES =>
            {
                seen.bytes += out.len();
                seen.objects
                    .insert(*id, Some(std::rc::Rc::new((kind, out.clone()))));
            }
            None => {
                seen.objects.insert(*id, None);
            }
            _ => {}
        }
        found
    }

    /// The bytes of the object `id`, of `kind`: read as a loose object
    /// where it is one ([`Repo::read_loose`]), by `from_gix` otherwise
    /// (which reads it, or gives gix's error for it).
    pub(crate) fn loose_or<E>(
        &self,
        id: &ObjectId,
        kind: Kind,
        from_gix: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<Vec<u8>, E> {
        let mut data = Vec::new();
        if self.read_loose(id, &mut data, usize::MAX) == Some(Loose::Read(kind)) {
            return Ok(data);
        }
        from_gix()
    }

    /// The tree `id` as an iterator over `data`, read as a loose object
    /// where it is one ([`Repo::read_loose`]) and by gix otherwise.
    pub(crate) fn tree_iter<'b>(
        &self,
        id: &ObjectId,
        data: &'b mut Vec<u8>,
    ) -> Result<gix::objs::TreeRefIter<'b>, String> {
        if self.read_loose(id, data, usize::MAX) == Some(Loose::Read(Kind::Tree)) {
            return Ok(gix::objs::TreeRefIter::from_bytes(data, id.kind()));
        }
        use gix::objs::FindExt;
        self.gix()
            .objects
            .find_tree_iter(id, data)
            .map_err(|e| e.to_string())
    }
}

/// An object database for gix's own walks (tree diffs) that reads loose
/// objects as [`Repo::read_loose`] does and asks gix for the rest.
pub(crate) struct LooseFirst<'r>(pub &'r Repo);

impl gix::objs::Find for LooseFirst<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::hash::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        if let Some(Loose::Read(kind)) = self.0.read_loose(&id.to_owned(), buffer, usize::MAX) {
            return Ok(Some(gix::objs::Data {
                kind,
                object_hash: id.kind(),
                data: buffer,
            }));
        }
        gix::objs::Find::try_find(&self.0.gix().objects, id, buffer)
    }
}

/// The whole of the regular file at `path`, if it is one of at most
/// [`MAX_LOOSE_FILE`] bytes that reads without error.
fn read_small_file(path: &std::path::Path) -> Option<Vec<u8>> {
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd = rustix::fs::open(path, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
        return None;
    }
    let len = u64::try_from(stat.st_size)
        .ok()
        .filter(|len| *len <= MAX_LOOSE_FILE)?;
    let len = usize::try_from(len).ok()?;
    let mut bytes = vec![0u8; len];
    let mut filled = 0;
    while filled < len {
        match rustix::io::read(&fd, &mut bytes[filled..]) {
            Ok(0) => return None,
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        }
    }
    Some(bytes)
}

/// Inflate the loose object file `compressed` into `out` (its body, after
/// the `<kind> <size>\0` header), or answer its size when it is larger than
/// `limit`. Pure.
fn inflate_object(compressed: &[u8], out: &mut Vec<u8>, limit: usize) -> Option<Loose> {
    // Room for the longest header ("commit 18446744073709551615\0") and a
    // small object's whole body: most trees and blobs a hook reads end
    // within the first inflation.
    let mut head = [0u8; 512];
    let mut inflate = gix::zlib::Inflate::default();
    let (status, consumed_in, written) = inflate.prefix(compressed, &mut head).ok()?;
    if status == gix::zlib::Status::BufError {
        return None;
    }
    let (kind, size, header_len) = gix::objs::decode::loose_header(&head[..written]).ok()?;
    if size > limit as u64 {
        return Some(Loose::TooLarge(size));
    }
    let size = usize::try_from(size).ok()?;
    let body_so_far = written.checked_sub(header_len)?;
    if body_so_far > size {
        return None;
    }
    out.clear();
    if status == gix::zlib::Status::StreamEnd {
        if body_so_far != size {
            return None;
        }
        out.extend_from_slice(&head[header_len..written]);
    } else {
        let n = inflate
            .rest(
                &compressed[consumed_in..],
                &head[..written],
                header_len,
                out,
                size,
            )
            .ok()?;
        if n != size {
            return None;
        }
    }
    Some(Loose::Read(kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::test_git::git;

    fn deflate(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut out = Vec::new();
        let mut writer = gix::zlib::stream::deflate::Write::new(&mut out, Default::default());
        writer.write_all(data).unwrap();
        writer.flush().unwrap();
        drop(writer);
        out
    }

    fn object(kind: &str, body: &[u8]) -> Vec<u8> {
        let mut raw = format!("{kind} {}\0", body.len()).into_bytes();
        raw.extend_from_slice(body);
        deflate(&raw)
    }

    #[test]
    fn small_and_large_objects_inflate_whole() {
        let mut out = Vec::new();
        let small = object("blob", b"hello\n");
        assert_eq!(
            inflate_object(&small, &mut out, 100),
            Some(Loose::Read(Kind::Blob))
        );
        assert_eq!(out, b"hello\n");
        let body: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let large = object("tree", &body);
        assert_eq!(
            inflate_object(&large, &mut out, usize::MAX),
            Some(Loose::Read(Kind::Tree))
        );
        assert_eq!(out, body);
        // Over the limit: the size only.
        assert_eq!(
            inflate_object(&large, &mut out, 10),
            Some(Loose::TooLarge(400_000))
        );
    }

    #[test]
    fn every_loose_object_reads_as_gix_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        std::fs::write(root.join("src/deep/b.bin"), vec![0xa5u8; 200_000]).unwrap();
        std::fs::write(root.join("empty"), "").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "one"]);
        std::fs::write(root.join("a.txt"), "changed\n").unwrap();
        git(root, &["commit", "-qam", "two"]);
        let repo = Repo::discover(root).unwrap();
        let ids = git(
            root,
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objectname)",
            ],
        );
        let mut checked = 0;
        for id in ids.lines() {
            let id = ObjectId::from_hex(id.as_bytes()).unwrap();
            let mut data = Vec::new();
            let found = repo.read_loose(&id, &mut data, usize::MAX);
            let object = repo.gix().find_object(id).unwrap();
            assert_eq!(found, Some(Loose::Read(object.kind)), "{id}");
            assert_eq!(data, object.data, "{id}");
            checked += 1;
        }
        assert!(checked >= 10, "{checked} objects");
        // A limit answers the size alone.
        let big = ObjectId::from_hex(git(root, &["rev-parse", "HEAD:src/deep/b.bin"]).as_bytes())
            .unwrap();
        assert_eq!(
            repo.read_loose(&big, &mut Vec::new(), 1000),
            Some(Loose::TooLarge(200_000))
        );
        // Packed objects are gix's.
        git(root, &["gc", "-q"]);
        let repo = Repo::discover(root).unwrap();
        assert_eq!(repo.read_loose(&big, &mut Vec::new(), usize::MAX), None);
    }

    #[test]
    fn a_miss_lists_its_directory_and_hides_nothing_written_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        let hash = |body: &str| {
            std::fs::write(root.join("f"), body).unwrap();
            ObjectId::from_hex(git(root, &["hash-object", "-w", "f"]).as_bytes()).unwrap()
        };
        let first = hash("first\n");
        let repo = Repo::discover(root).unwrap();
        // An id in the same directory that names no object: a miss, and
        // the directory is listed.
        let mut absent = first;
        absent.as_mut_slice()[19] ^= 0xff;
        assert_eq!(repo.read_loose(&absent, &mut Vec::new(), usize::MAX), None);
        assert!(
            repo.loose_seen
                .borrow()
                .listed
                .contains_key(&first.as_bytes()[0])
        );
        // What the listing holds still reads loose.
        let mut data = Vec::new();
        assert_eq!(
            repo.read_loose(&first, &mut data, usize::MAX),
            Some(Loose::Read(Kind::Blob))
        );
        assert_eq!(data, b"first\n");
        // An object written after the listing into the listed directory
        // is left to gix, which reads it.
        let later = (0..100_000)
            .map(|i| format!("later {i}\n"))
            .find(|body| {
                gix::objs::compute_hash(first.kind(), Kind::Blob, body.as_bytes())
                    .is_ok_and(|id| id.as_bytes()[0] == first.as_bytes()[0])
            })
            .unwrap();
        let id = hash(&later);
        assert_eq!(id.as_bytes()[0], first.as_bytes()[0]);
        let read = repo.loose_or(&id, Kind::Blob, || {
            repo.gix()
                .find_object(id)
                .map(|o| o.detach().data)
                .map_err(|e| e.to_string())
        });
        assert_eq!(read.unwrap(), later.into_bytes());
    }

    #[test]
    fn an_object_once_read_is_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "kept\n").unwrap();
        let hex = git(root, &["hash-object", "-w", "a.txt"]);
        let repo = Repo::discover(root).unwrap();
        let id = ObjectId::from_hex(hex.as_bytes()).unwrap();
        let mut first = Vec::new();
        assert_eq!(
            repo.read_loose(&id, &mut first, 100),
            Some(Loose::Read(Kind::Blob))
        );
        // The file gone: the second read is the first one's answer, the
        // limit applied to it all the same.
        std::fs::remove_file(root.join(".git/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
        let mut second = Vec::new();
        assert_eq!(
            repo.read_loose(&id, &mut second, 100),
            Some(Loose::Read(Kind::Blob))
        );
        assert_eq!(first, second);
        assert_eq!(
            repo.read_loose(&id, &mut second, 2),
            Some(Loose::TooLarge(5))
        );
        // What was not a loose object is remembered as not one: gix's.
        let absent = ObjectId::from_hex(b"0123456789012345678901234567890123456789").unwrap();
        assert_eq!(repo.read_loose(&absent, &mut second, 100), None);
        assert_eq!(repo.read_loose(&absent, &mut second, 100), None);
    }

    #[test]
    fn a_damaged_loose_object_is_gix_to_report() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        let content: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(root.join("a.txt"), content).unwrap();
        let id = git(root, &["hash-object", "-w", "a.txt"]);
        let path = root.join(".git/objects").join(&id[..2]).join(&id[2..]);
        let mut bytes = std::fs::read(&path).unwrap();
        let half = bytes.len() / 2;
        bytes.truncate(half);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let repo = Repo::discover(root).unwrap();
        let id = ObjectId::from_hex(id.as_bytes()).unwrap();
        assert_eq!(repo.read_loose(&id, &mut Vec::new(), usize::MAX), None);
        let error = repo.read_blob(id, "a.txt", 1_000_000).unwrap_err();
        assert_eq!(
            error.code,
            crate::codes::Code::git_object_unavailable,
            "{error:?}"
        );
    }

    #[test]
    fn what_does_not_read_cleanly_is_left_to_gix() {
        let mut out = Vec::new();
        // A header that lies about the size, either way.
        let mut raw = b"blob 3\0hello".to_vec();
        assert_eq!(inflate_object(&deflate(&raw), &mut out, 100), None);
        raw = b"blob 9\0hello".to_vec();
        assert_eq!(inflate_object(&deflate(&raw), &mut out, 100), None);
        // No header, not zlib, truncated.
        assert_eq!(inflate_object(&deflate(b"hello"), &mut out, 100), None);
        assert_eq!(inflate_object(b"not zlib at all", &mut out, 100), None);
        let whole = object("blob", &[7u8; 5000]);
        assert_eq!(
            inflate_object(&whole[..whole.len() / 2], &mut out, usize::MAX),
            None
        );
        assert_eq!(inflate_object(&[], &mut out, 100), None);
    }
}
