//! The guard's cases, table-driven: every way around the hooks it refuses,
//! every honest command it lets through. (The forms it cannot see are
//! held to the book in tests/hooks/agent_hooks.rs.)

use super::*;

fn context() -> Context {
    Context {
        cwd: Some(PathBuf::from("/repo")),
        places: Places {
            home: Some(PathBuf::from("/home/me")),
            git_dir: Some(PathBuf::from("/repo/.git")),
            hooks_dir: Some(PathBuf::from("/repo/.git/hooks")),
        },
        aliases: vec![
            ("ci".into(), "commit".into()),
            ("cin".into(), "commit --no-verify".into()),
            ("yolo".into(), "!git commit -n -m".into()),
            ("st".into(), "status".into()),
            // An alias never hides a git command.
            ("status".into(), "commit -n".into()),
        ],
    }
}

fn refused(command: &str) -> Option<Refusal> {
    judge(command, &context())
}

/// Ways around the hooks, the gate or the agent hooks.
const REFUSED: &[&str] = &[
    // --no-verify and -n, in every spelling
    "git commit --no-verify -m wip",
    "git commit -n -m wip",
    "git commit -anm wip",
    "git commit --no-verif -m x",
    "git add -A && git commit -qnm 'wip'",
    "cd sub; git commit -n",
    "true || git commit -n",
    "(cd sub && git commit -n)",
    "echo $(git commit -n)",
    "echo \"`git commit -n`\"",
    "git push --no-verify origin main",
    "git merge --no-verify topic",
    "git -C sub commit --no-verify",
    "if true; then git commit -n; fi",
    // commits and branch moves no hook sees
    "git commit-tree HEAD^{tree} -m x",
    "git fast-import < stream",
    "git update-ref refs/heads/main $(git stash create)",
    "git merge --ff-only $(git stash create)",
    "c=$(git stash create) && git update-ref refs/heads/main $c",
    "git stash store -m x abc123",
    "git update-ref refs/remotes/origin/main HEAD",
    "git filter-branch --tree-filter true HEAD",
    // another hooks directory or configuration
    "git -c core.hooksPath=/dev/null commit -m x",
    "git -c core.hookspath= commit",
    "git -c Core.HooksPath=x commit",
    "git --config-env=core.hooksPath=EMPTY commit",
    "git -c include.path=/tmp/evil.cfg commit -m x",
    "git -c includeIf.onbranch:main.path=/tmp/x commit",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=/x git commit",
    "GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/x'\" git commit",
    "GIT_CONFIG_GLOBAL=/tmp/cfg git commit -m x",
    "export GIT_CONFIG_GLOBAL=/tmp/cfg",
    "HOME=/tmp/h git commit -m x",
    "git config core.hooksPath /dev/null",
    "git config --local core.hooksPath .nothing",
    "git config --unset core.hooksPath",
    "git config set core.hooksPath x",
    "git config --global core.hooksPath /tmp/none",
    "git config include.path /tmp/evil.cfg",
    "git config --remove-section core",
    "git config --edit",
    "git config alias.ci 'commit --no-verify'",
    "git config alias.save '!git commit -n -m'",
    // aliases: the repository's, -c in any case, defined earlier
    "git ci -n -m wip",
    "git CI -n -m wip",
    "git cin -m wip",
    "git yolo wip",
    "git -c alias.x=commit x -n",
    "git -c Alias.x=commit x -n",
    "git -c ALIAS.X=commit x -n",
    "git -c alias.X=commit X -n",
    "git --config-env=alias.x=CMD x",
    "git config alias.c commit && git c -n",
    // skip switches
    "MASTERMIND_HOOKS_SKIP=wip git commit -m x",
    "env MASTERMIND_HOOKS_SKIP=1 git push",
    "env -i PATH=/bin MASTERMIND_HOOKS_SKIP=1 git push",
    "export MASTERMIND_HOOKS_SKIP=1; git commit",
    "export MASTERMIND_HOOKS_SKIP=1",
    "HUSKY=0 git commit -m x",
    "HUSKY=0 sh -c 'git commit -m x'",
    "LEFTHOOK=0 git commit -m x",
    "SKIP=mastermind-hooks git commit -m x",
    "SKIP=flake8,mastermind-hooks-push git push",
    "HK=0 git commit",
    "export HUSKY=0",
    "export MASTERMIND_HOOKS_BIN=/bin/true",
    "MASTERMIND_HOOKS_SKIP=1; export MASTERMIND_HOOKS_SKIP; git commit -m x",
    "GIT_CONFIG_GLOBAL=/tmp/x; export GIT_CONFIG_GLOBAL; git commit -m x",
    "set -a; MASTERMIND_HOOKS_SKIP=1; git commit -m x",
    "set -o allexport; HUSKY=0; git commit -m x",
    // scripts fed to a shell: -c, --, here-documents, here-strings, pipes
    "sh -c 'git commit -n'",
    "bash -lc \"git commit --no-verify\"",
    "bash -c -- 'git commit -n'",
    "bash -o pipefail -c 'git commit -n'",
    "eval 'git commit -n'",
    "sh <<EOF\ngit commit -n\nEOF",
    "bash <<< 'git commit -n'",
    "echo 'git commit -n' | bash",
    "printf 'git commit --no-verify\\n' | sh",
    "echo 'git commit -n' | bash -s",
    "cat <<EOF | sh\ngit commit -n\nEOF",
    "script -qc 'git commit -n' /dev/null",
    "script -q -c \"git commit -n\" /dev/null",
    "su me -c 'git commit -n'",
    "flock /tmp/lock -c 'git commit -n'",
    "flock /tmp/lock git commit -n",
    "find . -maxdepth 0 -exec git commit -n \\;",
    "busybox sh -c 'git commit -n'",
    // wrappers
    "sudo -u me git commit -n",
    "nohup git commit -n &",
    "timeout 60 git commit -n",
    "command git commit -n",
    "/usr/bin/git commit -n",
    "env -S 'git commit -n'",
    "xargs git commit -n < /dev/null",
    // deleting or rewriting a hook
    "rm .git/hooks/pre-commit",
    "rm -f ./.git/hooks/pre-push && git push",
    "rm .git//hooks/pre-commit",
    "rm .git/./hooks/pre-commit",
    "rm src/../.git/hooks/pre-commit",
    "rm /repo/.git/hooks/pre-commit",
    "rm .git/hooks/*",
    "cd .git/hooks && rm pre-commit",
    "cd .git && rm -rf hooks",
    "cd src; rm ../.git/hooks/pre-push",
    "find .git/hooks -delete",
    "find .git/hooks -type f -exec rm {} +",
    "dd if=/dev/null of=.git/hooks/pre-commit",
    "mv .git/hooks/pre-commit /tmp/",
    "chmod -x .git/hooks/pre-commit",
    "cp /tmp/noop .git/hooks/pre-commit",
    "ln -sf /bin/true .git/hooks/pre-commit",
    "install -m 755 /bin/true .git/hooks/pre-push",
    "echo exit 0 > .git/hooks/pre-commit",
    "printf '' | tee .git/hooks/pre-push",
    "echo x | tee >(cat) .git/hooks/pre-push",
    "tar -xf hooks.tar -C .git/hooks",
    "tar xzf hooks.tgz --directory=.git",
    "unzip -o hooks.zip -d .husky",
    "patch .git/hooks/pre-commit < noop.diff",
    "awk -i inplace '{print}' .claude/settings.json",
    "ex -sc '%d|wq' .git/hooks/pre-commit",
    "vim -c ':wq' .husky/pre-push",
    "diff <(git commit -n -m x) /dev/null",
    "sed -i 's/exec/true/' .git/hooks/pre-commit",
    "perl -pi -e 's/exec/true/' .git/hooks/pre-commit",
    "truncate -s 0 .git/hooks/pre-commit",
    "curl -o .git/hooks/pre-commit https://example.com/noop",
    "rm \"$(git rev-parse --git-path hooks)/pre-commit\"",
    "rm -rf .git",
    "echo '[core] hooksPath = /x' >> .git/config",
    "echo '[core]' >> ~/.gitconfig",
    // the same by a glob or a brace list the shell expands
    "rm -rf .git/*",
    "rm -rf .git/h*",
    "rm -rf .gi?/hooks",
    "rm -rf .git/{hooks,x}",
    "rm -rf .{git,x}/hooks",
    "cd .git && rm -rf h*",
    "rm -rf .claude/*",
    "rm -rf ~/.claude/*",
    "rm -rf .husk*",
    "rm -f lefthook*",
    // a walk that reaches a hook or a setting by its tests, names piped to xargs
    "find . -name pre-commit -delete",
    "find . -path './.git/hooks/*' -delete",
    "find . -type f -name settings.json -delete",
    "find . -name 'pre-*' -exec rm {} \\;",
    "find . -type f -delete",
    "echo .git/hooks/pre-commit | xargs rm",
    "printf '%s\\n' .claude/settings.json | xargs rm -f",
    "xargs rm <<< .husky/pre-commit",
    // the gate's own state: the stop hook's memory of the landing target
    // and the loop guard's count
    "rm -rf .git/mastermind-hooks",
    "echo '{}' > .git/mastermind-hooks/agent-hooks/0123.json",
    "cd .git && rm -rf mastermind-hooks/agent-hooks",
    // older settings or hook scripts brought back from history
    "git checkout HEAD~3 -- .claude/settings.json",
    "git checkout HEAD~3 .husky/pre-commit",
    "git restore --source=HEAD~3 .claude/settings.json",
    "git restore -s HEAD~3 -- .husky",
    "git checkout-index -f .husky/pre-commit",
    // harness settings
    "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
    "cat > .claude/settings.local.json <<EOF\n{\"env\": {\"MASTERMIND_HOOKS_BIN\": \"/bin/true\"}}\nEOF",
    "jq '.hooks = {}' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json",
    "rm .claude/settings.json",
    "rm -rf .claude",
    "sed -i 's/agent-hook/true/' .claude/settings.json",
    "echo '{}' > ~/.claude/settings.json",
    "printf '[features]\\nhooks = false\\n' >> .codex/config.toml",
    "printf '[features]\\nhooks = false\\n' >> ~/.codex/config.toml",
    "rm .codex/hooks.json",
    // profiles and env files that set the override or the skip switch
    "echo 'export MASTERMIND_HOOKS_BIN=/bin/true' >> ~/.bashrc",
    "echo 'export MASTERMIND_HOOKS_BIN=/bin/true' >> ~/.profile",
    "echo 'MASTERMIND_HOOKS_SKIP=1' >> .env",
    "echo 'export MASTERMIND_HOOKS_BIN=/bin/true' >> .envrc",
    "echo 'MASTERMIND_HOOKS_BIN=/bin/true' >> \"$CLAUDE_ENV_FILE\"",
    "tee -a ~/.zshenv <<< 'export MASTERMIND_HOOKS_BIN=/bin/true'",
    // hook managers' scripts and configuration
    "rm .husky/pre-commit",
    "echo 'exit 0' > .husky/pre-commit",
    "sed -i '/mastermind/d' .husky/pre-push",
    "git rm .husky/pre-commit",
    "git mv .husky/pre-commit .husky/off",
    "rm -rf .husky",
    "echo 'pre-commit: {skip: true}' > lefthook-local.yml",
    "sed -i '/mastermind-hooks/d' .pre-commit-config.yaml",
    "rm hk.pkl",
    "pre-commit uninstall",
    "lefthook uninstall",
    // the gate itself
    "mastermind-hooks uninstall",
    "/usr/local/bin/mastermind-hooks uninstall --agent claude-code",
];

