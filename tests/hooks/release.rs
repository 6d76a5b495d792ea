//! What ships, checked against what builds it. One toolchain (Cargo.toml's
//! `rust-version`) for every route that builds: the release workflow, the
//! Dockerfile's base image and the GitLab job's default image. One version
//! (Cargo.toml's) in every document, template and `init` snippet. The release
//! workflow builds every platform on runners that exist, through the script
//! `.ci/run` also runs (`.ci/package`); the Dockerfile builds what that script
//! builds; the package a registry serves holds what a registry install
//! compiles and nothing else.
//!
//! And end to end: `.ci/run` builds this machine's release archive with
//! `.ci/package`, writes its SHA256SUMS, serves it over HTTP from 127.0.0.1
//! and runs the ignored test below against it, which takes both templates'
//! Day-one recipes through that release: an honest change passes, a bad one
//! fails, a wrong pin, a tampered archive and a missing pin are refused with
//! the fix, and a fake `mastermind-hooks` on PATH never runs.

use super::ci_binary::{
    fake_gate, fake_ran, merge_request, pack, path_without_cargo, sha256_file, tarball_name, target,
};
use super::templates::{
    Runner, gate_repo, github_events, path, read, refs, run_gitlab_job, text, yaml,
};
use mastermind_hooks::scaffold::config::{Platform, RELEASE_PUBLISHED, ci_snippet};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const TOOLCHAIN: &str = env!("CARGO_PKG_RUST_VERSION");

/// The platforms a release has, as the workflow's matrix and both templates
/// name them.
const TARGETS: [&str; 4] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
];

/// `sh .ci/package ARGS` in the repository.
fn package(args: &[&str]) -> String {
    let output = Command::new("sh")
        .arg(path(".ci/package"))
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout).trim().to_string()
}

/// Every text file of the documents and templates that tell a user what to
/// run, with `init`'s snippets as one more.
fn user_facing_texts() -> Vec<(String, String)> {
    let mut files = vec![
        "README.md".to_string(),
        "Dockerfile".into(),
        "ci-templates/github/action.yml".into(),
        "ci-templates/github/run.sh".into(),
        "ci-templates/gitlab/mastermind-hooks.yml".into(),
        "ci-templates/gitlab/run.sh".into(),
    ];
    for entry in std::fs::read_dir(path("docs/src")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            files.push(format!("docs/src/{name}"));
        }
    }
    let mut texts: Vec<(String, String)> = files
        .into_iter()
        .map(|file| {
            let content = read(&file);
            (file, content)
        })
        .collect();
    for platform in [Platform::Github, Platform::Gitlab, Platform::Unknown] {
        texts.push((format!("init's {platform:?} snippet"), ci_snippet(platform)));
    }
    texts
}

// ---- one toolchain, one version --------------------------------------------------

#[test]
fn every_route_that_builds_uses_the_toolchain_cargo_toml_names() {
    // The one place: Cargo.toml's rust-version, exact (major.minor.patch),
    // which .ci/package hands to the release workflow.
    assert_eq!(package(&["toolchain"]), TOOLCHAIN);
    assert_eq!(package(&["version"]), VERSION);
    assert!(
        Regex::new(r"^\d+\.\d+\.\d+$").unwrap().is_match(TOOLCHAIN),
        "rust-version pins a toolchain exactly: {TOOLCHAIN}"
    );
    // No file that would make rustup fetch another toolchain for a build here.
    for file in ["rust-toolchain", "rust-toolchain.toml"] {
        assert!(!path(file).exists(), "{file} would override rust-version");
    }
    let workflow = read(".github/workflows/release.yml");
    assert!(workflow.contains("toolchain=$(sh .ci/package toolchain)"));
    assert!(workflow.contains("rustup toolchain install \"$toolchain\""));
    assert!(workflow.contains("rustup default \"$toolchain\""));
    let dockerfile = read("Dockerfile");
    let from: Vec<&str> = dockerfile
        .lines()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert_eq!(from[0], format!("FROM rust:{TOOLCHAIN}-alpine AS build"));
    let gitlab = yaml("ci-templates/gitlab/mastermind-hooks.yml");
    assert_eq!(
        gitlab["mastermind-hooks"]["image"],
        format!("rust:{TOOLCHAIN}").as_str(),
        "the GitLab job's default image builds the source route"
    );
    // Whatever else names a Rust toolchain names this one.
    let pins = Regex::new(
        r"rust:(\d[\w.]*)|rustup (?:toolchain install|default) (\d[\w.]*)|Rust (\d+\.\d+(?:\.\d+)?)|RUST_TOOLCHAIN",
    )
    .unwrap();
    for file in [".github/workflows/release.yml", "Cargo.toml"] {
        assert!(!read(file).contains("RUST_TOOLCHAIN"), "{file}");
    }
    for (file, content) in user_facing_texts() {
        for found in pins.captures_iter(&content) {
            let named = (1..=3).find_map(|i| found.get(i)).map(|m| m.as_str());
            assert_eq!(
                named,
                Some(TOOLCHAIN),
                "{file} names the toolchain `{}`, not Cargo.toml's rust-version",
                &found[0]
            );
        }
    }
}

