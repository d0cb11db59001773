"""Specpress "as on AWS" (scripts/aws-local.sh, docs/aws-local.md): the parts of AWS that moto and `cargo lambda watch`
do not provide, read from template.yaml so they cannot drift from what SAM deploys.

Subcommands:
  resources   create the template's DynamoDB tables and SQS queues on an endpoint (moto) and write the functions'
              environment (the template's Globals and per-function variables, resolved) to an env file
  routes      check that Cargo.toml's `cargo lambda watch` route table sends every (method, path) to the function
              API Gateway would (exit 1 naming each difference)
  front       API Gateway in front of the functions (payload format 2.0, its limits and answers), see cmd_front
  events      the event sources of the non-HTTP functions: the SQS queue -> webhook-delivery (batches of 10,
              ReportBatchItemFailures, visibility and the queue's redrive policy left to SQS itself) and the
              outbox sweeper's schedule, both invoked through the emulator's Invoke API

Runs on the test tools' Python (.tools/venv: boto3 and PyYAML come with moto).
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import re
import secrets
import signal
import sys
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import yaml

# ----------------------------------------------------------------------------------------------------------- template


class _Tagged:
    """A CloudFormation intrinsic function (`!Ref X`, `!GetAtt X.Arn`, `!If [...]`, `!Sub ...`)."""

    def __init__(self, tag: str, value):
        self.tag = tag
        self.value = value


class _Loader(yaml.SafeLoader):
    pass


def _construct_tagged(loader: yaml.Loader, suffix: str, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return _Tagged(suffix, value)


_Loader.add_multi_constructor("!", _construct_tagged)


def load_template(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=_Loader)  # noqa: S506 - SafeLoader subclass with tags kept as data


class Resolver:
    """Evaluates the intrinsic functions the template's environment and resources use, with parameter defaults
    (NoEcho secrets without a default get fresh random values) and the physical ids of the local resources."""

    NO_VALUE = object()

    def __init__(self, template: dict, physical: dict[str, dict[str, str]]):
        self.template = template
        self.physical = physical
        self.params: dict[str, str] = {}
        for name, spec in (template.get("Parameters") or {}).items():
            if "Default" in spec:
                self.params[name] = str(spec["Default"])
            elif name == "WebhookSecretKey":
                self.params[name] = base64.b64encode(secrets.token_bytes(32)).decode()
            else:
                self.params[name] = secrets.token_hex(32)
        self.params["AWS::Region"] = os.environ.get("AWS_REGION", "us-east-1")
        self.params["AWS::URLSuffix"] = "amazonaws.com"

    def condition(self, name: str) -> bool:
        return bool(self.value(self.template["Conditions"][name]))

    def value(self, v):
        if not isinstance(v, _Tagged):
            if isinstance(v, dict) and len(v) == 1:
                (key, inner), = v.items()
                if key == "Ref" or key.startswith("Fn::"):
                    return self.value(_Tagged(key.removeprefix("Fn::"), inner))
            return v
        tag, arg = v.tag, v.value
        if tag == "Ref":
            if arg == "AWS::NoValue":
                return self.NO_VALUE
            if arg in self.params:
                return self.params[arg]
            return self.physical[arg]["Ref"]
        if tag == "GetAtt":
            logical, attr = arg.split(".", 1) if isinstance(arg, str) else arg
            return self.physical[logical][attr]
        if tag == "If":
            cond, yes, no = arg
            return self.value(yes if self.condition(cond) else no)
        if tag == "Equals":
            a, b = (self.value(x) for x in arg)
            return a == b
        if tag == "Not":
            return not self.value(arg[0])
        if tag == "Sub":
            text = arg if isinstance(arg, str) else arg[0]
            return re.sub(r"\$\{([^}]+)\}", lambda m: str(self._sub(m.group(1))), text)
        raise ValueError(f"intrinsic function !{tag} is not supported by the local mode")

    def _sub(self, name: str):
        if "." in name:
            logical, attr = name.split(".", 1)
            return self.physical[logical][attr]
        if name in self.params:
            return self.params[name]
        return self.physical[name]["Ref"]


def functions(template: dict) -> dict[str, dict]:
    """Logical id -> properties of every AWS::Serverless::Function, with its binary name under "Binary"."""
    out = {}
    for logical, res in template["Resources"].items():
        if res.get("Type") == "AWS::Serverless::Function":
            props = dict(res.get("Properties") or {})
            props["Binary"] = res["Metadata"]["BuildProperties"]["Binary"]
            out[logical] = props
    return out


# ---------------------------------------------------------------------------------------------------------- resources


def create_resources(template: dict, endpoint: str, prefix: str) -> dict[str, dict[str, str]]:
    import boto3

    region = os.environ.get("AWS_REGION", "us-east-1")
    ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name=region)
    sqs = boto3.client("sqs", endpoint_url=endpoint, region_name=region)
    physical: dict[str, dict[str, str]] = {}
    resolver = Resolver(template, physical)
    resources = template["Resources"]

    for logical, res in resources.items():
        if res.get("Type") != "AWS::DynamoDB::Table":
            continue
        p = res["Properties"]
        name = f"{prefix}-{logical}"
        args = {
            "TableName": name,
            "AttributeDefinitions": p["AttributeDefinitions"],
            "KeySchema": p["KeySchema"],
            "BillingMode": p.get("BillingMode", "PAY_PER_REQUEST"),
        }
        if p.get("GlobalSecondaryIndexes"):
            args["GlobalSecondaryIndexes"] = p["GlobalSecondaryIndexes"]
        ddb.create_table(**args)
        ttl = p.get("TimeToLiveSpecification")
        if ttl and ttl.get("Enabled"):
            ddb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
            )
        arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
        physical[logical] = {"Ref": name, "Arn": arn}

    # Queues in dependency order: a queue's redrive target first.
    pending = [k for k, r in resources.items() if r.get("Type") == "AWS::SQS::Queue"]
    while pending:
        progressed = False
        for logical in list(pending):
            p = resources[logical].get("Properties") or {}
            target = (p.get("RedrivePolicy") or {}).get("deadLetterTargetArn")
            if isinstance(target, _Tagged):
                dep = target.value.split(".")[0] if isinstance(target.value, str) else target.value[0]
                if dep not in physical:
                    continue
            attrs = {}
            for key in ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds",
                        "MaximumMessageSize"):
                if key in p:
                    attrs[key] = str(p[key])
            if "RedrivePolicy" in p:
                rp = p["RedrivePolicy"]
                attrs["RedrivePolicy"] = json.dumps({
                    "deadLetterTargetArn": resolver.value(rp["deadLetterTargetArn"]),
                    "maxReceiveCount": str(rp["maxReceiveCount"]),
                })
            name = f"{prefix}-{logical}"
            url = sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            physical[logical] = {"Ref": url, "Arn": arn, "QueueName": name}
            pending.remove(logical)
            progressed = True
        if not progressed:
            raise SystemExit(f"error: queues with unresolvable redrive targets: {pending}")
    return physical


def environment(template: dict, resolver: Resolver) -> dict[str, str]:
    """The template's Globals variables and every function's own, resolved. `cargo lambda watch` has one
    environment for all functions, so two functions may not set one variable to different values (refused)."""
    env: dict[str, str] = {}
    owner: dict[str, str] = {}

    def add(variables: dict, who: str):
        for name, raw in (variables or {}).items():
            value = resolver.value(raw)
            if value is Resolver.NO_VALUE:
                continue
            value = str(value)
            if name in env and env[name] != value and owner[name] != "Globals":
                raise SystemExit(f"error: {name} is set differently by {owner[name]} and {who}; "
                                 "the local mode shares one environment between the functions")
            env[name] = value
            owner[name] = who

    add(((template.get("Globals") or {}).get("Function") or {}).get("Environment", {}).get("Variables"), "Globals")
    for logical, props in functions(template).items():
        add((props.get("Environment") or {}).get("Variables"), logical)
    return env


# Variables of the launcher itself, never passed on.
LAUNCH_ONLY = {"SPECPRESS_BIN", "SPECPRESS_CORPUS", "SPECPRESS_TOOLS_PYTHON", "SPECPRESS_BUMP_CLI",
               "SPECPRESS_NODE_MODULES", "SPECPRESS_CHROMIUM", "SPECPRESS_TEST_MOTO_ENDPOINT"}


def cmd_resources(args) -> int:
    template = load_template(Path(args.template))
    physical = create_resources(template, args.endpoint, args.prefix)
    resolver = Resolver(template, physical)
    env = environment(template, resolver)
    # What reaches moto instead of AWS, and the local switch for loopback webhook receivers (refused on real Lambda,
    # see shared/fetch).
    env.update({
        "AWS_ENDPOINT_URL": args.endpoint,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_REGION": os.environ.get("AWS_REGION", "us-east-1"),
        "SPECPRESS_ALLOW_LOOPBACK_URLS": "true",
    })
    # Settings of the caller's own (SPECPRESS_*: a shorter retry schedule for a test, say) win over the template's.
    env.update({k: v for k, v in os.environ.items() if k.startswith("SPECPRESS_") and k not in LAUNCH_ONLY})
    with open(args.env_file, "w", encoding="utf-8") as f:
        for k, v in env.items():
            # Quoted: both readers (cargo lambda's env-file parser and the shell) take "..." the same way.
            if any(c in v for c in '\n"$`\\'):
                raise SystemExit(f"error: {k} has a character the env file cannot carry")
            f.write(f'{k}="{v}"\n')
    with open(args.resources_file, "w", encoding="utf-8") as f:
        json.dump(physical, f, indent=2)
    # One line per function for the launcher: binary, memory (MB) and timeout (s) as the template sets them (a
    # parameter's default when they name one).
    fn_globals = (template.get("Globals") or {}).get("Function") or {}
    with open(args.functions_file, "w", encoding="utf-8") as f:
        for props in functions(template).values():
            memory = resolver.value(props.get("MemorySize", fn_globals.get("MemorySize", 128)))
            timeout = resolver.value(props.get("Timeout", fn_globals.get("Timeout", 3)))
            f.write(f"{props['Binary']} {memory} {timeout}\n")
    return 0


# ------------------------------------------------------------------------------------------------------------- routes

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s != ""]


_KIND_CACHE: dict[tuple[str, str], int] = {}


def _kind(seg: str, greedy_kind: str) -> int:
    """0 static, 1 parameter, 2 greedy (`{x+}` for "apigw", `{*x}` for "matchit")."""
    key = (seg, greedy_kind)
    if key not in _KIND_CACHE:
        if (greedy_kind == "apigw" and re.fullmatch(r"\{[^}]+\+\}", seg)) or (
                greedy_kind == "matchit" and re.fullmatch(r"\{\*[^}]+\}", seg)):
            _KIND_CACHE[key] = 2
        elif re.fullmatch(r"\{[^}]+\}", seg):
            _KIND_CACHE[key] = 1
        else:
            _KIND_CACHE[key] = 0
    return _KIND_CACHE[key]


def _match(pattern: list[str], path: list[str], greedy_kind: str) -> list[int] | None:
    """Matches a path against a pattern; returns the specificity key (per segment: 0 static, 1 parameter,
    2 greedy) or None. `greedy_kind` names the greedy syntax: "apigw" (`{x+}`) or "matchit" (`{*x}`)."""
    key = []
    for i, seg in enumerate(pattern):
        kind = _kind(seg, greedy_kind)
        if kind == 2:
            if i != len(pattern) - 1 or len(path) <= i:
                return None
            key.append(2)
            return key
        if i >= len(path):
            return None
        if kind == 0 and seg != path[i]:
            return None
        key.append(kind)
    return key if len(path) == len(pattern) else None


def apigw_routes(template: dict) -> list[tuple[str, list[str], str]]:
    out = []
    for props in functions(template).values():
        for event in (props.get("Events") or {}).values():
            if event.get("Type") != "HttpApi":
                continue
            p = event["Properties"]
            out.append((p["Method"].upper(), _segments(p["Path"]), props["Binary"]))
    return out


def apigw_resolve(routes, method: str, path: list[str]) -> str | None:
    """API Gateway HTTP API route selection: the most specific path wins (static over parameter over greedy,
    segment by segment from the left), and at equal paths a route naming the method wins over ANY."""
    best = None
    for m, pattern, fn in routes:
        if m not in (method, "ANY"):
            continue
        key = _match(pattern, path, "apigw")
        if key is None:
            continue
        rank = (key, 0 if m == method else 1)
        if best is None or rank < best[0]:
            best = (rank, fn)
    return best[1] if best else None


def watch_routes(cargo_toml: Path) -> list[tuple[list[str], dict[str, str] | str]]:
    with open(cargo_toml, "rb") as f:
        meta = tomllib.load(f)
    router = meta["workspace"]["metadata"]["lambda"]["watch"]["router"]
    out = []
    for path, target in router.items():
        if isinstance(target, str):
            out.append((_segments(path), target))
        else:
            out.append((_segments(path), {r["method"].upper(): r["function"] for r in target}))
    return out


def watch_resolve(routes, method: str, path: list[str]) -> str | None:
    """`cargo lambda watch` (matchit): the most specific path wins first, then its method table decides; a
    method missing there is a 404, never a fall back to a less specific path."""
    best = None
    for pattern, target in routes:
        key = _match(pattern, path, "matchit")
        if key is None:
            continue
        if best is None or key < best[0]:
            best = (key, target)
    if best is None:
        return None
    target = best[1]
    return target if isinstance(target, str) else target.get(method)


def probes(patterns: list[list[str]]) -> set[tuple[str, ...]]:
    """Concrete paths built from every pattern, with parameter values that collide with the static segments."""
    statics = sorted({s for p in patterns for s in p if not s.startswith("{")})
    values = ["x"] + statics
    out = set()
    for pattern in patterns:
        slots = [i for i, s in enumerate(pattern) if s.startswith("{")]
        for combo in itertools.product(values, repeat=len(slots)):
            path = list(pattern)
            for i, v in zip(slots, combo):
                path[i] = v
            out.add(tuple(path))
            if slots and ("+" in pattern[-1] or "*" in pattern[-1]):
                out.add(tuple(path + ["y"]))
                out.add(tuple(path + ["y", "mcp"]))
    return out


def cmd_routes(args) -> int:
    template = load_template(Path(args.template))
    gw = apigw_routes(template)
    watch = watch_routes(Path(args.cargo_toml))
    paths = probes([p for _, p, _ in gw] + [p for p, _ in watch])
    differences = []
    for path in sorted(paths):
        for method in METHODS:
            a = apigw_resolve(gw, method, list(path))
            b = watch_resolve(watch, method, list(path))
            if a != b:
                differences.append(f"{method} /{'/'.join(path)}: API Gateway -> {a}, cargo lambda watch -> {b}")
    for d in differences:
        print(d)
    print(f"{len(paths) * len(METHODS)} requests compared, {len(differences)} differences", file=sys.stderr)
    return 1 if differences else 0


# ------------------------------------------------------------------------------------------------------------- events


def invoke_raw(invoke_base: str, function: str, payload: bytes, timeout: float) -> tuple[bytes, bool]:
    """POSTs an event to the emulator's Invoke API: (the function's answer, whether it is a function error).
    Raises `TimeoutError` or `urllib.error.URLError` when the invocation itself fails."""
    req = urllib.request.Request(
        f"{invoke_base}/2015-03-31/functions/{function}/invocations",
        data=payload,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback emulator
        return resp.read(), bool(resp.headers.get("X-Amz-Function-Error"))


def invoke(invoke_base: str, function: str, event: dict, timeout: float) -> tuple[bool, dict | None, str]:
    """Invokes a function with an event; (ok, its JSON answer, error text)."""
    try:
        body, failed = invoke_raw(invoke_base, function, json.dumps(event).encode(), timeout)
        if failed:
            return False, None, body.decode(errors="replace")[:500]
        return True, (json.loads(body) if body.strip() else None), ""
    except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as e:
        return False, None, str(e)


def sqs_event(messages: list[dict], queue_arn: str, region: str) -> dict:
    records = []
    for m in messages:
        attrs = m.get("Attributes") or {}
        records.append({
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m.get("Body", ""),
            "attributes": {k: attrs[k] for k in ("ApproximateReceiveCount", "SentTimestamp", "SenderId",
                                                  "ApproximateFirstReceiveTimestamp") if k in attrs},
            "messageAttributes": {},
            "md5OfBody": m.get("MD5OfBody", ""),
            "eventSource": "aws:sqs",
            "eventSourceARN": queue_arn,
            "awsRegion": region,
        })
    return {"Records": records}


def cmd_events(args) -> int:
    import boto3

    region = os.environ.get("AWS_REGION", "us-east-1")
    template = load_template(Path(args.template))
    with open(args.resources_file, encoding="utf-8") as f:
        physical = json.load(f)
    sqs = boto3.client("sqs", endpoint_url=args.endpoint, region_name=region)

    # Every SQS event source and schedule of the template.
    consumers = []  # (function, queue url, queue arn, batch size, reports failures)
    schedules = []  # (function, seconds)
    for props in functions(template).values():
        for event in (props.get("Events") or {}).values():
            p = event.get("Properties") or {}
            if event.get("Type") == "SQS":
                queue = p["Queue"]
                logical = queue.value.split(".")[0] if isinstance(queue, _Tagged) else queue
                consumers.append((props["Binary"], physical[logical]["Ref"], physical[logical]["Arn"],
                                  int(p.get("BatchSize", 10)),
                                  "ReportBatchItemFailures" in (p.get("FunctionResponseTypes") or [])))
            elif event.get("Type") == "Schedule":
                m = re.fullmatch(r"rate\((\d+) (minute|minutes|hour|hours)\)", p["Schedule"])
                if not m:
                    raise SystemExit(f"error: schedule {p['Schedule']} is not supported locally")
                seconds = int(m.group(1)) * (60 if m.group(2).startswith("minute") else 3600)
                schedules.append((props["Binary"], args.schedule_seconds or seconds))

    stop = False

    def on_signal(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    next_run = {fn: time.monotonic() + period for fn, period in schedules}
    print(f"event sources: {[c[0] for c in consumers]} from SQS, schedules {schedules}", flush=True)
    while not stop:
        for fn, period in schedules:
            if time.monotonic() >= next_run[fn]:
                next_run[fn] = time.monotonic() + period
                event = {"version": "0", "id": secrets.token_hex(16), "detail-type": "Scheduled Event",
                         "source": "aws.events", "account": "000000000000",
                         "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "region": region,
                         "resources": [], "detail": {}}
                ok, _, err = invoke(args.invoke, fn, event, 120)
                if not ok:
                    print(f"scheduled {fn} failed: {err}", flush=True)
        for fn, url, arn, batch, partial in consumers:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=min(batch, 10),
                                      WaitTimeSeconds=args.wait_seconds, AttributeNames=["All"])
            messages = got.get("Messages") or []
            if not messages:
                continue
            ok, payload, err = invoke(args.invoke, fn, sqs_event(messages, arn, region), 900)
            if not ok:
                # A failed invocation retries the whole batch after the visibility timeout, as Lambda does.
                print(f"{fn}: invocation failed, {len(messages)} records left to SQS: {err}", flush=True)
                continue
            failed = set()
            if partial and isinstance(payload, dict):
                failed = {f.get("itemIdentifier") for f in payload.get("batchItemFailures") or []}
            done = [m for m in messages if m["MessageId"] not in failed]
            for i in range(0, len(done), 10):
                chunk = done[i:i + 10]
                sqs.delete_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(chunk)])
            print(f"{fn}: batch of {len(messages)}, {len(done)} done, {len(failed)} reported failed", flush=True)
    return 0



# -------------------------------------------------------------------------------------------------------------- front

# API Gateway's and Lambda's published quotas (docs/limits.md, "On AWS").
APIGW_MAX_REQUEST_BYTES = 10 * 1024 * 1024
LAMBDA_MAX_PAYLOAD_BYTES = 6 * 1024 * 1024
APIGW_TIMEOUT_SECONDS = 30

_TEXT_TYPES = re.compile(
    r"^(text/|application/(json|xml|javascript|x-www-form-urlencoded|yaml|x-yaml)|[^;]*\+(json|xml))", re.I)


def _is_text(headers) -> bool:
    """HTTP APIs pass a body as text only when it is text: a text media type and no Content-Encoding; anything
    else is base64 (`isBase64Encoded: true`)."""
    if headers.get("Content-Encoding"):
        return False
    return bool(_TEXT_TYPES.match(headers.get("Content-Type") or ""))


def http_event(method: str, target: str, headers, body: bytes, client_ip: str, route_key: str) -> dict:
    """An API Gateway HTTP API (payload format 2.0) event, as API Gateway builds it."""
    path, _, query = target.partition("?")
    joined: dict[str, str] = {}
    cookies = []
    for name, value in headers.items():
        lname = name.lower()
        if lname == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
            continue
        joined[lname] = f"{joined[lname]},{value}" if lname in joined else value
    host = joined.get("host", "localhost")
    joined["x-forwarded-for"] = client_ip
    joined["x-forwarded-proto"] = "http"
    joined["x-forwarded-port"] = host.rsplit(":", 1)[1] if ":" in host else "80"
    joined["x-amzn-trace-id"] = f"Root=1-{int(time.time()):08x}-{secrets.token_hex(12)}"
    now = time.time()
    event = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": joined,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": host.split(":")[0],
            "domainPrefix": host.split(".")[0].split(":")[0],
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": client_ip,
                     "userAgent": joined.get("user-agent", "")},
            "requestId": secrets.token_urlsafe(12),
            "routeKey": route_key,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": False,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        params: dict[str, str] = {}
        for part in query.split("&"):
            k, _, v = part.partition("=")
            k, v = urllib.parse.unquote_plus(k), urllib.parse.unquote_plus(v)
            params[k] = f"{params[k]},{v}" if k in params else v
        event["queryStringParameters"] = params
    if body:
        if _is_text(headers):
            try:
                event["body"] = body.decode("utf-8")
            except UnicodeDecodeError:
                event["body"] = base64.b64encode(body).decode()
                event["isBase64Encoded"] = True
        else:
            event["body"] = base64.b64encode(body).decode()
            event["isBase64Encoded"] = True
    return event


def cmd_front(args) -> int:
    """API Gateway in front of the functions: routes (Cargo.toml's table, the one `cargo lambda watch` uses),
    payload format 2.0 events, its limits and its own error answers, and the response mapping of payload 2.0
    (`headers` one value each, `cookies` as Set-Cookie), invoking each function through the emulator's Invoke API."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    routes = watch_routes(Path(args.cargo_toml))

    class Front(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write per answer, sent at once (the head and the body written apart waited on Nagle's algorithm).
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def log_message(self, fmt, *a):
            if args.verbose:
                super().log_message(fmt, *a)

        def _plain(self, status: int, message: str, extra: dict | None = None):
            body = json.dumps({"message": message}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("apigw-requestid", secrets.token_urlsafe(12))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _read_body(self) -> bytes | None:
            if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
                out = bytearray()
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return bytes(out)
                    out += self.rfile.read(size)
                    self.rfile.readline()
                    if len(out) > APIGW_MAX_REQUEST_BYTES:
                        return None
            length = int(self.headers.get("Content-Length") or 0)
            if length > APIGW_MAX_REQUEST_BYTES:
                # Read it all (as API Gateway does) so the client gets the answer, not a reset.
                remaining = length
                while remaining > 0:
                    chunk = self.rfile.read(min(remaining, 1 << 20))
                    if not chunk:
                        break
                    remaining -= len(chunk)
                return None
            return self.rfile.read(length) if length else b""

        def _handle(self):
            body = self._read_body()
            if body is None:
                self.close_connection = True
                return self._plain(413, "Request Entity Too Large")
            method = self.command
            path = self.path.partition("?")[0]
            fn = watch_resolve(routes, method, _segments(path))
            if fn is None:
                return self._plain(404, "Not Found")
            event = http_event(method, self.path, self.headers, body, self.client_address[0], f"{method} {path}")
            payload = json.dumps(event).encode()
            if len(payload) > LAMBDA_MAX_PAYLOAD_BYTES:
                # Lambda refuses the invocation (RequestEntityTooLarge); API Gateway answers 413.
                return self._plain(413, "Request Entity Too Large")
            try:
                raw, failed = invoke_raw(args.invoke, fn, payload, APIGW_TIMEOUT_SECONDS)
            except TimeoutError:
                return self._plain(503, "Service Unavailable")
            except urllib.error.URLError as e:
                print(f"front: {fn} invocation failed: {e}", file=sys.stderr, flush=True)
                return self._plain(500, "Internal Server Error")
            if failed or len(raw) > LAMBDA_MAX_PAYLOAD_BYTES:
                if len(raw) > LAMBDA_MAX_PAYLOAD_BYTES:
                    print(f"front: {fn} answered {len(raw)} bytes, over Lambda's {LAMBDA_MAX_PAYLOAD_BYTES}",
                          file=sys.stderr, flush=True)
                return self._plain(500, "Internal Server Error")
            try:
                out = json.loads(raw)
                status = int(out.get("statusCode", 200))
                headers = out.get("headers") or {}
                data = out.get("body") or ""
                data = base64.b64decode(data) if out.get("isBase64Encoded") else data.encode()
            except (ValueError, AttributeError, TypeError):
                return self._plain(500, "Internal Server Error")
            self.send_response(status)
            # Payload 2.0: one value per header (a list would be dropped), cookies as Set-Cookie each.
            for name, value in headers.items():
                if name.lower() in ("content-length", "transfer-encoding", "connection"):
                    continue
                self.send_header(name, str(value))
            for cookie in out.get("cookies") or []:
                self.send_header("Set-Cookie", cookie)
            self.send_header("apigw-requestid", event["requestContext"]["requestId"])
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(data)

        do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Front)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(f"front: http://127.0.0.1:{server.server_address[1]} -> {args.invoke}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("resources")
    r.add_argument("--template", default="template.yaml")
    r.add_argument("--endpoint", required=True)
    r.add_argument("--prefix", default="specpress")
    r.add_argument("--env-file", required=True)
    r.add_argument("--resources-file", required=True)
    r.add_argument("--functions-file", required=True)
    r.set_defaults(func=cmd_resources)
    c = sub.add_parser("routes")
    c.add_argument("--template", default="template.yaml")
    c.add_argument("--cargo-toml", default="Cargo.toml")
    c.set_defaults(func=cmd_routes)
    e = sub.add_parser("events")
    e.add_argument("--template", default="template.yaml")
    e.add_argument("--endpoint", required=True)
    e.add_argument("--invoke", required=True, help="the emulator's base URL, e.g. http://127.0.0.1:9000")
    e.add_argument("--resources-file", required=True)
    e.add_argument("--wait-seconds", type=int, default=1, help="long-poll wait of each ReceiveMessage")
    e.add_argument("--schedule-seconds", type=int, default=0, help="run schedules this often instead (0: as set)")
    e.set_defaults(func=cmd_events)
    fr = sub.add_parser("front")
    fr.add_argument("--cargo-toml", default="Cargo.toml")
    fr.add_argument("--invoke", required=True, help="the emulator's base URL, e.g. http://127.0.0.1:9000")
    fr.add_argument("--port", type=int, required=True)
    fr.add_argument("--verbose", action="store_true")
    fr.set_defaults(func=cmd_front)
    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
