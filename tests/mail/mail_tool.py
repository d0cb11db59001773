"""The mail tests' Python side (specpress_testkit::smtp): a real SMTP server and a real MIME parser.

  mail_tool.py serve DIR    an aiosmtpd server on 127.0.0.1 (a free port, printed as `PORT n` once it accepts);
                            every message it receives is written to DIR as NNNN.eml (envelope recipients in NNNN.rcpt)
  mail_tool.py inspect FILE...   each file parsed with Python's `email` package (policy.default), printed as one JSON
                            list: headers, the MIME structure, each part's decoded text, the HTML part's tags, links
                            and visible text as Python's html.parser sees them
"""

import email
import email.policy
import json
import os
import socket
import sys
from html.parser import HTMLParser


def serve(folder):
    from aiosmtpd.controller import Controller

    class Keep:
        def __init__(self):
            self.n = 0

        async def handle_DATA(self, server, session, envelope):
            self.n += 1
            base = os.path.join(folder, "%04d" % self.n)
            with open(base + ".tmp", "wb") as f:
                f.write(envelope.original_content)
            with open(base + ".rcpt", "w") as f:
                f.write("\n".join(envelope.rcpt_tos))
            os.rename(base + ".tmp", base + ".eml")
            return "250 Message accepted for delivery"

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    print("PORT %d" % port, flush=True)
    try:
        # Runs until the test closes our stdin (or kills us).
        sys.stdin.read()
    finally:
        controller.stop()


class Html(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.links = []
        self.text = []
        self.resources = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "href":
                self.links.append(value)
            if name in ("src", "srcset", "background", "poster") or (name == "rel" and value == "stylesheet"):
                self.resources.append(value)

    def handle_data(self, data):
        self.text.append(data)


def inspect(path):
    with open(path, "rb") as f:
        raw = f.read()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    out = {
        "headers": {k.lower(): str(v) for k, v in msg.items()},
        "header_names": [k.lower() for k in msg.keys()],
        "content_type": msg.get_content_type(),
        "defects": [type(d).__name__ for d in msg.defects],
        "parts": [],
        "crlf": b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b""),
    }
    for part in msg.walk():
        if part.is_multipart():
            continue
        entry = {"type": part.get_content_type(), "charset": part.get_content_charset(), "text": part.get_content(),
                 "defects": [type(d).__name__ for d in part.defects]}
        if entry["type"] == "text/html":
            h = Html()
            h.feed(entry["text"])
            h.close()
            entry["tags"] = sorted(set(h.tags))
            entry["links"] = h.links
            entry["resources"] = h.resources
            entry["visible"] = " ".join(" ".join(h.text).split())
        out["parts"].append(entry)
    return out


def main():
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    elif sys.argv[1] == "inspect":
        print(json.dumps([inspect(p) for p in sys.argv[2:]]))
    else:
        sys.exit("usage: mail_tool.py serve DIR | inspect FILE...")


if __name__ == "__main__":
    main()