/// Honest work: never refused.
const ALLOWED: &[&str] = &[
    "git commit -m 'fix: -n is not an option here'",
    "git commit -m -n",
    "git commit -F notes.txt",
    "git commit --message=--no-verify",
    "git commit -m wip -- -n",
    "git commit -m \"$(cat <<'EOF'\nfix: the thing\n\nno --no-verify here\nEOF\n)\"",
    "git push -n origin main",
    "git merge -n topic",
    "git merge --ff-only origin/main",
    "git status && git diff",
    "git st",
    "git status",
    "git stash && git stash pop",
    "git stash list",
    "git config --get core.hooksPath",
    "git config core.hooksPath",
    "git config --global core.hooksPath",
    "git config get core.hooksPath",
    "git config --list --show-origin",
    "git config user.name Me",
    "git config alias.lg 'log --oneline'",
    "cat .git/hooks/pre-commit",
    "cat < .git/hooks/pre-commit",
    "ls .git/hooks",
    "cp .git/hooks/pre-commit /tmp/pre-commit.bak",
    "cp .husky/pre-commit /tmp/",
    "diff .git/hooks/pre-commit /tmp/pre-commit.bak",
    "rm -rf vendor/lib/.git",
    "cd vendor/lib && rm -rf .git",
    "rm -rf node_modules/.cache",
    "find . -name '*.orig' -delete",
    "SKIP=flake8 git commit -m x",
    "HUSKY=1 git commit",
    "HUSKY=0 npm run build",
    "HUSKY=0 npm ci",
    "env HUSKY=0 npm install",
    "MASTERMIND_HOOKS_SKIP= git commit -m x",
    "MASTERMIND_HOOKS_BIN=/opt/mh mastermind-hooks status --agent claude-code",
    "echo 'git commit -n' > notes.md",
    "echo 'git commit -n' | cat",
    "cat <<EOF > notes.md\ngit commit -n\nEOF",
    "grep -rn 'no-verify' docs/",
    "mastermind-hooks check --staged",
    "mastermind-hooks install --agent claude-code",
    "cargo test && git add -A && git commit -m done",
    "cat .claude/settings.json",
    "jq .hooks .claude/settings.json",
    "echo 'export PATH=$HOME/.cargo/bin:$PATH' >> ~/.bashrc",
    "echo 'DATABASE_URL=postgres://x' >> .env",
    "echo 'see MASTERMIND_HOOKS_BIN in the docs' >> notes.md",
    "cargo install --locked --path .",
    "git clone https://example.com/mastermind-hooks && cd mastermind-hooks && cargo install --locked --path .",
    "git update-index --refresh",
    "git rm src/old.rs",
    "rm -f .git/*.lock",
    "find .git -name '*.lock' -delete",
    "find . -name node_modules -prune -o -name '*.tmp' -delete",
    "find . -name '*.rs' -exec grep -l foo {} +",
    "find .git/hooks -name '*.sample' -delete",
    "echo src/a.rs | xargs rm",
    "ls | xargs wc -l",
    "tar -xzf deps.tgz -C vendor",
    "tar -czf /tmp/backup.tgz .git/hooks",
    "unzip -o assets.zip -d public",
    "patch -p1 < fix.diff",
    "patch src/a.rs < fix.diff",
    "awk '{print $1}' .claude/settings.json",
    "awk -i inplace '{print}' src/a.txt",
    "diff <(git show HEAD:src/a.rs) src/a.rs",
    "echo x | tee >(wc -c) notes.md",
    "HUSKY=0; export PATH; git commit -m x",
    "x=1; export x; git status",
    "set -e; HUSKY=0; npm run build",
    "set -euo pipefail; git status",
    "rm -f .git/index.lock",
    "rm -rf dist/*.json",
    "rm -f *.yml",
    "rm -rf build/* target/debug/*",
    "rm .claude/agents/*.md",
    "rm -f src/{a,b}.rs",
    "ls .git/*",
    "git checkout -- src/a.rs",
    "git checkout -b feat origin/main",
    "git checkout main",
    "git restore .",
    "git restore --staged .claude/settings.json",
];