#[test]
fn every_version_the_docs_and_templates_name_is_cargo_tomls() {
    let tag = Regex::new(r"\bv(\d+\.\d+\.\d+)\b").unwrap();
    let said = Regex::new(r"mastermind-hooks (\d+\.\d+\.\d+)").unwrap();
    let mut named = 0;
    for (file, content) in user_facing_texts() {
        for line in content.lines() {
            // A pinned third-party action's version comment, another
            // project's document: not ours.
            if line.contains("uses: actions/") || line.contains("uses: github/") {
                continue;
            }
            for found in tag.captures_iter(line) {
                let start = found.get(0).unwrap().start();
                let token = line[..start]
                    .rsplit(|c: char| c.is_whitespace() || c == '"' || c == '(')
                    .next()
                    .unwrap_or("");
                if token.contains('/') && !token.contains("mastermind-hooks") {
                    continue;
                }
                assert_eq!(
                    &found[1], VERSION,
                    "{file} names v{} in `{line}`; Cargo.toml says {VERSION}",
                    &found[1]
                );
                named += 1;
            }
            for found in said.captures_iter(line) {
                assert_eq!(&found[1], VERSION, "{file}: `{line}`");
            }
        }
    }
    assert!(named > 5, "the docs and snippets name the release");
    // Until the release is published, the CI chapter says so (and gives the
    // route that works without it); once it is, nothing says it is not.
    let note = format!("v{VERSION} is not published yet");
    let ci = read("docs/src/ci.md");
    if RELEASE_PUBLISHED {
        for (file, content) in user_facing_texts() {
            assert!(!content.contains("is not published yet"), "{file}");
        }
    } else {
        assert!(ci.contains(&note), "docs/src/ci.md says `{note}`");
        assert!(
            ci.contains("MASTERMIND_HOOKS_SOURCE_REV") && ci.contains("rustup default"),
            "and gives the source route"
        );
    }
    // The CHANGELOG's unreleased work is this version's.
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog.contains(&format!("version {VERSION}"))
            || changelog.contains(&format!("## [{VERSION}]")),
        "CHANGELOG.md names {VERSION}"
    );
}

// ---- the release workflow ---------------------------------------------------------

/// GitHub-hosted runner labels and what they run on (actions/runner-images,
/// "Available Images"; macos-13 is retired).
const RUNNERS: &[(&str, &str, &str)] = &[
    ("ubuntu-24.04", "linux", "x86_64"),
    ("ubuntu-22.04", "linux", "x86_64"),
    ("ubuntu-24.04-arm", "linux", "aarch64"),
    ("ubuntu-22.04-arm", "linux", "aarch64"),
    ("macos-14", "apple-darwin", "aarch64"),
    ("macos-15", "apple-darwin", "aarch64"),
    ("macos-26", "apple-darwin", "aarch64"),
    ("macos-15-intel", "apple-darwin", "x86_64"),
    ("macos-26-intel", "apple-darwin", "x86_64"),
];

