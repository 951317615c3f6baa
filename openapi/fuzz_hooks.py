"""schemathesis hooks for frontdoor (loaded by openapi/fuzz.py): live credentials, and the 2xx count.

A fuzzer that only ever sees 400s proves little. The document can say what shape a token, a ticket,
a ceremony or a WebAuthn response has, not which ones the server will accept, so a case that
schemathesis generated as valid (positive) gets, just before it is sent, the opaque values of a real
one: a token the development provider mints, a ticket from a real 409 or reset, a code from its
mail sink, a ceremony begun and answered by its software authenticator. Every member the document
can describe (names, device names, addresses, passwords, scopes, actions) stays as generated.
Invalid (negative) cases are sent as generated. Sessions come from an auth provider, so
schemathesis knows them as explicit and checks that each protected operation refuses a request
without one.

Environment: FRONTDOOR_FUZZ_URL (nginx), FRONTDOOR_FUZZ_PROVIDER (frontdoor-dev serve),
FRONTDOOR_FUZZ_SEED, FRONTDOOR_FUZZ_ANSWERS (a file: one line per answer, "<operation> <status> <mode> <action>").
"""
import base64
import hashlib
import json
import os
import random
import time
from urllib.parse import quote

import string

import requests
import schemathesis
from hypothesis import strategies as st

BASE = os.environ["FRONTDOOR_FUZZ_URL"].rstrip("/")
PROVIDER = os.environ["FRONTDOOR_FUZZ_PROVIDER"].rstrip("/")
ANSWERS = os.environ["FRONTDOOR_FUZZ_ANSWERS"]
rng = random.Random(int(os.environ.get("FRONTDOOR_FUZZ_SEED", "0")))
http = requests.Session()

# Google's Cross-Account Protection posts the raw SET as text.
schemathesis.serializer.alias("application/secevent+jwt", "text/plain")

# Addresses as frontdoor takes them (docs/api.md, signin-email): a dot-atom local part of at most 64
# characters, labels with inner hyphens only, a top-level label of letters. JSON Schema's `email`
# format is looser ("0@000.a"), and no pattern can also bound the local part. A domain that would be
# taken for a slip of a big provider's (answered 422 with a suggestion, documented) is left out.
PROVIDERS = ("gmail", "googlemail", "hotmail", "outlook", "yahoo", "icloud", "protonmail")


def one_edit_from(label, word):
    if label == word or abs(len(label) - len(word)) > 1:
        return label == word
    if len(label) == len(word):
        diff = [i for i in range(len(word)) if label[i] != word[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and label[diff[0]] == word[diff[1]] and label[diff[1]] == word[diff[0]])
    short, long_ = sorted((label, word), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def address_strategy():
    atom = st.text(alphabet=string.ascii_letters + string.digits + "!#$%&'*+/=?^_`{|}~-", min_size=1, max_size=20)
    local = st.lists(atom, min_size=1, max_size=3).map(".".join).filter(lambda s: len(s) <= 64)
    label = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,12}[a-z0-9])?", fullmatch=True).filter(
        lambda l: l[2:4] != "--" and not any(one_edit_from(l, p) for p in PROVIDERS))
    domain = st.builds(lambda labels, top: ".".join(labels + [top]), st.lists(label, min_size=1, max_size=3),
                       st.sampled_from(["com", "org", "net", "io", "de", "example", "museum"]))
    return st.builds("{}@{}".format, local, domain)


schemathesis.openapi.format("email", address_strategy())


def password_strategy():
    """A password rule 19 takes: its list, runs and context words are no JSON Schema (the document
    says them in prose, PasswordRulesTests holds them), so a valid case gets a password no list
    holds: a drawn number's SHA-256 in base64url, 15 to 43 characters (the document's `minLength`
    up). Hypothesis's favourite strings ("000000000000000") would be refused as repetitive."""
    def made(number, length):
        digest = hashlib.sha256(number.to_bytes(8, "big")).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")[:length]
    return st.builds(made, st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=15, max_value=43))


schemathesis.openapi.format("password", password_strategy())


class SetupFailed(Exception):
    pass