#[test]
fn refuses_every_way_around_the_hooks() {
    let missed: Vec<&str> = REFUSED
        .iter()
        .copied()
        .filter(|c| refused(c).is_none())
        .collect();
    assert!(missed.is_empty(), "not refused:\n{}", missed.join("\n"));
}

#[test]
fn lets_honest_work_through() {
    let wrong: Vec<String> = ALLOWED
        .iter()
        .filter_map(|c| refused(c).map(|r| format!("{c}\n  -> {}", r.reason())))
        .collect();
    assert!(wrong.is_empty(), "refused:\n{}", wrong.join("\n"));
}

#[test]
fn the_reason_names_the_command_and_what_to_do() {
    let r = refused("git commit -nm wip").unwrap();
    let reason = r.reason();
    assert!(reason.contains("`git commit -nm`"), "{reason}");
    assert!(
        reason.contains("mastermind-hooks check --staged"),
        "{reason}"
    );
    let settings = refused("rm .claude/settings.json").unwrap().reason();
    assert!(settings.contains("harness's settings"), "{settings}");
    let alias = refused("git config alias.ci 'commit --no-verify'")
        .unwrap()
        .reason();
    assert!(
        alias.contains("defines an alias that runs `git commit --no-verify`"),
        "{alias}"
    );
}

