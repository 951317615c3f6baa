#!/usr/bin/env bash
# The release binaries deploy by copying: no Swift library is linked dynamically, no run path
# points into the toolchain, and each one answers a request with the toolchain out of reach.
set -uo pipefail
bin=${1:?release bin folder}
toolchain_lib=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "release-test: FAIL: $*"; }

# The SQLite `make deps` built (docs/sqlite.md): its source id is in every program, and
# frontdoor-check, before it reads any config, names it as the protection in force.
root=$(cd "$(dirname "$0")/.." && pwd)
sqlite_id=$(sed -n 's/.*): //p' "$root/.build/sqlite/current/version.txt")
sqlite_version=${sqlite_id:+$(cut -d, -f1 "$root/.build/sqlite/current/version.txt")}
[ -n "$sqlite_id" ] || { echo "release-test: FAIL: no SQLite build in $root/.build/sqlite/current (make deps)"; exit 1; }
for program in signin-google signin-apple signin-email verify-email sign-out delete-account session account apple-notify google-risc signin-passkey passkey kit-return frontdoor-check frontdoor-admin; do
    path=$bin/$program
    [ -x "$path" ] || { bad "$program: not built"; continue; }
    if ldd "$path" 2>/dev/null | grep -qi swift; then bad "$program links a Swift library: $(ldd "$path" | grep -i swift)"; else ok; fi
    if grep -qF "$sqlite_id" "$path"; then ok; else bad "$program does not carry SQLite $sqlite_version ($sqlite_id)"; fi
    # Static: no program interpreter, so no dynamic loader runs at start-up.
    if readelf -lW "$path" | grep -q INTERP; then bad "$program is not a static executable"; else ok; fi
    if readelf -d "$path" | grep -E 'RPATH|RUNPATH' | grep -q "$toolchain_lib"; then bad "$program has a run path into the toolchain"; else ok; fi
    # Hide the toolchain's libraries behind an empty tmpfs in a private mount namespace.
    if [ "$program" = frontdoor-check ] || [ "$program" = frontdoor-admin ]; then
        expect="usage: $program"
        cmd="'$path' --help"
    elif [ "$program" = session ]; then
        # Any method is checked; no bearer token is refused before the config is read.
        expect="Status: 401"
        cmd="REQUEST_METHOD=GET '$path'"
    else
        expect="Status: 405"
        cmd="REQUEST_METHOD=GET '$path'"
    fi
    if [ "$(id -u)" = 0 ]; then
        out=$(unshare -m sh -c "mount -t tmpfs tmpfs '$toolchain_lib' && env -i $cmd" 2>/dev/null)
    else
        out=$(unshare -r -m sh -c "mount -t tmpfs tmpfs '$toolchain_lib' && env -i $cmd" 2>/dev/null)
    fi
    if printf '%s' "$out" | grep -q "$expect"; then ok; else bad "$program did not run with $toolchain_lib hidden: $out"; fi
done
# The command line comes from Sources/CStartup, not the runtime's CommandLine.cpp, whose static
# initializer reads /proc/self/maps in every process: its member must not be linked, and the
# arguments must still arrive exactly (a space and an empty one included).
for program in session frontdoor-admin; do
    if nm "$bin/$program" | grep -q '_GLOBAL__sub_I_CommandLine.cpp'; then bad "$program links the runtime's CommandLine.cpp"; else ok; fi
done
if command -v strace >/dev/null; then
    if env -i REQUEST_METHOD=GET strace -f -e trace=open,openat "$bin/signin-google" </dev/null 2>&1 >/dev/null | grep -q /proc/self/maps
    then bad "signin-google reads /proc/self/maps at start-up"; else ok; fi
    # With the SWIFT_BACKTRACE nginx passes (nginx/fcgiwrap.conf), the runtime does not look for a
    # crash backtracer beside the program: no path is tried (without it, eight are).
    backtrace=$(sed -n 's/^fastcgi_param  *SWIFT_BACKTRACE  *"\(.*\)";$/\1/p' "$root/nginx/fcgiwrap.conf")
    searched=$(env -i REQUEST_METHOD=GET "SWIFT_BACKTRACE=$backtrace" strace -e trace=newfstatat,stat,access \
        "$bin/signin-google" </dev/null 2>&1 >/dev/null | grep -c swift)
    if [ -n "$backtrace" ] && [ "$searched" = 0 ] &&
        grep -qF "fastcgi_param SWIFT_BACKTRACE \"$backtrace\";" "$root/nginx/frontdoor-endpoints.conf"; then ok; else
        bad "the runtime still looks for swift-backtrace with nginx's SWIFT_BACKTRACE (\"$backtrace\"): $searched paths"
    fi
fi
out=$(env -i "$bin/frontdoor-admin" "two words" 2>&1)
if printf '%s' "$out" | grep -qF 'Unknown command two words.'; then ok; else bad "frontdoor-admin's argument did not arrive whole: $out"; fi
out=$(env -i "$bin/frontdoor-check" --hosts "" 2>&1)
if printf '%s' "$out" | grep -qF -- '--hosts : cannot be read'; then ok; else bad "frontdoor-check's empty argument did not arrive: $out"; fi
out=$(env -i "$bin/frontdoor-check" --config /nonexistent/config.json 2>&1)
if printf '%s\n' "$out" | head -1 | grep -qF "✓ SQLite $sqlite_version linked (source $sqlite_id): protection against the WAL-reset bug: fixed SQLite $sqlite_version"; then ok; else
    bad "frontdoor-check does not name SQLite $sqlite_version as the protection: $(printf '%s' "$out" | head -1)"
