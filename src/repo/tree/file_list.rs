//! The sorted file list a view holds: every path back to back in one
//! buffer, and per file where its path ends and its entry.
//!
//! A list of 10,000 files as separately allocated paths costs 10,000
//! allocations to build and as many frees to drop, more than decoding the
//! index it came from; one buffer costs a copy.

use super::Entry;
use gix::bstr::{BStr, BString, ByteSlice};

/// Files sorted by path bytes, each path once (see
/// [`FileList::into_sorted_unique`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileList {
    /// Every path, one after another.
    paths: Vec<u8>,
    /// Per file, the end of its path in `paths` (it starts where the
    /// previous one ends). Apart from the entries: a search reads only
    /// these and the paths, and eight bytes a file keep far more of them in
    /// the cache than a slot of forty (issue 53).
    ends: Vec<usize>,
    /// Per file, its entry.
    entries: Vec<Entry>,
}

impl FileList {
    /// An empty list with room for `files` files of `path_bytes` bytes.
    pub fn with_capacity(files: usize, path_bytes: usize) -> FileList {
        FileList {
            paths: Vec::with_capacity(path_bytes),
            ends: Vec::with_capacity(files),
            entries: Vec::with_capacity(files),
        }
    }

    /// Append a file (the caller keeps the order, or sorts after).
    pub fn push(&mut self, path: &[u8], entry: Entry) {
        self.paths.extend_from_slice(path);
        self.ends.push(self.paths.len());
        self.entries.push(entry);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The path of file `i` (which must be below [`FileList::len`]).
    pub fn path(&self, i: usize) -> &BStr {
        let start = match i.checked_sub(1) {
            Some(before) => self.ends[before],
            None => 0,
        };
        self.paths[start..self.ends[i]].as_bstr()
    }

    /// The entry of file `i` (which must be below [`FileList::len`]).
    pub fn entry(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    /// File `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<(&BStr, &Entry)> {
        (i < self.len()).then(|| (self.path(i), self.entry(i)))
    }

    /// Every file from the `start`th on, in order.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = (&BStr, &Entry)> {
        let start = start.min(self.len());
        let mut path_start = match start.checked_sub(1) {
            Some(before) => self.ends[before],
            None => 0,
        };
        let files = self.ends[start..].iter().zip(&self.entries[start..]);
        files.map(move |(end, entry)| {
            let path = self.paths[path_start..*end].as_bstr();
            path_start = *end;
            (path, entry)
        })
    }

