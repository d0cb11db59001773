"""Runs one workflow with arazzo-runner (PyPI `arazzo-runner`, an independent Arazzo implementation), for
tests/tests/workflow_mcp.rs: the same document, inputs and credentials as a Specpress workflow MCP server, to compare
the outputs.

Reads a plan as JSON on stdin: {"path": <the Arazzo file, its sources beside it>, "workflow": id, "inputs": {...},
"secrets": {<security scheme name>: <value>}}. Each secret goes to the environment variable arazzo-runner reads for
that scheme. Prints one JSON object: {"status", "outputs", "error"}.
"""

import json
import logging
import os
import sys

from arazzo_runner import ArazzoRunner
from arazzo_runner.auth.auth_processor import AuthProcessor
from arazzo_runner.runner import load_arazzo_doc, load_source_descriptions


def main():
    logging.disable(logging.CRITICAL)
    plan = json.load(sys.stdin)
    path = plan["path"]
    doc = load_arazzo_doc(path)
    sources = load_source_descriptions(doc, path, "", None)
    mappings = AuthProcessor().process_api_auth(openapi_specs=sources, arazzo_specs=[doc])
    for scheme, value in plan.get("secrets", {}).items():
        for variable in (mappings.get("env_mappings") or {}).get(scheme, {}).values():
            os.environ[variable] = value
    runner = ArazzoRunner.from_arazzo_path(path)
    result = runner.execute_workflow(plan["workflow"], plan.get("inputs") or {})
    print(
        json.dumps(
            {"status": str(result.status), "outputs": result.outputs, "error": result.error},
            default=str,
        )
    )


if __name__ == "__main__":
    main()
