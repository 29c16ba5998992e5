#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# usage: validate.py <schema dir> <spec.json>
#
# Checks a CDI spec against the Container Device Interface's JSON schema
# (schema.json and defs.json, as Debian ships them; see scripts/deps.sh),
# then the rules the schema leaves to the runtimes' parsers: the kind's
# vendor/class and device names, absolute device paths, a device type and
# cgroup permissions. Prints what is wrong and exits 1.
import json
import re
import sys

import fastjsonschema


def load_schema(d):
    with open(f"{d}/schema.json") as f:
        schema = json.load(f)
    with open(f"{d}/defs.json") as f:
        defs = json.load(f)
    # schema.json refers to "defs.json#/definitions/X": bring the
    # definitions into one document so the refs resolve locally.
    text = json.dumps(schema).replace('"defs.json#/', '"#/')
    schema = json.loads(text)
    schema["definitions"] = defs["definitions"]
    # defs.json's "env" items say "ref" where "$ref" was meant; the schema
    # thus asks nothing of them, and fastjsonschema 2.16 cannot compile an
    # items schema made only of an unknown keyword: drop it.
    def drop_ref(o):
        if isinstance(o, dict):
            o.pop("ref", None)
            for v in o.values():
                drop_ref(v)
        elif isinstance(o, list):
            for v in o:
                drop_ref(v)
    drop_ref(schema)
    return schema


def main():
    schema_dir, spec_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = json.load(f)
    try:
        fastjsonschema.compile(load_schema(schema_dir))(spec)
    except fastjsonschema.JsonSchemaException as e:
        print(f"{spec_path}: not valid against the CDI schema: {e.message}")
        return 1
    errors = []
    vendor, _, cls = spec["kind"].partition("/")
    if not re.fullmatch(r"[A-Za-z]([A-Za-z0-9._-]*[A-Za-z0-9])?", vendor):
        errors.append(f"kind {spec['kind']!r}: bad vendor")
    if not re.fullmatch(r"[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?", cls):
        errors.append(f"kind {spec['kind']!r}: bad class")
    names = set()
    for dev in spec["devices"]:
        name = dev["name"]
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?", name):
            errors.append(f"device {name!r}: bad name")
        if name in names:
            errors.append(f"device {name!r}: named twice")
        names.add(name)
        nodes = dev["containerEdits"].get("deviceNodes", [])
        if not nodes:
            errors.append(f"device {name!r}: no device nodes")
        for node in nodes:
            if not node["path"].startswith("/"):
                errors.append(f"device {name!r}: path {node['path']!r} not absolute")
            if node.get("type") not in ("c", "b", "u", "p"):
                errors.append(f"device {name!r}: type {node.get('type')!r}")
            if not re.fullmatch(r"[rwm]+", node.get("permissions", "rwm")):
                errors.append(f"device {name!r}: permissions {node.get('permissions')!r}")
    for e in errors:
        print(f"{spec_path}: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
