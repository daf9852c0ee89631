#!/usr/bin/env bash
# Prints the path of a FerretDB binary: FerretDB v1 on its SQLite handler is a MongoDB wire-compatible
# server, the stand-in for MongoDB in the `mongo` test tier (test/support/mongo-setup.ts starts it).
# Built once with Go from the module proxy and kept in ~/.cache/support-desk (a kept machine finds it
# again); FERRETDB_BIN names a binary of your own instead. Without Go, test/support/ferretdb.ts fetches one.
#
# Why not `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`: the published module lacks the
# generated build/version/version.txt, so that binary panics at start ("Invalid
# build/version/version.txt file content"). This builds the same module source with the file written.
set -euo pipefail

VERSION=v1.24.2
if [ -n "${FERRETDB_BIN:-}" ]; then
  echo "$FERRETDB_BIN"
  exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/support-desk"
bin="$cache/ferretdb-$VERSION"
# A binary that cannot print its version (a cut copy, a wrong platform) is built again.
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

# Go 1.21 and later fetch the toolchain FerretDB's go.mod asks for (go1.24.3) themselves; an older one cannot.
go_will_do() {
  case "$(go env GOVERSION 2>/dev/null)" in
    go1.2[1-9]* | go1.[3-9][0-9]* | go[2-9]*) return 0 ;;
    *) return 1 ;;
  esac
}
if ! command -v go >/dev/null 2>&1 || ! go_will_do; then
  # test/support/ferretdb.ts (the first step of `npm test`, and the mongo tier) then fetches a Go and runs this again.
  [ -z "${FERRETDB_NO_GO_STATUS:-}" ] || exit "$FERRETDB_NO_GO_STATUS"
  echo "FerretDB $VERSION is not in $cache and no Go 1.21 or later is on PATH to build it." >&2
  echo "npm test fetches one (test/support/ferretdb.ts); else install Go (https://go.dev/dl), or point" >&2
  echo "MONGO_URL at a MongoDB (docker compose up -d mongo; MONGO_URL=mongodb://localhost:27017/test)." >&2
  exit 1
fi

echo "Building FerretDB $VERSION into $bin (once; a few minutes)" >&2
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
module=$(cd "$work" && go mod download -json "github.com/FerretDB/FerretDB@$VERSION")
dir=$(printf '%s\n' "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "go mod download did not give FerretDB's source: $module" >&2
  exit 1
fi
# The module cache is read-only: build a writable copy.
cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" >"$work/src/build/version/version.txt"
mkdir -p "$cache"
(cd "$work/src" && go build -trimpath -o "$bin.$$" ./cmd/ferretdb)
"$bin.$$" --version >/dev/null
mv -f "$bin.$$" "$bin"
echo "$bin"
