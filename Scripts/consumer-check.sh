#!/usr/bin/env bash
# Checks this repository the way a user's package meets it, as a path dependency:
#
#   1. a consumer that does not enable the AsyncHTTPClient trait resolves no package at all;
#   2. a consumer that writes `traits: ["AsyncHTTPClient"]` builds, and its program sends one GET
#      over AsyncHTTPClientTransport to the loopback server (Tests/Fixtures/loopback_server.py,
#      127.0.0.1 only) and prints the status;
#   3. a consumer that writes `traits: ["OpenAPI"]` resolves swift-openapi-runtime and
#      swift-http-types and nothing else (no SwiftNIO), builds, and sends one operation through
#      SessionClientTransport to the loopback server;
#   4. a consumer that writes `traits: ["Tracing"]` resolves swift-distributed-tracing and
#      swift-metrics and nothing else, bootstraps an in-memory tracer for its process, and sends
#      one traced call to the loopback server, which receives the trip's span in its fields;
#   5. a consumer that writes `traits: ["MCP"]` builds the MCP Swift SDK and no SwiftNIO module
#      (the SDK's manifest names SwiftNIO for its own conformance server, so resolution lists it),
#      and calls one tool of the Python reference SDK's server (Tests/Fixtures/mcp_server.py) with
#      the SDK's Client over SessionMCPTransport.
#
#   Scripts/consumer-check.sh
#
# Works in a temporary folder it removes at the end; builds the consumer in debug (a few minutes:
# it builds AsyncHTTPClient and SwiftNIO). Exits non-zero on the first check that fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# SwiftPM names a path dependency after its folder.
name=$(basename "$repo")
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# write_consumer DIR TRAITS PRODUCT [PACKAGES PRODUCTS]: a package whose executable depends on
# PRODUCT of this repository (with TRAITS, such as `, traits: ["OpenAPI"]`), and on the further
# packages and products given, each list starting with ", ".
write_consumer() {
  local dir=$1 traits=$2 product=$3 packages=${4:-} products=${5:-}
  mkdir -p "$dir/Sources/Consumer"
  cat >"$dir/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "$repo"$traits)$packages],
    targets: [.executableTarget(name: "Consumer", dependencies: [.product(name: "$product", package: "$name")$products])]
)
EOF
}

# 1. Without the trait: nothing resolved.
write_consumer "$work/plain" "" "Requests"
cat >"$work/plain/Sources/Consumer/main.swift" <<'EOF'
import Requests
print(Session.self)
EOF
(cd "$work/plain" && swift package resolve)
if [ -n "$(ls -A "$work/plain/.build/checkouts" 2>/dev/null)" ]; then
  echo "consumer-check: a consumer without the trait resolved: $(ls "$work/plain/.build/checkouts" | tr '\n' ' ')" >&2
  exit 1
fi
echo "consumer-check: without the trait, nothing resolved"

# 2. With the trait: one request over AsyncHTTPClientTransport.
write_consumer "$work/ahc" ', traits: ["AsyncHTTPClient"]' "RequestsAsyncHTTPClient"
# One import: RequestsAsyncHTTPClient re-exports Requests (and Foundation with it).
cat >"$work/ahc/Sources/Consumer/main.swift" <<'EOF'
import RequestsAsyncHTTPClient

let session = Session(transport: AsyncHTTPClientTransport())
let response = try await session.request(CommandLine.arguments[1], parameters: ["from": "consumer"])
print("status=\(response.statusCode) bytes=\(response.data.count)")
try await session.shutdown()
EOF
(cd "$work/ahc" && swift build 2>&1 | tail -3)
[ -n "$(ls -A "$work/ahc/.build/checkouts" 2>/dev/null)" ] || { echo "consumer-check: the trait resolved nothing" >&2; exit 1; }

# 3. With the OpenAPI trait alone: the runtime and the HTTP types, nothing of SwiftNIO.
write_consumer "$work/openapi" ', traits: ["OpenAPI"]' "RequestsOpenAPI" \
  ', .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"), .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0")' \
  ', .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"), .product(name: "HTTPTypes", package: "swift-http-types")'
# RequestsOpenAPI re-exports Requests; the OpenAPI types come from their own modules, as in a
# generated client.
cat >"$work/openapi/Sources/Consumer/main.swift" <<'EOF'
import HTTPTypes
import OpenAPIRuntime
import RequestsOpenAPI

let transport = SessionClientTransport(Session())
let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/anything/pets?tag=a%20b")
let (response, body) = try await transport.send(request, body: nil, baseURL: URL(string: CommandLine.arguments[1])!, operationID: "listPets")
let text = try await String(collecting: body ?? HTTPBody(), upTo: 1 << 20)
print("status=\(response.status.code) echoed-query=\(text.contains("\"query\": \"tag=a%20b\""))")
EOF
(cd "$work/openapi" && swift package resolve)
resolved=$(ls "$work/openapi/.build/checkouts" | sort | tr '\n' ' ')
if [ "$resolved" != "swift-http-types swift-openapi-runtime " ]; then
  echo "consumer-check: the OpenAPI trait resolved: $resolved (expected swift-http-types swift-openapi-runtime)" >&2
  exit 1
fi
echo "consumer-check: with the OpenAPI trait, resolved: $resolved"
(cd "$work/openapi" && swift build 2>&1 | tail -3)

