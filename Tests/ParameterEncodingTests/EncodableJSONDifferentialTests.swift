import Foundation
import LoopbackFixture
import TestScheduling
import Testing
@testable import ParameterEncoding

/// The `Encodable` → JSON writer against Foundation's `JSONEncoder`, on seeded random values
/// under every option it takes: the same bytes, or an error of the same kind at the same path.
@Suite(.backgroundPriority) struct EncodableJSONDifferentialTests {
    struct CustomError: Error, Equatable {
        let what: String
    }

    /// A `JSONEncoder` configuration, named for failure messages.
    struct Configuration: Sendable {
        let name: String
        let make: @Sendable () -> JSONEncoder
    }

    static let configurations: [Configuration] = [
        Configuration(name: "sortedKeys") { makeEncoder([.sortedKeys]) },
        Configuration(name: "prettyPrinted") { makeEncoder([.sortedKeys, .prettyPrinted]) },
        Configuration(name: "withoutEscapingSlashes") { makeEncoder([.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]) },
        Configuration(name: "secondsSince1970, deferredToData") {
            let encoder = makeEncoder([.sortedKeys])
            encoder.dateEncodingStrategy = .secondsSince1970
            encoder.dataEncodingStrategy = .deferredToData
            return encoder
        },
        Configuration(name: "millisecondsSince1970, base64") {
            let encoder = makeEncoder([.sortedKeys])
            encoder.dateEncodingStrategy = .millisecondsSince1970
            encoder.dataEncodingStrategy = .base64
            return encoder
        },
        Configuration(name: "iso8601, convertToString") {
            let encoder = makeEncoder([.sortedKeys])
            encoder.dateEncodingStrategy = .iso8601
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+∞", negativeInfinity: "-inf/", nan: "NaN\"")
            return encoder
        },
        Configuration(name: "formatted") {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
            let encoder = makeEncoder([.sortedKeys])
            encoder.dateEncodingStrategy = .formatted(formatter)
            return encoder
        },
        Configuration(name: "custom date and data") {
            let encoder = makeEncoder([.sortedKeys])
            encoder.dateEncodingStrategy = .custom { date, encoder in
                let seconds = date.timeIntervalSince1970
                if seconds < -1e11 { throw CustomError(what: "date") }
                if seconds < 0 { return }  // writes nothing: an empty object
                if seconds < 1e9 {
                    var container = encoder.singleValueContainer()
                    try container.encode("t\(seconds)/\(encoder.codingPath.map(\.stringValue))")
                } else {
                    var container = encoder.container(keyedBy: RandomEncodable.Key.self)
                    try container.encode(seconds, forKey: RandomEncodable.Key("s"))
                    try container.encode(encoder.codingPath.count, forKey: RandomEncodable.Key("depth"))
                }
            }
            encoder.dataEncodingStrategy = .custom { data, encoder in
                if data.count == 7 { throw CustomError(what: "data") }
                var container = encoder.unkeyedContainer()
                try container.encode(data.count)
                try container.encode(data.base64EncodedString())
            }
            return encoder
        },
        Configuration(name: "convertToSnakeCase") {
            let encoder = makeEncoder([.sortedKeys])
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .iso8601
            return encoder
        },
        Configuration(name: "custom keys") {
            let encoder = makeEncoder([.sortedKeys, .prettyPrinted])
            encoder.keyEncodingStrategy = .custom { path in
                RandomEncodable.Key(path.map { $0.intValue.map { "#\($0)" } ?? $0.stringValue }.joined(separator: "."))
            }
            return encoder
        },
        Configuration(name: "everything") {
            let encoder = makeEncoder([.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .millisecondsSince1970
            encoder.dataEncodingStrategy = .deferredToData
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            return encoder
        },
    ]

    static func makeEncoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return encoder
    }

    /// The outcome of one encoding, comparable across the two encoders.
    enum Outcome: Equatable, CustomStringConvertible {
        case bytes(String)
        case invalidValue(path: [String])
        case custom(CustomError)
        case other(String)

        init(_ body: () throws -> Data) {
            do {
                self = .bytes(String(decoding: try body(), as: UTF8.self))
            } catch EncodingError.invalidValue(_, let context) {
                self = .invalidValue(path: context.codingPath.map(\.stringValue))
            } catch let error as CustomError {
                self = .custom(error)
            } catch {
                self = .other(String(describing: error))
            }
        }

        var description: String {
            switch self {
            case .bytes(let text): text
            case .invalidValue(let path): "EncodingError.invalidValue at \(path)"
            case .custom(let error): "CustomError \(error.what)"
            case .other(let text): "other error \(text)"
            }
        }
    }

    @Test func randomValuesEncodeToJSONEncodersBytesUnderEveryOption() throws {
        var generator = SplitMix64(seed: 0x23_5EED)
        var mismatches: [String] = []
        var errors = 0
        let count = 6_000
        for index in 0..<count {
            let configuration = Self.configurations[index % Self.configurations.count]
            let value = RandomEncodable.random(&generator)
            let encoder = configuration.make()
            let options = try #require(JSONTreeOptions(encoder), "the fast writer takes \(configuration.name)")
            let expected = Outcome { try encoder.encode(value) }
            let actual = Outcome { try EncodableJSON.bytes(value, options: options) }
            if case .bytes = expected {} else { errors += 1 }
            if expected != actual, mismatches.count < 5 {
                mismatches.append("#\(index) \(configuration.name) \(value)\n  JSONEncoder: \(expected)\n  ours:        \(actual)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        // Errors are compared too, but most values must encode.
        #expect(errors < count / 3)
    }
}
