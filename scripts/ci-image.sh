#!/usr/bin/env bash
# CI for the container image without a Docker engine: performs the Dockerfile's build and install steps (the
# scripts in scripts/image/, on the Node.js version of its base image) in a clean folder, then starts the result
# as the image would run it: `vantage --version`, the agent's health server, the agent connected to a control
# plane (ready), a graceful SIGTERM, and (as root) the NET_RAW rule for ICMP with a non-root user.
# What it cannot do without an engine: install the runtime stage's Debian packages (it checks that they resolve
# on the base image's Debian release), and build real image layers.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "ci-image: $*"; }
fail() {
  echo "ci-image: FAILED: $*" >&2
  exit 1
}

is_root=false
[ "$(id -u)" = 0 ] && is_root=true
work=$(mktemp -d /tmp/vantage-image.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

node_version=$(sed -n 's/^ARG NODE_VERSION=//p' Dockerfile)
debian_release=$(sed -n 's/^ARG DEBIAN_RELEASE=//p' Dockerfile)
if [ -z "$node_version" ] || [ -z "$debian_release" ]; then fail "Dockerfile has no ARG NODE_VERSION / DEBIAN_RELEASE"; fi

# ---- the base image: Debian release and Node.js version ------------------------------------------------------
here_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
[ "$here_release" = "$debian_release" ] ||
  say "warning: this machine runs Debian '$here_release', the image '$debian_release'"

# The same Node.js release as the base image, from the npm registry (binary + headers).
eval "$(scripts/registry-node.sh "$node_version")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
[ "$(node --version)" = "v$node_version" ] || fail "node is $(node --version), expected v$node_version"
say "Node.js $(node --version), as the base image node:$node_version-$debian_release-slim"

# ---- Debian packages of both stages ---------------------------------------------------------------------------
packages_of() { sed 's/#.*//' "scripts/image/packages-$1.txt" | xargs; }
has_apt_lists() { [[ "$(apt-cache policy chromium 2>/dev/null)" == *"Candidate: "[0-9]* ]]; }
if ! has_apt_lists; then
  if $is_root; then apt-get update -qq; else say "warning: no apt lists; skipped the Debian package check"; fi
fi
if has_apt_lists; then
  for stage in build runtime; do
    # shellcheck disable=SC2046
    apt-get install -s -qq --no-install-recommends $(packages_of "$stage") >/dev/null ||
      fail "the $stage stage's Debian packages do not resolve: $(packages_of "$stage")"
    say "the $stage stage's Debian packages resolve: $(packages_of "$stage")"
  done
fi
for pkg in $(packages_of build); do
  dpkg -s "$pkg" >/dev/null 2>&1 || fail "the build stage needs '$pkg' (apt-get install $pkg)"
done

# ---- build context: exactly the .dockerignore allow-list ------------------------------------------------------
context=$work/context
mkdir -p "$context"
while read -r entry; do
  path=${entry#!}
  path=${path%/}
  if [ -e "$path" ]; then
    mkdir -p "$context/$(dirname "$path")"
    (tar -cf - --exclude=node_modules --exclude=.npm "$path") | tar -xf - -C "$context"
  else
    say "not in this tree yet, left out of the build: $path/"
  fi
done < <(grep '^!' .dockerignore)
# The Dockerfile copies runtimes/; where it is missing the image build would stop: say so, and go on without it.
[ -d "$context/runtimes" ] || say "runtimes/ does not exist yet: 'docker build' needs it; the rest is checked"

# ---- build stage ---------------------------------------------------------------------------------------------
prefix=$work/root/usr/local
started=$SECONDS
(cd "$context" && scripts/image/assemble.sh deps && scripts/image/assemble.sh app "$prefix/lib/vantage")
say "build stage done in $((SECONDS - started)) s"
for dev in typescript vitest @biomejs/biome; do
  [ ! -e "$prefix/lib/vantage/node_modules/$dev" ] || fail "a development dependency is in the application: $dev"
done
app_size=$(du -sh "$prefix/lib/vantage" | cut -f1)

# ---- runtime stage (the parts that are not apt-get) -----------------------------------------------------------
install -D -m 0755 "$context/scripts/image/vantage" "$prefix/bin/vantage"
install -D -m 0644 "$context/scripts/image/healthcheck.mjs" "$prefix/lib/vantage-healthcheck.mjs"
if $is_root && command -v setcap >/dev/null; then
  "$context/scripts/image/install-net-raw.sh" "$prefix"
  "$context/scripts/image/install-user-switch.sh" "$prefix" 10001
else
  say "not root or no setcap: the NET_RAW launcher and the user switch are not installed, their checks are skipped"
fi
say "application: $app_size in $prefix/lib/vantage"

# ---- the result, started as the image starts it ---------------------------------------------------------------
vantage=$prefix/bin/vantage
# As in the chart's container: user 10001, every capability dropped (those asked for, e.g. +net_raw, left in the
# bounding set), privilege escalation allowed only with a capability. `$(as_agent_user CAPS) command` runs command so.
as_agent_user() {
  if $is_root; then
    local nnp=--no-new-privs
    [ -n "$1" ] && nnp=
    echo "setpriv --reuid=10001 --regid=10001 --clear-groups --bounding-set=-all${1:+,$1} --inh-caps=-all $nnp --"
  else
    echo "env"
  fi
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$1" || true; }
wait_for_status() {
  local url=$1 want=$2
  for _ in $(seq 1 100); do
    [ "$(http_status "$url")" = "$want" ] && return 0
    sleep 0.2
  done
  fail "$url did not answer $want (last: $(http_status "$url"))"
}

expected_version=$(node -p 'require("./package.json").version')
got_version=$($(as_agent_user "") "$vantage" --version)
[ "$got_version" = "$expected_version" ] || fail "vantage --version printed '$got_version', not $expected_version"
say "vantage --version: $got_version"

# The image's default command, against a control plane that is not there: alive, not ready, metrics served.
data=$work/data
install -d -m 0700 "$data"
$is_root && chown 10001:10001 "$data"
port=$(free_port)
$(as_agent_user "") env API_KEY=pl_acme.ci-image.S3cretKeyForTheImageCheck API_URL=http://127.0.0.1:9 \
  AGENT_HEALTH_PORT="$port" AGENT_DATA_DIR="$data" LOG_LEVEL=WARN "$vantage" agent >"$work/agent-1.log" 2>&1 &
pids+=($!)
wait_for_status "http://127.0.0.1:$port/-/liveness" 200
[ "$(http_status "http://127.0.0.1:$port/-/readiness")" = 503 ] || fail "ready without a control plane"
# Read whole before matching: `grep -q` leaving a pipe early fails curl (SIGPIPE) under pipefail.
metrics=$(curl -sf "http://127.0.0.1:$port/metrics") || fail "/metrics did not answer"
grep -q '^vantage_agent_connected 0' <<<"$metrics" || fail "/metrics has no vantage_agent_connected 0"
AGENT_HEALTH_PORT=$port node "$prefix/lib/vantage-healthcheck.mjs" || fail "the HEALTHCHECK command failed"
say "agent health server: /-/liveness 200, /-/readiness 503 before it has connected, /metrics, HEALTHCHECK ok"
kill -TERM "${pids[-1]}"
if wait "${pids[-1]}"; then
  say "agent: SIGTERM before connecting, exit 0"
else
  fail "agent exit $? after SIGTERM: $(tail -5 "$work/agent-1.log")"
fi

# The control plane of the same build, a private location, and the agent with its key: ready.
server_port=$(free_port)
HOST=127.0.0.1 PORT=$server_port VANTAGE_DATA_DIR="$work/server" LOG_LEVEL=WARN "$vantage" server \
  >"$work/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do
  if grep -q 'Authorization: Bearer' "$work/server.log"; then break; fi
  sleep 0.2
done
account=$(sed -n 's/.*x-service-account: //p' "$work/server.log" | head -1)
admin_key=$(sed -n 's/.*Authorization: Bearer //p' "$work/server.log" | head -1)
if [ -z "$account" ] || [ -z "$admin_key" ]; then fail "vantage server did not start: $(cat "$work/server.log")"; fi
location_key=$(curl -sf -X POST "http://127.0.0.1:$server_port/v1/private-locations" \
  -H "authorization: Bearer $admin_key" -H "x-service-account: $account" -H 'content-type: application/json' \
  -d '{"name":"CI image","slugName":"ci-image"}' | node -p 'JSON.parse(require("fs").readFileSync(0)).keys[0].rawKey')
port=$(free_port)
$(as_agent_user "") env API_KEY="$location_key" API_URL="http://127.0.0.1:$server_port" AGENT_HEALTH_PORT="$port" \
  AGENT_DATA_DIR="$data" LOG_LEVEL=WARN SHUTDOWN_GRACE_SECONDS=5 "$vantage" agent >"$work/agent-2.log" 2>&1 &
pids+=($!)
wait_for_status "http://127.0.0.1:$port/-/readiness" 200
say "agent connected to 'vantage server' of the same build: /-/readiness 200"
started=$SECONDS
kill -TERM "${pids[-1]}"
if ! wait "${pids[-1]}"; then fail "agent exit $? after SIGTERM: $(tail -5 "$work/agent-2.log")"; fi
say "agent: SIGTERM while connected, exit 0 after $((SECONDS - started)) s"

# ICMP with a non-root user: works with NET_RAW granted and privilege escalation allowed, and only then.
if $is_root && [ -x "$prefix/libexec/vantage/net-raw" ]; then
  printf 'checks:\n  - {checkType: ICMP, name: loopback, request: {hostname: 127.0.0.1, pingCount: 2}}\n' \
    >"$work/icmp.yaml"
  icmp() { $(as_agent_user "$1") "$vantage" run "$work/icmp.yaml" >"$work/icmp.log" 2>&1; }
  icmp +net_raw || fail "ICMP as user 10001 with NET_RAW: $(cat "$work/icmp.log")"
  if icmp ""; then fail "ICMP ran without NET_RAW"; fi
  grep -q NET_RAW "$work/icmp.log" || fail "without NET_RAW the failure does not name it: $(cat "$work/icmp.log")"
  if $(as_agent_user +net_raw) setpriv --no-new-privs "$vantage" run "$work/icmp.yaml" >/dev/null 2>&1; then
    fail "ICMP ran with no_new_privs set"
  fi
  say "ICMP as user 10001: passes with NET_RAW, fails naming NET_RAW without it, and with no_new_privs"
fi

# User scripts as users of their own: with SETUID and SETGID (and escalation allowed), an API check's setup
# script runs as a uid of the launcher's VANTAGE_SCRIPT_USERS and cannot read the agent's environment; without
# them it runs as the agent's user, and `vantage run` warns, naming the capabilities.
if $is_root && [ -x "$prefix/libexec/vantage/user-switch" ]; then
  install -d -o 10001 -g 10001 -m 0711 "$work/agent-home"
  cat >"$work/setup-script.yaml" <<YAML
checks:
  - checkType: API
    name: setup script user
    request: { url: "http://127.0.0.1:$server_port/openapi.json" }
    setupScript:
      content: |
        let environ = 'unreadable';
        try { require('node:fs').readFileSync('/proc/' + process.ppid + '/environ'); environ = 'readable'; } catch {}
        console.log('script uid ' + process.getuid() + ', agent environment ' + environ);
YAML
  scripted() {
    $(as_agent_user "$1") env API_KEY=pl_acme.ci-image.S3cretKeyForTheImageCheck \
      VANTAGE_WORK_DIR="$work/agent-home/runs" VANTAGE_CACHE_DIR="$work/agent-home/cache" \
      "$vantage" run "$work/setup-script.yaml" --reporter json >"$work/script.out" 2>"$work/script.err"
  }
  scripted +setuid,+setgid || fail "setup script as user 10001 with SETUID/SETGID: $(cat "$work/script.out" "$work/script.err")"
  grep -q 'script uid 101[0-9][0-9], agent environment unreadable' "$work/script.out" ||
    fail "the setup script did not run as a user of VANTAGE_SCRIPT_USERS: $(cat "$work/script.out" "$work/script.err")"
  ! grep -q S3cretKey "$work/script.out" "$work/script.err" || fail "the agent's key reached the output"
  scripted "" || fail "setup script as user 10001 without SETUID/SETGID: $(cat "$work/script.out" "$work/script.err")"
  grep -q 'script uid 10001, agent environment readable' "$work/script.out" || fail "without SETUID/SETGID: $(cat "$work/script.out")"
  grep -q 'SETUID and SETGID' "$work/script.err" || fail "without SETUID/SETGID, no warning: $(cat "$work/script.err")"
  say "user scripts: as a uid of 10100-10163 with SETUID/SETGID (agent environment unreadable); without them as the agent, with a warning"
fi

say "passed"