def fresh(prefix):
    """A name no earlier run used either (the seed replays schemathesis's cases, not these)."""
    return f"{prefix}-{os.urandom(8).hex()}"


def provider(path, **query):
    url = PROVIDER + path + ("?" + "&".join(f"{k}={quote(str(v), safe='')}" for k, v in query.items()) if query else "")
    answer = http.get(url, timeout=20)
    if answer.status_code != 200:
        raise SetupFailed(f"{path}: {answer.status_code} {answer.text[:200]}")
    return answer


def post(path, body, token=None, expect=(200, 201)):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = http.post(BASE + path, data=json.dumps(body), headers=headers, timeout=30)
    if expect and answer.status_code not in expect:
        raise SetupFailed(f"{path} {body.get('action', '')}: {answer.status_code} {answer.text[:300]}")
    return answer


def google_token(email=None, raw_nonce=None, sub=None):
    query = {"sub": sub or fresh("fuzz-google")}
    if email:
        query["email"] = email
    if raw_nonce:
        query["nonce"] = raw_nonce
    return provider("/google/token", **query).text


def google_session(email=None, sub=None):
    """A new account of its own, signed in with Google (a Gmail address: verified, Google speaks for it)."""
    return post("/auth/signin-google", {"idToken": google_token(email or fresh("fuzz") + "@gmail.com", sub=sub)}).json()


def strong_password():
    return fresh("correct-horse")


def password_account():
    """A new password account with its (unproven) address and password."""
    email, password = fresh("fuzz.pw") + "@example.org", fresh("correct-horse")
    body = post("/auth/signin-email", {"action": "register", "email": email, "password": password}).json()
    return body, email, password


def latest_code(address, since):
    """The code of the newest mail to `address` sent after `since` (the sink keeps the latest)."""
    # 30 s: a mail to the sink takes milliseconds, but other suites may load the box meanwhile.
    for _ in range(600):
        last = http.get(PROVIDER + "/mail/last", timeout=20)
        if last.status_code == 200 and address in last.text and last.text != since:
            return provider("/mail/code").text.strip()
        time.sleep(0.05)
    raise SetupFailed(f"no code mailed to {address}")


def last_mail():
    last = http.get(PROVIDER + "/mail/last", timeout=20)
    return last.text if last.status_code == 200 else ""


class World:
    """The live sessions the auth provider hands out, made once and renewed as cases use them up."""

    def __init__(self):
        self.main = None          # a Google account's session: session, account, passkey list
        self.password = None      # a password account's session: verify_own_email
        self.passkey = None       # a Google account that registers passkeys, replaced before it is full
        self.passkey_since = 0.0  # when that account signed in (register_begin and delete need it recent)
        self.passkeys_made = 0
        self.session_ids = {}     # token -> sessionId
        self.account_passkeys = {}  # token -> [passkeyId]
        self.phone_last = None    # the passkey the development phone signs with next (its newest)
        self.phone_token = None   # a session of that passkey's account

    def remember(self, body):
        self.session_ids[body["sessionToken"]] = body["sessionId"]
        return body["sessionToken"]

    def main_token(self):
        if self.main is None:
            self.main = self.remember(google_session())
        return self.main

    def password_token(self):
        if self.password is None:
            self.password = self.remember(password_account()[0])
        return self.password

    def passkey_token(self):
        # The development phone holds one passkey per account (it honours excludeCredentials). A
        # new account, too, well before its sign-in stops being recent (600 s; 120 s is a 5x margin).
        if self.passkey is None or self.passkeys_made >= 1 or time.monotonic() - self.passkey_since > 120:
            self.passkey = self.remember(google_session())
            self.passkey_since = time.monotonic()
            self.passkeys_made = 0
        return self.passkey

    def register_passkey(self, token, name=None):
        """register_begin and the phone's create: the finish body. Cases drawn before a rotation
        may share an account, and the phone makes one passkey per account (it honours
        excludeCredentials): what this account has is deleted first."""
        for passkey_id in self.account_passkeys.pop(token, []):
            post("/auth/passkey", {"action": "delete", "passkeyId": passkey_id}, token, expect=(200, 404))
            if passkey_id == self.phone_last:
                self.phone_last = None
        begin = post("/auth/passkey", {"action": "register_begin"}, token).json()
        created = http.post(PROVIDER + "/phone/create", data=json.dumps(begin), timeout=20)
        if created.status_code != 200:
            raise SetupFailed(f"/phone/create: {created.status_code} {created.text[:200]}")
        return begin, created.json()

    def note_registered(self, token, finish_body):
        self.passkeys_made += 1
        passkey_id = finish_body["credential"]["id"]
        self.account_passkeys.setdefault(token, []).append(passkey_id)
        self.phone_last = passkey_id
        self.phone_token = token

    def ensure_phone_passkey(self):
        """The phone signs in with its newest passkey: one that is still registered."""
        if self.phone_last is None:
            token = self.passkey_token()
            _, body = self.register_passkey(token)
            post("/auth/passkey", body, token)
            self.note_registered(token, body)