#[test]
fn the_release_workflow_builds_every_platform_on_runners_that_exist() {
    let workflow = yaml(".github/workflows/release.yml");
    let text = read(".github/workflows/release.yml");
    assert_eq!(workflow["on"]["push"]["tags"][0], "v[0-9]*");
    let jobs = &workflow["jobs"];
    let binaries = &jobs["binaries"];
    assert_eq!(
        binaries["strategy"]["fail-fast"], false,
        "one leg's failure must not cancel the others"
    );
    let mut built = BTreeSet::new();
    for leg in binaries["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
    {
        let target = leg["target"].as_str().unwrap();
        let os = leg["os"].as_str().unwrap();
        let (_, system, arch) = RUNNERS
            .iter()
            .find(|(label, _, _)| *label == os)
            .unwrap_or_else(|| panic!("{os} is not a GitHub-hosted runner label"));
        assert!(
            target.starts_with(arch) && target.contains(system),
            "{target} is built natively on {os} ({arch} {system})"
        );
        built.insert(target);
    }
    assert_eq!(built, TARGETS.into_iter().collect::<BTreeSet<_>>());
    assert!(text.contains("sh .ci/package build \"${{ matrix.target }}\" dist"));
    assert!(
        text.contains("if [ \"$GITHUB_REF_NAME\" != \"v$version\" ]"),
        "the tag must be v<Cargo.toml version>"
    );

    // The release job runs after every leg, failed ones too, and publishes
    // nothing unless every archive is there (.ci/package sums names those
    // missing).
    let release = &jobs["release"];
    assert_eq!(release["needs"], "binaries");
    assert_eq!(release["if"], "${{ !cancelled() }}");
    let sums = format!("sh .ci/package sums dist {}", TARGETS.join(" "));
    assert!(text.contains(&sums), "{sums}");
    for job in ["release", "image"] {
        let permissions = &jobs[job]["permissions"];
        assert_eq!(permissions["id-token"], "write", "{job}");
        assert_eq!(permissions["attestations"], "write", "{job}");
        let attest = jobs[job]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/attest-build-provenance@"))
            })
            .unwrap_or_else(|| panic!("{job} signs build provenance"));
        if job == "release" {
            assert_eq!(attest["with"]["subject-checksums"], "dist/SHA256SUMS");
        } else {
            assert_eq!(attest["with"]["push-to-registry"], true);
        }
    }
    assert_eq!(release["permissions"]["contents"], "write");
    assert_eq!(jobs["image"]["needs"], "release");
    assert_eq!(jobs["image"]["permissions"]["packages"], "write");
    assert!(text.contains("./*.tar.gz ./*.sha256 SHA256SUMS"));
    assert!(text.contains("docker push"));
    for (name, job) in jobs.as_object().unwrap() {
        for step in job["steps"].as_array().unwrap() {
            if let Some(uses) = step["uses"].as_str() {
                let pin = uses.split_once('@').unwrap().1;
                assert!(
                    pin.len() == 40 && pin.bytes().all(|b| b.is_ascii_hexdigit()),
                    "{name}: {uses} is pinned to a commit"
                );
            }
        }
    }
    // The names the templates download are the names the workflow publishes.
    for script in ["ci-templates/github/run.sh", "ci-templates/gitlab/run.sh"] {
        let run_sh = read(script);
        assert!(
            run_sh.contains("name=mastermind-hooks-$t.tar.gz"),
            "{script}"
        );
        for target in TARGETS {
            assert!(run_sh.contains(target), "{script} knows {target}");
        }
    }
}

