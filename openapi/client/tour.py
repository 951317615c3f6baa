#!/usr/bin/env python3
"""The README's tour through a client generated from the served API description (issue 46).

openapi-python-client (pinned in openapi/client/requirements.txt) generates `frontdoor_client`
from the document the stack serves at /auth/openapi.json, failing on any warning about the
document; then this script signs in with Google, checks the session, reads and updates the
account, lists its sessions, signs out, and meets three refusals, each answer parsed into the
generated models. Prints one line per step and "client-tour: N passed, M failed".

Usage: tour.py --base http://localhost:PORT --provider http://127.0.0.1:PORT --work DIR
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import urllib.request

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")
    sys.stdout.flush()


def generate(base, work):
    """The client, from the served document; any warning about the document fails the tour."""
    document = os.path.join(work, "openapi.json")
    with urllib.request.urlopen(base + "/auth/openapi.json", timeout=10) as answer, open(document, "wb") as out:
        out.write(answer.read())
    config = os.path.join(work, "client-config.yaml")
    with open(config, "w") as out:
        # Google's security events are a JWT (RFC 8417), not a format the generator knows: bytes.
        out.write("content_type_overrides:\n  application/secevent+jwt: application/octet-stream\n")
    bin_dir = os.path.dirname(sys.executable)
    run = subprocess.run(
        [os.path.join(bin_dir, "openapi-python-client"), "generate", "--path", document, "--meta", "none",
         "--output-path", os.path.join(work, "frontdoor_client"), "--config", config, "--overwrite"],
        capture_output=True, text=True, env=dict(os.environ, PATH=bin_dir + ":" + os.environ.get("PATH", "")))
    said = run.stdout + run.stderr
    check("the generator reads the document without a warning", run.returncode == 0 and "Warning" not in said
          and "WARNING" not in said, said)
    sys.path.insert(0, work)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--provider", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    generate(args.base, args.work)
    modules = ["client", "models", "api.sign_in.signin_google", "api.sign_in.signin_email", "api.session.session_get",
               "api.session.account", "api.session.sign_out", "api.passkeys.signin_passkey", "api.providers.apple_notify"]
    loaded = {}
    for name in modules:
        try:
            loaded[name] = importlib.import_module("frontdoor_client." + name)
        except Exception as error:  # the generated code itself
            check(f"frontdoor_client.{name} imports", False, repr(error))
    check("every generated module imports", len(loaded) == len(modules))
    if len(loaded) != len(modules):
        return
    client_module, models = loaded["client"], loaded["models"]
    anyone = client_module.Client(base_url=args.base)

    # Sign in with Google (the development provider mints the token, as Google's SDK would hand it).
    with urllib.request.urlopen(args.provider + "/google/token?sub=client-tour&email=client.tour@gmail.com", timeout=10) as t:
        token = t.read().decode()
    signin = loaded["api.sign_in.signin_google"].sync_detailed(client=anyone, body=models.SigninGoogleRequest(id_token=token))
    body = signin.parsed
    check("signin-google answers a session body", signin.status_code == 200 and isinstance(body, models.SessionBody)
          and body.email == "client.tour@gmail.com", (signin.status_code, signin.content[:300]))
    if not isinstance(body, models.SessionBody):
        return
    me = client_module.AuthenticatedClient(base_url=args.base, token=body.session_token)

    live = loaded["api.session.session_get"].sync_detailed(client=me)
    check("the session is live", live.status_code == 200 and getattr(live.parsed, "account_id", None) == body.account_id,
          (live.status_code, live.content[:300]))

    account = loaded["api.session.account"]
    got = account.sync_detailed(client=me, body=models.AccountGet(action="get"))
    check("account get parses into AccountStored", isinstance(got.parsed, models.AccountStored)
          and got.parsed.email == "client.tour@gmail.com" and len(got.parsed.sessions) == 1, got.content[:300])
    named = account.sync_detailed(client=me, body=models.AccountUpdate(action="update", name="Ada Tour"))
    check("account update (a setting) answers the account", isinstance(named.parsed, models.AccountStored)
          and named.parsed.name == "Ada Tour", named.content[:300])

    # Three refusals, each a model with its stable code.
    stranger = client_module.AuthenticatedClient(base_url=args.base, token="A" * 43)
    refused = loaded["api.session.session_get"].sync_detailed(client=stranger)
    check("an unknown session is 401 unauthorized", refused.status_code == 401
          and str(getattr(refused.parsed, "error", "")).endswith("unauthorized"), refused.content[:200])
    email = loaded["api.sign_in.signin_email"]
    wrong = email.sync_detailed(client=anyone, body=models.SigninEmailLogin(
        action="login", email="nobody.tour@example.org", password="not the password at all"))
    check("a wrong login is 401 invalid_credentials", wrong.status_code == 401
          and "invalid_credentials" in str(getattr(wrong.parsed, "error", "")), wrong.content[:200])
    weak = email.sync_detailed(client=anyone, body=models.SigninEmailRegister(
        action="register", email="weak.tour@example.org", password="abc"))
    check("a short password is 422 invalid_password with its reason", weak.status_code == 422
          and "invalid_password" in str(getattr(weak.parsed, "error", ""))
          and "too_short" in str(getattr(weak.parsed, "reason", "")), weak.content[:200])

    # A passkey ceremony's options parse, the empty allowCredentials a list.
    begun = loaded["api.passkeys.signin_passkey"].sync_detailed(client=anyone, body=models.SigninPasskeyBegin(action="begin"))
    check("a passkey begin parses", begun.status_code in (200, 404) and (begun.status_code == 404
          or getattr(getattr(begun.parsed, "public_key", None), "allow_credentials", None) == []), begun.content[:200])

    out = loaded["api.session.sign_out"].sync_detailed(client=me, body=models.SignOutRequest(scope="all"))
    check("sign out everywhere", out.status_code == 200 and getattr(out.parsed, "ended", None) == 1, out.content[:200])
    after = loaded["api.session.session_get"].sync_detailed(client=me)
    check("and the session is gone", after.status_code == 401)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:
        import traceback
        check("the tour ran to its end", False, "".join(traceback.format_exception(error)))
    print(f"client-tour: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
