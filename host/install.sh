#!/usr/bin/env bash
# Installs mcp-fuzz and mcp-fuzz-action for the host variant (host/action.yml)
# into $RUNNER_TEMP/mcp-fuzz/bin, adds that to GITHUB_PATH and sets the step
# output bin. Tested by internal/workflowlint (hostinstall_test.go) with fake
# git, curl and go on PATH.
#
# Which mcp-fuzz, when the version input is empty (the default): the one the
# action was referenced at, github.action_ref, so that host@v1 stays on v1:
#   v1.2.3              the release v1.2.3;
#   v1 (the major tag, moved to each release's commit), a commit SHA, a branch:
#                       the release whose vX.Y.Z tag is on the same commit
#                       (git ls-remote; the highest if several);
#   anything else (a branch or commit that is no release, `uses: ./host`, an
#   empty action_ref):  built from the action's own source, the checkout at
#                       github.action_path/.. (needs Go: actions/setup-go).
# version latest, v1.2.3 or 1.2.3 picks a release instead; with
# build-from-source true, version is any `go install` version, and an empty
# one builds the action's own source.
#
# Environment: VERSION, FROM_SOURCE, ACTION_REF, ACTION_REPOSITORY (the
# owner/name the action was used from: a fork's releases are its own),
# ACTION_PATH, RUNNER_OS_NAME,
# RUNNER_ARCH_NAME, GH_TOKEN, and the runner's RUNNER_TEMP, GITHUB_PATH,
# GITHUB_OUTPUT, GITHUB_SERVER_URL.
set -euo pipefail

# REPO is where releases are downloaded from; MODULE the Go module, which a
# fork keeps.
REPO=${ACTION_REPOSITORY:-mcp-fuzz/mcp-fuzz}
MODULE=mcp-fuzz/mcp-fuzz

# is_release_tag TAG: TAG is vMAJOR.MINOR.PATCH, the tags the release
# workflow publishes.
is_release_tag() {
  [[ "$1" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]
}

# ref_of_path PATH: the ref in the runner's action directory
# .../_actions/mcp-fuzz/mcp-fuzz/REF/host, for when github.action_ref is
# empty (actions/runner#2473); nothing for another layout.
ref_of_path() {
  local p="${1//\\//}"
  p="${p%/}"
  case "$p" in
    */_actions/"$REPO"/*/host) p="${p%/host}"; echo "${p##*/}" ;;
  esac
}

# release_at REF: reads `git ls-remote --tags --heads` output on stdin and
# prints the release tag (vX.Y.Z) on the commit REF names (a tag, a branch
# or a full commit SHA); the highest when several; nothing when none.
release_at() {
  awk -v ref="$1" '
    {
      name = $2
      if (sub(/\^\{\}$/, "", name)) commit[name] = $1     # an annotated tag, peeled
      else if (!(name in commit)) commit[name] = $1
    }
    END {
      if (length(ref) == 40 && ref ~ /^[0-9a-fA-F]+$/) want = tolower(ref)
      else if (("refs/tags/" ref) in commit) want = commit["refs/tags/" ref]
      else if (("refs/heads/" ref) in commit) want = commit["refs/heads/" ref]
      else exit
      best = ""
      for (n in commit) {
        if (commit[n] != want || n !~ /^refs\/tags\/v[0-9]+\.[0-9]+\.[0-9]+$/) continue
        split(substr(n, 12), v, ".")
        if (best == "" || v[1]+0 > b[1]+0 || (v[1]+0 == b[1]+0 && (v[2]+0 > b[2]+0 || (v[2]+0 == b[2]+0 && v[3]+0 > b[3]+0)))) {
          best = substr(n, 11); b[1] = v[1]; b[2] = v[2]; b[3] = v[3]
        }
      }
      if (best != "") print best
    }'
}

# plan prints what to install: "release vX.Y.Z", "latest", "install VERSION"
# (go install at VERSION), "source" (build the action's own source) or
# "invalid" (a version input of none of these forms); and on stderr why.
plan() {
  local v="${VERSION:-}" ref tag listing
  if [ "${FROM_SOURCE:-false}" = true ]; then
    if [ -z "$v" ]; then echo source; return; fi
    case "$v" in [0-9]*) v="v$v" ;; esac
    echo "install $v"
    return
  fi
  if [ -n "$v" ]; then
    case "$v" in latest) echo latest; return ;; [0-9]*) v="v$v" ;; esac
    if is_release_tag "$v"; then echo "release $v"; else echo "invalid"; fi
    return
  fi
  ref="${ACTION_REF:-}"
  if [ -z "$ref" ]; then ref=$(ref_of_path "${ACTION_PATH:-}"); fi
  if [ -z "$ref" ]; then
    echo "mcp-fuzz: no action ref (a local uses: ./host?): building the action's own source" >&2
    echo source
    return
  fi
  if is_release_tag "$ref"; then
    echo "release $ref"
    return
  fi
  # A failed ls-remote (no git, no network to github.com) is not "no
  # release": say which it was, since the fallback needs Go.
  if ! listing=$(git ls-remote --tags --heads "https://github.com/$REPO" 2>/dev/null); then
    echo "mcp-fuzz: git ls-remote https://github.com/$REPO failed, so whether $REPO/host@$ref is a release is unknown: building the action's own source (or set the version input to a release)" >&2
    echo source
    return
  fi
  tag=$(printf '%s\n' "$listing" | release_at "$ref" || true)
  if [ -n "$tag" ]; then
    echo "mcp-fuzz: $REPO/host@$ref is release $tag" >&2
    echo "release $tag"
    return
  fi
  echo "mcp-fuzz: $REPO/host@$ref is no release: building the action's own source" >&2
  echo source
}

