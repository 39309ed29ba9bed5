import Foundation
import LoopbackFixture
import ParameterEncoding

/// Random parameter trees of strings, integers, booleans, arrays and dictionaries.
enum RandomParameters {
    static let words = ["a", "b", "key", "Key", "x y", "&", "=", "a=b&c", "[", "]", "[0]", "%", "+", "#", "/?", "~",
                        "é", "e\u{301}", "日本", "👨‍👩‍👧", "🇯🇵", "", "-1", "null", "ü"]

    static func tree(using generator: inout SplitMix64, depth: Int = 0) -> Parameters {
        var parameters: Parameters = [:]
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            parameters[word(&generator)] = value(using: &generator, depth: depth + 1)
        }
        return parameters
    }

    static func value(using generator: inout SplitMix64, depth: Int) -> any Sendable {
        switch Int.random(in: 0..<(depth > 3 ? 3 : 5), using: &generator) {
        case 0: return word(&generator)
        case 1: return Int.random(in: -1_000_000...1_000_000, using: &generator)
        case 2: return Bool.random(using: &generator)
        case 3:
            return (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(using: &generator, depth: depth + 1) }
        default: return tree(using: &generator, depth: depth)
        }
    }

    static func word(_ generator: inout SplitMix64) -> String {
        words[Int.random(in: 0..<words.count, using: &generator)] + (Bool.random(using: &generator) ? "" : String(Int.random(in: 0...9, using: &generator)))
    }
}

/// An independent, naive model of URL encoding: keys built by concatenation, keys sorted at
/// every level, and a decoder that splits the query and percent-decodes each part.
enum QueryOracle {
    struct DecodingFailed: Error { let part: String }

    static func flatten(_ parameters: Parameters, arrayEncoding: URLEncoding.ArrayEncoding) -> [[String]] {
        parameters.sorted { canonicallyPrecedes($0.key, $1.key) }.flatMap { flatten(key: $0.key, value: $0.value, arrayEncoding) }
    }

    private static func flatten(key: String, value: Any, _ arrayEncoding: URLEncoding.ArrayEncoding) -> [[String]] {
        if let dictionary = value as? Parameters {
            return dictionary.sorted { canonicallyPrecedes($0.key, $1.key) }.flatMap { flatten(key: "\(key)[\($0.key)]", value: $0.value, arrayEncoding) }
        }
        if let array = value as? [any Sendable] {
            return array.enumerated().flatMap { flatten(key: arrayEncoding.encode(key: key, atIndex: $0.offset), value: $0.element, arrayEncoding) }
        }
        if let bool = value as? Bool { return [[key, bool ? "true" : "false"]] }
        return [[key, "\(value)"]]
    }

    /// NFC scalar values in turn, then the raw scalars for canonically equal keys.
    static func canonicallyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        let right = rhs.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        if left != right { return left.lexicographicallyPrecedes(right) }
        return lhs.unicodeScalars.map(\.value).lexicographicallyPrecedes(rhs.unicodeScalars.map(\.value))
    }

    static func decode(_ query: String) throws -> [[String]] {
        guard !query.isEmpty else { return [] }
        return try query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw DecodingFailed(part: String(pair)) }
            return try parts.map { part in
                guard let decoded = String(part).removingPercentEncoding else { throw DecodingFailed(part: String(part)) }
                return decoded
            }
        }
    }
}

/// Compares what a serializer read back with the tree that was written.
enum ReadBack {
    /// Whether `read` is `expected`: same structure, strings, dates and data, integers of the
    /// same value, booleans as booleans (not 0 and 1), doubles as `doublesMatch` says.
    static func matches(_ read: Any, _ expected: Any, doublesMatch: (_ read: Double, _ written: Double) -> Bool) -> Bool {
        func number() -> NSNumber? {
            guard let number = read as? NSNumber, !number.isBoolean else { return nil }
            return number
        }
        switch expected {
        case let dictionary as Parameters:
            guard let other = read as? [String: Any], other.count == dictionary.count else { return false }
            return dictionary.allSatisfy { key, value in other[key].map { matches($0, value, doublesMatch: doublesMatch) } ?? false }
        case let array as [any Sendable]:
            guard let other = read as? [Any], other.count == array.count else { return false }
            return zip(other, array).allSatisfy { matches($0, $1, doublesMatch: doublesMatch) }
        case let text as String:
            return read as? String == text
        case let bool as Bool:
            if type(of: read) == Bool.self { return read as? Bool == bool }
            guard let number = read as? NSNumber, number.isBoolean else { return false }
            return number.boolValue == bool
        case let integer as Int:
            return number()?.int64Value == Int64(integer)
        case let unsigned as UInt64:
            return number()?.uint64Value == unsigned
        case let double as Double:
            return number().map { doublesMatch($0.doubleValue, double) } ?? false
        case let date as Date:
            return read as? Date == date
        case let data as Data:
            return read as? Data == data
        case is NSNull:
            return read is NSNull
        default:
            return false
        }
    }
}

/// A coding key of any string, for hand-written `encode(to:)` methods in tests.
struct StringKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
