#!/usr/bin/env python3
"""Counts the public declarations of each library module from its symbol graphs.

    Docs/public-surface.py GRAPHS_DIR   # GRAPHS_DIR/MODULE/MODULE.symbols.json and MODULE@*.symbols.json

A declaration is a symbol the module declares (types, members, functions, properties,
initialisers, cases, typealiases, in its own types or in extensions of other modules' types);
symbols the compiler synthesizes (protocol requirements' default implementations inherited by a
conforming type) are not counted. .ci/run prints the table through Docs/check-docs.sh, so a
change to the public surface shows in every run; Docs/API-baseline holds what the API check
compares with.
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
total = 0
rows = []
for module_dir in sorted(p for p in root.iterdir() if p.is_dir()):
    ids = set()
    for graph in module_dir.glob("*.symbols.json"):
        for symbol in json.load(open(graph))["symbols"]:
            precise = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise or symbol["kind"]["identifier"] == "swift.extension":
                continue
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            ids.add(precise)
    rows.append((module_dir.name, len(ids)))
    total += len(ids)
print("public declarations per module:")
for name, count in rows:
    print(f"  {name:<14} {count:>5}")
print(f"  {'total':<14} {total:>5}")
