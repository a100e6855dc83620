#!/usr/bin/python3
"""A real SMTP server on loopback for the mail tests (Debian's
python3-aiosmtpd): every message it accepts is written to DIR as NNNN.eml
(the data as received) and NNNN.json (the envelope: mail_from, rcpt_tos),
before it answers 250, so a client that saw the 250 finds the file.

  smtp-sink.py --dir DIR --ready FILE [--port N] [--hold GATE]

With --hold, each message's DATA waits (GATE.held says it does) until the
file GATE exists before it is written and answered, so that a test can
kill the sender exactly while it waits for the answer; a message whose
sender hung up meanwhile is not kept (no 250 was seen by anybody).

Listens on 127.0.0.1:N (N = 0: a free port). Once it accepts connections
it writes the port to FILE (atomically), which tests wait for.
"""
import argparse
import asyncio
import json
import os

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, directory, hold=None):
        self.dir = directory
        self.hold = hold

    def _put(self, name, data):
        tmp = os.path.join(self.dir, "." + name)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, os.path.join(self.dir, name))

    async def handle_DATA(self, server, session, envelope):
        if self.hold is not None:
            open(self.hold + ".held", "w").close()
            try:
                # cancelled when the client hangs up meanwhile
                while not os.path.exists(self.hold):
                    await asyncio.sleep(0.05)
            finally:
                os.unlink(self.hold + ".held")
            if server.transport is None or server.transport.is_closing():
                return "421 the client went away"
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
    ap.add_argument("--hold")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    handler = Sink(a.dir, a.hold)
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