world = World()
SIGN_INS = ("/auth/signin-google", "/auth/signin-apple", "/auth/signin-email", "/auth/signin-passkey")


@schemathesis.auth(refresh_interval=None)
class Sessions:
    """A live session per case: its own account for the operations that end sessions or accounts."""

    def get(self, case, context):
        path = case.operation.path
        # A sign-in takes a bearer only to prove that session again (rule 18): before_call gives
        # valid cases one of the same account's sessions now and then, never an unrelated one.
        if path in SIGN_INS:
            return None
        if path in ("/auth/sign-out", "/auth/delete-account"):
            return world.remember(google_session())
        if path == "/auth/passkey":
            return world.passkey_token()
        if path == "/auth/verify-email":
            return world.password_token()
        return world.main_token()

    def set(self, case, token, context):
        case.headers = dict(case.headers or {})
        case.headers["Authorization"] = f"Bearer {token}"


def is_positive(case):
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    return mode is not None and mode.is_positive


def bearer(case):
    value = (case.headers or {}).get("Authorization", "")
    return value[7:] if value.startswith("Bearer ") else None


def set_bearer(case, token):
    """The session a valid case acts with (None: none), whatever was generated or provided."""
    headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    case.headers = headers


def now_and_then():
    """A third of the valid sign-ins are sent with a session of their own account: proven again."""
    return rng.random() < 1 / 3


def nonce():
    return base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")


def apple_token(raw_nonce, email=None):
    query = {"sub": fresh("fuzz-apple"), "nonce": raw_nonce}
    if email:
        query["email"] = email
    return provider("/apple/token", **query).text


def join_ticket():
    """A `proof_required` ticket whose methods offer both: a typed Gmail address, then Google."""
    email, password = fresh("fuzz.join") + "@gmail.com", fresh("correct-horse")
    account = post("/auth/signin-email", {"action": "register", "email": email, "password": password}).json()
    answer = post("/auth/signin-google", {"idToken": google_token(email)}, expect=(409,)).json()
    return answer["ticket"], email, password, account["sessionToken"]


def change_ticket():
    """An address change begun by a fresh Google account (`account` `change_email`), its code mailed."""
    session = google_session()
    email = fresh("fuzz.moved") + "@example.org"
    before = last_mail()
    ticket = post("/auth/account", {"action": "change_email", "newEmail": email}, session["sessionToken"]).json()["ticket"]
    return ticket, email, before, session["sessionToken"]


def not_me_token():
    """A notice's "This wasn't me" token: a Google account sets a password, and is told."""
    email = fresh("fuzz.notme") + "@gmail.com"
    session = google_session(email)
    before = last_mail()
    post("/auth/account", {"action": "set_password", "newPassword": strong_password()}, session["sessionToken"])
    deadline = time.time() + 20
    while time.time() < deadline:
        mail = last_mail()
        if mail != before and email in mail and "#not-me=" in mail:
            return mail.split("#not-me=", 1)[1].split()[0]
        time.sleep(0.05)
    raise SetupFailed(f"no notice mailed to {email}")


