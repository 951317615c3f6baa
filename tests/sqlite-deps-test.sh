#!/usr/bin/env bash
# scripts/sqlite-deps when its sources change (docs/sqlite.md): against a loopback archive that
# lacks the pinned files it stops and builds nothing; it takes them from snapshot's by-hash path
# or from SQLITE_SOURCE_DIR, checked; a file with other bytes is refused. Needs the pinned files
# that `make deps` fetched (.build/sqlite/downloads) and python3 for the loopback server.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "sqlite-deps-test: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

downloads=$root/.build/sqlite/downloads
work=$(mktemp -d /tmp/frontdoor-sqlite-deps-XXXXXX)
cleanup() { [ -f "$work/server.pid" ] && kill "$(cat "$work/server.pid")" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/site"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" >"$work/server.log" 2>&1 &
echo $! >"$work/server.pid"
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
deps() { # OUT, then NAME=VALUE settings
    local out=$1
    shift
    env SQLITE_DEBIAN_MIRROR="http://127.0.0.1:$port" SQLITE_SNAPSHOT_URL="http://127.0.0.1:$port" \
        SQLITE_DEPS_OUT="$work/$out" "$@" scripts/sqlite-deps >"$work/$out.log" 2>&1
}
pinned() { awk '$1 == "file" { print $2, $3, $4, $5 }' deps/sqlite3.pin; }

# The archive has dropped the pinned files, and so has every other source: a stop, nothing built.
deps gone
status=$?
check "no source has the pin: it stops (exit $status)" "[ $status != 0 ]"
check "and says what happened and what to do: $(tail -c 300 "$work/gone.log")" \
    "grep -q 'is in none of its sources' '$work/gone.log' && grep -q 'SQLITE_SOURCE_DIR' '$work/gone.log' && grep -q 'SQLITE_TAKE_UNSTABLE=1' '$work/gone.log'"
check "nothing was built" "[ ! -e '$work/gone/current' ]"
check "it did not look for another version" "! grep -q 'dists/sid' '$work/server.log'"

# snapshot.debian.org keeps every file by its SHA-1: the pinned bytes come from there.
while read -r name _ _ sha1; do
    mkdir -p "$work/site/file" && cp "$downloads/$name" "$work/site/file/$sha1"
done < <(pinned)
deps snapshot SQLITE_DEPS_FETCH_ONLY=1
check "the pinned files from snapshot's by-hash path, checked: $(tail -1 "$work/snapshot.log")" \
    "grep -q 'the pinned .*, checked' '$work/snapshot.log'"
rm -rf "$work/site/file"

# A folder the operator kept.
mkdir -p "$work/kept"
while read -r name _ _ _; do cp "$downloads/$name" "$work/kept/$name"; done < <(pinned)
deps kept SQLITE_DEPS_FETCH_ONLY=1 SQLITE_SOURCE_DIR="$work/kept"
check "the pinned files from SQLITE_SOURCE_DIR, checked" "grep -q 'the pinned .*, checked' '$work/kept.log'"

# Other bytes under a pinned name are refused, wherever they come from.
read -r first _ _ _ < <(pinned)
printf 'not sqlite\n' >>"$work/kept/$first"
deps tampered SQLITE_DEPS_FETCH_ONLY=1 SQLITE_SOURCE_DIR="$work/kept"
check "a kept file with other bytes is refused" "grep -q 'is not the pinned file' '$work/tampered.log'"
mkdir -p "$work/site/pool/main/s/sqlite3" && cp "$work/kept/$first" "$work/site/pool/main/s/sqlite3/$first"
deps pool SQLITE_DEPS_FETCH_ONLY=1
check "a pool file with other bytes is refused" "grep -q 'is not the pinned file' '$work/pool.log'"

echo "sqlite-deps-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
