#!/usr/bin/env bash
# Usage: eval "$(scripts/registry-node.sh VERSION)"
# A Node.js release from the npm registry's node-linux-<arch> package (the binary with its headers), for machines
# whose own Node.js is older, or to match the image's base: kept under a cache folder between runs, then put first
# on PATH, with npm_config_nodedir so that native modules (raw-socket) compile against its own headers.
set -euo pipefail
version=${1:?usage: registry-node.sh VERSION}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "registry-node: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
# Under /var/cache as root, so that other users (the image check's non-root agent) can run it.
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/vantage-ci
[ "$(id -u)" = 0 ] && cache_root=/var/cache/vantage-ci
cache=$cache_root/node-v$version
if [ ! -x "$cache/bin/node" ]; then
  echo "registry-node: fetching Node.js $version (npm package node-linux-$arch)" >&2
  download=$(mktemp -d)
  (cd "$download" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  mkdir -p "$cache_root"
  rm -rf "$cache.partial" && mkdir -p "$cache.partial"
  tar -xzf "$download"/node-linux-"$arch"-*.tgz -C "$cache.partial" --strip-components=1
  rm -rf "$download" "$cache" && mv "$cache.partial" "$cache"
fi
[ "$("$cache/bin/node" --version)" = "v$version" ] || { echo "registry-node: $cache/bin/node is not v$version" >&2; exit 1; }
echo "export PATH=\"$cache/bin:\$PATH\" npm_config_nodedir=\"$cache\""