need_go() {
  if ! command -v go >/dev/null 2>&1; then
    echo "::error::$1 needs Go on the runner: add actions/setup-go before this step, or set the version input to a release (latest, v1.2.3)"
    exit 1
  fi
}

# latest_tag prints the tag of the latest release.
latest_tag() {
  # The release lives on github.com even when the workflow runs on GHES.
  local auth=()
  # The token only counts on github.com (a GHES token is no good there);
  # it lifts the anonymous API rate limit shared by runner IPs.
  if [ "${GITHUB_SERVER_URL:-https://github.com}" = https://github.com ] && [ -n "${GH_TOKEN:-}" ]; then
    auth=(-H "Authorization: Bearer $GH_TOKEN")
  fi
  curl -fsSL ${auth[@]+"${auth[@]}"} -H "Accept: application/vnd.github+json" \
    "https://api.github.com/repos/$REPO/releases/latest" \
    | sed -n -E 's/.*"tag_name":[[:space:]]*"([^"]+)".*/\1/p'
}

# download TAG installs the release TAG's binaries for this runner into $bin.
download() {
  local v="${1#v}" os arch asset base tmp want got
  case "$RUNNER_OS_NAME" in
    Linux) os=linux ;; macOS) os=darwin ;; Windows) os=windows ;;
    *) echo "::error::unsupported runner OS $RUNNER_OS_NAME"; exit 1 ;;
  esac
  case "$RUNNER_ARCH_NAME" in
    X64) arch=amd64 ;; ARM64) arch=arm64 ;;
    *) echo "::error::unsupported runner architecture $RUNNER_ARCH_NAME"; exit 1 ;;
  esac
  asset="mcp-fuzz_${v}_${os}_${arch}.tar.gz"
  base="https://github.com/$REPO/releases/download/v${v}"
  tmp="${RUNNER_TEMP}/mcp-fuzz/dl"
  mkdir -p "$tmp"
  curl -fsSL --retry 3 -o "$tmp/$asset" "$base/$asset"
  curl -fsSL --retry 3 -o "$tmp/checksums.txt" "$base/checksums.txt"
  want=$(grep -E "[ *](\./)?${asset}\$" "$tmp/checksums.txt" | cut -d' ' -f1 || true)
  if command -v sha256sum >/dev/null 2>&1; then
    got=$(sha256sum "$tmp/$asset" | cut -d' ' -f1)
  else
    got=$(shasum -a 256 "$tmp/$asset" | cut -d' ' -f1)
  fi
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "::error::checksum mismatch for $asset (want ${want:-none}, got $got)"
    exit 1
  fi
  tar -xzf "$tmp/$asset" -C "$bin"
}

# build_source builds the action's own checkout (github.action_path/..).
build_source() {
  local src="${ACTION_PATH:?}/.." label="${ACTION_REF:-source}"
  need_go "building mcp-fuzz from source ($REPO/host@${ACTION_REF:-local})"
  if ! grep -q "^module github.com/$MODULE\$" "$src/go.mod" 2>/dev/null; then
    echo "::error::$src is not the mcp-fuzz source (no go.mod of github.com/$MODULE)"
    exit 1
  fi
  (
    cd "$src"
    go build -trimpath -ldflags "-X main.version=$label" -o "$bin/mcp-fuzz$ext" ./cmd/mcp-fuzz
    go build -trimpath -ldflags "-X main.version=$label" -o "$bin/mcp-fuzz-action$ext" ./cmd/action
  )
}

main() {
  bin="${RUNNER_TEMP:?}/mcp-fuzz/bin"
  ext=""
  if [ "${RUNNER_OS_NAME:-}" = Windows ]; then ext=".exe"; fi
  mkdir -p "$bin"
  local what tag
  what=$(plan)
  case "$what" in
    "release "*)
      echo "mcp-fuzz: installing release ${what#release }"
      download "${what#release }"
      ;;
    latest)
      tag=$(latest_tag)
      if [ -z "$tag" ]; then echo "::error::could not resolve the latest mcp-fuzz release"; exit 1; fi
      echo "mcp-fuzz: installing the latest release, $tag"
      download "$tag"
      ;;
    "install "*)
      need_go build-from-source
      GOBIN="$bin" go install "github.com/$MODULE/cmd/mcp-fuzz@${what#install }"
      GOBIN="$bin" go install "github.com/$MODULE/cmd/action@${what#install }"
      # go install names the binary after its directory: action -> mcp-fuzz-action.
      mv -f "$bin/action$ext" "$bin/mcp-fuzz-action$ext"
      ;;
    source)
      build_source
      ;;
    *)
      echo "::error::version '$VERSION': want latest, v1.2.3 or 1.2.3 (with build-from-source: true, any go install version)"
      exit 1
      ;;
  esac
  chmod +x "$bin"/mcp-fuzz* 2>/dev/null || true
  echo "$bin" >> "$GITHUB_PATH"
  "$bin/mcp-fuzz$ext" --version || true
  echo "bin=$bin" >> "$GITHUB_OUTPUT"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
