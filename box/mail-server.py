#!/usr/bin/python3
"""The box's mail server (scripts/box): SMTP on the submission port of a named host, STARTTLS
offered and required before any mail (RFC 3207, what `smtp://` with STARTTLS expects of a real
relay), each message kept as a file. aiosmtpd is Debian's python3-aiosmtpd.

    mail-server.py ADDRESS PORT CERT KEY FOLDER [--plain]

--plain: STARTTLS is not offered at all, as a misconfigured relay, or one whose STARTTLS a man
in the middle strips, would answer; frontdoor must then send nothing.
Each message is FOLDER/<n>.eml: an `X-Box-TLS: yes|no` line, `X-Box-Rcpt:` and `X-Box-From:`
lines, then the message as received.
"""
import asyncio
import itertools
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP


class Folder:
    def __init__(self, folder):
        self.folder = folder
        self.numbers = itertools.count(len(os.listdir(folder)) + 1)

    async def handle_DATA(self, server, session, envelope):
        lines = [
            "X-Box-TLS: " + ("yes" if session.ssl else "no"),
            "X-Box-Rcpt: " + ", ".join(envelope.rcpt_tos),
            "X-Box-From: " + (envelope.mail_from or ""),
        ]
        name = os.path.join(self.folder, "%06d.eml" % next(self.numbers))
        with open(name + ".part", "wb") as out:
            out.write(("\r\n".join(lines) + "\r\n").encode())
            out.write(envelope.original_content or envelope.content)
        os.rename(name + ".part", name)
        return "250 OK: kept"


def main(argv):
    if len(argv) not in (6, 7) or (len(argv) == 7 and argv[6] != "--plain"):
        sys.exit("usage: mail-server.py ADDRESS PORT CERT KEY FOLDER [--plain]")
    address, port, cert, key, folder = argv[1], int(argv[2]), argv[3], argv[4], argv[5]
    plain = len(argv) == 7
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    handler = Folder(folder)

    def session():
        if plain:
            return SMTP(handler, hostname="smtp.example.com")
        return SMTP(handler, hostname="smtp.example.com", tls_context=context, require_starttls=True)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(loop.create_server(session, host=address, port=port))
    print("mail-server: listening on [%s]:%d%s" % (address, port, " without STARTTLS" if plain else ""), flush=True)
    loop.run_forever()


if __name__ == "__main__":
    main(sys.argv)