# 4. With the Tracing trait alone: the tracing and metrics packages, nothing else.
write_consumer "$work/tracing" ', traits: ["Tracing"]' "Requests" \
  ', .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0")' \
  ', .product(name: "InMemoryTracing", package: "swift-distributed-tracing")'
cat >"$work/tracing/Sources/Consumer/main.swift" <<'EOF'
import InMemoryTracing
import Instrumentation
import Requests

let tracer = InMemoryTracer()
InstrumentationSystem.bootstrap(tracer)
let response = try await Session().request(CommandLine.arguments[1])
struct Echo: Decodable { let headers: [[String]] }
let received = try response.decode(Echo.self).headers.first { $0.first?.lowercased() == InMemoryTracer.spanIDKey }?.last
let spans = tracer.finishedSpans
let trip = spans.first { $0.spanContext.parentSpanID != nil }
print("status=\(response.statusCode) spans=\(spans.count) server-joined-trip=\(received != nil && received == trip?.spanContext.spanID)")
EOF
(cd "$work/tracing" && swift package resolve)
resolved=$(ls "$work/tracing/.build/checkouts" | sort | tr '\n' ' ')
if [ "$resolved" != "swift-distributed-tracing swift-metrics " ]; then
  echo "consumer-check: the Tracing trait resolved: $resolved (expected swift-distributed-tracing swift-metrics)" >&2
  exit 1
fi
echo "consumer-check: with the Tracing trait, resolved: $resolved"
(cd "$work/tracing" && swift build 2>&1 | tail -3)

# 5. With the MCP trait alone: the SDK built, nothing of SwiftNIO compiled.
write_consumer "$work/mcp" ', traits: ["MCP"]' "RequestsMCP" \
  ', .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1")' \
  ', .product(name: "MCP", package: "swift-sdk")'
cat >"$work/mcp/Sources/Consumer/main.swift" <<'EOF'
import Foundation
import MCP
import Requests
import RequestsMCP

guard let endpoint = URL(string: CommandLine.arguments[1]) else { fatalError("usage: Consumer MCP-ENDPOINT") }
let client = Client(name: "consumer", version: "1.0")
try await client.connect(transport: SessionMCPTransport(endpoint: endpoint))
let (content, _) = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
let sum = content.compactMap { item -> String? in if case .text(let text, _, _) = item { text } else { nil } }.joined()
await client.disconnect()
print("sum=\(sum)")
EOF
(cd "$work/mcp" && swift build 2>&1 | tail -3)
compiled_nio=$(find "$work/mcp/.build/debug/" -maxdepth 2 -name 'NIO*.swiftmodule' | head -3)
if [ -n "$compiled_nio" ]; then
  echo "consumer-check: the MCP trait compiled SwiftNIO: $compiled_nio" >&2
  exit 1
fi
echo "consumer-check: with the MCP trait, resolved: $(ls "$work/mcp/.build/checkouts" | sort | tr '\n' ' ')(no SwiftNIO module compiled)"

# The MCP server prints "PORT <n>" too and stops when its standard input closes.
exec {mcp_input}> >(exec python3 -u "$repo/Tests/Fixtures/mcp_server.py" >"$work/mcp.port" 2>"$work/mcp.log")
for _ in $(seq 1 100); do grep -q '^PORT ' "$work/mcp.port" 2>/dev/null && break; sleep 0.1; done
mcp_port=$(awk '/^PORT /{print $2}' "$work/mcp.port")
[ -n "$mcp_port" ] || { echo "consumer-check: the MCP server did not start: $(cat "$work/mcp.log")" >&2; exit 1; }
out=$("$work/mcp/.build/debug/Consumer" "http://127.0.0.1:$mcp_port/mcp")
exec {mcp_input}>&-
echo "consumer-check: with the MCP trait: $out"
[ "$out" = "sum=5" ] || { echo "consumer-check: the tool call over SessionMCPTransport did not answer 5" >&2; exit 1; }

# The server prints "PORT <n>" once it accepts, and stops when its standard input closes.
coproc SERVER { exec python3 "$repo/Tests/Fixtures/loopback_server.py"; }
server_pid=$SERVER_PID
read -r word port <&"${SERVER[0]}"
[ "$word" = PORT ] || { echo "consumer-check: the loopback server did not start" >&2; exit 1; }
out=$("$work/ahc/.build/debug/Consumer" "http://127.0.0.1:$port/anything")
echo "consumer-check: with the AsyncHTTPClient trait: $out"
case "$out" in
  status=200*) ;;
  *) echo "consumer-check: the request over AsyncHTTPClientTransport did not answer 200" >&2; exit 1 ;;
esac
out=$("$work/openapi/.build/debug/Consumer" "http://127.0.0.1:$port")
echo "consumer-check: with the OpenAPI trait: $out"
case "$out" in
  "status=200 echoed-query=true") ;;
  *) echo "consumer-check: the operation through SessionClientTransport did not come back as sent" >&2; exit 1 ;;
esac
out=$("$work/tracing/.build/debug/Consumer" "http://127.0.0.1:$port/headers")
exec {SERVER[1]}>&-
echo "consumer-check: with the Tracing trait: $out"
case "$out" in
  "status=200 spans=2 server-joined-trip=true") ;;
  *) echo "consumer-check: the traced call did not make a call span and a trip span the server joined" >&2; exit 1 ;;
esac
