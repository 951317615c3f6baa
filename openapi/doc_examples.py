#!/usr/bin/env python3
"""Every JSON example in the docs is something the document allows.

    openapi/doc_examples.py [REPOSITORY]

Reads docs/api.md and docs/door.md (fenced ```json blocks, with a leading status
such as `200 ` dropped, and inline code that parses as a JSON object), the README's tour (the
bodies its curl commands send, and the answers it quotes), and the account event of
docs/events.md. Each example belongs to the endpoint of its section (a `## ... /auth/<name>`
heading, or the URL of the last curl command before it) and must validate against one of that
endpoint's request or response bodies in openapi/openapi.json. The docs write `…` for a value
they leave out: such a string stands for any value of its member. `{}` alone says nothing and is
skipped. Exits 1 when an example fits nothing, or when fewer examples are found than the docs hold.

Run by Tests/EndpointTests/OpenAPIDocsTests.swift (make test) with the venv's python.
"""
import json
import os
import re
import sys

from jsonschema import Draft202012Validator, FormatChecker, validators
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
BASE = "urn:frontdoor-openapi"
# The fewest examples each source holds today: an extractor that silently finds none must fail.
FEWEST = {"docs/api.md": 10, "docs/door.md": 5, "README.md": 5, "docs/events.md": 1}

spec = json.load(open(os.path.join(ROOT, "openapi", "openapi.json")))
registry = Registry().with_resource(BASE, Resource.from_contents(spec, default_specification=DRAFT202012))


def placeholder(instance):
    return isinstance(instance, str) and "…" in instance


def lenient(keyword_validator):
    """A keyword that a `…` placeholder does not have to meet (it stands for the real value)."""
    def check(validator, value, instance, schema):
        if placeholder(instance):
            return
        yield from keyword_validator(validator, value, instance, schema)
    return check


Validator = validators.extend(Draft202012Validator, {
    name: lenient(Draft202012Validator.VALIDATORS[name])
    for name in ("pattern", "format", "minLength", "maxLength", "const", "enum")
})


def pointer(*parts):
    return "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def deref(node, location):
    """An OpenAPI object that may be a $ref (responses, path items) and where it really is."""
    while isinstance(node, dict) and "$ref" in node:
        location = node["$ref"][2:]
        node = spec
        for part in location.split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, location


def bodies(path):
    """(label, schema pointer) of every JSON request and response body of `path`'s operations."""
    found = []
    item, item_at = deref(spec["paths"][path], pointer("paths", path))
    for method, operation in item.items():
        if not isinstance(operation, dict) or "responses" not in operation:
            continue
        request, request_at = deref(operation.get("requestBody", {}), f"{item_at}/{pointer(method, 'requestBody')}")
        for media, content in request.get("content", {}).items():
            if "json" in media:
                found.append((f"{method.upper()} request", f"{request_at}/{pointer('content', media, 'schema')}"))
        for status, response in operation["responses"].items():
            response, response_at = deref(response, f"{item_at}/{pointer(method, 'responses', status)}")
            for media, content in response.get("content", {}).items():
                if "json" in media:
                    found.append((f"{method.upper()} {status}", f"{response_at}/{pointer('content', media, 'schema')}"))
    return found


def webhook_bodies():
    found = []
    for name, item in spec["webhooks"].items():
        at = pointer("webhooks", name, "post", "requestBody", "content", "application/json", "schema")
        found.append((f"webhook {name}", at))
    return found


def fits(example, candidates):
    """None when the example validates against one candidate, else the errors of each."""
    errors = []
    for label, at in candidates:
        validator = Validator({"$ref": f"{BASE}#/{at}"}, registry=registry, format_checker=FormatChecker())
        problems = sorted(validator.iter_errors(example), key=lambda e: len(list(e.path)))
        if not problems:
            return None
        errors.append(f"{label}: {problems[0].message[:200]}")
    return errors


def inline_objects(text):
    """Inline code spans (possibly across one line break) that parse as JSON objects."""
    for match in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
        code = match.group(1).replace("\n", " ")
        if code.startswith("{"):
            try:
                value = json.loads(code)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value


def fenced_json(text):
    for match in re.finditer(r"```json\n(.*?)```", text, re.S):
        code = re.sub(r"^\s*[0-9]{3}\s+", "", match.group(1).strip())
        yield json.loads(code)


ENDPOINT = re.compile(r"/auth/([a-z-]+(?:\.json)?)")


def markdown(name):
    """Examples of a docs page, by the endpoint of their `##`/`###` section."""
    text = open(os.path.join(ROOT, name)).read()
    sections = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    heading = ""
    for part in sections:
        if re.match(r"^#{2,3} ", part):
            heading = part
            continue
        endpoint = ENDPOINT.search(heading)
        path = "/auth/" + endpoint.group(1) if endpoint else None
        for example in list(fenced_json(part)) + list(inline_objects(part)):
            yield path, example, heading.strip() or "(top)"


def readme_tour():
    """The tour's curl bodies, and the JSON it quotes, by the endpoint of the curl before it."""
    text = open(os.path.join(ROOT, "README.md")).read()
    start = text.index("## A five-minute tour")
    tour = text[start:text.index("\n## ", start + 10)]
    path = None
    for match in re.finditer(r"```sh\n(.*?)```|((?:[^`]|`[^`])+)", tour, re.S):
        if match.group(1):
            for command in re.split(r"\n(?!\s)", match.group(1)):
                urls = ENDPOINT.findall(command)
                if urls:
                    path = "/auth/" + urls[-1]
                elif "curl" in command and "127.0.0.1:8080" in command:
                    path = None  # the app's own routes are not frontdoor's
                data = re.search(r"-d\s+'([^']*)'|-d\s+\"((?:[^\"\\]|\\.)*)\"", command)
                if data and path:
                    raw = data.group(1) if data.group(1) is not None else data.group(2).replace('\\"', '"')
                    raw = re.sub(r"\$[A-Z_]+", "…", raw)
                    yield path, json.loads(raw), "README tour: " + command.split("\n")[0][:60]
        else:
            for example in inline_objects(match.group(2)):
                yield path, example, "README tour"


def events():
    text = open(os.path.join(ROOT, "docs", "events.md")).read()
    for match in re.finditer(r"```http\n(.*?)```", text, re.S):
        body = match.group(1).strip().split("\n\n", 1)[-1]
        yield "webhook", json.loads(body), "docs/events.md: What arrives"


def main():
    sources = [("docs/api.md", markdown("docs/api.md")), ("docs/door.md", markdown("docs/door.md")),
               ("README.md", readme_tour()),
               ("docs/events.md", events())]
    checked = skipped = 0
    failures = []
    for source, examples in sources:
        count = 0
        for path, example, where in examples:
            if example == {} or path is None and source != "docs/api.md":
                skipped += 1
                continue
            if path == "webhook":
                candidates = webhook_bodies()
            elif path is None:
                candidates = [c for p in spec["paths"] for c in bodies(p)]
            elif path in spec["paths"]:
                candidates = bodies(path)
            else:
                failures.append(f"{source} ({where}): {path} is not in openapi.json")
                continue
            count += 1
            problems = fits(example, candidates)
            if problems:
                failures.append(f"{source} ({where}): {json.dumps(example)[:160]}\n      " + "\n      ".join(problems))
        checked += count
        if count < FEWEST[source]:
            failures.append(f"{source}: {count} examples found, fewer than the {FEWEST[source]} it holds")
        print(f"{source}: {count} examples")
    for failure in failures:
        print("FAIL " + failure)
    print(f"doc examples: {checked} checked against openapi/openapi.json, {skipped} skipped, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
