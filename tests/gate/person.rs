//! The pending step's author and committer are resolved without reading
//! the clock (`Repo::person`). On random mixes of `author.*`,
//! `committer.*`, `user.*` and gix's fallback keys, they must be exactly
//! the name and email gix's own `author()` and `committer()` give.

use crate::common::TestRepo;
use gix::bstr::ByteSlice;
use mastermind_hooks::repo::Repo;
use proptest::prelude::*;

const KEYS: [&str; 8] = [
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "user.name",
    "user.email",
    "gitoxide.author.nameFallback",
    "gitoxide.committer.emailFallback",
];

fn gix_person(
    signature: Option<Result<gix::actor::SignatureRef<'_>, impl std::fmt::Debug>>,
) -> Option<String> {
    signature.and_then(Result::ok).map(|s| {
        format!(
            "{} <{}>",
            s.name.to_str_lossy().trim(),
            s.email.to_str_lossy().trim()
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn person_is_gix_author_and_committer_without_the_date(
        set in proptest::collection::vec(any::<bool>(), KEYS.len()),
        padded in any::<bool>(),
    ) {
        let repo = TestRepo::new();
        for (i, (key, on)) in KEYS.iter().zip(&set).enumerate() {
            if *on {
                let value = if padded { format!(" value {i} ") } else { format!("value{i}") };
                repo.git(&["config", key, &value]);
            }
        }
        let opened = Repo::discover(repo.path()).expect("discover");
        prop_assert_eq!(opened.person(false), gix_person(opened.gix().author()));
        prop_assert_eq!(opened.person(true), gix_person(opened.gix().committer()));
    }
}