def live_verify_email(case, body):
    action = body.get("action")
    if action == "send_code":
        if rng.random() < 0.5:
            # A ticket of the session's own address (the auth provider's password account).
            own = post("/auth/verify-email", {"action": "verify_own_email"}, bearer(case)).json()
            if own.get("emailVerified") is False:
                body["ticket"] = own["ticket"]
        else:
            body["ticket"] = change_ticket()[0]
    elif action == "confirm":
        if not isinstance(body.get("password"), str) and rng.random() < 0.5:
            # An address change: by code only.
            ticket, email, before, token = change_ticket()
            body["ticket"] = ticket
            body["code"] = latest_code(email, before)
            set_bearer(case, token if now_and_then() else None)
            return
        ticket, email, password, token = join_ticket()
        body["ticket"] = ticket
        if isinstance(body.get("password"), str):
            body["password"] = password
        else:
            before = last_mail()
            post("/auth/verify-email", {"action": "send_code", "ticket": ticket})
            body["code"] = latest_code(email, before)
        set_bearer(case, token if now_and_then() else None)
    elif action == "reset_confirm":
        account, email, _ = password_account()
        before = last_mail()
        body["ticket"] = post("/auth/verify-email", {"action": "reset_request", "email": email}).json()["ticket"]
        body["code"] = latest_code(email, before)
        set_bearer(case, account["sessionToken"] if now_and_then() else None)
    elif action == "reset_request":
        set_bearer(case, None)
    elif action == "not_me":
        body["token"] = not_me_token()


def live_account(case, body):
    """Each settings action from an account it can succeed on, with a session that signed in just now."""
    action = body.get("action")
    if action == "change_password":
        account, _, password = password_account()
        body["currentPassword"] = password
        set_bearer(case, account["sessionToken"])
    elif action == "set_password":
        set_bearer(case, google_session()["sessionToken"])
    elif action == "change_email":
        set_bearer(case, google_session()["sessionToken"])
    elif action == "link":
        set_bearer(case, password_account()[0]["sessionToken"])
        if body.get("provider") == "google":
            raw = body.get("rawNonce") if isinstance(body.get("rawNonce"), str) else None
            body["idToken"] = google_token(None, raw)
        elif body.get("provider") == "apple":
            raw = nonce()
            body["rawNonce"] = raw
            body["identityToken"] = apple_token(raw)
    elif action == "unlink":
        # Google, a password on its proven Gmail address, and Apple: any one of them may go.
        token = google_session()["sessionToken"]
        post("/auth/account", {"action": "set_password", "newPassword": strong_password()}, token)
        raw = nonce()
        post("/auth/account", {"action": "link", "provider": "apple", "identityToken": apple_token(raw), "rawNonce": raw}, token)
        set_bearer(case, token)
        fresh_token = body.get("appleIdentityToken")
        if isinstance(fresh_token, str) and fresh_token:
            raw = body.get("appleRawNonce") if isinstance(body.get("appleRawNonce"), str) and body["appleRawNonce"] else nonce()
            body["appleIdentityToken"] = apple_token(raw)


def live_passkey(case, body):
    token = bearer(case)
    action = body.get("action")
    if action == "register_finish" and token:
        begin, finish = world.register_passkey(token)
        body["ceremonyId"] = finish["ceremonyId"]
        body["credential"] = finish["credential"]
        world.note_registered(token, finish)
    elif action == "delete" and token:
        # A passkey of this account's own, registered for the purpose; the phone then needs another.
        begin, finish = world.register_passkey(token)
        post("/auth/passkey", finish, token)
        body["passkeyId"] = finish["credential"]["id"]
        world.passkeys_made += 1
        world.phone_last = None
        world.account_passkeys[token] = [finish["credential"]["id"]]


@schemathesis.hook
def before_call(context, case, kwargs):
    if not is_positive(case):
        return
    # Once more after a pause when making the live values failed (a loaded box), since a valid
    # case sent with the generated values instead would be refused, and rightly.
    try:
        live_values(case)
    except SetupFailed as failure:
        print(f"fuzz_hooks: live values for {case.operation.path} failed once ({failure}); again", flush=True)
        time.sleep(1)
        try:
            live_values(case)
        except SetupFailed as again:
            # The case goes out as generated; the run's summary shows what the live values were for.
            print(f"fuzz_hooks: could not make live values for {case.operation.path}: {again}", flush=True)


