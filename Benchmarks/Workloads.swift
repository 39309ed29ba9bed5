import Foundation
import ParameterEncoding

// MARK: - Workloads

/// The fixed inputs every run measures, so numbers compare across runs and machines.
enum Workloads {
    /// About 1 KiB of ASCII prose with spaces and punctuation.
    static let asciiText = String(
        repeating: "The quick brown fox jumps over the lazy dog; 100% sure & ready? (yes/no) ",
        count: 14
    )

    /// About 1 KiB of Japanese, Chinese, emoji with ZWJ sequences, flags and combining marks.
    static let unicodeText = String(
        repeating: "日本語のテキスト 中文 👨‍👩‍👧‍👦 🇯🇵🇫🇷 café e\u{301} ",
        count: 12
    )

    /// About 1 KiB of characters that need no escaping.
    static let safeText = String(repeating: "already-safe_text.with~only/allowed?characters", count: 22)

    /// 150 flat string pairs.
    static let flat: [String: String] = Dictionary(uniqueKeysWithValues: (0..<150).map { index in
        ("field_\(index)", index.isMultiple(of: 3) ? "value \(index) & more" : "value\(index)")
    })

    /// A nested dictionary with 150 leaf pairs: objects, arrays of objects, arrays of scalars.
    static let nested: Parameters = {
        var parameters: Parameters = [:]
        parameters["user"] = [
            "name": "Zoë Ångström", "email": "zoe@example.com", "age": 34, "verified": true,
            "address": ["street": "1 Infinite Loop", "city": "Cupertino", "zip": "95014",
                        "geo": ["lat": 37.33182, "lng": -122.03118]] as Parameters,
            "roles": ["admin", "editor", "viewer"],
            "locale": "ja_JP", "timezone": "Asia/Tokyo",
        ] as Parameters
        parameters["items"] = (0..<10).map { index -> Parameters in
            [
                "id": 1_000 + index, "name": "Item \(index) – 日本", "price": 9.99 + Double(index),
                "quantity": index + 1, "tags": ["sale", "new", "tag\(index)"],
                "attributes": ["color": "red", "size": "M"] as Parameters,
            ]
        }
        parameters["filters"] = (0..<20).map { "filter \($0)" }
        for index in 0..<14 {
            parameters["option_\(index)"] = index.isMultiple(of: 2) ? "on" : "value with spaces \(index)"
        }
        return parameters
    }()

    /// `count` flat integer pairs, for the scaling rows.
    static func scaling(_ count: Int) -> Parameters {
        var parameters: Parameters = [:]
        parameters.reserveCapacity(count)
        for index in 0..<count { parameters["key\(index)"] = index }
        return parameters
    }
}

// MARK: - EncodableTree

/// A parameter tree as an `Encodable` value, so the `Encodable` encoders see the same data as
/// the `Parameters` ones.
enum EncodableTree: Encodable {
    case string(String), integer(Int), bool(Bool), double(Double), null
    case array([EncodableTree]), object([String: EncodableTree])

    init(_ value: Any) {
        switch value {
        case is NSNull: self = .null
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as Double: self = .double(value)
        case let value as [Any]: self = .array(value.map(EncodableTree.init))
        case let value as [String: Any]: self = .object(value.mapValues(EncodableTree.init))
        default: self = .string("\(value)")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
