# mastermind-hooks in a container image: the image route of the GitLab job (set `image:` to
# it and mastermind-hooks is on PATH) and of any CI that runs jobs in containers. The release
# workflow builds and publishes it for each tag; to build it yourself:
#   docker build -t mastermind-hooks .
# The binary is built with the `dist` profile (fat LTO, stripped) against musl, so it is
# static; the final image adds only git (for the templates' shallow-clone check) and sh.
# No ENTRYPOINT: CI runners start job scripts with a shell.

FROM rust:1.89-alpine3.22 AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --locked --profile dist \
    && install -m 0755 target/dist/mastermind-hooks /usr/local/bin/mastermind-hooks \
    && /usr/local/bin/mastermind-hooks --version

FROM alpine:3.22
RUN apk add --no-cache git
COPY --from=build /usr/local/bin/mastermind-hooks /usr/local/bin/mastermind-hooks
CMD ["mastermind-hooks", "--help"]
