"""A webhook subscriber for the Specpress tests, listening on 127.0.0.1 only.

Every delivery is verified with the official Standard Webhooks library (PyPI `standardwebhooks`) against each
secret registered for its path, and its `X-Bump-Signature-256` is checked independently with hmac
(key = the full `whsec_...` text, as a GitHub-style receiver configures it). Results are logged; a delivery that
verifies with no registered secret is answered 400 and counted as a reject.

Control API (JSON):
  POST /_config  {"path": "/a", "secrets": ["whsec_..."], "script": [[500, {}], [200, {}]], "delay_ms": 0}
       script entries are consumed one per delivery; when empty the answer is 200.
  GET  /_log     every delivery received: path, webhook_id, timestamp, received_at, body, std_ok (list of secret
                 indexes whose Standard signature verified), bump_ok (same for X-Bump-Signature-256), answered.
Prints "PORT <n>" on stdout once listening.
"""
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

LOCK = threading.Lock()
CONFIG = {}
LOG = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _reply(self, status, body=b"", headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_log":
            with LOCK:
                data = json.dumps(LOG).encode()
            self._reply(200, data, {"Content-Type": "application/json"})
        else:
            self._reply(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/_config":
            cfg = json.loads(body)
            with LOCK:
                CONFIG[cfg["path"]] = {
                    "secrets": cfg.get("secrets", []),
                    "script": list(cfg.get("script", [])),
                    "delay_ms": cfg.get("delay_ms", 0),
                }
            self._reply(204)
            return
        received_at = time.time()
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            cfg = CONFIG.get(self.path, {"secrets": [], "script": [], "delay_ms": 0})
            secrets = list(cfg["secrets"])
            step = cfg["script"].pop(0) if cfg["script"] else [200, {}]
            delay = cfg["delay_ms"]
        std_ok, bump_ok = [], []
        for i, secret in enumerate(secrets):
            try:
                Webhook(secret).verify(body, headers)
                std_ok.append(i)
            except WebhookVerificationError:
                pass
            expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected, headers.get("x-bump-signature-256", "")):
                bump_ok.append(i)
        status, extra = (step[0], step[1]) if std_ok and bump_ok else (400, {})
        if delay:
            time.sleep(delay / 1000.0)
        entry = {
            "path": self.path,
            "webhook_id": headers.get("webhook-id"),
            "timestamp": headers.get("webhook-timestamp"),
            "received_at": received_at,
            "body": body.decode("utf-8", "replace"),
            "std_ok": std_ok,
            "bump_ok": bump_ok,
            "answered": status,
        }
        with LOCK:
            LOG.append(entry)
        self._reply(status, b'{"ok":true}', dict(extra, **{"Content-Type": "application/json"}))


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
