#!/usr/bin/env bash
# Type-checks Documentation/Tracing.md's swift-otel example, which CI leaves out (swift-otel alone
# takes about seven minutes to build): a consumer package that depends on this repository with
# the Tracing trait and on swift-otel, whose program is the page's block that imports OTel.
#
#   Scripts/check-otel-example.sh
#
# Works in a temporary folder it removes at the end; exits non-zero when the block does not build.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=$(basename "$repo")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Consumer"
cat >"$work/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "$repo", traits: ["Tracing"]),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [
            .product(name: "Requests", package: "$name"),
            .product(name: "OTel", package: "swift-otel"),
        ]),
    ]
)
MANIFEST
# The first Swift block of the page that imports OTel.
python3 - "$repo/Documentation/Tracing.md" >"$work/Sources/Consumer/main.swift" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
for block in re.findall(r"```swift\n(.*?)```", text, re.S):
    if re.search(r"^import OTel$", block, re.M):
        print(block, end="")
        break
else:
    sys.exit("check-otel-example: no block imports OTel")
PY
(cd "$work" && swift build 2>&1 | grep -E "error|warning: |Compiling Consumer|Build complete" | grep -v "/checkouts/" )
echo "check-otel-example: the swift-otel example builds"
