import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParameterEncoding

// MARK: - Shape suite

extension EncodingBenchmarks {
    /// Every encoder on every ``Shape`` and on the ``Order`` model, each against its baseline
    /// in the same run and with its target: `URLEncoding` ≥ 12x the Alamofire-style reference on
    /// nested shapes, `JSONEncoding` ≥ 25x `JSONSerialization`, property lists ≥ 8x
    /// `PropertyListSerialization`, the `Encodable` encoders ≥ 3x `JSONEncoder`.
    ///
    /// - Parameter selected: Whether a row (group, name) is wanted.
    /// - Returns: The rows, grouped by shape.
    func shapeRows(selected: (String, String) -> Bool) throws -> [Row] {
        var rows: [Row] = []
        func add(_ name: String, baseline baselineName: String, bytes: Int, target: String,
                 ours: () throws -> Void, baseline: (() throws -> Void)?) throws {
            guard selected("shape", name) else { return }
            rows.append(try row("shape", name, baseline: baselineName, bytes: bytes, target: target, ours: ours, baseline: baseline))
        }
        guard let url = URL(string: "https://api.example.com/v1/search?existing=1") else { return rows }
        let get = URLRequest(url: url)
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        let encoding = URLEncoding.default
        let alamofire = AlamofireStyleQuery(allowed: CharacterSet(charactersIn: URLEncoding.Escaping.rfc3986.allowedCharacters))
        let json = JSONEncoding.default
        let jsonEncoder = JSONEncoder()
        jsonEncoder.outputFormatting = .sortedKeys
        let formEncoder = URLEncodedFormEncoder()
        let jsonParameters = JSONParameterEncoder.default

        // A shape is built into its inputs only when one of its rows is asked for, so that a
        // profile of one row sees that row's work.
        for shape in Shape.all where anyRow(of: shape.name, selected) {
            let parameters = shape.parameters
            let parametersAny: [String: Any] = parameters
            // The Alamofire-style reference on every shape; the target applies to nested ones.
            let queryTarget = shape.isNested ? "≥ 12x" : ""
            let queryBytes = try encoding.query(parameters).utf8.count
            try add("\(shape.name): URLEncoding GET", baseline: "Alamofire-style", bytes: queryBytes, target: queryTarget,
                ours: { consume(try encoding.encode(get, with: parameters)) },
                baseline: { consume(alamofire.encodeGET(get, with: parametersAny)) })
            try add("\(shape.name): URLEncoding POST", baseline: "Alamofire-style", bytes: queryBytes, target: queryTarget,
                ours: { consume(try encoding.encode(post, with: parameters)) },
                baseline: { consume(alamofire.encodeBody(post, with: parametersAny)) })
            try add("\(shape.name): JSONEncoding", baseline: "JSONSerialization", bytes: try json.data(for: parameters).count, target: "≥ 25x",
                ours: { consume(try json.encode(post, with: parameters)) },
                baseline: { consume(try Self.jsonRequest(post, body: JSONSerialization.data(withJSONObject: parametersAny, options: [.sortedKeys]))) })
            let plist = shape.propertyListParameters
            for (format, encoder, foundationFormat) in [("XML", PropertyListEncoding.xml, PropertyListSerialization.PropertyListFormat.xml),
                                                        ("binary", .binary, .binary)] {
                try add("\(shape.name): PropertyListEncoding \(format)", baseline: "PropertyListSerialization",
                    bytes: try encoder.data(for: plist).count, target: "≥ 8x",
                    ours: { consume(try encoder.encode(post, with: plist)) },
                    baseline: { consume(try PropertyListSerialization.data(fromPropertyList: plist, format: foundationFormat, options: 0)) })
            }
            let tree = EncodableTree(parameters)
            try encodableRows(shape.name, tree, post: post, jsonEncoder: jsonEncoder, formEncoder: formEncoder,
                              jsonParameters: jsonParameters, add: add)
        }
        guard anyRow(of: "order model", selected) else { return rows }
        try encodableRows("order model", Order.sample(), post: post, jsonEncoder: jsonEncoder, formEncoder: formEncoder,
                          jsonParameters: jsonParameters, add: add)
        return rows
    }

    /// Whether any row of the shape named `name` is selected.
    private func anyRow(of name: String, _ selected: (String, String) -> Bool) -> Bool {
        ["URLEncoding GET", "URLEncoding POST", "JSONEncoding", "PropertyListEncoding XML", "PropertyListEncoding binary",
         "URLEncodedFormEncoder", "JSONParameterEncoder POST", "encode(to:) alone, nothing kept"]
            .contains { selected("shape", "\(name): \($0)") }
    }

    /// The `Encodable` encoders' rows for one value: the form encoder and the JSON parameter
    /// encoder (with the request, as Alamofire builds it around `JSONEncoder`).
    private func encodableRows<Value: Encodable>(
        _ name: String, _ value: Value, post: URLRequest, jsonEncoder: JSONEncoder, formEncoder: URLEncodedFormEncoder,
        jsonParameters: JSONParameterEncoder,
        add: (String, String, Int, String, () throws -> Void, (() throws -> Void)?) throws -> Void
    ) throws {
        try add("\(name): URLEncodedFormEncoder", "JSONEncoder", try formEncoder.encode(value).utf8.count, "≥ 3x",
                { consume(try formEncoder.encode(value)) }, { consume(try jsonEncoder.encode(value)) })
        try add("\(name): JSONParameterEncoder POST", "JSONEncoder", try jsonEncoder.encode(value).count, "≥ 3x",
                { consume(try jsonParameters.encode(value, into: post)) },
                { consume(try Self.jsonRequest(post, body: jsonEncoder.encode(value))) })
        // The floor under any `Encoder` on this value: its own `encode(to:)` with nothing kept.
        try add("\(name): encode(to:) alone, nothing kept", "JSONEncoder", 0, "",
                { try DiscardingEncoder().encode(value) }, { consume(try jsonEncoder.encode(value)) })
    }
}
