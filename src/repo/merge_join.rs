//! Walking two sorted sequences side by side: the one loop behind change
//! sets, derived views and patched listings.

use std::cmp::Ordering;
use std::iter::Peekable;

/// One step of a side-by-side walk: an item only the left sequence has,
/// only the right one has, or both have under the same key.
#[derive(Debug, PartialEq, Eq)]
pub enum Paired<L, R> {
    Left(L),
    Right(R),
    Both(L, R),
}

/// The iterator of [`merge_join`].
pub struct MergeJoin<L: Iterator, R: Iterator, F> {
    left: Peekable<L>,
    right: Peekable<R>,
    compare: F,
}

/// Walk `left` and `right`, both sorted (each key once) by the order
/// `compare` sees, pairing items with equal keys.
pub fn merge_join<L, R, F>(left: L, right: R, compare: F) -> MergeJoin<L::IntoIter, R::IntoIter, F>
where
    L: IntoIterator,
    R: IntoIterator,
    F: FnMut(&L::Item, &R::Item) -> Ordering,
{
    MergeJoin {
        left: left.into_iter().peekable(),
        right: right.into_iter().peekable(),
        compare,
    }
}

impl<L, R, F> Iterator for MergeJoin<L, R, F>
where
    L: Iterator,
    R: Iterator,
    F: FnMut(&L::Item, &R::Item) -> Ordering,
{
    type Item = Paired<L::Item, R::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        let order = match (self.left.peek(), self.right.peek()) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(left), Some(right)) => (self.compare)(left, right),
        };
        match order {
            Ordering::Less => self.left.next().map(Paired::Left),
            Ordering::Greater => self.right.next().map(Paired::Right),
            Ordering::Equal => match (self.left.next(), self.right.next()) {
                (Some(left), Some(right)) => Some(Paired::Both(left, right)),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_equal_keys_and_keeps_the_rest_in_order() {
        let walked: Vec<_> = merge_join([1, 3, 4, 7], [2, 3, 7, 9], |a, b| a.cmp(b)).collect();
        assert_eq!(
            walked,
            vec![
                Paired::Left(1),
                Paired::Right(2),
                Paired::Both(3, 3),
                Paired::Left(4),
                Paired::Both(7, 7),
                Paired::Right(9),
            ]
        );
        assert_eq!(
            merge_join(Vec::<u8>::new(), Vec::<u8>::new(), |a, b| a.cmp(b)).count(),
            0
        );
    }
}
