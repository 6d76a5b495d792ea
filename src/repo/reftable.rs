//! The records of git's `reftable` reference store, read in process: what a
//! stack of tables holds for one reference name. Pure: the tables' bytes
//! in, a value or "unreadable" out; [`super::refs`] reads the files and
//! asks git itself whenever this module cannot answer.
//!
//! The format is git's (`Documentation/technical/reftable.adoc` in git's
//! sources): a table is a 24-byte header (28 in version 2, which names the
//! hash), blocks, and a footer that repeats the header, gives where the
//! index, object and log sections start, and ends in a CRC-32 of itself.
//! Reference blocks (`r`) come first. A block is its type, its length (24
//! bits, counted from the block's start, which for the first block is the
//! start of the file), records, and a table of restart points ending in
//! their count. A record is a varint prefix length (bytes shared with the
//! previous name), a varint suffix length shifted left by three over the
//! value type, the suffix, a varint update-index delta and the value:
//! nothing (a deletion), an object id, an object id and its peeled id, or
//! a varint length and a symbolic target. Blocks are padded with zeros to
//! the table's block size. A stack (`reftable/tables.list`, oldest table
//! first) is read newest first: the first table with a record for a name
//! decides, and a deletion there means the reference does not exist.
//!
//! Only what the gate asks is read: one name's record, found by the first
//! name of each block and a scan of the one block that can hold it. The
//! log, index and object sections are never read. Anything unexpected (a
//! version above 2, another hash than the repository's, a footer that does
//! not check, a reserved value type, a record running past its block) is
//! [`Unreadable`], and the caller asks git.

use gix::ObjectId;
use gix::hash::Kind;

/// What a table holds for a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// The reference was deleted (in a table newer than any that has it).
    Deleted,
    /// It names this object (annotated tags unpeeled).
    Object(ObjectId),
    /// It points at this other reference.
    Symbolic(String),
}

/// Why a table cannot be read here (the caller asks git instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreadable(pub &'static str);

type Read<T> = Result<T, Unreadable>;

/// What the header and footer of a table say.
struct Layout {
    header_len: usize,
    block_size: usize,
    hash_len: usize,
    /// Where the reference blocks end: the first later section, or the
    /// footer.
    refs_end: usize,
}

const MAGIC: &[u8] = b"REFT";

fn be(bytes: &[u8], at: usize, width: usize) -> Read<u64> {
    let field = bytes
        .get(at..at + width)
        .ok_or(Unreadable("a field runs past the end of the table"))?;
    Ok(field.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b)))
}

fn to_usize(n: u64) -> Read<usize> {
    usize::try_from(n).map_err(|_| Unreadable("an offset is too large"))
}

fn layout(table: &[u8], hash: Kind) -> Read<Layout> {
    if table.get(..MAGIC.len()) != Some(MAGIC) {
        return Err(Unreadable("not a reftable (no `REFT` magic)"));
    }
    let (header_len, footer_len) = match table.get(4) {
        Some(1) => (24, 68),
        Some(2) => (28, 72),
        _ => return Err(Unreadable("a reftable version this reader does not know")),
    };
    let footer_start = table
        .len()
        .checked_sub(footer_len)
        .filter(|start| *start >= header_len)
        .ok_or(Unreadable("shorter than its header and footer"))?;
    let footer = &table[footer_start..];
    if footer[..header_len] != table[..header_len] {
        return Err(Unreadable("the footer does not repeat the header"));
    }
    let crc = be(footer, footer_len - 4, 4)?;
    if u64::from(crc32fast::hash(&footer[..footer_len - 4])) != crc {
        return Err(Unreadable("the footer's CRC-32 does not match"));
    }
    let format = match be(table, 24, 4) {
        _ if header_len == 24 => Kind::Sha1,
        Ok(0x7368_6131) => Kind::Sha1,   // "sha1"
        Ok(0x7332_3536) => Kind::Sha256, // "s256"
        _ => return Err(Unreadable("a hash this reader does not know")),
    };
    if format != hash {
        return Err(Unreadable("the table's hash is not the repository's"));
    }
    let section = |i: usize| be(footer, header_len + 8 * i, 8);
    let later = [section(0)?, section(1)? >> 5, section(3)?];
    let mut refs_end = footer_start;
    for start in later.into_iter().filter(|start| *start != 0) {
        refs_end = refs_end.min(to_usize(start)?);
    }
    if refs_end < header_len {
        return Err(Unreadable("the footer puts a section inside the header"));
    }
    Ok(Layout {
        header_len,
        block_size: to_usize(be(table, 5, 3)?)?,
        hash_len: hash.len_in_bytes(),
        refs_end,
    })
}

/// Git's reftable varint: seven bits a byte, most significant first, each
/// continuation adding one before the shift.
fn varint(bytes: &[u8], at: &mut usize, end: usize) -> Read<u64> {
    let mut next = || -> Read<u8> {
        let byte = *bytes[..end]
            .get(*at)
            .ok_or(Unreadable("a record runs past its block"))?;
        *at += 1;
        Ok(byte)
    };
    let mut byte = next()?;
    let mut value = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = next()?;
        value = value
            .checked_add(1)
            .and_then(|v| v.checked_mul(128))
            .ok_or(Unreadable("a varint overflows"))?
            | u64::from(byte & 0x7f);
    }
    Ok(value)
}

