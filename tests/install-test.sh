#!/usr/bin/env bash
# `make install` into a temporary root: the files, their modes and owners; then nginx and
# fcgiwrap driven through the installed nginx files on loopback ports, and the installed
# frontdoor-check run against that stack. Runs as root (CI) or under fakeroot.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "install-test: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

dest=$(mktemp -d /tmp/frontdoor-install-XXXXXX)
work=$(mktemp -d /tmp/frontdoor-install-run-XXXXXX)
cleanup() {
    scripts/dev-stack stop "$work/var" >/dev/null 2>&1 || true
    [ -f "$work/dev.pid" ] && kill "$(cat "$work/dev.pid")" 2>/dev/null
    rm -rf "$dest" "$work"
}
trap cleanup EXIT

rooter=""
if [ "$(id -u)" != 0 ]; then
    command -v fakeroot >/dev/null || { echo "install-test: needs root or fakeroot (apt-get install fakeroot)"; echo "install-test: 0 passed, 1 failed"; exit 1; }
    rooter=fakeroot
fi
# Install and read back modes and owners in one (fake)root session.
listing=$($rooter bash -c "make -s install DESTDIR='$dest' >/dev/null && cd '$dest' && find . -mindepth 1 -printf '%p %m %u:%g\n'" 2>&1) \
    || { bad "make install failed: $listing"; echo "install-test: $passed passed, $failed failed"; exit 1; }

expect() { # path mode owner
    local line
    line=$(printf '%s\n' "$listing" | awk -v p="./${1#/}" '$1 == p')
    if [ "$line" = "./${1#/} $2 $3" ]; then ok; else bad "$1: expected mode $2 owner $3, got '${line:-missing}'"; fi
}
expect usr/local/libexec/frontdoor/signin-google 755 root:root
expect usr/local/libexec/frontdoor/signin-apple 755 root:root
expect usr/local/libexec/frontdoor/signin-email 755 root:root
expect usr/local/libexec/frontdoor/verify-email 755 root:root
expect usr/local/libexec/frontdoor/sign-out 755 root:root
expect usr/local/libexec/frontdoor/delete-account 755 root:root
expect usr/local/libexec/frontdoor/session 755 root:root
expect usr/local/libexec/frontdoor/account 755 root:root
expect usr/local/libexec/frontdoor/apple-notify 755 root:root
expect usr/local/libexec/frontdoor/google-risc 755 root:root
expect usr/local/libexec/frontdoor/signin-passkey 755 root:root
expect usr/local/libexec/frontdoor/kit-return 755 root:root
expect usr/local/libexec/frontdoor/passkey 755 root:root
expect usr/local/sbin/frontdoor-check 755 root:root
expect usr/local/sbin/frontdoor-admin 755 root:root
expect usr/local/share/frontdoor 755 root:root
expect usr/local/share/frontdoor/openapi.json 644 root:root
check "the installed API description is the repository's" "cmp -s openapi/openapi.json '$dest/usr/local/share/frontdoor/openapi.json'"
check "the installed endpoints snippet serves it from there" \
    "grep -q 'alias /usr/local/share/frontdoor/openapi.json;' '$dest/etc/nginx/snippets/frontdoor-endpoints.conf'"
expect usr/local/share/frontdoor/common-passwords 644 root:root
check "the installed list of common passwords is the one make deps built" \
    "cmp -s .build/passwords/current/common-passwords '$dest/usr/local/share/frontdoor/common-passwords'"
