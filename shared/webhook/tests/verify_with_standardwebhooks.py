"""Cross-check: verify deliveries signed by specpress-webhook with the official
`standardwebhooks` PyPI library, and the X-Bump-Signature-256 header with hmac.

Reads a JSON list of cases on stdin:
  {"name", "secret" (whsec_...), "verify_secret" (optional, defaults to secret),
   "body" (str), "headers" {..}, "expect": "valid" | "invalid"}
Prints one line per case and exits 1 if any case disagrees with its expectation.
"""
import hashlib
import hmac
import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def check_standard(case):
    wh = Webhook(case.get("verify_secret", case["secret"]))
    try:
        wh.verify(case["body"].encode(), case["headers"], json_parse=False)
        return True
    except WebhookVerificationError:
        return False


def check_bump(case):
    # Key = the full secret text as UTF-8, as a GitHub-style receiver would configure it.
    key = case.get("verify_secret", case["secret"]).encode()
    expected = "sha256=" + hmac.new(key, case["body"].encode(), hashlib.sha256).hexdigest()
    given = case["headers"].get("x-bump-signature-256", "")
    return hmac.compare_digest(expected, given)


def main():
    cases = json.load(sys.stdin)
    failures = 0
    for case in cases:
        want = case["expect"] == "valid"
        got_std = check_standard(case)
        got_bump = check_bump(case) if case.get("check_bump", True) else want
        ok = got_std == want and got_bump == want
        print(f"{'ok  ' if ok else 'FAIL'} {case['name']}: standard={got_std} bump={got_bump} expected={want}")
        failures += 0 if ok else 1
    if not cases:
        print("FAIL no cases given")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