fn take<'t>(bytes: &'t [u8], at: &mut usize, len: usize, end: usize) -> Read<&'t [u8]> {
    let taken = at
        .checked_add(len)
        .filter(|stop| *stop <= end)
        .and_then(|stop| bytes.get(*at..stop))
        .ok_or(Unreadable("a record runs past its block"))?;
    *at += len;
    Ok(taken)
}

/// The records of one reference block, from `at` to `end`.
struct Records<'t> {
    table: &'t [u8],
    at: usize,
    end: usize,
    hash_len: usize,
    name: Vec<u8>,
}

impl Records<'_> {
    /// The next record's name (in `self.name`) and value; `None` at the end.
    fn next(&mut self) -> Read<Option<Value>> {
        if self.at >= self.end {
            return Ok(None);
        }
        let (table, end) = (self.table, self.end);
        let at = &mut self.at;
        let prefix = to_usize(varint(table, at, end)?)?;
        let tagged = varint(table, at, end)?;
        let suffix = take(table, at, to_usize(tagged >> 3)?, end)?;
        if prefix > self.name.len() {
            return Err(Unreadable(
                "a record shares more than its predecessor's name",
            ));
        }
        self.name.truncate(prefix);
        self.name.extend_from_slice(suffix);
        varint(table, at, end)?; // the update index's delta
        let id = |bytes: &[u8]| {
            ObjectId::try_from(bytes).map_err(|_| Unreadable("an object id of the wrong width"))
        };
        let value = match tagged & 7 {
            0 => Value::Deleted,
            1 => Value::Object(id(take(table, at, self.hash_len, end)?)?),
            2 => {
                let value = id(take(table, at, self.hash_len, end)?)?;
                take(table, at, self.hash_len, end)?; // the peeled id
                Value::Object(value)
            }
            3 => {
                let len = to_usize(varint(table, at, end)?)?;
                let target = take(table, at, len, end)?;
                Value::Symbolic(
                    String::from_utf8(target.to_vec())
                        .map_err(|_| Unreadable("a symbolic target that is not UTF-8"))?,
                )
            }
            _ => return Err(Unreadable("a value type the format reserves")),
        };
        Ok(Some(value))
    }
}

/// The reference blocks of a table, each as the span of its records.
fn ref_blocks(table: &[u8], layout: &Layout) -> Read<Vec<(usize, usize)>> {
    let mut blocks = Vec::new();
    let mut start = 0usize;
    loop {
        let type_at = if start == 0 { layout.header_len } else { start };
        if type_at >= layout.refs_end || table.get(type_at) != Some(&b'r') {
            return Ok(blocks);
        }
        let len = to_usize(be(table, type_at + 1, 3)?)?;
        let end = start
            .checked_add(len)
            .filter(|end| *end <= layout.refs_end && *end >= type_at + 6)
            .ok_or(Unreadable("a block runs past the reference section"))?;
        let restarts = to_usize(be(table, end - 2, 2)?)?;
        let records_end = (end - 2)
            .checked_sub(3 * restarts)
            .filter(|records_end| *records_end >= type_at + 4)
            .ok_or(Unreadable("a block's restart table overruns it"))?;
        blocks.push((type_at + 4, records_end));
        start = end;
        // Padding to the block size (a block never starts with a zero).
        if layout.block_size > 0 && table.get(start) == Some(&0) {
            start = start.div_ceil(layout.block_size) * layout.block_size;
        }
    }
}

/// What one table holds for `name`; `None`: it has no record of it.
pub fn table_lookup(table: &[u8], name: &[u8], hash: Kind) -> Read<Option<Value>> {
    let layout = layout(table, hash)?;
    let blocks = ref_blocks(table, &layout)?;
    let records = |(at, end): (usize, usize)| Records {
        table,
        at,
        end,
        hash_len: layout.hash_len,
        name: Vec::new(),
    };
    // The last block whose first name is not after `name`.
    let mut candidate = None;
    for &block in &blocks {
        let mut first = records(block);
        if first.next()?.is_none() {
            continue;
        }
        if first.name.as_slice() > name {
            break;
        }
        candidate = Some(block);
    }
    let Some(block) = candidate else {
        return Ok(None);
    };
    let mut records = records(block);
    while let Some(value) = records.next()? {
        match records.name.as_slice().cmp(name) {
            std::cmp::Ordering::Less => {}
            std::cmp::Ordering::Equal => return Ok(Some(value)),
            std::cmp::Ordering::Greater => return Ok(None),
        }
    }
    Ok(None)
}

/// What a stack of tables (oldest first, as `tables.list` lists them)
/// holds for `name`: the newest table's record of it; a deletion there is
/// `None`, as is a name no table has.
pub fn stack_lookup<T: AsRef<[u8]>>(tables: &[T], name: &str, hash: Kind) -> Read<Option<Value>> {
    for table in tables.iter().rev() {
        match table_lookup(table.as_ref(), name.as_bytes(), hash)? {
            Some(Value::Deleted) => return Ok(None),
            Some(value) => return Ok(Some(value)),
            None => {}
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