expect etc/nginx/sites-available/frontdoor 644 root:root
expect etc/nginx/snippets/frontdoor-endpoints.conf 644 root:root
expect etc/nginx/snippets/frontdoor-fcgiwrap.conf 644 root:root
expect etc/nginx/snippets/frontdoor-protect.conf 644 root:root
expect etc/nginx/conf.d/frontdoor.conf 644 root:root
expect etc/systemd/system/fcgiwrap.service.d/frontdoor.conf 644 root:root
expect etc/systemd/system/frontdoor-checks.socket 644 root:root
expect etc/systemd/system/frontdoor-checks.service 644 root:root
expect etc/nginx/frontdoor-proof.conf 600 root:root
expect etc/frontdoor 750 root:www-data
expect etc/frontdoor/secrets 750 root:www-data
expect etc/frontdoor/secrets/app-proof 640 root:www-data
expect etc/frontdoor/config.json 640 root:www-data
expect var/lib/frontdoor 750 www-data:www-data
expect etc/frontdoor/well-known 755 root:root
# The web kit (issue 33): its files under share/, the page's configuration and headers under etc/.
expect usr/local/share/frontdoor/kit 755 root:root
expect usr/local/share/frontdoor/kit/lang 755 root:root
for f in frontdoor.js signin.html signin.js signin.css typos.json lang/en.json lang/fr.json lang/es.json lang/de.json lang/pt.json lang/ar.json; do
    expect "usr/local/share/frontdoor/kit/$f" 644 root:root
done
expect etc/frontdoor/kit 755 root:root
expect etc/frontdoor/kit/config.json 644 root:root
expect etc/frontdoor/kit/headers.conf 644 root:root
check "the installed kit files are the repository's" "cmp -s kits/web/signin.html '$dest/usr/local/share/frontdoor/kit/signin.html'"
check "the kit's headers name the installed config, not the staging folder" \
    "grep -q 'from /etc/frontdoor/config.json:' '$dest/etc/frontdoor/kit/headers.conf' && ! grep -q '$dest' '$dest/etc/frontdoor/kit/headers.conf'"
check "the example config (no passkeys) gets no association files" \
    "[ ! -e '$dest/etc/frontdoor/well-known/apple-app-site-association' ] && [ ! -e '$dest/etc/frontdoor/well-known/assetlinks.json' ]"
check "the fcgiwrap drop-in runs several children" "grep -q -- '-c 4' '$dest/etc/systemd/system/fcgiwrap.service.d/frontdoor.conf'"
# Its pre-read, run as systemd would run it ($$ is systemd's literal $) on the staged programs with
# the staged frontdoor-check, settles them all and fails on none; the checks' pool settles its own.
preread=$(sed -n "s/^ExecStartPre=-\/bin\/sh -c '\(.*\)'$/\1/p" "$dest/etc/systemd/system/fcgiwrap.service.d/frontdoor.conf" |
    sed 's/\$\$/$/g')