fi
# Google's real key URL (no override) on a box without network: a JSON 503, never a signal. The
# token's signature is never reached (the keys cannot be had). Before libcurl was linked in, this
# died of SIGSEGV (exit 139). tests/box-test.sh runs the same binaries against names that resolve.
if [ "$(id -u)" = 0 ]; then
    work=$(mktemp -d)
    printf '{"databasePath": "%s/db.sqlite3", "google": {"clientIds": ["offline.apps.googleusercontent.com"]}}\n' "$work" >"$work/config.json"
    b64() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
    now=$(date +%s)
    token="$(printf '{"alg":"RS256","kid":"offline","typ":"JWT"}' | b64).$(printf '{"iss":"https://accounts.google.com","aud":"offline.apps.googleusercontent.com","sub":"1","iat":%d,"exp":%d}' "$now" $((now + 600)) | b64).c2lnbmF0dXJl"
    body="{\"idToken\":\"$token\"}"
    out=$(printf '%s' "$body" | unshare -n env -i "AUTH_CONFIG=$work/config.json" REQUEST_METHOD=POST CONTENT_TYPE=application/json \
        "CONTENT_LENGTH=${#body}" REMOTE_ADDR=::1 "$bin/signin-google" 2>"$work/stderr")
    status=$?
    if [ "$status" = 0 ] && printf '%s' "$out" | grep -q '^Status: 503' && printf '%s' "$out" | grep -q '"error":"upstream_unavailable"' \
        && grep -q 'www.googleapis.com: ' "$work/stderr"; then ok; else
        bad "signin-google with Google's real key URL and no network: exit $status, $(printf '%s' "$out" | head -1) $(cat "$work/stderr")"
    fi
    rm -rf "$work"
fi
# With lld, the common paths' functions (link/symbol-order.txt) open the code: a request faults in
# a few windows of it instead of pages all over it.
if make -s -C "$root" release-flags | grep -q symbol-ordering-file; then
    first=$(head -1 "$root/link/symbol-order.txt")
    text=$(readelf -SW "$bin/signin-google" | awk '$2 == ".text" { print $4 }')
    at=$(nm "$bin/signin-google" | awk -v name="$first" '$3 == name { print $1; exit }')
    if [ -n "$at" ] && [ -n "$text" ] && [ $((16#$at - 16#$text)) -lt 65536 ]; then ok; else
        bad "signin-google: $first is not at the start of .text ($at, .text at $text): the symbol order was not applied"
    fi
    # The code starts on a 2 MiB boundary in the file and in memory: settled in 2 MiB pieces
    # (frontdoor-check --settle), each piece of it is mapped by one fault (docs/performance.md).
    for program in signin-google session; do
        code=$(readelf -lW "$bin/$program" | awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $2, $3 }')
        if [ -n "$code" ] && [ $(( ${code% *} % 0x200000 + ${code#* } % 0x200000 )) = 0 ]; then ok; else
            bad "$program: its code does not start on a 2 MiB boundary (offset, address: ${code:-none})"
        fi
    done
fi
# A refusal builds no generic type's metadata from its mangled name (issue 35, item 3): the error
# answer is written as text, not as a JSON object and an array of header pairs, and it frees no
# string storage (the first a process frees costs the standard library's `_StringBreadcrumbs?`
# look-up, ~38 K instructions). callgrind counts the run-time look-ups
# (swift_getTypeByMangledNameInContext2 is called only when a type's cache is empty); the second
# run has the variables nginx passes, long enough to be stored on the heap.
if command -v valgrind >/dev/null; then
    work=$(mktemp -d)
    for run in signin-google session signin-google:nginx; do
        program=${run%:*}
        [ -x "$work/$program" ] || objcopy --strip-debug "$bin/$program" "$work/$program"
        settings=(REQUEST_METHOD=GET)
        [ "$run" = "$program" ] || settings+=(AUTH_CONFIG=/etc/frontdoor/config.json REMOTE_ADDR=2001:db8:85a3::8a2e:370:7334
            "HTTP_AUTHORIZATION=Bearer not-a-session-token-at-all")
        env -i "${settings[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/$program.cg" "$work/$program" \
            </dev/null >/dev/null 2>&1
        lookups=$(awk '/^c?fn=/ { id = $1; sub(/^c?fn=/, "", id); sub(/ .*/, "", id)
                                  if ($0 ~ /swift_getTypeByMangledNameInContext2$/) want[id] = 1
                                  calling = ($0 ~ /^cfn=/ && (id in want)) }
                       /^calls=/ && calling { split($1, c, "="); n += c[2]; calling = 0 }
                       END { print n + 0 }' "$work/$program.cg")
        instructions=$(awk '/^summary:/ { print $2 }' "$work/$program.cg")
        echo "$run refused: $instructions instructions, $lookups metadata look-ups by mangled name"
        if [ "$lookups" = 0 ]; then ok; else bad "$run's refusal looked up $lookups types by mangled name (none allowed)"; fi
    done
    rm -rf "$work"
else
    bad "valgrind is missing (make deps installs it)"
fi
echo "signin-google's program headers: $(readelf -lW "$bin/signin-google" | awk '/^  [A-Z_]+ +0x/ { print $1 }' | sort -u | tr '\n' ' ')"
echo "release-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
