#!/usr/bin/env python3
"""Writes w3c-test-vectors.json from the W3C WebAuthn spec source.

Usage: extract-w3c-vectors.py INDEX_BS OUT_JSON COMMIT
INDEX_BS is index.bs of https://github.com/w3c/webauthn (git show <commit>:index.bs). Each
"## ... ## {#sctn-test-vectors-<id>}" section's registration and authentication values
(`name = h'<hex>'`) are read; only what a relying party checks is kept.
"""
import json
import re
import sys

KEEP = {
    "registration": ["challenge", "credential_id", "clientDataJSON", "attestationObject"],
    "authentication": ["challenge", "clientDataJSON", "authenticatorData", "signature"],
}


def main(index_bs, out_json, commit):
    lines = open(index_bs, encoding="utf-8").read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("# Test Vectors #"))
    end = next(i for i, l in enumerate(lines) if l.startswith("## Test Vectors for [=WebAuthn Extensions=]"))
    vectors, current, part = [], None, None
    for line in lines[start:end]:
        m = re.match(r"^## (.*) ## \{#sctn-test-vectors-(.*)\}", line)
        if m:
            current = {"id": m.group(2), "title": m.group(1)}
            vectors.append(current)
            part = None
        elif current is not None and line.startswith("[=registration ceremony|Registration=]"):
            part = current.setdefault("registration", {})
        elif current is not None and line.startswith("[=authentication ceremony|Authentication=]"):
            part = current.setdefault("authentication", {})
        elif part is not None:
            m = re.match(r"^(\w+) = h'([0-9a-f]*)'", line)
            if m:
                part[m.group(1)] = m.group(2)
    out = {
        "source": "W3C Web Authentication Level 3, section 'Test Vectors' (#sctn-test-vectors), index.bs of "
        f"https://github.com/w3c/webauthn at commit {commit}, generated there by test-vectors/webauthn-test-vectors.py",
        "extracted": "Tests/Fixtures/webauthn/extract-w3c-vectors.py; only the inputs and outputs a relying party "
        "checks are kept (private keys and generation flags are left out)",
        "rpId": "example.org", "origin": "https://example.org", "topOrigin": "https://example.com",
        "vectors": [
            {"id": v["id"], "title": v["title"],
             **{ceremony: {k: v[ceremony][k] for k in keys} for ceremony, keys in KEEP.items()}}
            for v in vectors if "registration" in v
        ],
    }
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