preread_out=$(sh -c "$(printf '%s' "$preread" | sed "s#/usr/local/#$dest/usr/local/#g")" 2>&1)
preread_rc=$?
check "the fcgiwrap drop-in settles every installed program before the pool starts" \
    '[ "$preread_rc" = 0 ] && [ -z "$preread_out" ] && printf "%s" "$preread" | grep -qxF "/usr/local/sbin/frontdoor-check --settle /usr/local/libexec/frontdoor/*"'
check "the checks' pool settles the session program before it starts" \
    "grep -qx 'ExecStartPre=-/usr/local/sbin/frontdoor-check --settle /usr/local/libexec/frontdoor/session' '$dest/etc/systemd/system/frontdoor-checks.service'"
check "the example config is valid JSON naming the data folder" "grep -q '/var/lib/frontdoor/frontdoor.sqlite3' '$dest/etc/frontdoor/config.json'"
# The checks' own fcgiwrap pool: its socket is the one the internal check location uses, and it
# runs the installed session program alone.
check "the checks' socket unit listens where the check location passes" \
    "grep -qx 'ListenStream=/run/frontdoor-checks.socket' '$dest/etc/systemd/system/frontdoor-checks.socket' &&
     grep -q 'fastcgi_pass unix:/run/frontdoor-checks.socket;' '$dest/etc/nginx/snippets/frontdoor-endpoints.conf'"
check "the checks' pool runs only the session program" \
    "grep -qx 'ExecStart=/usr/sbin/fcgiwrap -f -c 4 -p /usr/local/libexec/frontdoor/session' '$dest/etc/systemd/system/frontdoor-checks.service'"
check "the protect snippet has the checks' own limit" \
    "grep -q '^limit_req zone=frontdoor_checks burst=' '$dest/etc/nginx/snippets/frontdoor-protect.conf' &&
     grep -q '^limit_req_zone .* zone=frontdoor_checks:' '$dest/etc/nginx/conf.d/frontdoor.conf'"
# The proof: made at install, 43 base64url characters, the same in the app's copy and nginx's
# include (which the installed protect snippet includes), kept by a second install.
proof=$(head -n 1 "$dest/etc/frontdoor/secrets/app-proof")
check "the install made a proof of 32 random bytes" "printf '%s' '$proof' | grep -Eqx '[A-Za-z0-9_-]{43}'"
check "nginx's proof include holds the app's proof" \
    "grep -qx 'proxy_set_header X-Frontdoor-Proof \"$proof\";' '$dest/etc/nginx/frontdoor-proof.conf' &&
     grep -qx 'fastcgi_param HTTP_X_FRONTDOOR_PROOF \"$proof\";' '$dest/etc/nginx/frontdoor-proof.conf'"
check "the protect snippet includes the proof" \
    "grep -qx 'include /etc/nginx/frontdoor-proof.conf;' '$dest/etc/nginx/snippets/frontdoor-protect.conf'"
$rooter make -s install DESTDIR="$dest" >/dev/null 2>&1 || bad "a second make install failed"
check "a second install keeps the proof" "[ \"\$(head -n 1 '$dest/etc/frontdoor/secrets/app-proof')\" = '$proof' ] &&
     grep -q '$proof' '$dest/etc/nginx/frontdoor-proof.conf'"
other=$(mktemp -d /tmp/frontdoor-install-other-XXXXXX)
$rooter make -s install DESTDIR="$other" >/dev/null 2>&1 || bad "an install elsewhere failed"
check "another install makes another proof" "[ \"\$(head -n 1 '$other/etc/frontdoor/secrets/app-proof')\" != '$proof' ]"
rm -rf "$other"

# Drive the installed nginx files: a development provider plays Google. The config, the store
# and the secrets sit in the stack's folder, as with make run: started by root, the stack runs
# nginx's workers, fcgiwrap and the programs as www-data, which owns them.
free_port() { local p; while :; do p=$((20000 + RANDOM % 20000)); (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
port=$(free_port); dev_port=$(free_port); smtp_port=$(free_port)
bin=$dest/usr/local/libexec/frontdoor
state=$work/var
mkdir -p "$state"
chmod 0755 "$dest" "$work"
# make test names the release build by a path through a folder only root can enter (as a clone in
# root's home is), which SwiftPM's own answer would not: it resolves symbolic links.
release_bin=${FRONTDOOR_RELEASE_BIN:-$(swift build -c release --static-swift-stdlib --show-bin-path)}
dev=$release_bin/frontdoor-dev
# The app's example route runs as the stack's user, who may not enter the checkout: a copy of it
# sits in the stack's own folder, as an installed app's program would sit outside any checkout.
mkdir -p "$work/app"
install -m 0755 "$release_bin/frontdoor-whoami" "$work/app/frontdoor-whoami"
chmod 0755 "$work/app"
# Its own mail port too: a `make run` elsewhere on the box holds the default 8025.
"$dev" config --database "$state/frontdoor.sqlite3" --provider "http://127.0.0.1:$dev_port" --smtp-port "$smtp_port" \
    --events-secret "$state/events-secret" --site "http://127.0.0.1:$port" >"$state/config.json"
chmod 600 "$state/config.json"
# Passkeys (issue 24): with a passkeys section in the installed config (the stack's, copied in),
# make install writes the two association files, public, exactly as frontdoor-check prints them.
cp "$state/config.json" "$dest/etc/frontdoor/config.json"
wk=$dest/etc/frontdoor/well-known
$rooter make -s install DESTDIR="$dest" >/dev/null 2>&1 || bad "make install with a passkeys config failed"
modes=$($rooter bash -c "cd '$wk' && find . -type f -printf '%p %m %u:%g\n' | sort" 2>&1)
check "make install wrote both association files, 0644 root: $modes" \
    "[ \"\$modes\" = \"\$(printf './apple-app-site-association 644 root:root\n./assetlinks.json 644 root:root')\" ]"
mkdir -p "$work/expected"
"$dest/usr/local/sbin/frontdoor-check" --print-association-files --config "$state/config.json" --out "$work/expected" >/dev/null
check "the installed files are the ones frontdoor-check writes" \
    "cmp -s '$wk/assetlinks.json' '$work/expected/assetlinks.json' && cmp -s '$wk/apple-app-site-association' '$work/expected/apple-app-site-association'"
check "assetlinks.json names the Android app's key with get_login_creds" \
    "grep -q 'delegate_permission/common.get_login_creds' '$wk/assetlinks.json' && grep -q '\"package_name\":\"dev.frontdoor.app\"' '$wk/assetlinks.json'"
check "apple-app-site-association names the iOS app" "grep -q '\"webcredentials\":{\"apps\":\\[\"DEVTEAM001.dev.frontdoor.app\"\\]}' '$wk/apple-app-site-association'"
setsid "$dev" serve --port "$dev_port" --smtp-port "$smtp_port" --events-secret "$state/events-secret" </dev/null \
    >"$work/dev.log" 2>&1 &
echo $! >"$work/dev.pid"
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$dev_port/google/token?sub=probe" && break; sleep 0.05; done
# The example route of the app (not installed) behind the installed protect snippet, with the
# installed proof.
check "make install wrote the page's configuration from that config: the stand-ins' scripts" \
    "grep -q '/kit-standins/apple/1/en_US/appleid.auth.js' '$dest/etc/frontdoor/kit/config.json' &&
     grep -q '\"passkeys\":true' '$dest/etc/frontdoor/kit/config.json'"
if ! FRONTDOOR_NGINX_DIR="$dest/etc/nginx" FRONTDOOR_WHOAMI="$work/app/frontdoor-whoami" FRONTDOOR_WELL_KNOWN="$wk" \
    FRONTDOOR_KIT_DIR="$dest/usr/local/share/frontdoor/kit" FRONTDOOR_KIT_CONFIG_DIR="$dest/etc/frontdoor/kit" \
    FRONTDOOR_OPENAPI="$dest/usr/local/share/frontdoor/openapi.json" \
    scripts/dev-stack start "$state" "$port" "$bin" "$state/config.json" 2>"$work/stack.err"; then
    bad "nginx with the installed files did not start"
    echo "install-test: $passed passed, $failed failed"
    exit 1
fi
url=http://127.0.0.1:$port
# The installed site serves the installed association files as JSON.
for name in apple-app-site-association assetlinks.json; do
    headers=$(curl -s -D - -o "$work/$name" "$url/.well-known/$name")
    check "the site serves $name as application/json" \
        "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 200' && printf '%s' \"\$headers\" | grep -qi '^Content-Type: application/json' && cmp -s '$work/$name' '$wk/$name'"
done
# The API description (DESIGN.md rule 20): JSON, cacheable, GET only.
headers=$(curl -s -D - -o "$work/openapi.json" "$url/auth/openapi.json")
check "the site serves /auth/openapi.json as cacheable application/json" \
    "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 200' && printf '%s' \"\$headers\" | grep -qi '^Content-Type: application/json' &&
     printf '%s' \"\$headers\" | grep -qi '^Cache-Control: .*max-age=[1-9]' && ! printf '%s' \"\$headers\" | grep -qi 'no-store' &&
     cmp -s '$work/openapi.json' openapi/openapi.json"
for path in /auth/kit/missing.html /auth/kit/missing.js; do
    headers=$(curl -s -D - -o "$work/missing.json" "$url$path")
    check "a missing $path is a 404 in JSON, whatever its extension" \
        "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 404' && printf '%s' \"\$headers\" | grep -qi '^Content-Type: application/json' &&
         grep -q not_found '$work/missing.json'"
done
headers=$(curl -s -D - -o "$work/openapi-post.json" -X POST "$url/auth/openapi.json")
check "/auth/openapi.json refuses POST with 405 in JSON, Allow: GET, HEAD" \
    "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 405' && printf '%s' \"\$headers\" | grep -qi '^Allow: GET, HEAD' &&
     grep -q method_not_allowed '$work/openapi-post.json'"
# The installed site serves the web kit, with its CSP.
for path in /auth/kit/signin.html /auth/kit/ /auth/kit/frontdoor.js /auth/kit/config.json /auth/kit/lang/fr.json; do
    headers=$(curl -s -D - -o "$work/kit.out" "$url$path")
    check "the site serves $path with the kit's CSP" \
        "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 200' &&
         printf '%s' \"\$headers\" | grep -qi \"^Content-Security-Policy: default-src 'none'; script-src 'self' \""
done
check "signin.html is text/html, frontdoor.js JavaScript" \
    "curl -s -D - -o /dev/null '$url/auth/kit/signin.html' | grep -qi '^Content-Type: text/html' &&
     curl -s -D - -o /dev/null '$url/auth/kit/frontdoor.js' | grep -qi '^Content-Type: text/javascript'"
# Compressed as make install wrote it (gzip_static), and a returning browser loads nothing again.
for f in signin.html signin.js frontdoor.js lang/en.json; do
    expect "usr/local/share/frontdoor/kit/$f.gz" 644 root:root
    headers=$(curl -s -D - -o "$work/kit.gz" -H 'Accept-Encoding: gzip' "$url/auth/kit/$f")
    check "$f is sent gzipped, and unzips to the file" \
        "printf '%s' \"\$headers\" | grep -qi '^Content-Encoding: gzip' && printf '%s' \"\$headers\" | grep -qi '^Vary: Accept-Encoding' &&
         gunzip -c '$work/kit.gz' | cmp -s - 'kits/web/$f'"
    tag=$(printf '%s' "$headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | tr -d '\r')
    again=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' -H 'Accept-Encoding: gzip' -H "If-None-Match: $tag" "$url/auth/kit/$f")
    check "$f again: 304 and no body ($again)" "[ -n '$tag' ] && [ '$again' = '304 0' ]"
done
plain=$(curl -s -o /dev/null -w '%{size_download}' "$url/auth/kit/signin.js")
zipped=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip' "$url/auth/kit/signin.js")
echo "install-test: signin.js $plain bytes, $zipped gzipped"
check "the page's configuration is the one make install wrote" \
    "curl -s '$url/auth/kit/config.json' | cmp -s - '$dest/etc/frontdoor/kit/config.json'"
token=$(curl -s "http://127.0.0.1:$dev_port/google/token?sub=install-user&email=install.user@gmail.com")
answer=$(curl -s -X POST "$url/auth/signin-google" -H 'Content-Type: application/json' -d "{\"idToken\":\"$token\"}")
check "sign-in through the installed site" "printf '%s' '$answer' | grep -q '\"created\":true'"
# The installed protect snippet: 401 in JSON without a session, the account with one, never a forged one.
account=$(printf '%s' "$answer" | sed -n 's/.*"accountId":"\([^"]*\)".*/\1/p')
bearer=$(printf '%s' "$answer" | sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p')
code=$(curl -s -o "$work/who.json" -w '%{http_code}' "$url/app/whoami" -H 'X-Frontdoor-Account: forged')
check "a protected route without a session answers 401 in JSON" "[ '$code' = 401 ] && grep -q unauthorized '$work/who.json'"
who=$(curl -s "$url/app/whoami" -H "Authorization: Bearer $bearer" -H 'X-Frontdoor-Account: forged')
check "a protected route gets the account from nginx alone: $who" "[ '$who' = '{\"account\":\"$account\"}' ]"
# Who ran what: started by root, nothing of the stack but nginx's master runs as root.
if [ "$(id -u)" = 0 ]; then
    check "the stack said nothing of falling back to root: $(cat "$work/stack.err")" "[ ! -s '$work/stack.err' ]"
    master=$(cat "$state/nginx.pid")
    check "nginx's workers run as www-data" "[ \"\$(ps -o user= --ppid $master | sort -u)\" = www-data ]"
    for pool in fcgiwrap fcgiwrap-checks; do
        pid=$(cat "$state/$pool.pid")
        check "$pool runs as www-data" "[ \"\$( (ps -o user= -p $pid; ps -o user= --ppid $pid) | sort -u)\" = www-data ]"
        check "$pool's socket is www-data's" "[ \"\$(stat -c %U '$state/$pool.sock')\" = www-data ]"
    done
    check "the store was made by a program running as www-data" "[ \"\$(stat -c %U '$state/frontdoor.sqlite3')\" = www-data ]"
    check "so was its session file, mode 0600 (docs/sqlite.md)" \
        "[ \"\$(stat -c '%U %a' '$state/frontdoor.sqlite3-sessions')\" = 'www-data 600' ]"
fi
check "the installed session check answers the phone" \
    "curl -s '$url/auth/session' -H 'Authorization: Bearer $bearer' | grep -q '\"sessionId\"'"
# Its account.created goes out after the answer, from the installed binary, signed.
for _ in $(seq 100); do grep -q '"signature":"ok","answered":200' "$work/dev.log" && break; sleep 0.05; done
check "the sign-in's account event reached the receiver, signed" "grep -q '\"signature\":\"ok\",\"answered\":200,.*account.created' '$work/dev.log'"
headers=$(curl -s -D - -o "$work/get.json" "$url/auth/signin-google")
check "GET answers 405 in JSON" "printf '%s' \"\$headers\" | grep -q '^HTTP/1.1 405' && grep -q method_not_allowed '$work/get.json'"
check "405 says Allow: POST" "printf '%s' \"\$headers\" | grep -qi '^Allow: POST'"
check "server_tokens off" "printf '%s' \"\$headers\" | grep -qi '^Server: nginx.\$'"
code=$(curl -s -o "$work/404.json" -w '%{http_code}' -X POST "$url/auth/frontdoor-check" -H 'Content-Type: application/json' -d '{}')
check "unrouted names answer 404 in JSON" "[ '$code' = 404 ] && grep -q not_found '$work/404.json'"
# Mail through the installed (static) binaries: their own libcurl, for SMTP as for HTTPS.
post_json() { curl -s -X POST "$url/auth/$1" -H 'Content-Type: application/json' "${@:3}" -d "$2"; }
# Rule 19 through the installed programs, which find the installed list beside themselves (the
# config names none): a listed word with a sequence after it, and one the development range
# service (the config's passwords.rangeUrl) says it has seen.
refused=$(post_json signin-email '{"action":"register","email":"install.weak@example.org","password":"password1234567"}')
check "the installed list refuses a common password: $refused" \
    "printf '%s' '$refused' | grep -q '\"reason\":\"common\"' && printf '%s' '$refused' | grep -q '\"minLength\":15'"
refused=$(post_json signin-email '{"action":"register","email":"install.weak@example.org","password":"a breached dev password"}')
check "the range service refuses what it has seen: $refused" "printf '%s' '$refused' | grep -q '\"reason\":\"common\"'"
post_json signin-email '{"action":"register","email":"install.mail@example.org","password":"an install password"}' >/dev/null
session=$(post_json signin-email '{"action":"login","email":"install.mail@example.org","password":"an install password"}' |
    sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p')
ticket=$(post_json verify-email '{"action":"verify_own_email"}' -H "Authorization: Bearer $session" |
    sed -n 's/.*"ticket":"\([^"]*\)".*/\1/p')
sent=$(post_json verify-email "{\"action\":\"send_code\",\"ticket\":\"$ticket\"}")
check "send_code mails through the installed binary: $sent" "printf '%s' '$sent' | grep -q '\"sent\":true'"
check "the mail reached the sink" "curl -s 'http://127.0.0.1:$dev_port/mail/last' | grep -q '^To: <install.mail@example.org>'"
# The passkey endpoints are routed to their programs: a ceremony, or (no passkeys section) their own 404.
passkey=$(post_json signin-passkey '{"action":"begin"}')
check "signin-passkey is routed to its program: $passkey" \
    "printf '%s' '$passkey' | grep -q -e '\"ceremonyId\"' -e 'Passkeys are not offered here.'"
passkey=$(post_json passkey '{"action":"list"}' -H "Authorization: Bearer $session")
check "passkey is routed to its program: $passkey" \
    "printf '%s' '$passkey' | grep -q -e '\"passkeys\"' -e 'Passkeys are not offered here.'"
# The person a provider event signs out below (signed in before the burst uses up the limit).
risc_token=$(curl -s "http://127.0.0.1:$dev_port/google/token?sub=install-risc&email=install.risc@gmail.com")
risc_bearer=$(curl -s -X POST "$url/auth/signin-google" -H 'Content-Type: application/json' -d "{\"idToken\":\"$risc_token\"}" |
    sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p')
check "the person a SET signs out below has a session" "[ -n '$risc_bearer' ]"
# The per-address limit: a burst of 20, then 429 in JSON with Retry-After.
limited=0
for i in $(seq 40); do
    code=$(curl -s -D "$work/h-$i" -o "$work/b-$i" -w '%{http_code}' -X POST "$url/auth/signin-google" \
        -H 'Content-Type: application/json' -d '{"idToken":"a.b.c"}')
    if [ "$code" = 429 ]; then limited=$i; break; fi
done
check "a burst past the limit is answered 429" "[ '$limited' -gt 0 ]"
if [ "$limited" -gt 0 ]; then
    check "429 is JSON rate_limited" "grep -q rate_limited '$work/b-$limited'"
    check "429 says Retry-After" "grep -qi '^Retry-After: ' '$work/h-$limited'"
fi
check "the request log line reached nginx's error log" "grep -q 'endpoint=signin-google status=200' '$state/nginx-error.log'"
check "no token in nginx's error log" "! grep -qF '$token' '$state/nginx-error.log'"
# The providers' events through the installed routes (issue 23): a SET that ends a Google
# person's session, and an Apple notification checked with keys reached as through apple.keysProxy.
# Right after the burst above used up this client's sign-in limit: the events' zone is their own.
set=$(curl -s "http://127.0.0.1:$dev_port/google/risc?sub=install-risc&type=sessions-revoked")
code=$(curl -s -o "$work/risc.out" -w '%{http_code}' -X POST "$url/auth/google-risc" \
    -H 'Content-Type: application/secevent+jwt' --data-binary "$set")
check "google-risc is routed and takes Google's SET with 202 and no body: $code" "[ '$code' = 202 ] && [ ! -s '$work/risc.out' ]"
code=$(curl -s -o "$work/risc-bad.json" -w '%{http_code}' -X POST "$url/auth/google-risc" \
    -H 'Content-Type: application/secevent+jwt' --data-binary 'not-a-set')
check "google-risc refuses with RFC 8935's body" "[ '$code' = 400 ] && grep -q '\"err\":\"invalid_request\"' '$work/risc-bad.json'"
notification=$(curl -s "http://127.0.0.1:$dev_port/apple/notification?sub=install-apple-nobody&type=consent-revoked")
answer=$(curl -s -X POST "$url/auth/apple-notify" -H 'Content-Type: application/json' -d "$notification")
check "apple-notify is routed and takes Apple's notification: $answer" "[ '$answer' = '{\"received\":true}' ]"
# The installed self-check against this stack.
out=$("$dest/usr/local/sbin/frontdoor-check" --config "$state/config.json" --routes ipv4=yes,ipv6=yes --timeout 3 \
    --nginx "$dest/etc/nginx" 2>&1)
check "frontdoor-check passes against the installed stack: $out" "printf '%s' \"\$out\" | grep -q 'all .* checks passed'"
check "frontdoor-check finds the protect snippet's internal location" \
    "printf '%s' \"\$out\" | grep -q '✓ nginx: snippets/frontdoor-protect.conf is installed and /_frontdoor/session is an internal location'"
check "frontdoor-check finds the served association files as the config gives them" \
    "printf '%s' \"\$out\" | grep -q '✓ passkeys: $url/.well-known/assetlinks.json matches passkeys.androidApps' &&
     printf '%s' \"\$out\" | grep -q '✓ passkeys: $url/.well-known/apple-app-site-association matches passkeys.iosAppIds'"
check "the installed frontdoor-check finds the installed list of common passwords" \
    "printf '%s' \"\$out\" | grep -q '✓ passwords: list $dest/usr/local/share/frontdoor/common-passwords, [0-9]* entries: Django'"
check "the installed frontdoor-check reaches the range service" \
    "printf '%s' \"\$out\" | grep -q '✓ passwords: range service 127.0.0.1 answered a range of'"
check "the installed (static) frontdoor-check names its lookups and the CA bundle its libcurl reads" \
    "printf '%s' \"\$out\" | grep -q '✓ name lookups: hosts: ' && printf '%s' \"\$out\" | grep -q '✓ TLS: peers are checked against /etc/ssl/certs/ca-certificates.crt'"
# The installed frontdoor-admin against the same store: counts, a backup, and one account.
admin="$dest/usr/local/sbin/frontdoor-admin --config $state/config.json"
stats=$($admin stats 2>&1)
# The session the SET ended (asked of the store: this client's sign-in limit is still used up).
found=$($admin find install.risc@gmail.com 2>&1)
check "the SET ended that person's session: $found" "printf '%s' '$found' | grep -q '\"sessions\":\[\]'"
check "frontdoor-admin stats counts the stack's accounts: $stats" "printf '%s' '$stats' | grep -q '\"accounts\":3,'"
mkdir -p "$work/backups"
backup=$($admin backup "$work/backups" --keep 3 2>&1)
check "frontdoor-admin backup writes a checked snapshot: $backup" \
    "printf '%s' '$backup' | grep -q '\"path\":\"$work/backups/frontdoor-' && [ \"\$(stat -c %a \"$work\"/backups/frontdoor-*.sqlite3)\" = 600 ]"
check "frontdoor-admin backup seals the snapshot under the server key beside it (its .mac, 0600)" \
    "[ \"\$(stat -c %a \"$work\"/backups/frontdoor-*.sqlite3.mac)\" = 600 ]"
found=$($admin find "$account" 2>&1)
check "frontdoor-admin find names the signed-in account" "printf '%s' '$found' | grep -q '\"accountId\":\"$account\"'"
$admin disable "$account" >/dev/null 2>&1
code=$(curl -s -o /dev/null -w '%{http_code}' "$url/app/whoami" -H "Authorization: Bearer $bearer")
check "a disabled account's session is refused at the installed door" "[ '$code' = 401 ]"
$admin frobnicate >/dev/null 2>&1; status=$?
check "frontdoor-admin answers a usage error with 64" "[ '$status' = 64 ]"

echo "install-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
