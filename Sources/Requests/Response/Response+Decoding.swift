import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ResponseDecoder

/// A decoder that turns a response body into a `Decodable` value. `JSONDecoder` and
/// `PropertyListDecoder` conform; conform your own to decode other formats.
public protocol ResponseDecoder {
    /// Decodes a value of the given type from data.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The body.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's error, usually a `DecodingError`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: ResponseDecoder {}
extension PropertyListDecoder: ResponseDecoder {}

// MARK: - Decoding

extension Response {
    /// Decodes the body as the given type.
    ///
    /// - Parameters:
    ///   - type: The type to decode; inferred when the context gives it.
    ///   - decoder: The decoder; a default `JSONDecoder` unless given.
    /// - Returns: The decoded value.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/decodingFailed``, naming the type and the
    ///   coding path, keeping this response and the decoder's error as ``RequestError/underlyingError``.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: some ResponseDecoder = JSONDecoder()) throws -> T {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw RequestError(
                .decodingFailed, response: self,
                detail: "could not decode \(T.self)" + Self.explain(error),
                underlyingError: error
            )
        }
    }

    /// A short explanation of a `DecodingError` in one sentence: where it happened and what was
    /// wrong there, naming keys as the JSON has them (not as Foundation's `CodingKeys(...)`).
    static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "" }
        let context: DecodingError.Context
        var what: String
        switch error {
        case .keyNotFound(let key, let c):
            context = c
            what = "the key \"\(key.stringValue)\" is missing"
        case .valueNotFound(let type, let c):
            context = c
            what = "null (or nothing) where \(type) was expected"
        case .typeMismatch(let type, let c):
            context = c
            what = "expected \(type)" + (Self.found(in: c.debugDescription).map { ", found \($0)" } ?? "")
        case .dataCorrupted(let c):
            context = c
            what = Self.plain(c.debugDescription)
            if let cause = c.underlyingError { what += " (\(Self.plain("\(cause)")))" }
        @unknown default:
            return ": " + Self.plain("\(error)")
        }
        let path = context.codingPath.map { key in
            key.intValue.map { "[\($0)]" } ?? "." + key.stringValue
        }.joined()
        let place = path.isEmpty ? "" : " at " + (path.hasPrefix(".") ? String(path.dropFirst()) : path)
        return place + ": " + what
    }

    /// What Foundation's type-mismatch message says was found ("…but found a string instead.").
    private static func found(in description: String) -> String? {
        guard let range = description.range(of: "but found ") else { return nil }
        var rest = description[range.upperBound...]
        if rest.hasSuffix(" instead.") { rest = rest.dropLast(" instead.".count) }
        return rest.isEmpty ? nil : String(rest)
    }

    /// A decoder's words with Foundation's key descriptions (`CodingKeys(stringValue: "id",
    /// intValue: nil)`) reduced to the key's name.
    private static func plain(_ text: String) -> String {
        var text = text
        while let start = text.range(of: "CodingKeys(stringValue: \""),
              let end = text.range(of: "\", intValue: ", range: start.upperBound..<text.endIndex),
              let close = text.range(of: ")", range: end.upperBound..<text.endIndex) {
            let name = text[start.upperBound..<end.lowerBound]
            text.replaceSubrange(start.lowerBound..<close.upperBound, with: "\"\(name)\"")
        }
        return text
    }
}
