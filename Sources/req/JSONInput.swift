import Foundation

// MARK: - JSONInput

/// A raw JSON value from the command line (`name:=json`), as a parameter value the encoders take:
/// `Bool`, `Int`, `Double`, `String`, `NSNull`, arrays and dictionaries of those.
enum JSONInput: Decodable {
    case bool(Bool), int(Int), double(Double), string(String), null
    case array([JSONInput]), object([String: JSONInput])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONInput].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONInput].self))
        }
    }

    /// Parses `text`, naming `item` in the error.
    static func parse(_ text: String, item: String) throws -> any Sendable {
        do {
            return try JSONDecoder().decode(JSONInput.self, from: Data(text.utf8)).parameter
        } catch {
            throw UsageError("\"\(item)\": \(text.isEmpty ? "an empty value" : "\"\(text)\"") is not valid JSON")
        }
    }

    var parameter: any Sendable {
        switch self {
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .null: NSNull()
        case .array(let values): values.map(\.parameter) as [any Sendable]
        case .object(let members): members.mapValues(\.parameter) as [String: any Sendable]
        }
    }
}
