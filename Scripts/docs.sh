#!/usr/bin/env bash
# Builds the DocC reference with the toolchain alone (no plugin, no dependency) and fails on any
# docc warning and on any public symbol without a documentation comment.
#
#   Scripts/docs.sh
#
# Writes only under .build/:
#   .build/docs/<Module>.doccarchive         one archive per module, for static hosting
#   .build/docs/swift-requests.doccarchive   all of them merged into one site, links between them working
#   .build/docs-symbol-graphs/               the symbol graphs they are made from
#   .build/docs-tmp/                         the tools' temporary files
# Preview the site: python3 -m http.server 8000 -d .build/docs/swift-requests.doccarchive
# then open http://localhost:8000/documentation/requests (or /documentation/parameterencoding).
set -euo pipefail
cd "$(dirname "$0")/.."

# The documented modules, in dependency order: a module's comments and articles may link to the
# modules before it, as ``/ParameterEncoding/HTTPHeaders``. Each needs its catalog,
# Sources/<Module>/<Module>.docc, with a landing page named after the module.
MODULES=(ParameterEncoding Requests RequestsTesting)
# The catalogs have no Info.plist; their bundle identifiers are this prefix and the module's name
# (the package owns no domain to reverse; the identifier only names the archive in doc:// links).
BUNDLE_PREFIX="swift-requests"
SITE_NAME="swift-requests"

DOCS=.build/docs
GRAPHS=.build/docs-symbol-graphs
# What the tools write on their way stays under .build too: the temporary directories SwiftPM
# and the driver leave behind, and SwiftPM's manifest cache (in ~/.cache unless told).
export TMPDIR="$PWD/.build/docs-tmp"

for module in "${MODULES[@]}"; do
  if [ ! -f "Sources/$module/$module.docc/$module.md" ]; then
    echo "docs.sh: $module is listed in MODULES but has no catalog: Sources/$module/$module.docc/$module.md is missing" >&2
    exit 1
  fi
done

start=$(date +%s)
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"

# 1. Symbol graphs of the public symbols. `swift build` compiles the modules (a no-op after a
#    build), then swift-symbolgraph-extract reads each module's .swiftmodule, .swiftdoc and
#    .swiftsourceinfo: about a second per module. (`swift package dump-symbol-graph` fails on the
#    test modules `swift build` does not build; `-Xswiftc -emit-symbol-graph` rebuilds everything
#    with other flags and puts a re-exported ParameterEncoding inside Requests' graph.)
for module in "${MODULES[@]}"; do
  swift build --manifest-cache local --target "$module"
done
bin=$(swift build --manifest-cache local --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if [ "$(uname)" = Darwin ]; then
  sdk=(-sdk "$(xcrun --sdk macosx --show-sdk-path)")
fi
rm -rf "$GRAPHS"
mkdir -p "$GRAPHS/extracted"
for module in "${MODULES[@]}"; do
  # -emit-extension-block-symbols: members of extensions to other modules' types (URLRequest,
  # Error, String…) get pages under their extended module, as the DocC plugin does it.
  swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$triple" ${sdk[@]+"${sdk[@]}"} \
    -minimum-access-level public -emit-extension-block-symbols \
    -module-cache-path "$GRAPHS/module-cache" -output-dir "$GRAPHS/extracted"
  # Only this module's files: <Module>.symbols.json and <Module>@<Extended>.symbols.json.
  mkdir -p "$GRAPHS/$module"
  cp "$GRAPHS/extracted/$module.symbols.json" "$GRAPHS/$module/"
  for file in "$GRAPHS/extracted/$module@"*.symbols.json; do
    if [ -e "$file" ]; then cp "$file" "$GRAPHS/$module/"; fi
  done
done

# 2. One archive per module. Every archive is linkable (external link support), and each module
#    gets the archives before it as dependencies, so that its links into them resolve.
rm -rf "$DOCS"
mkdir -p "$DOCS"
archives=()
for module in "${MODULES[@]}"; do
  dependencies=()
  for archive in ${archives[@]+"${archives[@]}"}; do
    dependencies+=(--dependency "$archive")
  done
  echo "docs.sh: docc convert $module"
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$GRAPHS/$module" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "$BUNDLE_PREFIX.$module" \
    --output-path "$DOCS/$module.doccarchive" \
    --transform-for-static-hosting \
    --enable-experimental-external-link-support \
    ${dependencies[@]+"${dependencies[@]}"} \
    --warnings-as-errors
  archives+=("$DOCS/$module.doccarchive")
done

# 3. One site with every module, where links from one module to another work.
docc merge "${archives[@]}" --synthesized-landing-page-name "$SITE_NAME" --output-path "$DOCS/$SITE_NAME.doccarchive"

# 4. Every public symbol documented (Scripts/check_doc_coverage.py has the rule and its reasons):
#    each public or open declaration written in the module's sources needs a comment of its own.
#    Ignored: extension blocks; members the compiler copies onto our types from protocol
#    extensions (identifiers with ::SYNTHESIZED::, such as HTTPHeaders.filter(_:)); declarations
#    with no place in the sources (an enum's implicit init(rawValue:)). Counted as missing: a
#    comment the graph took from another module, which is what an undocumented implementation of
#    a standard-library requirement (a bare `public var description`) gets.
status=0
for module in "${MODULES[@]}"; do
  python3 Scripts/check_doc_coverage.py "$module" "$GRAPHS/$module" || status=1
done
if [ "$status" != 0 ]; then
  echo "docs.sh: public symbols without documentation comments (listed above)" >&2
  exit 1
fi

echo "docs.sh: $DOCS/$SITE_NAME.doccarchive in $(( $(date +%s) - start )) s"
echo "docs.sh: preview with: python3 -m http.server 8000 -d $DOCS/$SITE_NAME.doccarchive, then http://localhost:8000/documentation/"
