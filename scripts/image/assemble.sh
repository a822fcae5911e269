#!/usr/bin/env bash
# The build steps of the image, shared by the Dockerfile's build stage and scripts/ci-image.sh, which runs them
# in a clean folder so that CI proves them without a Docker engine. Run from the source folder.
#   assemble.sh deps       installs every dependency, as package-lock.json pins them
#   assemble.sh app DEST   compiles, drops the development dependencies and lays the application out in DEST:
#                          package.json, dist/, node_modules/ (production only) and runtimes/ with their packages
set -euo pipefail

npm_quiet=(--no-audit --no-fund --loglevel=warn)

# Installs exactly what package-lock.json pins, in the current folder. This is `npm ci` in effect, but `npm ci`
# itself refuses lockfiles that lack the optional packages of other platforms (npm/cli#8320), which the registry
# reached here does not serve. So: npm install from the lockfile, and fail if it had to change it.
install_locked() {
  local before
  before=$(sha256sum package-lock.json)
  rm -rf node_modules
  npm install "${npm_quiet[@]}" "$@"
  [ "$(sha256sum package-lock.json)" = "$before" ] || {
    echo "assemble: $PWD/package-lock.json is out of date with package.json (npm install changed it)" >&2
    exit 1
  }
}

# Every runtime and engine folder of runtimes/ is installed from its own lockfile where it will live, since
# the file: packages they use (runtimes/packages) resolve relative to them and are copied in (install-links).
install_runtimes() {
  local root=$1 dir
  if [ ! -d runtimes ]; then
    echo "assemble: no runtimes/ folder in this build: the image carries no script runtimes"
    return
  fi
  mkdir -p "$root/runtimes"
  [ -d runtimes/packages ] && cp -R runtimes/packages "$root/runtimes/"
  (cd runtimes && find . -name package.json -not -path '*/node_modules/*' -not -path './packages/*' -print0) |
    while IFS= read -r -d '' manifest; do
      dir=$(dirname "${manifest#./}")
      if [ ! -f "runtimes/$dir/package-lock.json" ]; then
        echo "assemble: runtimes/$dir has no package-lock.json: left out" >&2
        continue
      fi
      echo "assemble: runtimes/$dir: production packages"
      mkdir -p "$root/runtimes/$dir"
      find "runtimes/$dir" -mindepth 1 -maxdepth 1 -not -name node_modules -exec cp -R {} "$root/runtimes/$dir/" \;
      (cd "$root/runtimes/$dir" && install_locked --omit=dev)
    done
}

case "${1:-}" in
  deps)
    install_locked
    ;;
  app)
    dest=${2:?usage: assemble.sh app DEST}
    npm run build --silent
    npm prune --omit=dev "${npm_quiet[@]}"
    mkdir -p "$dest"
    dest=$(cd "$dest" && pwd)
    cp -R package.json dist node_modules "$dest/"
    install_runtimes "$dest"
    ;;
  *)
    echo "usage: assemble.sh deps | assemble.sh app DEST" >&2
    exit 2
    ;;
esac
