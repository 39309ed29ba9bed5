#!/usr/bin/env python3
"""Lists the public symbols of a module that have no documentation comment of their own.

    Scripts/check_doc_coverage.py MODULE SYMBOL_GRAPH_DIR

Reads MODULE.symbols.json and MODULE@*.symbols.json (members of extensions to other modules'
types) from SYMBOL_GRAPH_DIR, as swift-symbolgraph-extract writes them with
`-minimum-access-level public`, prints `file:line: symbol` for each public or open symbol
without a documentation comment of its own, and exits 1 when there is any. Standard library only.

What counts, from what the graphs hold (Swift 6.3):

- Checked: every public or open declaration written in the module's sources. It is documented
  when its `docComment` has a line of text and comes from this module.
- Ignored, because no comment in our sources could change them:
  - extension blocks (`swift.extension`): the extension itself, not a declaration in it;
  - members the compiler copies onto our types from protocol extensions and superclasses: their
    identifier contains `::SYNTHESIZED::` (such as `HTTPHeaders.filter(_:)` from `Sequence`, or
    `HTTPMethod.hash(into:)`), and their comment, if any, is the original's;
  - declarations the compiler makes with no place in the sources (no `location`), such as the
    `init(rawValue:)` of an enum with raw values or a synthesised `Codable` conformance.
- Reported although the graph has a comment: a declaration in our sources whose `docComment`
  names another module. That is what the compiler does for an implementation of another module's
  protocol requirement left without a comment: a bare `public var description` gets the standard
  library's "A textual representation of this instance", which says nothing about our type.
"""

import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse

SYNTHESIZED = "::SYNTHESIZED::"


def graph_files(module, directory):
    files = [os.path.join(directory, module + ".symbols.json")]
    files += sorted(glob.glob(os.path.join(glob.escape(directory), glob.escape(module) + "@*.symbols.json")))
    return files


def relative_path(uri):
    path = unquote(urlparse(uri).path)
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def has_own_comment(symbol, module):
    comment = symbol.get("docComment")
    if not comment:
        return False
    if comment.get("module", module) != module:
        return False
    return any(line.get("text", "").strip() for line in comment.get("lines", []))


def main(argv):
    if len(argv) != 3:
        print("usage: check_doc_coverage.py MODULE SYMBOL_GRAPH_DIR", file=sys.stderr)
        return 2
    module, directory = argv[1], argv[2]
    files = graph_files(module, directory)
    if not os.path.isfile(files[0]):
        print(f"check_doc_coverage: no symbol graph {files[0]}", file=sys.stderr)
        return 2

    checked = 0
    missing = []
    for path in files:
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            if SYNTHESIZED in symbol["identifier"]["precise"]:
                continue
            location = symbol.get("location")
            if location is None:
                continue
            checked += 1
            if has_own_comment(symbol, module):
                continue
            name = ".".join(symbol["pathComponents"])
            kind = symbol["kind"].get("displayName", symbol["kind"]["identifier"]).lower()
            line = location["position"]["line"] + 1  # the graph counts lines from 0
            missing.append((relative_path(location["uri"]), line, f"{name} ({kind})"))

    if checked == 0:
        # Without source locations everything above would be skipped: say so instead of passing.
        print(f"check_doc_coverage: {module}: no symbol has a source location "
              "(is the module's .swiftsourceinfo missing?)", file=sys.stderr)
        return 2

    for file, line, what in sorted(missing):
        print(f"{file}:{line}: {what} has no documentation comment")
    if missing:
        print(f"{module}: {len(missing)} of {checked} public symbols undocumented", file=sys.stderr)
        return 1
    print(f"{module}: all {checked} public symbols documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
