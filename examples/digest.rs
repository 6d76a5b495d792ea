//! Benchmark driver for the tree-v1 digest (not a test): prints the digest
//! of a repository's HEAD tree (or working tree) and the wall time of one
//! computation. Used by `bench/digest.sh`.
//!
//! `cargo run --release --example digest -- REPO head|index|worktree [--cache] [--runs N]`

use mastermind_hooks::digest::cache::Sha256Cache;
use mastermind_hooks::digest::view::{of_objects, of_worktree};
use mastermind_hooks::repo::Repo;
use mastermind_hooks::repo::tree::View;
use std::path::Path;
use std::time::Instant;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(which)) = (args.first(), args.get(1)) else {
        eprintln!("usage: digest REPO head|index|worktree [--cache] [--runs N]");
        return std::process::ExitCode::from(2);
    };
    let use_cache = args.iter().any(|a| a == "--cache");
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let repo = match Repo::discover(Path::new(dir)) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{e}");
                return std::process::ExitCode::from(2);
            }
        };
        let mut cache = use_cache.then(|| Sha256Cache::open(&repo)).flatten();
        let computed = match which.as_str() {
            "worktree" => of_worktree(&repo, cache.as_mut()),
            "index" => View::from_index(&repo).and_then(|v| of_objects(&repo, &v, cache.as_mut())),
            _ => repo
                .head_commit()
                .and_then(|c| {
                    c.ok_or_else(|| {
                        mastermind_hooks::repo::RepoError::new(
                            mastermind_hooks::codes::Code::git_revision_unknown,
                            "no HEAD",
                        )
                    })
                })
                .and_then(|c| View::from_commit(&repo, c))
                .and_then(|v| of_objects(&repo, &v, cache.as_mut())),
        };
        if let Some(cache) = cache.as_mut() {
            cache.save();
        }
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        match computed {
            Ok(c) => last = Some(c),
            Err(e) => {
                eprintln!("{e}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    if let Some(c) = last {
        println!(
            "{which} digest {} files {} bytes_hashed {} cache_hits {} median_ms {:.1} min_ms {:.1}",
            c.digest,
            c.files,
            c.bytes_hashed,
            c.cache_hits,
            times[times.len() / 2],
            times[0]
        );
    }
    std::process::ExitCode::SUCCESS
}