    /// Every file, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&BStr, &Entry)> {
        self.iter_from(0)
    }

    /// The first index at or after `start` whose path makes `before` false,
    /// where `before` is true for a prefix of the files from `start` on (as
    /// [`slice::partition_point`]). The search gallops from `start` (probes
    /// 1, 2, 4, ... files on) before it halves, so it costs the logarithm
    /// of the distance to the answer, not of the list: callers walking the
    /// list in order (a directory after another, the end of a directory
    /// after its start) pay for the files between, not for all of them.
    pub fn partition_point_from(
        &self,
        start: usize,
        mut before: impl FnMut(&[u8]) -> bool,
    ) -> usize {
        let len = self.len();
        let (mut low, mut high) = (start.min(len), len);
        // Every file before `low` makes `before` true; the one at `high`
        // (if any) makes it false.
        let mut step = 1;
        while low < high {
            let probe = (low + step - 1).min(high - 1);
            if before(self.path(probe)) {
                low = probe + 1;
                step = step.saturating_mul(2);
            } else {
                high = probe;
                break;
            }
        }
        while low < high {
            let mid = low + (high - low) / 2;
            if before(self.path(mid)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    /// [`FileList::partition_point_from`] the first file.
    pub fn partition_point(&self, before: impl FnMut(&[u8]) -> bool) -> usize {
        self.partition_point_from(0, before)
    }

    /// The index of `path`, if the list holds it.
    pub fn find(&self, path: &[u8]) -> Option<usize> {
        let at = self.partition_point(|p| p < path);
        (at < self.len() && self.path(at) == path).then_some(at)
    }

    /// True when every path is greater than the one before it.
    pub fn is_sorted_unique(&self) -> bool {
        let mut paths = self.iter().map(|(path, _)| -> &[u8] { path });
        let Some(mut previous) = paths.next() else {
            return true;
        };
        paths.all(|path| precedes(std::mem::replace(&mut previous, path), path))
    }

    /// Sorted by path with the last entry of a repeated path kept (a
    /// malformed tree can name a path twice). A list already in order, as
    /// trees and the index are, costs one comparison per file.
    pub fn into_sorted_unique(self) -> FileList {
        if self.is_sorted_unique() {
            return self;
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        // Stable: of equal paths the later one stays last.
        order.sort_by(|a, b| self.path(*a).cmp(self.path(*b)));
        let mut unique = FileList::with_capacity(self.len(), self.paths.len());
        for (n, &i) in order.iter().enumerate() {
            let later_same = order
                .get(n + 1)
                .is_some_and(|&next| self.path(next) == self.path(i));
            if !later_same {
                unique.push(self.path(i), *self.entry(i));
            }
        }
        unique
    }

    /// A list of `(path, entry)` pairs in any order, sorted and each path
    /// once ([`FileList::into_sorted_unique`]).
    pub fn from_pairs(pairs: Vec<(BString, Entry)>) -> FileList {
        let bytes = pairs.iter().map(|(path, _)| path.len()).sum();
        let mut list = FileList::with_capacity(pairs.len(), bytes);
        for (path, entry) in &pairs {
            list.push(path, *entry);
        }
        list.into_sorted_unique()
    }
}

/// `a < b` as bytes, as `<[u8]>::lt` answers it, eight bytes at a time:
/// neighbours in a sorted list share long prefixes, and every list a view
/// is built from is checked pair by pair ([`FileList::is_sorted_unique`]),
/// 10,000 pairs for the bench's limit repository.
#[inline]
fn precedes(a: &[u8], b: &[u8]) -> bool {
    let mut at = 0;
    while let (Some(x), Some(y)) = (
        a.get(at..).and_then(<[u8]>::first_chunk::<8>),
        b.get(at..).and_then(<[u8]>::first_chunk::<8>),
    ) {
        if x != y {
            return u64::from_be_bytes(*x) < u64::from_be_bytes(*y);
        }
        at += 8;
    }
    a.get(at..) < b.get(at..)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::EntryMode;
    use super::*;
    use gix::ObjectId;
    use proptest::prelude::*;

    /// A regular file's entry whose id starts with `n`.
    pub(in crate::repo::tree) fn entry(n: u8) -> Entry {
        let mut bytes = [0u8; 20];
        bytes[0] = n;
        Entry {
            mode: EntryMode::Regular,
            oid: ObjectId::from_bytes_or_panic(&bytes),
        }
    }

    #[test]
    fn paths_and_entries_come_back_as_pushed() {
        let mut list = FileList::default();
        list.push(b"a", entry(1));
        list.push(b"", entry(2));
        list.push(b"b/c", entry(3));
        assert_eq!(list.len(), 3);
        assert_eq!(list.path(0), "a");
        assert_eq!(list.path(1), "");
        assert_eq!(list.path(2), "b/c");
        assert_eq!(list.entry(2), &entry(3));
        assert_eq!(list.get(3), None);
        let paths: Vec<&BStr> = list.iter_from(1).map(|(p, _)| p).collect();
        assert_eq!(paths, ["", "b/c"]);
        assert_eq!(list.iter_from(9).count(), 0);
    }

    #[test]
    fn a_repeated_path_keeps_its_last_entry() {
        let list = FileList::from_pairs(vec![
            ("b".into(), entry(1)),
            ("a".into(), entry(2)),
            ("b".into(), entry(3)),
        ]);
        let files: Vec<(&BStr, Entry)> = list.iter().map(|(p, e)| (p, *e)).collect();
        assert_eq!(files, [("a".into(), entry(2)), ("b".into(), entry(3))]);
    }

    proptest! {
        /// The eight-byte comparison orders as the byte-wise one.
        #[test]
        fn precedes_agrees_with_byte_order(
            a in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'/'), Just(0xff), any::<u8>()], 0..40),
            b in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'/'), Just(0xff), any::<u8>()], 0..40),
            shared in 0usize..24,
        ) {
            prop_assert_eq!(precedes(&a, &b), a < b);
            // Long shared prefixes, as sorted paths have.
            let mut c = a.clone();
            c.truncate(shared.min(c.len()));
            c.extend_from_slice(&b);
            let mut d = a.clone();
            d.truncate(shared.min(d.len()));
            d.extend_from_slice(&a);
            prop_assert_eq!(precedes(&c, &d), c < d);
            prop_assert_eq!(precedes(&d, &c), d < c);
            prop_assert!(!precedes(&c, &c));
        }

        /// Sorting, searching and partitioning agree with a vector of
        /// owned pairs.
        #[test]
        fn agrees_with_owned_pairs(
            pairs in proptest::collection::vec(("[ab/]{0,4}", 0u8..4), 0..24),
            probe in "[ab/]{0,4}",
        ) {
            let owned: Vec<(BString, Entry)> =
                pairs.iter().map(|(p, n)| (BString::from(p.as_str()), entry(*n))).collect();
            let list = FileList::from_pairs(owned.clone());
            let mut expected: std::collections::BTreeMap<BString, Entry> = Default::default();
            for (path, e) in owned {
                expected.insert(path, e);
            }
            let got: Vec<(BString, Entry)> = list.iter().map(|(p, e)| (p.to_owned(), *e)).collect();
            let want: Vec<(BString, Entry)> = expected.into_iter().collect();
            prop_assert_eq!(&got, &want);
            prop_assert!(list.is_sorted_unique());
            let paths: Vec<BString> = list.iter().map(|(p, _)| p.to_owned()).collect();
            for start in 0..=paths.len() + 1 {
                let from = list.partition_point_from(start, |p| p < probe.as_bytes());
                let at = start.min(paths.len());
                let want = at + paths[at..].partition_point(|p| p.as_slice() < probe.as_bytes());
                prop_assert_eq!(from, want, "from {}", start);
            }
            let at = list.partition_point(|p| p < probe.as_bytes());
            prop_assert_eq!(at, want.partition_point(|(p, _)| p.as_slice() < probe.as_bytes()));
            prop_assert_eq!(
                list.find(probe.as_bytes()),
                want.iter().position(|(p, _)| p == probe.as_bytes())
            );
            for start in 0..=list.len() {
                prop_assert_eq!(
                    list.partition_point_from(start, |p| p < probe.as_bytes()),
                    at.max(start)
                );
            }
        }
    }
}