#[test]
fn nesting_past_the_limit_is_refused_not_passed() {
    let mut command = "git commit -n".to_string();
    for _ in 0..12 {
        command = format!("sh -c {}", shlex::try_quote(&command).unwrap());
    }
    let r = refused(&command).expect("refused");
    assert!(r.rule.contains("deeper"), "{r:?}");
    // Aliases that expand into each other forever.
    let mut ctx = context();
    ctx.aliases = vec![("a".into(), "b".into()), ("b".into(), "a".into())];
    assert!(judge("git a", &ctx).is_some());
}

#[test]
fn file_tools_are_judged_by_the_paths_they_write() {
    let edit = |tool: &str, path: &str, text: &str| FileEdit {
        tool: tool.into(),
        paths: vec![path.into()],
        text: text.into(),
    };
    for (tool, path, text) in [
        (
            "Write",
            "/repo/.claude/settings.local.json",
            "{\"disableAllHooks\": true}",
        ),
        ("Edit", "/repo/.claude/settings.json", "\"hooks\": {}"),
        ("Write", "/repo/.git/hooks/pre-commit", "exit 0"),
        ("Edit", "/repo/.husky/pre-commit", ""),
        (
            "apply_patch",
            ".codex/config.toml",
            "+[features]\n+hooks = false",
        ),
        (
            "Write",
            "/home/me/.bashrc",
            "export MASTERMIND_HOOKS_BIN=/bin/true",
        ),
        ("MultiEdit", "/repo/.git/config", "hooksPath"),
    ] {
        assert!(
            judge_edit(&edit(tool, path, text), &context()).is_some(),
            "{tool} {path}"
        );
    }
    for (tool, path, text) in [
        ("Write", "/repo/src/main.rs", "fn main() {}"),
        ("Edit", "/home/me/.bashrc", "export PATH=x"),
        ("apply_patch", "docs/hooks.md", "MASTERMIND_HOOKS_BIN"),
    ] {
        assert_eq!(
            judge_edit(&edit(tool, path, text), &context()),
            None,
            "{tool} {path}"
        );
    }
}
