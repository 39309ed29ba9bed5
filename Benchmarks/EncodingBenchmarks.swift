import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParameterEncoding

// MARK: - EncodingBenchmarks

/// Every encoder against its Foundation baseline, measured in the same run.
struct EncodingBenchmarks {
    let measure: Measure
    let includeLargeScaling: Bool
    /// Measure only our side of each row (`--profile`), so that a profiler sees only our code.
    var oursOnly = false

    func run(filter: String?) throws -> [Row] {
        var rows: [Row] = []
        func selected(_ group: String, _ name: String) -> Bool {
            filter.map { "\(group) \(name)".localizedCaseInsensitiveContains($0) } ?? true
        }
        func add(_ group: String, _ name: String, baseline baselineName: String, bytes: Int, operationsPerCall: Int = 1,
                 large: Bool = false, target: String = "", ours: () throws -> Void, baseline: (() throws -> Void)?) throws {
            guard selected(group, name) else { return }
            rows.append(try row(group, name, baseline: baselineName, bytes: bytes, operationsPerCall: operationsPerCall,
                                large: large, target: target, ours: ours, baseline: baseline))
        }

        let encoding = URLEncoding.default
        let allowed = CharacterSet(charactersIn: URLEncoding.Escaping.rfc3986.allowedCharacters)
        let alamofire = AlamofireStyleQuery(allowed: allowed)

        // escape
        for (name, text) in [("ASCII 1 KiB", Workloads.asciiText), ("CJK/emoji 1 KiB", Workloads.unicodeText), ("already safe 1 KiB", Workloads.safeText)] {
            try add("escape", name, baseline: "addingPercentEncoding", bytes: encoding.escape(text).utf8.count,
                ours: { consume(encoding.escape(text)) },
                baseline: { consume(text.addingPercentEncoding(withAllowedCharacters: allowed)) })
        }

        // query
        let flat: Parameters = Workloads.flat
        try add("query", "flat 150 pairs", baseline: "URLComponents.queryItems", bytes: try encoding.query(flat).utf8.count,
            ours: { consume(try encoding.query(flat)) },
            baseline: { consume(urlComponentsQuery(Workloads.flat)) })
        let nested = Workloads.nested
        let nestedAny: [String: Any] = nested
        try add("query", "nested 150 pairs", baseline: "Alamofire-style", bytes: try encoding.query(nested).utf8.count, target: "≥ 12x",
            ours: { consume(try encoding.query(nested)) },
            baseline: { consume(alamofire.query(nestedAny)) })

        // URLEncoding requests
        guard let url = URL(string: "https://api.example.com/v1/search?existing=1") else { return rows }
        let get = URLRequest(url: url)
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        try add("URLEncoding", "GET nested 150", baseline: "Alamofire-style", bytes: 0, target: "≥ 12x",
            ours: { consume(try encoding.encode(get, with: nested)) },
            baseline: { consume(alamofire.encodeGET(get, with: nestedAny)) })
        try add("URLEncoding", "POST nested 150", baseline: "Alamofire-style", bytes: 0, target: "≥ 12x",
            ours: { consume(try encoding.encode(post, with: nested)) },
            baseline: { consume(alamofire.encodeBody(post, with: nestedAny)) })

        // Bodies
        let json = JSONEncoding.default
        // Both sides build the same request: the body and its `Content-Type`, as Alamofire's
        // `JSONEncoding` does around `JSONSerialization`.
        try add("JSONEncoding", "nested 150", baseline: "JSONSerialization", bytes: try json.data(for: nested).count, target: "≥ 25x",
            ours: { consume(try json.encode(post, with: nested)) },
            baseline: { consume(try Self.jsonRequest(post, body: JSONSerialization.data(withJSONObject: nestedAny, options: [.sortedKeys]))) })
        let plistValue = nested
        for (name, encoder, format) in [("XML", PropertyListEncoding.xml, PropertyListSerialization.PropertyListFormat.xml),
                                        ("binary", .binary, .binary)] {
            try add("PropertyListEncoding", "\(name) nested 150", baseline: "PropertyListSerialization",
                bytes: try encoder.data(for: plistValue).count, target: "≥ 8x",
                ours: { consume(try encoder.encode(post, with: plistValue)) },
                baseline: { consume(try PropertyListSerialization.data(fromPropertyList: plistValue, format: format, options: 0)) })
        }

        // Encodable parameters: the same data as an `Encodable` value.
        let model = EncodableTree(nested)
        let jsonEncoder = JSONEncoder()
        jsonEncoder.outputFormatting = .sortedKeys
        let formEncoder = URLEncodedFormEncoder()
        try add("Encodable, nested 150", "URLEncodedFormEncoder", baseline: "JSONEncoder", bytes: try formEncoder.encode(model).utf8.count, target: "≥ 3x",
            ours: { consume(try formEncoder.encode(model)) },
            baseline: { consume(try jsonEncoder.encode(model)) })
        // Both sides build the same request, as Alamofire's `JSONParameterEncoder` does around
        // `JSONEncoder`; the next row leaves the request out.
        let jsonParameters = JSONParameterEncoder.default
        try add("Encodable, nested 150", "JSONParameterEncoder POST", baseline: "JSONEncoder", bytes: try jsonEncoder.encode(model).count, target: "≥ 3x",
            ours: { consume(try jsonParameters.encode(model, into: post)) },
            baseline: { consume(try Self.jsonRequest(post, body: jsonEncoder.encode(model))) })
        let jsonBody = JSONBody(model, encoder: jsonEncoder)
        try add("Encodable, nested 150", "JSON body alone", baseline: "JSONEncoder", bytes: try jsonEncoder.encode(model).count,
            ours: { consume(try jsonBody.encode()) },
            baseline: { consume(try jsonEncoder.encode(model)) })
        // The floor under any `Encoder`: the value's own `encode(to:)` with nothing kept.
        try add("Encodable, nested 150", "encode(to:) alone", baseline: "JSONEncoder", bytes: 0,
            ours: { try DiscardingEncoder().encode(model) },
            baseline: { consume(try jsonEncoder.encode(model)) })

        // Every encoder on other shapes of input.
        rows += try shapeRows(selected: selected)

        // Scaling: cost per pair should stay flat. A large size is measured against 1,000 pairs
        // in alternating rounds (the machine's speed drifts between rows by more than the
        // targets' margins): per pair, within 1.5x at 100,000 and 2.5x at 1,000,000. The memory a
        // large call needs beyond its input: at most twice what it writes.
        let reference = Workloads.scaling(1_000)
        for count in includeLargeScaling ? [10, 1_000, 100_000, 1_000_000] : [10, 1_000, 100_000]
        where selected("scaling", "query, per pair of \(count)") || selected("scaling", "JSONEncoding, per pair of \(count)") {
            let parameters = Workloads.scaling(count)
            for (encoder, body) in [("query", { (parameters: Parameters) in try encoding.query(parameters).utf8.count }),
                                    ("JSONEncoding", { (parameters: Parameters) in try json.data(for: parameters).count })]
                as [(String, (Parameters) throws -> Int)] {
                let name = "\(encoder), per pair of \(count)"
                guard selected("scaling", name) else { continue }
                guard count >= 100_000 else {
                    rows.append(try row("scaling", name, baseline: "-", bytes: 0, operationsPerCall: count,
                                        ours: { consume(try body(parameters)) }, baseline: nil))
                    continue
                }
                let measured = try row("scaling", name, baseline: "1000 pairs", bytes: 0, operationsPerCall: count, large: true,
                                       ours: { consume(try body(parameters)) }, baseline: { consume(try body(reference)) })
                // Per pair on both sides: the baseline's call holds 1,000 pairs.
                var scaled = Row(group: measured.group, name: measured.name, baselineName: "1000 pairs, per pair", throughput: .none,
                                 ours: measured.ours, baseline: measured.baseline.map { $0 / 1_000 })
                scaled.pairedRatio = measured.pairedRatio.map { $0 * Double(count) / 1_000 }
                scaled.peakMemory = measured.peakMemory
                scaled.extraMemory = measured.extraMemory
                scaled.outputBytes = try body(parameters)
                scaled.target = (count >= 1_000_000 ? "≥ 0.4x" : "≥ 0.67x") + (measured.extraMemory == nil ? "" : ", extra ≤ 2x output")
                rows.append(scaled)
            }
        }
        return rows
    }