#[test]
fn the_dockerfile_builds_what_the_release_builds() {
    let package_script = read(".ci/package");
    assert!(
        package_script.contains("\nprofile=release\n"),
        "the release is the `release` profile"
    );
    assert!(
        package_script.contains("cargo build --locked --profile \"$profile\" --target \"$target\"")
    );
    let dockerfile = read("Dockerfile");
    let run: String = dockerfile
        .lines()
        .skip_while(|l| !l.starts_with("RUN cargo build"))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    // The same profile, for the image's own (musl) host, so the binary is
    // where cargo puts it without --target.
    assert!(
        run.starts_with("RUN cargo build --locked --release"),
        "{run}"
    );
    assert!(
        run.contains(
            "install -m 0755 target/release/mastermind-hooks /usr/local/bin/mastermind-hooks"
        ),
        "{run}"
    );
    assert!(run.contains("/usr/local/bin/mastermind-hooks --version"));
    assert!(dockerfile.contains(
        "COPY --from=build /usr/local/bin/mastermind-hooks /usr/local/bin/mastermind-hooks"
    ));
    let final_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    assert!(final_stage.starts_with("alpine:"), "{final_stage}");
    assert!(
        final_stage.contains("apk add --no-cache git"),
        "the gate runs git at run time"
    );
    assert!(
        !dockerfile.lines().any(|l| l.starts_with("ENTRYPOINT")),
        "GitLab runs job scripts through the image's shell"
    );
    // Nothing the build reads is kept out of the build context.
    let ignored: Vec<String> = read(".dockerignore")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    for needed in [
        "src",
        "schemas",
        "hooks",
        "build.rs",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        assert!(
            !ignored
                .iter()
                .any(|i| i == needed || i == &format!("/{needed}")),
            ".dockerignore keeps {needed} out of the build"
        );
    }
}

/// The `[package.metadata.binstall]` keys of Cargo.toml.
fn binstall_metadata() -> BTreeMap<String, String> {
    let mut keys = BTreeMap::new();
    let mut inside = false;
    for line in read("Cargo.toml").lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[package.metadata.binstall]";
        } else if inside && let Some((key, value)) = line.split_once('=') {
            keys.insert(
                key.trim().to_string(),
                value.trim().trim_matches('"').to_string(),
            );
        }
    }
    keys
}

#[test]
fn cargo_binstall_finds_the_tarballs_the_release_workflow_publishes() {
    let meta = binstall_metadata();
    assert_eq!(meta.get("pkg-fmt").map(String::as_str), Some("tgz"));
    // .ci/package packs `-C <stage> mastermind-hooks`: the binary at the root.
    assert_eq!(
        meta.get("bin-dir").map(String::as_str),
        Some("{ bin }{ binary-ext }")
    );
    let package_script = read(".ci/package");
    assert!(package_script.contains("tar -cf - -C \"$stage\" mastermind-hooks"));
    assert!(package_script.contains("archive=mastermind-hooks-$target.tar.gz"));
    // `{ repo }` is the package's repository.
    let repo = env!("CARGO_PKG_REPOSITORY");
    assert_eq!(repo, "https://github.com/mastermind-hooks/mastermind-hooks");
    let template = meta.get("pkg-url").expect("pkg-url");
    for target in TARGETS {
        let url = template
            .replace("{ repo }", repo)
            .replace("{ version }", VERSION)
            .replace("{ name }", "mastermind-hooks")
            .replace("{ target }", target);
        assert_eq!(
            url,
            format!("{repo}/releases/download/v{VERSION}/mastermind-hooks-{target}.tar.gz")
        );
    }
}

/// Just enough TOML to read `[profile.NAME]` keys.
fn profile(text: &str, name: &str, key: &str) -> Option<String> {
    let mut current = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = section.strip_prefix("profile.").map(str::to_string);
        } else if current.as_deref() == Some(name)
            && !line.starts_with('#')
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().to_string());
        }
    }
    None
}

#[test]
fn the_release_is_the_profile_cargo_install_builds() {
    let cargo = read("Cargo.toml");
    // `cargo install` builds the release profile: no cross-crate LTO, small code.
    assert_eq!(profile(&cargo, "release", "lto").as_deref(), Some("false"));
    assert_eq!(
        profile(&cargo, "release", "opt-level").as_deref(),
        Some("\"z\"")
    );
    // A panic aborts (src/crash.rs reports it first): no unwinding tables.
    assert_eq!(
        profile(&cargo, "release", "panic").as_deref(),
        Some("\"abort\"")
    );
    assert_eq!(profile(&cargo, "release", "strip").as_deref(), Some("true"));
    // The published binary is that build: no second profile to drift from it.
    assert!(!cargo.contains("[profile.dist]"));
    assert!(!read(".github/workflows/release.yml").contains("--profile dist"));
}

