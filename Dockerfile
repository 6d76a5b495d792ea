# mastermind-hooks in a container image: the image route of the GitLab job (set `image:` to
# it and MASTERMIND_HOOKS_BIN to /usr/local/bin/mastermind-hooks) and of any CI that runs jobs
# in containers, and a base for a pre-receive hook environment (git is in it). The release
# workflow builds and publishes it for each tag; to build it yourself:
#   docker build -t mastermind-hooks .
# The binary is built as .ci/package builds the release's: the `release` profile, with the
# toolchain Cargo.toml's rust-version names (tests/hooks/release.rs checks the tag below
# against it), for musl, so it is static. The final image adds git (2.38 or newer: the gate
# computes merges with `git merge-tree --write-tree`) and sh. No ENTRYPOINT: CI runners
# start job scripts with a shell.

FROM rust:1.95.0-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --locked --release \
    && install -m 0755 target/release/mastermind-hooks /usr/local/bin/mastermind-hooks \
    && /usr/local/bin/mastermind-hooks --version

FROM alpine:3.22
RUN apk add --no-cache git
COPY --from=build /usr/local/bin/mastermind-hooks /usr/local/bin/mastermind-hooks
CMD ["mastermind-hooks", "--help"]