def live_values(case):
    path = case.operation.path
    body = case.body
    if path in SIGN_INS:
        set_bearer(case, None)
    if path == "/auth/signin-google" and isinstance(body, dict):
        raw = body.get("rawNonce") if isinstance(body.get("rawNonce"), str) else None
        if now_and_then():
            # The same Google account again, with one of its sessions: proven again in place.
            sub = fresh("fuzz-google")
            set_bearer(case, google_session(sub=sub)["sessionToken"])
            body["idToken"] = google_token(None, raw, sub=sub)
        else:
            body["idToken"] = google_token(fresh("fuzz") + "@gmail.com" if rng.random() < 0.5 else None, raw)
    elif path == "/auth/signin-apple" and isinstance(body, dict):
        raw = nonce()
        body["rawNonce"] = raw
        body["identityToken"] = apple_token(raw, fresh("fuzz.apple") + "@privaterelay.appleid.com")
    elif path == "/auth/signin-email" and isinstance(body, dict) and body.get("action") == "login":
        account, body["email"], body["password"] = password_account()
        if now_and_then():
            set_bearer(case, account["sessionToken"])
    elif path == "/auth/verify-email" and isinstance(body, dict):
        live_verify_email(case, body)
    elif path == "/auth/sign-out" and isinstance(body, dict) and isinstance(body.get("sessionId"), str):
        body["sessionId"] = world.session_ids.get(bearer(case), body["sessionId"])
    elif path == "/auth/delete-account" and isinstance(body, dict):
        token = body.get("appleIdentityToken")
        if isinstance(token, str) and token:
            raw = body.get("appleRawNonce") if isinstance(body.get("appleRawNonce"), str) and body["appleRawNonce"] else nonce()
            body["appleIdentityToken"] = apple_token(raw)
    elif path == "/auth/signin-passkey" and isinstance(body, dict) and body.get("action") == "finish":
        world.ensure_phone_passkey()
        begin = post("/auth/signin-passkey", {"action": "begin"}).json()
        got = http.post(PROVIDER + "/phone/get", data=json.dumps(begin), timeout=20)
        if got.status_code != 200:
            raise SetupFailed(f"/phone/get: {got.status_code} {got.text[:200]}")
        body["ceremonyId"] = got.json()["ceremonyId"]
        body["credential"] = got.json()["credential"]
        if now_and_then():
            set_bearer(case, world.phone_token)
    elif path == "/auth/passkey" and isinstance(body, dict):
        live_passkey(case, body)
    elif path == "/auth/account" and isinstance(body, dict):
        live_account(case, body)
    elif path == "/auth/apple-notify" and isinstance(body, dict):
        kind = rng.choice(["consent-revoked", "account-delete", "account-deleted", "email-disabled", "email-enabled"])
        body["payload"] = provider("/apple/notification", sub=fresh("fuzz-apple"), type=kind).json()["payload"]
    elif path == "/auth/google-risc":
        kind = rng.choice(["sessions-revoked", "tokens-revoked", "account-disabled", "account-enabled", "account-purged"])
        case.body = provider("/google/risc", sub=fresh("fuzz-google"), type=kind).text


@schemathesis.hook
def after_call(context, case, response):
    action = case.body.get("action") if isinstance(case.body, dict) else None
    action = action if isinstance(action, str) and action.isidentifier() else ""
    if isinstance(case.body, dict) and case.body.get("provider") in ("google", "apple", "password") and action in ("link", "unlink"):
        action += ":" + case.body["provider"]
    try:
        # A sign-in that proved its bearer's session again (rule 18).
        if response.status_code == 200 and response.json().get("reauthenticated") is True:
            action += "+reauthenticated" if action else "reauthenticated"
    except (ValueError, AttributeError):
        pass
    with open(ANSWERS, "a") as out:
        mode = "positive" if is_positive(case) else "negative"
        out.write(f"{case.operation.method.upper()} {case.operation.path} {response.status_code} {mode} {action or '-'}\n")
