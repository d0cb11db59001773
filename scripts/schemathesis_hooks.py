"""schemathesis hooks of scripts/schemathesis.sh: positive cases that can reach past validation.

Schema-valid data is not always valid input: a `definition` must be an OpenAPI, AsyncAPI or workflow document, a
name must be display-safe (no invisible or text-direction characters), a slug must be free across the
installation. No JSON Schema says so, so without help nearly every generated positive case of those operations is
refused with a 422 and their success paths go untested; likewise a webhook URL must reach the run's local receiver
(no generated host name resolves in its isolated network), and a list's `cursor` is valid only as the server
issued it. Here, every other positive case of those operations is
turned into a realistic one: its document replaced by a small valid one (varied with the case, so deploys make new
versions and diffs find changes), its name by a display-safe one, its slug by a fresh one. The other half, and
every negative case, stay exactly as generated, so validation keeps being fuzzed.
"""

from __future__ import annotations

import hashlib
import itertools
import os

import schemathesis

_counter = itertools.count()


def _seed(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:10]


def _openapi(seed: str) -> str:
    """A small valid OpenAPI 3.1 document; the seed picks its version, title and whether it has a second path."""
    extra = ""
    if int(seed[0], 16) % 2:
        extra = (
            "  /pets:\n"
            "    get:\n"
            "      summary: List pets\n"
            "      parameters:\n"
            "        - name: limit\n"
            "          in: query\n"
            "          schema:\n"
            f"            maximum: {10 + int(seed[1], 16)}\n"
            "            type: integer\n"
            "      responses:\n"
            "        '200':\n"
            "          description: The pets\n"
        )
    return (
        "openapi: 3.1.0\n"
        "info:\n"
        f"  title: Pets {seed}\n"
        f"  version: 1.{int(seed[2:4], 16)}.0\n"
        "paths:\n"
        "  /pets/{id}:\n"
        "    get:\n"
        "      summary: Read a pet\n"
        "      parameters:\n"
        "        - name: id\n"
        "          in: path\n"
        "          required: true\n"
        "          schema:\n"
        "            type: string\n"
        "      responses:\n"
        "        '200':\n"
        "          description: A pet\n" + extra
    )


def _flower(seed: str) -> str:
    """A small valid Flower 0.1 workflow document (its requests go to a loopback port nothing listens on)."""
    return (
        'flower: "0.1"\n'
        f"id: pets{seed}\n"
        f"title: Pets {seed}\n"
        "flows:\n"
        "  - id: read\n"
        "    description: Read a pet.\n"
        "    inputs:\n"
        "      type: object\n"
        "      properties:\n"
        "        petId:\n"
        "          type: string\n"
        "    steps:\n"
        "      - id: get\n"
        "        request:\n"
        "          method: get\n"
        "          url: http://127.0.0.1:9/pets/{$inputs.petId}\n"
    )


def _name(seed: str) -> str:
    return f"Schemathesis {seed}"


def _slug(seed: str) -> str:
    return f"st-{seed}-{next(_counter)}"


def _definition(body: dict, seed: str) -> None:
    body["definition"] = _openapi(seed)
    body.pop("references", None)
    body.pop("url", None)


def _deploy(body: dict, seed: str) -> None:
    _definition(body, seed)
    # The documentation the run's fixtures made (scripts/schemathesis.sh), or a fresh one auto-created.
    if int(seed[4], 16) % 2 and os.environ.get("ST_DOC"):
        body["documentation"] = os.environ["ST_DOC"]
    else:
        body["documentation"] = _slug(seed)
        body["auto_create_documentation"] = True
    for key in ("hub", "previous_version_id", "branch_name"):
        body.pop(key, None)


def _diff(body: dict, seed: str) -> None:
    body["previous_definition"] = _openapi(seed)
    body["definition"] = _openapi(_seed(seed))
    for key in ("previous_url", "url", "previous_references", "references"):
        body.pop(key, None)


def _named(body: dict, seed: str) -> None:
    body["name"] = _name(seed)
    body["slug"] = _slug(seed)
    body.pop("hub", None)


def _workflow(body: dict, seed: str) -> None:
    body["definition"] = _flower(seed)
    body.pop("references", None)


def _webhook(body: dict, seed: str) -> None:
    # The run's local receiver (scripts/schemathesis.sh); generated host names resolve to nothing in its network.
    body["url"] = f"http://127.0.0.1:{os.environ.get('ST_RECEIVER_PORT', '3001')}/hook-{seed}"
    body["branches"] = []
    if "enabled" in body:
        body["enabled"] = True


def _listing(query: dict, seed: str) -> None:
    # As a client pages: a cursor only as the server issued it (a link), never beside `page`; `limit` or its alias.
    query.pop("cursor", None)
    if "limit" in query:
        query.pop("per_page", None)


FIXES = {
    "deployVersion": _deploy,
    "validateDefinition": _definition,
    "createPreview": _definition,
    "updatePreview": _definition,
    "createDiff": _diff,
    "createDoc": _named,
    "createHub": _named,
    "createMcpServer": _named,
    "deployMcpServer": _workflow,
    "createWebhook": _webhook,
    "updateWebhook": _webhook,
    "replaceWebhook": _webhook,
}

# Fixes of the query string.
QUERY_FIXES = {
    "listHubs": _listing,
    "listHubApis": _listing,
    "listDocs": _listing,
    "listBranches": _listing,
    "listVersions": _listing,
    "listWebhooks": _listing,
    "listDeliveries": _listing,
    "listMcpServers": _listing,
    "listMcpServerVersions": _listing,
}


@schemathesis.hook
def map_case(context, case):
    meta = getattr(case, "meta", None)
    if meta is None or meta.generation.mode.is_negative:
        return case
    operation_id = context.operation.definition.raw.get("operationId") if context.operation else None
    fix, query_fix = FIXES.get(operation_id), QUERY_FIXES.get(operation_id)
    if (fix is None or not isinstance(case.body, dict)) and (query_fix is None or not isinstance(case.query, dict)):
        return case
    if next(_counter) % 2:
        return case
    if fix is not None and isinstance(case.body, dict):
        fix(case.body, _seed(case.body))
    if query_fix is not None and isinstance(case.query, dict):
        query_fix(case.query, _seed(case.query))
    return case
