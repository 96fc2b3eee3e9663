# syntax=docker/dockerfile:1
# messageai-jobs as a container image: a build stage on the official Swift image, a runtime stage on Debian 12
# slim with exactly the packages the binary needs (libpq5 ca-certificates tzdata). The runtime stage has the same
# packages as the bare root that `scripts/package --check` proves the binary on (debootstrap --variant=minbase
# bookworm, which is what debian:bookworm-slim is made from), so that check stands for this image.
#
#   docker build -t messageai-jobs:$(git rev-parse --short HEAD) .
#   docker run --rm messageai-jobs:... --version
#
# The build stage runs scripts/package, so the image's binary is the one in the release tarball (static Swift
# runtime, migrations, prompts and schemas embedded; ldd checked). .git is part of the build context so that
# --version and job_runs name the commit; without it they say "unknown".

# The toolchain CI uses (Swift 6.3.1); any 6.x bookworm image builds it.
FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN scripts/package \
 && mkdir -p /out \
 && tar -xzf dist/messageai-jobs-*-linux-*.tar.gz -C /out --strip-components=1

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin messageai
COPY --from=build /out/messageai-jobs /usr/local/bin/messageai-jobs
COPY --from=build /out/README.md /usr/share/doc/messageai-jobs/README.md
COPY --from=build /out/LICENSES /usr/share/doc/messageai-jobs/LICENSES
USER 10001:10001
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/messageai-jobs"]
CMD ["--help"]
