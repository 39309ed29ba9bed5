#!/usr/bin/env python3
"""Type-checks every Swift code block of README.md, Documentation/ and the DocC catalogs, as written,
against the modules a build of this package made, the way a user's program importing them sees them.

    Scripts/doc-examples.py                       # after `swift build`: the blocks that need no trait
    Scripts/doc-examples.py --build .build-ahc    # after a build with the traits: the blocks that
                                                  # import RequestsAsyncHTTPClient, RequestsOpenAPI,
                                                  # RequestsMCP or a tracing module, and the Tracing page's
    Scripts/doc-examples.py --list                # each block, its unit and what it needs

Each block is a program of its own (top-level code allowed; `-parse-as-library` when it has `@main`),
type-checked in Swift 6 mode with `swiftc -typecheck`: no code is generated and nothing runs, so the
examples may name any host. A block with import lines is checked with exactly those: that is how
the one-import promise is kept. A block without any is a snippet of a program that imports the
library: it gets `import Requests` (and `RequestsTesting` and `Testing` on the testing pages, or
when it uses `#expect`). The names the text uses without declaring them (`session`, `url`, a
`User` type) come from Scripts/doc-examples/Support.swift, imported implicitly; a block's own
declarations shadow them.

Markers, an HTML comment on the line before the fence (GitHub and DocC show neither):

    <!-- example: continues -->   the block goes on from the page's previous block (same program)
    <!-- example: fragment -->    not a program (a Package.swift excerpt, a signature): skipped, and
                                  listed as skipped
    <!-- example: petstore -->    uses the pet store client swift-openapi-generator would make
                                  (found without the marker when a block names `Client(`,
                                  `Components.`, `Operations.` or `Servers.`): checked with
                                  Scripts/doc-examples/Petstore.swift, a client of that shape

Exits non-zero when a block does not type-check, printing the compiler's errors with the block's file
and line.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAIT_IMPORTS = {
    "RequestsAsyncHTTPClient", "RequestsOpenAPI", "OpenAPIRuntime", "OpenAPIURLSession",
    # The Tracing trait's: swift-distributed-tracing's and swift-metrics' modules.
    "Tracing", "Instrumentation", "InMemoryTracing", "CoreMetrics", "Metrics", "MetricsTestKit",
    # The MCP trait's: the transport and the MCP Swift SDK.
    "RequestsMCP", "MCP",
}
MARKER = re.compile(r"<!--\s*example:\s*([a-z-]+)\s*-->")


def pages():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "Documentation").glob("*.md"))
    yield from sorted(ROOT.glob("Sources/*/*.docc/**/*.md"))


class Unit:
    def __init__(self, page, line, marker):
        self.page, self.line, self.marker = page, line, marker
        self.blocks = []  # (first line in the page, text)

    @property
    def name(self):
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def text(self):
        return "".join(text for _, text in self.blocks)

    @property
    def imports(self):
        return set(re.findall(r"^\s*(?:@\w+\s+)*import\s+(\w+)", self.text, re.M))

    @property
    def uses_petstore(self):
        # An MCP client (`Client(name:version:)`) is the MCP SDK's, not the pet store's.
        return self.marker == "petstore" or (bool(PETSTORE.search(self.text)) and "MCP" not in self.imports)

    @property
    def needs_traits(self):
        return (bool((self.imports | set(default_imports(self))) & TRAIT_IMPORTS) or self.uses_petstore
                or page_name(self) in TRAIT_PAGES)


def units():
    """The programs of every page: a block, with the blocks that continue it."""
    for page in pages():
        lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
        previous = None
        i = 0
        while i < len(lines):
            if lines[i].strip() != "```swift":
                i += 1
                continue
            marker = None
            j = i - 1
            while j >= 0 and lines[j].strip() == "":
                j -= 1
            if j >= 0 and (m := MARKER.search(lines[j])):
                marker = m.group(1)
            start = i + 1
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            text = "".join(lines[start:i])
            if marker not in (None, "continues", "fragment", "petstore"):
                raise SystemExit(f"{page.relative_to(ROOT)}:{start}: unknown marker 'example: {marker}'")
            if marker == "continues":
                if previous is None:
                    raise SystemExit(f"{page.relative_to(ROOT)}:{start}: 'continues' with no block before it")
                previous.blocks.append((start, text))
            else:
                unit = Unit(page, start, marker)
                unit.blocks.append((start, text))
                previous = unit
                yield unit
            i += 1


def include_flags(build):
    """-I for the modules of a build, and the folders of its C modules' maps (SwiftNIO's and the
    others a trait brings)."""
    modules = build / "debug" / "Modules"
    if not modules.is_dir():
        raise SystemExit(f"doc-examples: {modules} is missing: build first (swift build)")
    folders = set()
    for path in (build / "debug").glob("*.build/module.modulemap"):
        folders.add(path.parent)
    checkouts = build / "checkouts"
    if checkouts.is_dir():
        for path in checkouts.glob("*/Sources/*/include/module.modulemap"):
            folders.add(path.parent)
    flags = ["-I", str(modules)]
    for folder in sorted(folders):
        flags += ["-Xcc", f"-I{folder}"]
    return flags


TESTING_PAGES = ("Documentation/Testing.md", "Sources/RequestsTesting/")
# The pages about a trait's module: their snippets import it.
TRAIT_PAGES = {
    "Documentation/AsyncHTTPClient.md": ["RequestsAsyncHTTPClient"],
    "Documentation/OpenAPI.md": ["RequestsOpenAPI", "OpenAPIRuntime"],
    "Sources/Requests/Requests.docc/GeneratedOpenAPIClients.md": ["RequestsOpenAPI", "OpenAPIRuntime"],
    # The Tracing trait's page: `RequestOptions.telemetry` and `Telemetry` exist with the trait only.
    "Documentation/Tracing.md": ["Requests"],
}
# What a block names of the Petstore client swift-openapi-generator makes.
PETSTORE = re.compile(r"\bClient\(|\bComponents\.|\bOperations\.|\bServers\.")


def page_name(unit):
    return str(unit.page.relative_to(ROOT))


def default_imports(unit):
    """The imports of a snippet that has none."""
    if unit.imports:
        return []
    page = page_name(unit)
    modules = TRAIT_PAGES.get(page, ["Requests"])
    if page.startswith(TESTING_PAGES) or re.search(r"#expect|#require|@Test\b", unit.text):
        modules = modules + ["RequestsTesting", "Testing"]
    return modules


def build_support(flags, work):
    """The module of the placeholders (Scripts/doc-examples/Support.swift)."""
    support = ROOT / "Scripts" / "doc-examples" / "Support.swift"
    command = ["swiftc", "-emit-module", "-module-name", "DocSupport", "-parse-as-library", "-swift-version", "6",
               *flags, str(support), "-emit-module-path", str(Path(work) / "DocSupport.swiftmodule")]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"doc-examples: Support.swift does not compile:\n{result.stdout}{result.stderr}")
    return ["-I", work, "-Xfrontend", "-import-module", "-Xfrontend", "DocSupport"]


def petstore_sources():
    return [str(ROOT / "Scripts" / "doc-examples" / "Petstore.swift")]


def check(unit, flags, work):
    source = Path(work) / "blocks" / "main.swift"
    source.parent.mkdir(exist_ok=True)
    # Line directives point the compiler's messages at the page and its lines.
    text = "".join(f"import {module}\n" for module in default_imports(unit))
    for first, block in unit.blocks:
        text += f'#sourceLocation(file: "{unit.page.relative_to(ROOT)}", line: {first + 1})\n' + block
    text += "#sourceLocation()\n"
    source.write_text(text, encoding="utf-8")
    command = ["swiftc", "-typecheck", "-swift-version", "6", *flags, str(source)]
    if "@main" in unit.text:
        command.append("-parse-as-library")
    if unit.uses_petstore:
        command += petstore_sources()
    result = subprocess.run(command, capture_output=True, text=True)
    output = result.stdout + result.stderr
    # A deprecated API, or a result the reader must not drop, is a fault of the example too.
    faulted = re.search(r"warning: .*(deprecated|result of call to '(request|upload)\(.* is unused)", output)
    return result.returncode == 0 and not faulted, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=".build", help="the build folder (.build, or .build-ahc for the traits)")
    parser.add_argument("--list", action="store_true", help="list the blocks and stop")
    args = parser.parse_args()
    build = (ROOT / args.build).resolve()
    traits = build.name != ".build"
    all_units = list(units())
    if args.list:
        for unit in all_units:
            needs = "traits" if unit.needs_traits else "-"
            print(f"{unit.name}\t{len(unit.blocks)} block(s)\t{unit.marker or '-'}\t{needs}")
        return 0
    flags = include_flags(build)
    checked, skipped, failed = 0, [], []
    with tempfile.TemporaryDirectory() as work:
        flags += build_support(flags, work)
        for unit in all_units:
            if unit.marker == "fragment":
                skipped.append(unit.name)
                continue
            if unit.needs_traits != traits:
                continue
            ok, output = check(unit, flags, work)
            checked += 1
            if not ok:
                failed.append(unit.name)
                print(f"doc-examples: {unit.name} does not compile:\n{output}", file=sys.stderr)
    label = "with the traits" if traits else "without a trait"
    print(f"doc-examples: {checked} programs {label} checked, {len(failed)} failed; "
          f"{len(skipped)} fragments skipped: {', '.join(skipped) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
