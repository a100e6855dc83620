#!/usr/bin/python3
"""A real SMTP server on loopback for the mail tests (Debian's
python3-aiosmtpd): every message it accepts is written to DIR as NNNN.eml
(the data as received) and NNNN.json (the envelope: mail_from, rcpt_tos),
before it answers 250, so a client that saw the 250 finds the file.

  smtp-sink.py --dir DIR --ready FILE [--port N]

Listens on 127.0.0.1:N (N = 0: a free port). Once it accepts connections
it writes the port to FILE (atomically), which tests wait for.
"""
import argparse
import asyncio
import json
import os

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, directory):
        self.dir = directory

    def _put(self, name, data):
        tmp = os.path.join(self.dir, "." + name)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, os.path.join(self.dir, name))

    async def handle_DATA(self, server, session, envelope):
        n = len([f for f in os.listdir(self.dir) if f.endswith(".eml")]) + 1
        self._put("%04d.json" % n, json.dumps({
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos}).encode())
        self._put("%04d.eml" % n, envelope.original_content)
        return "250 OK message accepted"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    handler = Sink(a.dir)
    server = loop.run_until_complete(loop.create_server(
        lambda: SMTP(handler, decode_data=False, enable_SMTPUTF8=True),
        "127.0.0.1", a.port, reuse_address=True))
    port = server.sockets[0].getsockname()[1]
    with open(a.ready + ".tmp", "w") as f:
        f.write("%d\n" % port)
    os.rename(a.ready + ".tmp", a.ready)
    try:
        loop.run_forever()
    finally:
        server.close()


main()
