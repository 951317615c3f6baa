#!/usr/bin/env bash
# The release binaries as production runs them (DESIGN.md rule 8; docs/testing.md, "The box"):
# behind nginx + fcgiwrap inside scripts/box, an IPv6-only namespace whose DNS answers the real
# names, whose fakes answer them over TLS with certificates of a CA only the box trusts, with the
# production config (no URL overrides). The sign-ins, mail, events, deletion and the self-check,
# then the faults: names that do not exist, a DNS server that does not answer, a name with only an
# A record, certificates for another name, expired or from an unknown CA, a mail server without
# STARTTLS. The sign-in flows run again on PostgreSQL when FRONTDOOR_PG_DIR names make test's.
#   tests/box-test.sh RELEASE_BIN_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(cd "${1:?the release binaries}" && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "box-test: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
finish() { echo "box-test: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
if [ "$(id -u)" != 0 ]; then bad "the box needs root (network, mount and PID namespaces)"; finish; fi

box=$(mktemp -d /tmp/frontdoor-box-XXXXXX)
pgdb=""
cleanup() {
    scripts/box exec "$box" "$root/scripts/dev-stack" stop "$box/var" >/dev/null 2>&1 || true
    scripts/box stop "$box" >/dev/null 2>&1 || true
    if [ -n "$pgdb" ]; then
        (cd / && runuser -u postgres -- psql -X -q -h "$FRONTDOOR_PG_DIR" -p 5432 -d postgres \
            -c "DROP DATABASE IF EXISTS $pgdb WITH (FORCE)") >/dev/null 2>&1
    fi
    rm -rf "$box"
}
trap cleanup EXIT
scripts/box start "$box" "$bin" >"$box.start.log" 2>&1 || { bad "the box did not start: $(cat "$box.start.log")"; rm -f "$box.start.log"; finish; }
rm -f "$box.start.log"

# Everything a request or a fake wrote, and what must never be in it.
secrets=()
logs() { cat "$box"/var/*.log "$box"/log/*.log 2>/dev/null; }
provider() { curl -sS --unix-socket "$box/run/provider.sock" "http://provider$1"; }
inbox() { ls "$box"/mail/*.eml 2>/dev/null | wc -l; }
# ENDPOINT BODY [BEARER]: the answer's status in $status, its body in $answer, its seconds in $took.
post() {
    local auth=() started
    [ -n "${3:-}" ] && auth=(-H "Authorization: Bearer $3")
    started=$(date +%s%N)
    status=$(scripts/box exec "$box" curl -sS -m 120 -o "$box/answer" -w '%{http_code}' -X POST \
        "http://127.0.0.1:8080/auth/$1" -H 'Content-Type: application/json' "${auth[@]}" --data-binary "$2")
    took=$(( ($(date +%s%N) - started) / 1000000 ))
    answer=$(cat "$box/answer")
}
field() { # NAME [JSON]: a top-level member of the answer, as text
    /usr/bin/python3 -c 'import json, sys
v = json.loads(sys.argv[1]).get(sys.argv[2])
print("" if v is None else (json.dumps(v) if isinstance(v, (list, dict, bool)) else v))' "${2:-$answer}" "$1" 2>/dev/null
}
# Waits up to 15 s for a shell condition (work after the answer: events, the relay's clean-up).
since() { tail -n +$(( $2 + 1 )) "$1"; }  # FILE LINES: what was written after its first LINES
eventually() { local i; for i in $(seq 150); do eval "$1" && return 0; sleep 0.1; done; return 1; }
accounts() { # the store's count, as frontdoor-admin reads it
    scripts/box exec "$box" "$bin/frontdoor-admin" --config "$box/var/config.json" stats 2>/dev/null | sed -n 's/.*"accounts":\([0-9]*\).*/\1/p'
}
config() { # KEY=JSON...: the production config with these changes, in force for the next request
    scripts/box config "$box" "${store_keys[@]}" "$@" >"$box/var/config.json.next" && chmod 600 "$box/var/config.json.next" \
        && mv "$box/var/config.json.next" "$box/var/config.json"
}
fresh_google() { # SUB: a token for a new person from the fake Google
    local token
    token=$(provider "/google/token?sub=$1&email=$1@gmail.com")
    secrets+=("$token")
    printf '{"idToken":"%s"}' "$token"
}

store_keys=()
config
# nginx's per-address limits (30 a minute) are tested elsewhere; here every request comes from one address.
FRONTDOOR_RATE_LIMIT=off FRONTDOOR_STACK_USER=root scripts/box exec "$box" "$root/scripts/dev-stack" start "$box/var" 8080 "$bin" "$box/var/config.json" \
    >"$box/stack.log" 2>&1 || { bad "the stack did not start in the box: $(cat "$box/stack.log")"; finish; }

# The flows that reach the outside by name, on one store ($1: its name in the messages).
flows() {
    local engine=$1 suffix=$2 account session apple_account apple_session nonce token before mail ticket code access dns
    # What this pass alone asked of the DNS server and the fronts.
    access=$(wc -l <"$box/log/fronts-access.log") dns=$(wc -l <"$box/log/dns.log")
    # A first Google sign-in with a cold key cache: Google's keys by name, over TLS.
    post signin-google "$(fresh_google "box-google-$suffix")"
    account=$(field accountId) session=$(field sessionToken)
    secrets+=("$session")
    check "$engine: a first Google sign-in with a cold key cache answers 200 created: $status $answer" \
        "[ '$status' = 200 ] && [ '$(field created)' = true ]"
    check "$engine: Google's keys were found by name in the box's DNS (AAAA www.googleapis.com)" \
        "since '$box/log/dns.log' $dns | grep -q 'query\[AAAA\] www.googleapis.com'"
    check "$engine: and fetched over TLS from Google's path" "since '$box/log/fronts-access.log' $access | grep -q '\"GET /oauth2/v3/certs'"
    check "$engine: the account.created event reached https://app.example.com, signed" \
        "eventually \"provider /events/last | grep -q '\\\"signature\\\":\\\"ok\\\".*\\\"type\\\":\\\"account.created\\\",\\\"accountId\\\":\\\"$account\\\"'\""

    # Apple through the Firebase relay: the relay user is made and deleted straight away.
    before=$(provider /dev/stats)
    nonce=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
    token=$(provider "/apple/token?sub=box-apple-$suffix&nonce=$nonce&email=box.apple.$suffix@privaterelay.appleid.com")
    secrets+=("$token")
    post signin-apple "{\"identityToken\":\"$token\",\"rawNonce\":\"$nonce\"}"
    apple_session=$(field sessionToken) apple_account=$(field accountId)
    secrets+=("$apple_session")
    check "$engine: Apple through the relay answers 200: $status $answer" \
        "[ '$status' = 200 ] && [ '$(field providers)' = '[\"apple\"]' ]"
    check "$engine: signInWithIdp went to identitytoolkit.googleapis.com by name, over TLS" \
        "since '$box/log/dns.log' $dns | grep -q 'query\[AAAA\] identitytoolkit.googleapis.com' && since '$box/log/fronts-access.log' $access | grep -q '\"POST /v1/accounts:signInWithIdp'"
    check "$engine: the relay user was made and is deleted (Firebase keeps nobody): $(provider /dev/stats)" \
        "eventually \"[ \\\$(field relayUsers \\\"\\\$(provider /dev/stats)\\\") = 0 ] && [ \\\$(field relayUsersDeleted \\\"\\\$(provider /dev/stats)\\\") -gt $(field relayUsersDeleted "$before") ]\""

    # Deleting that account with Apple's revocation: a fresh authorization from Apple's sheet.
    nonce=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
    local authorization
    authorization=$(provider "/apple/authorization?sub=box-apple-$suffix&nonce=$nonce")
    secrets+=("$(field identityToken "$authorization")" "$(field authorizationCode "$authorization")")
    before=$(provider /dev/stats)
    post delete-account "{\"appleAuthorizationCode\":\"$(field authorizationCode "$authorization")\",\"appleIdentityToken\":\"$(field identityToken "$authorization")\",\"appleRawNonce\":\"$nonce\"}" "$apple_session"
    check "$engine: the deletion answers at once, the revocation scheduled: $status $answer" \
        "[ '$status' = 200 ] && [ '$(field appleRevocation)' = scheduled ]"
    check "$engine: Apple's tokens were revoked through the relay, and its user deleted: $(provider /dev/stats)" \
        "eventually \"[ \\\$(field relayRevocations \\\"\\\$(provider /dev/stats)\\\") -gt $(field relayRevocations "$before") ] && [ \\\$(field relayUsers \\\"\\\$(provider /dev/stats)\\\") = 0 ]\""
    check "$engine: the account.deleted event reached the app" \
        "eventually \"provider /events/last | grep -q '\\\"type\\\":\\\"account.deleted\\\",\\\"accountId\\\":\\\"$apple_account\\\"'\""

    # The range service by name: a password it has seen is refused.
    local address="box.mail.$suffix@example.org" password="a long box passphrase $suffix"
    secrets+=("$password")
    post signin-email "{\"action\":\"register\",\"email\":\"$address\",\"password\":\"a breached dev password\"}"
    check "$engine: a password the range service at api.pwnedpasswords.com has seen is refused: $status $answer" \
        "[ '$status' = 422 ] && [ '$(field reason)' = common ] && since '$box/log/fronts-access.log' $access | grep -q '\"GET /range/'"
    post signin-email "{\"action\":\"register\",\"email\":\"$address\",\"password\":\"$password\"}"
    session=$(field sessionToken)
    secrets+=("$session")
    check "$engine: registration with a password nobody has seen: $status $answer" "[ '$status' = 201 ]"

    # A code mailed to smtp.example.com:587 with STARTTLS, and the code proves the address.
    post verify-email '{"action":"verify_own_email"}' "$session"
    ticket=$(field ticket)
    secrets+=("$ticket")
    mail=$(inbox)
    post verify-email "{\"action\":\"send_code\",\"ticket\":\"$ticket\"}"
    check "$engine: send_code answers once the named mail server took the mail: $status $answer" \
        "[ '$status' = 200 ] && [ '$(field sent)' = true ] && [ \$(inbox) -gt $mail ]"
    local newest
    newest=$(ls "$box"/mail/*.eml 2>/dev/null | tail -1)
    check "$engine: the mail went over STARTTLS to the address" \
        "[ -n '$newest' ] && grep -q '^X-Box-TLS: yes' '$newest' && grep -q '^X-Box-Rcpt: $address' '$newest'"
    code=$(grep -oE '\b[0-9]{6}\b' "$newest" 2>/dev/null | head -1)
    secrets+=("$code")
    post verify-email "{\"action\":\"confirm\",\"ticket\":\"$ticket\",\"code\":\"$code\"}"
    check "$engine: the mailed code proves the address: $status $answer" "[ '$status' = 200 ]"
    check "$engine: the mail server was found by name" "since '$box/log/dns.log' $dns | grep -q 'query\[AAAA\] smtp.example.com'"
}

flows SQLite sqlite

# Apple in direct mode: appleid.apple.com has an A record and no AAAA, and the box no IPv4 route.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$box/var/apple-key.p8" 2>/dev/null
chmod 600 "$box/var/apple-key.p8"
direct=(apple.mode='"direct"' apple.teamId='"TEAMID1234"' apple.keyId='"KEYID12345"' apple.privateKeyFile="\"$box/var/apple-key.p8\"")
config "${direct[@]}"
nonce=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
token=$(provider "/apple/token?sub=box-apple-direct&nonce=$nonce")
secrets+=("$token")
before=$(accounts)
post signin-apple "{\"identityToken\":\"$token\",\"rawNonce\":\"$nonce\"}"
check "Apple direct from an IPv6-only box: 503 upstream_unavailable, nothing created: $status $answer" \
    "[ '$status' = 503 ] && [ '$(field error)' = upstream_unavailable ] && [ '$(accounts)' = '$before' ]"
check "and its log says why: appleid.apple.com has no IPv6 address" \
    "grep -q 'appleid.apple.com has no IPv6 address' '$box/var/nginx-error.log'"

# The seed's first self-check: Google ✓, Apple direct ✗ with the dig advice, the relay ✓.
config apple.mode='"direct"' apple.teamId='"TEAMID1234"' apple.keyId='"KEYID12345"' apple.privateKeyFile="\"$box/var/apple-key.p8\""
self=$(scripts/box exec "$box" "$bin/frontdoor-check" --config "$box/var/config.json" 2>&1)
selfstatus=$?
check "frontdoor-check ends without a signal (exit $selfstatus), failing on Apple" "[ $selfstatus = 1 ]"
check "frontdoor-check: Google's keys by name and over TLS: $(grep 'Google keys' <<<"$self")" \
    "grep -qF '✓ Google keys www.googleapis.com: A none, AAAA fd0d:f00d::443' <<<\"\$self\" && grep -qF '✓ Google keys: HTTPS answered 200' <<<\"\$self\""
check "frontdoor-check: Apple direct has no IPv6 address, with the dig advice: $(grep 'Apple keys' <<<"$self")" \
    "grep -qF '✗ Apple keys appleid.apple.com: A 17.32.194.99, AAAA none: no address this host can reach — Apple'\"'\"'s sign-in service has no IPv6 address (\`dig AAAA appleid.apple.com\` answers none)' <<<\"\$self\""
check "frontdoor-check: the relay's hosts answer over TLS: $(grep 'Firebase' <<<"$self" | tr '\n' ' ')" \
    "[ \$(grep -c '✓ Firebase .*: HTTPS answered' <<<\"\$self\") = 3 ]"
check "frontdoor-check: the mail server by name: $(grep 'mail server' <<<"$self" | tr '\n' ' ')" \
    "grep -qF '✓ mail server smtp.example.com:587: accepts connections' <<<\"\$self\""
check "frontdoor-check: an IPv6 route and no IPv4 one" "grep -qF '✓ this host: IPv4 route no, IPv6 route yes' <<<\"\$self\""
check "frontdoor-check: names and TLS as the box has them" \
    "grep -qF '✓ name lookups: hosts: files dns, built into the programs' <<<\"\$self\" && grep -qF '✓ TLS: peers are checked against /etc/ssl/certs/ca-certificates.crt' <<<\"\$self\""

# The faults, each on a store of its own (a cold key cache): 503, nothing created.
fault=0
google_fault() { # WHAT, then config changes
    local what=$1
    shift
    fault=$((fault + 1))
    config databasePath="\"$box/var/fault-$fault.sqlite3\"" "$@"
    post signin-google "$(fresh_google "box-fault-$fault")"
    check "$what: 503 upstream_unavailable in ${took} ms, nothing created: $status $answer" \
        "[ '$status' = 503 ] && [ '$(field error)' = upstream_unavailable ] && [ '$(accounts)' = 0 ]"
}
google_fault "a key host whose name does not exist" google.certsUrl='"https://keys.nowhere.example.com/oauth2/v3/certs"'
check "and its log names the failure" "grep -q 'keys.nowhere.example.com: Could not resolve\|keys.nowhere.example.com: Couldn.t resolve' '$box/var/nginx-error.log'"
google_fault "a key host with only an A record" google.certsUrl='"https://a-only.example.com/oauth2/v3/certs"'
google_fault "a certificate for another name" google.certsUrl='"https://wrong-name.example.com/oauth2/v3/certs"'
google_fault "an expired certificate" google.certsUrl='"https://expired.example.com/oauth2/v3/certs"'
google_fault "a certificate from an unknown CA" google.certsUrl='"https://unknown-ca.example.com/oauth2/v3/certs"'
check "every refused certificate was logged as one" \
    "[ \$(grep -c 'SSL peer certificate\|SSL certificate problem\|certificate' '$box/var/nginx-error.log') -ge 3 ]"
# A resolver that would wait 30 s for it (written in place: the box's /etc/resolv.conf is this
# file, bind-mounted): the answer must come at the connect time-out (3 s), ten times sooner.
resolv=$(cat "$box/etc/resolv.conf")
printf '%s\noptions timeout:30 attempts:1\n' "$resolv" >"$box/etc/resolv.conf"
scripts/box dns "$box" stop
google_fault "a DNS server that does not answer"
scripts/box dns "$box" cont
printf '%s\n' "$resolv" >"$box/etc/resolv.conf"
check "a DNS server that does not answer costs the connect time-out (3 s), not the resolver's 30 s: ${took} ms" \
    "[ '$took' -lt 30000 ]"

# Mail to a server that does not offer STARTTLS: refused, nothing sent in the clear.
config
scripts/box mail "$box" plain >/dev/null
post signin-email '{"action":"register","email":"box.plain@example.org","password":"a long box passphrase plain"}'
session=$(field sessionToken)
secrets+=("$session")
post verify-email '{"action":"verify_own_email"}' "$session"
ticket=$(field ticket)
mail=$(inbox)
post verify-email "{\"action\":\"send_code\",\"ticket\":\"$ticket\"}"
check "a mail server without STARTTLS gets no mail, and the answer says so: $status $answer" \
    "[ '$status' = 503 ] && [ \$(inbox) = $mail ]"
scripts/box mail "$box" tls >/dev/null

# Both engines where the store matters: the flows again on make test's PostgreSQL.
if [ -n "${FRONTDOOR_PG_DIR:-}" ]; then
    pgdb=fdbox$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
    if (cd / && runuser -u postgres -- psql -X -q -h "$FRONTDOOR_PG_DIR" -p 5432 -d postgres \
        -c "CREATE DATABASE $pgdb OWNER frontdoor") >"$box/pg.log" 2>&1; then
        head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$box/var/audit-key" && chmod 600 "$box/var/audit-key"
        store_keys=(databasePath= postgresUrl="\"postgresql://root@/$pgdb?host=$FRONTDOOR_PG_DIR&port=6432\""
            deletion.ledgerFile="\"$box/var/deletions.ledger\"" deletion.auditKeyFile="\"$box/var/audit-key\"")
        config
        flows PostgreSQL postgres
        rows=$(cd / && runuser -u postgres -- psql -X -qtA -h "$FRONTDOOR_PG_DIR" -p 5432 -d "$pgdb" \
            -c "SELECT count(*) FROM accounts" 2>&1)
        check "PostgreSQL: the pass's accounts are in PostgreSQL's $pgdb ($rows)" "[ '$rows' -ge 2 ] 2>/dev/null"
    else
        bad "PostgreSQL: CREATE DATABASE $pgdb failed: $(cat "$box/pg.log")"
    fi
fi

# Nothing secret in any log: tokens, sessions, codes, tickets, passwords.
all=$(logs)
leaked=0
for secret in "${secrets[@]}"; do
    [ ${#secret} -ge 6 ] || continue
    if grep -qF -- "$secret" <<<"$all"; then leaked=$((leaked + 1)); fi
done
check "no token, session, code, ticket or password in the logs (${#secrets[@]} looked for, $leaked found)" "[ $leaked = 0 ]"
check "every request had its program's answer (no 502: no program died without one)" \
    "[ -s '$box/var/nginx-access.log' ] && ! grep -q '\" 502 ' '$box/var/nginx-access.log'"
finish