// ---- the package a registry serves -------------------------------------------------

#[test]
fn the_package_holds_what_a_registry_install_builds_and_nothing_else() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["package", "--list", "--allow-dirty", "--locked"])
        .current_dir(path(""))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let listed: BTreeSet<String> = text(&output.stdout).lines().map(str::to_string).collect();
    // Everything the build reads: the sources, the build script, what the
    // sources embed, the manifest, the lock file and the readme it names.
    let embed = Regex::new(r#"include_(?:str|bytes)!\("([^"]+)"\)"#).unwrap();
    let mut needed: BTreeSet<String> = ["build.rs", "Cargo.toml", "Cargo.lock", "README.md"]
        .into_iter()
        .map(str::to_string)
        .collect();
    for file in walk(&path("src")) {
        let relative = file.strip_prefix(path("")).unwrap().to_path_buf();
        needed.insert(relative.display().to_string());
        let content = std::fs::read_to_string(&file).unwrap();
        for found in embed.captures_iter(&content) {
            let target = normalize(&relative.parent().unwrap().join(&found[1]));
            needed.insert(target.display().to_string());
        }
    }
    for file in &needed {
        assert!(listed.contains(file), "the package lacks {file}");
    }
    // And nothing else: no tests, fixtures, benches, docs, CI files or
    // stray build products (a `.pyc` of the bench harness).
    for file in &listed {
        let top = file.split('/').next().unwrap();
        let allowed = needed.contains(file)
            || ["src", "schemas", "hooks"].contains(&top)
                && !file.contains("__pycache__")
                && !file.ends_with(".pyc")
            || ["CHANGELOG.md", "Cargo.toml.orig", ".cargo_vcs_info.json"].contains(&file.as_str());
        assert!(allowed, "the package ships {file}");
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `a/b/../c` as `a/c`.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn no_document_installs_an_unpublished_crate() {
    for (file, content) in user_facing_texts() {
        for banned in [
            "MASTERMIND_HOOKS_VERSION",
            "version: 0.1.0",
            "crates.io/crates/mastermind-hooks",
            "cargo install mastermind-hooks",
            "cargo install --locked mastermind-hooks",
        ] {
            assert!(
                !content.contains(banned),
                "{file} names `{banned}`, which does not exist"
            );
        }
    }
}

// ---- end to end: the release cut here, through both Day-one recipes ---------------

/// The release `.ci/run` cut and serves: the directory the HTTP server
/// serves (`MASTERMIND_HOOKS_SHIPPED_ROOT`, the archive, its `.sha256` and
/// SHA256SUMS under `release/`) and its URL (`MASTERMIND_HOOKS_SHIPPED_URL`).
struct Shipped {
    root: PathBuf,
    url: String,
}

impl Shipped {
    fn from_env() -> Shipped {
        let get = |name: &str| {
            std::env::var(name).unwrap_or_else(|_| {
                panic!("{name} is not set: .ci/run builds the release archive, serves it and runs this test")
            })
        };
        Shipped {
            root: PathBuf::from(get("MASTERMIND_HOOKS_SHIPPED_ROOT")),
            url: get("MASTERMIND_HOOKS_SHIPPED_URL"),
        }
    }

    /// The release's files as a release of `repository` at tag v<version>,
    /// where the action's default download URL finds them, and as a copy
    /// under `name` for the variants a test makes. Returns the directory.
    fn publish_as(&self, relative: &str) -> PathBuf {
        let dir = self.root.join(relative);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(self.root.join("release"))
            .unwrap()
            .flatten()
        {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        dir
    }
}

/// The musl line of SHA256SUMS, as a user copies it into the GitLab recipe.
fn sums_line(dir: &Path) -> String {
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
    let name = tarball_name();
    sums.lines()
        .find_map(|l| l.strip_suffix(&format!("  {name}")))
        .unwrap_or_else(|| panic!("SHA256SUMS lists no {name}: {sums}"))
        .to_string()
}

fn whole(output: &std::process::Output) -> String {
    text(&output.stdout) + &text(&output.stderr)
}

#[test]
#[ignore = "run by .ci/run against the release archive it builds and serves (MASTERMIND_HOOKS_SHIPPED_URL)"]
fn the_release_cut_here_passes_and_refuses_through_both_day_one_recipes() {
    let shipped = Shipped::from_env();
    let tag = format!("v{VERSION}");
    // The archive is what .ci/package says: SHA256SUMS lists it, it holds
    // one binary that states this version.
    let release = shipped.root.join("release");
    let sum = sums_line(&release);
    assert_eq!(sha256_file(&release.join(tarball_name())), sum);
    let unpacked = tempfile::tempdir().unwrap();
    let status = Command::new("tar")
        .args(["-xzf"])
        .arg(release.join(tarball_name()))
        .arg("-C")
        .arg(unpacked.path())
        .status()
        .unwrap();
    assert!(status.success());
    let binary = unpacked.path().join("mastermind-hooks");
    let said = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(
        text(&said.stdout).trim(),
        format!("mastermind-hooks {VERSION}")
    );
    let binary_sum = sha256_file(&binary);

    // Where the action's default download URL looks for release `tag` of
    // acme/mastermind-hooks on this server, and where the GitLab recipe points.
    let served = shipped.publish_as(&format!("acme/mastermind-hooks/releases/download/{tag}"));
    let release_url = format!(
        "{}/acme/mastermind-hooks/releases/download/{tag}",
        shipped.url
    );
    // A fake `mastermind-hooks` that passes everything, first on PATH (where
    // an earlier step or ~/.cargo/bin puts one).
    let fakes = tempfile::tempdir().unwrap();
    fake_gate(fakes.path());
    let honest = gate_repo(false);
    let bad = gate_repo(true);

    // ---- GitHub: the action pinned to a commit, `version: <tag>` ----
    let github = |repo: &crate::common::TestRepo, inputs: &[(&str, &str)]| {
        let events = tempfile::tempdir().unwrap();
        let (_, mut env) = github_events(repo, events.path()).remove(0); // pull_request
        env.push(("GITHUB_SERVER_URL", shipped.url.clone()));
        let scratch = tempfile::tempdir().unwrap();
        let mut runner = Runner::checked_out(scratch.path(), None); // no cargo
        runner.path = format!("{}:{}", fakes.path().display(), runner.path);
        let github = [
            ("action_repository", "acme/mastermind-hooks"),
            ("action_ref", "0123456789abcdef0123456789abcdef01234567"),
        ];
        let run = runner.run_with(repo.path(), inputs, &refs(&env), &github);
        (run, scratch)
    };
    let day_one = [
        ("version", tag.as_str()),
        ("sarif-file", "mastermind-hooks.sarif"),
    ];
    let (run, _keep) = github(&honest, &day_one);
    let log = whole(&run.output);
    assert_eq!(run.output.status.code(), Some(0), "{log}");
    assert!(log.contains(&format!("{release_url}/SHA256SUMS")), "{log}");
    assert!(
        log.contains("not using the mastermind-hooks on PATH"),
        "{log}"
    );
    let bin = run.out("install", "bin").unwrap().to_string();
    assert!(
        log.contains(&format!(
            "mastermind-hooks: running {bin} (mastermind-hooks {VERSION}, sha256 {binary_sum})"
        )),
        "{log}"
    );
    assert!(honest.path().join("mastermind-hooks.sarif").is_file());
    let (run, _keep) = github(&bad, &day_one);
    assert_eq!(run.output.status.code(), Some(1), "{}", whole(&run.output));
    assert!(whole(&run.output).contains("unexpected_file"));
    assert!(!fake_ran(fakes.path()), "the fake on PATH never ran");

    // A wrong pin, a tampered archive, a release without its SHA256SUMS (no
    // pin at all): refused, exit 2, with the fix; nothing falls back.
    let wrong = "0".repeat(64);
    let (run, _keep) = github(&honest, &[("version", tag.as_str()), ("sha256", &wrong)]);
    assert_eq!(run.output.status.code(), Some(2));
    assert_eq!(run.out("gate", "exit-code"), Some("2"));
    assert!(whole(&run.output).contains("does not match the pinned sha256"));
    let tampered = shipped.publish_as(&format!("tampered/{tag}"));
    let fake_archive = tempfile::tempdir().unwrap();
    pack(
        &fake_gate(&fake_archive.path().join("fake")),
        &tampered.join(tarball_name()),
    );
    let tampered_url = format!("{}/tampered/{tag}", shipped.url);
    let (run, _keep) = github(
        &bad,
        &[("version", tag.as_str()), ("download-url", &tampered_url)],
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", whole(&run.output));
    assert!(whole(&run.output).contains("does not match"));
    let unsummed = shipped.publish_as(&format!("unsummed/{tag}"));
    std::fs::remove_file(unsummed.join("SHA256SUMS")).unwrap();
    let unsummed_url = format!("{}/unsummed/{tag}", shipped.url);
    let (run, _keep) = github(
        &bad,
        &[("version", tag.as_str()), ("download-url", &unsummed_url)],
    );
    assert_eq!(run.output.status.code(), Some(2), "{}", whole(&run.output));
    assert!(
        whole(&run.output).contains("pin the sha256 input"),
        "{}",
        whole(&run.output)
    );
    // No release named: the fake on PATH is refused, not run.
    let (run, _keep) = github(&bad, &[]);
    assert_eq!(run.output.status.code(), Some(2), "{}", whole(&run.output));
    assert!(whole(&run.output).contains("nothing pins it"));
    assert!(!fake_ran(fakes.path()));
    assert!(!fake_ran(&fake_archive.path().join("fake")));

    // ---- GitLab: the included job with the release URL and its sha256 ----
    let gitlab = |repo: &crate::common::TestRepo, variables: &[(&'static str, String)]| {
        let mut env = merge_request(repo);
        env.push(("PATH", path_without_cargo(Some(fakes.path()))));
        env.extend(variables.iter().cloned());
        run_gitlab_job(repo.path(), &refs(&env))
    };
    let recipe = |url: &str, sha256: &str| {
        vec![
            ("MASTERMIND_HOOKS_RELEASE_URL", url.to_string()),
            ("MASTERMIND_HOOKS_RELEASE_SHA256", sha256.to_string()),
        ]
    };
    let served_sum = sums_line(&served);
    let output = gitlab(&honest, &recipe(&release_url, &served_sum));
    assert_eq!(output.status.code(), Some(0), "{}", whole(&output));
    assert!(whole(&output).contains("not using the mastermind-hooks on PATH"));
    assert!(
        whole(&output).contains(&format!(
            "(mastermind-hooks {VERSION}, sha256 {binary_sum})"
        )),
        "{}",
        whole(&output)
    );
    let output = gitlab(&bad, &recipe(&release_url, &served_sum));
    assert_eq!(output.status.code(), Some(1), "{}", whole(&output));
    let report = std::fs::read_to_string(bad.path().join("gl-code-quality-report.json")).unwrap();
    assert!(report.contains("unexpected_file"), "{report}");
    // Refusals: each is exit 2 with the fix, and both reports say so.
    for (variables, expected) in [
        (recipe(&release_url, &wrong), "not the pinned"),
        (recipe(&tampered_url, &served_sum), "not the pinned"),
        (
            vec![("MASTERMIND_HOOKS_RELEASE_URL", release_url.clone())],
            "needs MASTERMIND_HOOKS_RELEASE_SHA256",
        ),
        (Vec::new(), "nothing pins it"),
    ] {
        // A fresh clone each time: the job caches a verified download.
        let repo = gate_repo(true);
        let output = gitlab(&repo, &variables);
        assert_eq!(output.status.code(), Some(2), "{}", whole(&output));
        assert!(whole(&output).contains(expected), "{}", whole(&output));
        let report =
            std::fs::read_to_string(repo.path().join("gl-code-quality-report.json")).unwrap();
        assert!(report.contains("could not check"), "{report}");
    }
    assert!(!fake_ran(fakes.path()), "the fake on PATH never ran");
    assert!(!fake_ran(&fake_archive.path().join("fake")));
    // The target this machine downloads is the one .ci/run built.
    assert!(TARGETS.contains(&target()));
}
