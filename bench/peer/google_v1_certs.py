"""Writes Google's certificates in their v1 form ({kid: PEM certificate}, what allauth reads) for
the public keys of a JWKS (the loopback fake's /google/certs, what frontdoor reads).

Usage: google_v1_certs.py JWKS_URL OUT_FILE. Each certificate carries the fake's public key and is
signed by a throw-away key: allauth takes only the public key from it, as from Google's own.
"""

import datetime
import json
import sys
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID


def b64int(text):
    import base64

    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def main():
    url, out = sys.argv[1], sys.argv[2]
    with urllib.request.urlopen(url, timeout=5) as answer:
        jwks = json.load(answer)
    signer = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "loopback Google fake")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certs = {}
    for key in jwks["keys"]:
        if key.get("kty") != "RSA":
            continue
        public = rsa.RSAPublicNumbers(b64int(key["e"]), b64int(key["n"])).public_key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .sign(signer, hashes.SHA256())
        )
        certs[key["kid"]] = cert.public_bytes(serialization.Encoding.PEM).decode()
    if not certs:
        sys.exit("google_v1_certs: no RSA key in " + url)
    with open(out, "w") as f:
        json.dump(certs, f)


if __name__ == "__main__":
    main()
