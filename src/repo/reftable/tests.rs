use super::*;
use crate::repo::test_git::{git, init};
use proptest::prelude::*;

/// The tables of a reftable repository git just wrote, oldest first.
fn tables_of(root: &std::path::Path) -> Vec<Vec<u8>> {
    let dir = root.join(".git/reftable");
    std::fs::read_to_string(dir.join("tables.list"))
        .unwrap()
        .lines()
        .map(|name| std::fs::read(dir.join(name)).unwrap())
        .collect()
}

/// A compacted stack of one table of a SHA-1 repository: HEAD, a branch
/// and 60 tags, in reference blocks of 256 bytes.
fn one_table() -> (tempfile::TempDir, Vec<u8>, ObjectId) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init(root, "main", "reftable", Some("sha1"));
    git(root, &["config", "reftable.blockSize", "256"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "one"]);
    for i in 0..60 {
        git(root, &["tag", &format!("t{i:02}")]);
    }
    git(root, &["pack-refs", "--all"]);
    let head = ObjectId::from_hex(git(root, &["rev-parse", "HEAD"]).as_bytes()).unwrap();
    let mut tables = tables_of(root);
    assert_eq!(tables.len(), 1, "pack-refs compacts the stack");
    (dir, tables.remove(0), head)
}

#[test]
fn git_varints_decode_as_git_encodes_them() {
    // git's put_var_int: 0, 127, 128 (0x80 0x00), 16511 (0xff 0x7f),
    // 16512 (0x80 0x80 0x00).
    let cases: [(&[u8], u64); 5] = [
        (&[0x00], 0),
        (&[0x7f], 127),
        (&[0x80, 0x00], 128),
        (&[0xff, 0x7f], 16511),
        (&[0x80, 0x80, 0x00], 16512),
    ];
    for (bytes, expected) in cases {
        let mut at = 0;
        assert_eq!(varint(bytes, &mut at, bytes.len()), Ok(expected));
        assert_eq!(at, bytes.len());
    }
    let mut at = 0;
    assert!(varint(&[0x80], &mut at, 1).is_err(), "a varint cut short");
}

#[test]
fn a_table_of_many_blocks_gives_each_name_its_record() {
    let (_dir, table, head) = one_table();
    let layout = layout(&table, Kind::Sha1).unwrap();
    assert!(
        ref_blocks(&table, &layout).unwrap().len() > 3,
        "several blocks"
    );
    assert_eq!(
        table_lookup(&table, b"HEAD", Kind::Sha1),
        Ok(Some(Value::Symbolic("refs/heads/main".into())))
    );
    assert_eq!(
        table_lookup(&table, b"refs/heads/main", Kind::Sha1),
        Ok(Some(Value::Object(head)))
    );
    for i in 0..60 {
        let name = format!("refs/tags/t{i:02}");
        assert_eq!(
            table_lookup(&table, name.as_bytes(), Kind::Sha1),
            Ok(Some(Value::Object(head))),
            "{name}"
        );
    }
    for absent in [
        "A",
        "refs/heads/mai",
        "refs/tags/t60",
        "refs/tags/t0",
        "zzz",
    ] {
        assert_eq!(
            table_lookup(&table, absent.as_bytes(), Kind::Sha1),
            Ok(None)
        );
    }
    assert_eq!(
        table_lookup(&table, b"HEAD", Kind::Sha256),
        Err(Unreadable("the table's hash is not the repository's"))
    );
}

#[test]
fn a_footer_that_does_not_check_is_unreadable() {
    let (_dir, mut table, _) = one_table();
    let last = table.len() - 1;
    table[last] ^= 1;
    assert_eq!(
        table_lookup(&table, b"HEAD", Kind::Sha1),
        Err(Unreadable("the footer's CRC-32 does not match"))
    );
    assert!(table_lookup(&table[..20], b"HEAD", Kind::Sha1).is_err());
    assert!(table_lookup(b"", b"HEAD", Kind::Sha1).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Damaged anywhere (bytes changed, the table cut short), a table
    /// gives a value or `Unreadable`, never a panic or an endless loop.
    #[test]
    fn damaged_tables_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        name in "(HEAD|refs/heads/main|refs/tags/t[0-9]{2})",
    ) {
        thread_local! {
            static TABLE: (tempfile::TempDir, Vec<u8>, ObjectId) = one_table();
        }
        let mut table = TABLE.with(|t| t.1.clone());
        for (at, byte) in flips {
            let at = at.index(table.len());
            table[at] = byte;
        }
        let _ = table_lookup(&table, name.as_bytes(), Kind::Sha1);
        let len = cut.index(table.len());
        let _ = table_lookup(&table[..len], name.as_bytes(), Kind::Sha1);
    }
}
