#!/usr/bin/env python3
"""Holds a running frontdoor to openapi/openapi.json: the document is valid OpenAPI 3.1
(openapi-spec-validator), then schemathesis runs every operation with its default checks, with
fuzz_hooks.py giving valid cases live credentials. Prints the answers per operation (how many
2xx) and fails when schemathesis found anything, or when an operation that can succeed never did.

    openapi/fuzz.py --url http://127.0.0.1:PORT --provider http://127.0.0.1:DEV_PORT \
        [--seed N] [--max-examples N] [--max-time SECONDS] [--work DIR]

Run by Tests/EndpointTests/OpenAPITests.swift (make test, both engines) with the venv's python
(make openapi-venv).
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENT = os.path.join(HERE, "openapi.json")


def validate():
    from openapi_spec_validator import validate as check
    from openapi_spec_validator.readers import read_from_filename

    spec, _ = read_from_filename(DOCUMENT)
    check(spec)
    assert spec["openapi"].startswith("3.1."), spec["openapi"]
    print(f"openapi-spec-validator: {DOCUMENT} is valid OpenAPI {spec['openapi']}", flush=True)
    return spec


def operations(spec):
    """Every operation as schemathesis names it: "METHOD /path"."""
    found = []
    for path, item in spec["paths"].items():
        if "$ref" in item:
            name = item["$ref"].rsplit("/", 1)[-1]
            item = spec["components"]["pathItems"][name]
        for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"):
            if method in item:
                found.append((f"{method.upper()} {path}", item[method]))
    return found


def can_succeed(operation):
    return any(status.startswith("2") for status in operation["responses"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--provider", required=True)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-examples", type=int, default=25)
    parser.add_argument("--max-time", type=int, default=None)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print(f"openapi fuzz: seed {seed} (--seed {seed} replays it), {args.max_examples} examples per operation", flush=True)

    spec = validate()
    work = args.work or tempfile.mkdtemp(prefix="frontdoor-fuzz-")
    os.makedirs(work, exist_ok=True)
    answers = os.path.join(work, "answers.txt")
    open(answers, "w").close()
    environment = dict(os.environ)
    environment.update({
        "FRONTDOOR_FUZZ_URL": args.url,
        "FRONTDOOR_FUZZ_PROVIDER": args.provider,
        "FRONTDOOR_FUZZ_SEED": str(seed),
        "FRONTDOOR_FUZZ_ANSWERS": answers,
        "SCHEMATHESIS_HOOKS": "fuzz_hooks",
        "PYTHONPATH": HERE + os.pathsep + environment.get("PYTHONPATH", ""),
    })
    command = [
        os.path.join(os.path.dirname(sys.executable), "st"),
        "--config-file", os.path.join(HERE, "schemathesis.toml"),
        "run", DOCUMENT,
        "--url", args.url,
        "--seed", str(seed),
        "--max-examples", str(args.max_examples),
        "--report", "junit", "--report-dir", work,
    ]
    if args.max_time:
        command += ["--max-time", str(args.max_time)]
    print("openapi fuzz: " + " ".join(command), flush=True)
    status = subprocess.run(command, env=environment, cwd=work).returncode

    counts = collections.defaultdict(collections.Counter)
    actions = collections.defaultdict(collections.Counter)
    with open(answers) as lines:
        for line in lines:
            method, path, code, mode, action = line.split()
            counts[f"{method} {path}"][code] += 1
            if action != "-" and code.startswith("2"):
                actions[path.rsplit("/", 1)[-1]][action] += 1
    print("\nanswers per operation (2xx / all, then by status):")
    never = []
    cases = 0
    for name, operation in operations(spec):
        seen = counts.get(name, collections.Counter())
        total = sum(seen.values())
        cases += total
        ok = sum(n for code, n in seen.items() if code.startswith("2"))
        detail = " ".join(f"{code}:{n}" for code, n in sorted(seen.items()))
        print(f"  {name:48} {ok:4} / {total:<4} {detail}")
        if can_succeed(operation) and ok == 0:
            never.append(name)
    print("2xx by action (+reauthenticated: a sign-in that proved its bearer's session again):")
    for endpoint, seen in sorted(actions.items()):
        print(f"  {endpoint:16} " + " ".join(f"{action}:{n}" for action, n in sorted(seen.items())))
    print(f"{len(operations(spec))} operations, {cases} answers, schemathesis exit {status}, seed {seed}")
    if never:
        print("never answered 2xx: " + ", ".join(never))
    if status != 0 or never:
        print("openapi fuzz: FAILED")
        return 1
    print("openapi fuzz: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
