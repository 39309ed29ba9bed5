#!/usr/bin/env bash
# Builds the fuzz binary (libFuzzer + AddressSanitizer) and runs targets.
#
#   Fuzz/fuzz.sh build                 build .build-fuzz/fuzz
#   Fuzz/fuzz.sh run TARGET [SECONDS]  fuzz one target (default 30 s) from its seed corpus
#   Fuzz/fuzz.sh all [SECONDS]         every target in turn (CI runs this with 20 s)
#   Fuzz/fuzz.sh list                  the targets
#
# Run for hours: Fuzz/fuzz.sh run query 14400. New inputs go to .build-fuzz/corpus/TARGET; a failing
# input is written to .build-fuzz/crash-*, and `FUZZ_TARGET=TARGET .build-fuzz/fuzz FILE` replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-fuzz
targets=(escape query json plist multipart headers form lines sse cache)

build() {
    mkdir -p "$out"
    local flags=(-O -sanitize=fuzzer,address -parse-as-library -package-name swift_requests)
    # ParameterEncoding as a static module, then Requests and the targets as one module, so the
    # targets reach the internal line splitter and event parser.
    swiftc "${flags[@]}" -module-name ParameterEncoding -emit-module -emit-module-path "$out/ParameterEncoding.swiftmodule" \
        -emit-library -static -o "$out/libParameterEncoding.a" $(find Sources/ParameterEncoding -name '*.swift' | sort)
    swiftc "${flags[@]}" -module-name Requests -I "$out" -L "$out" -lParameterEncoding \
        $(find Sources/Requests Fuzz/Sources -name '*.swift' | sort) -o "$out/fuzz"
}

run() {
    local target=$1 seconds=${2:-30} log status=0
    [ -x "$out/fuzz" ] || build
    mkdir -p "$out/corpus/$target"
    log="$out/log-$target.txt"
    echo "== $target, $seconds s"
    # The whole log goes to a file (a failure's report can be long); the summary is printed.
    FUZZ_TARGET=$target "$out/fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/crash-$target-" -print_final_stats=1 \
        "$out/corpus/$target" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [ "$status" != 0 ]; then
        grep -E "PROPERTY FAILED|ERROR|SUMMARY|Test unit written" "$log" | head -20 >&2 || true
        echo "fuzz target $target failed (exit $status); the log is $log" >&2
        return 1
    fi
}

case "${1:-}" in
    build) build ;;
    run) run "$2" "${3:-30}" ;;
    all) build; for target in "${targets[@]}"; do run "$target" "${2:-30}"; done ;;
    list) printf '%s\n' "${targets[@]}" ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
esac
