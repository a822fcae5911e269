# syntax=docker/dockerfile:1
# The Vantage agent image: `docker build -t vantage/agent .`; running it: docs/deploy.md.
# The build steps live in scripts/image/, which scripts/ci-image.sh also runs in a clean folder (CI has no Docker).

# Node.js 24 LTS, pinned (raw-socket's nan is overridden in package.json to a release that compiles against it).
# To pin the base images by digest as well, add @sha256:… to the two FROM lines.
ARG NODE_VERSION=24.21.0
ARG DEBIAN_RELEASE=bookworm

# ---- build: compile TypeScript, keep the production dependencies only ----
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS build
COPY scripts/image/packages-build.txt /tmp/
RUN apt-get update \
 && sed 's/#.*//' /tmp/packages-build.txt | xargs apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/packages-build.txt
# Native modules compile against this Node.js's own headers, never downloaded ones; browsers are Debian's.
ENV npm_config_nodedir=/usr/local \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
WORKDIR /src
COPY scripts/image/assemble.sh scripts/image/
COPY package.json package-lock.json ./
RUN scripts/image/assemble.sh deps
COPY tsconfig.json tsconfig.build.json ./
COPY src/ src/
COPY web/ web/
COPY scripts/build-web.mjs scripts/
COPY runtimes/ runtimes/
RUN scripts/image/assemble.sh app /usr/local/lib/vantage

# ---- runtime: Node.js, tini, Chromium and fonts; no compilers, no npm cache, no sources ----
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS runtime
COPY scripts/image/packages-runtime.txt scripts/image/install-net-raw.sh scripts/image/install-user-switch.sh \
     /tmp/image/
# Where NET_RAW is granted, or scripts run as users of their own (SETUID, SETGID), privilege escalation must stay
# allowed (docs/deploy.md), so no program in the image keeps a set-uid or set-gid bit; the two helpers with file
# capabilities are in /usr/local/libexec/vantage, and only the agent's group may run the user switch.
RUN apt-get update \
 && sed 's/#.*//' /tmp/image/packages-runtime.txt | xargs apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* \
 && /tmp/image/install-net-raw.sh /usr/local \
 && find / -xdev -type f -perm /6000 -exec chmod a-s {} + \
 && groupadd --system --gid 10001 vantage \
 && useradd --system --uid 10001 --gid vantage --home-dir /home/vantage --create-home \
      --shell /usr/sbin/nologin vantage \
 && install -d -o vantage -g vantage -m 0700 /var/lib/vantage \
 && /tmp/image/install-user-switch.sh /usr/local vantage \
 && rm -rf /tmp/image

COPY --from=build /usr/local/lib/vantage /usr/local/lib/vantage
COPY scripts/image/vantage /usr/local/bin/vantage
COPY scripts/image/healthcheck.mjs /usr/local/lib/vantage-healthcheck.mjs

ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="vantage-agent" \
      org.opencontainers.image.description="Vantage private-location agent: pulls synthetic-monitoring checks from the control plane, runs them inside your network and reports the results" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.vendor="Vantage" \
      org.opencontainers.image.base.name="docker.io/library/node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim"

# The agent keeps its id and its result spool in AGENT_DATA_DIR; Chromium and fontconfig write under /tmp, so
# the image runs with a read-only root file system given writable /var/lib/vantage, /tmp and /dev/shm.
ENV NODE_ENV=production \
    AGENT_DATA_DIR=/var/lib/vantage \
    AGENT_HEALTH_PORT=8081 \
    XDG_CONFIG_HOME=/tmp/.config \
    XDG_CACHE_HOME=/tmp/.cache
VOLUME ["/var/lib/vantage"]
WORKDIR /var/lib/vantage
USER 10001:10001
# /-/readiness, /-/liveness, /health and /metrics
EXPOSE 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "/usr/local/lib/vantage-healthcheck.mjs"]

# tini is PID 1: it reaps orphaned children and forwards SIGTERM to the agent alone (not to its process group),
# so running checks can finish within SHUTDOWN_GRACE_SECONDS.
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "/usr/local/bin/vantage"]
CMD ["agent"]