    /// Measures one row: ours against `baseline` in alternating rounds, or ours alone.
    ///
    /// `operationsPerCall` turns a call's time into a time per item (per pair, for scaling rows);
    /// `large` rows report the peak memory reached while ours ran, and how far it rose above
    /// the resident size before (the input's own memory is resident already).
    func row(_ group: String, _ name: String, baseline baselineName: String, bytes: Int, operationsPerCall: Int = 1,
             large: Bool = false, target: String = "", ours: () throws -> Void, baseline: (() throws -> Void)?) throws -> Row {
        let before = large ? PeakMemory.reset() : nil
        var row: Row
        if let baseline, !oursOnly {
            // The rounds interleave the baseline, so a large row's peak comes from one call of
            // ours alone, before them.
            var peak: Int?
            if large {
                try ours()
                peak = PeakMemory.peak()
            }
            let (oursTime, baselineTime, ratio) = try measure.paired(ours: ours, baseline: baseline)
            row = Row(group: group, name: name, baselineName: baselineName, throughput: .bytes(bytes),
                      ours: oursTime / Double(operationsPerCall), baseline: baselineTime)
            row.pairedRatio = ratio
            row.peakMemory = peak
        } else {
            let oursTime = try measure.nanosecondsPerOperation(ours) / Double(operationsPerCall)
            row = Row(group: group, name: name, baselineName: baselineName, throughput: .bytes(bytes), ours: oursTime, baseline: nil)
            row.peakMemory = large ? PeakMemory.peak() : nil
        }
        if let before, let peak = row.peakMemory {
            row.extraMemory = max(0, peak - before)
        }
        row.target = target
        return row
    }

    /// `request` with `body` and a JSON `Content-Type`, built the way Alamofire's JSON encoders
    /// build it: the baseline's share of the request work the encoders' rows include.
    static func jsonRequest(_ request: URLRequest, body: Data) -> URLRequest {
        var request = request
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.httpBody = body
        return request
    }
}
