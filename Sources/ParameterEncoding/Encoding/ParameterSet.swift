import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ParameterSet

/// Parameters together with the encoding that writes them, for requests that carry several sets:
/// some in the query string, one in the body.
///
/// ```swift
/// let request = try ParameterSet.encode([.query(["page": 2]), .body(["name": "John"], encoding: JSONEncoding.default)],
///                                       into: URLRequest(url: url, method: .post))
/// // POST /users?page=2 with the body {"name":"John"}
/// ```
///
/// Sets that go to the same place with the same encoding are merged, later keys winning; the
/// merged sets are applied in the order each first appears. Only one body encoding may appear.
public struct ParameterSet: Sendable {
    /// Where a set goes.
    public enum Placement: Hashable, Sendable {
        /// The URL's query string.
        case query
        /// The body.
        case body
    }

    /// The parameters.
    public let parameters: Parameters
    /// The encoding that writes them.
    public let encoding: any ParameterEncoding
    /// Where they go.
    public let placement: Placement

    private init(parameters: Parameters, encoding: any ParameterEncoding, placement: Placement) {
        self.parameters = parameters
        self.encoding = encoding
        self.placement = placement
    }

    /// Parameters for the query string, whatever the method.
    ///
    /// - Parameters:
    ///   - parameters: The parameters.
    ///   - encoding: Array, bool, nil and escaping options; its destination is taken to be the query string.
    /// - Returns: The set.
    public static func query(_ parameters: Parameters, encoding: URLEncoding = .queryString) -> ParameterSet {
        ParameterSet(parameters: parameters, encoding: encoding.with(destination: .queryString), placement: .query)
    }

    /// Parameters for the body, whatever the method.
    ///
    /// - Parameters:
    ///   - parameters: The parameters.
    ///   - encoding: The body encoding: a form (``URLEncoding``, whose destination is taken to be the
    ///     body) by default, or ``JSONEncoding``, ``PropertyListEncoding`` or your own.
    /// - Returns: The set.
    public static func body(_ parameters: Parameters, encoding: any ParameterEncoding = URLEncoding.httpBody) -> ParameterSet {
        let encoding = (encoding as? URLEncoding).map { $0.with(destination: .httpBody) } ?? encoding
        return ParameterSet(parameters: parameters, encoding: encoding, placement: .body)
    }

    /// Returns the request with every set encoded into it.
    ///
    /// - Parameters:
    ///   - sets: The sets, in order; later keys win where sets merge.
    ///   - request: The request to start from.
    /// - Returns: The encoded request.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/conflictingBodies``
    ///   when two sets ask for different body encodings, or what an encoding throws.
    public static func encode(_ sets: [ParameterSet], into request: any URLRequestConvertible) throws -> URLRequest {
        let merged = try merge(sets)
        var request = try request.asURLRequest()
        for set in merged {
            request = try set.encoding.encode(consume request, with: set.parameters)
        }
        return request
    }

    /// Writes every set into `target`, each with its encoding's ``ParameterEncoding/encode(_:into:)``:
    /// the built-in encodings write straight into it, without a `URLRequest` on the way.
    ///
    /// - Parameters:
    ///   - sets: The sets, in order; later keys win where sets merge.
    ///   - target: The request to write into.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/conflictingBodies``
    ///   when two sets ask for different body encodings, or what an encoding throws.
    public static func encode<Target: EncodingTarget>(_ sets: [ParameterSet], into target: inout Target) throws {
        for set in try merge(sets) {
            try set.encoding.encode(set.parameters, into: &target)
        }
    }

    /// The sets with the same placement and encoding merged (later keys win), in the order of
    /// their first appearance.
    private static func merge(_ sets: [ParameterSet]) throws -> [ParameterSet] {
        var merged: [ParameterSet] = []
        for (position, set) in sets.enumerated() {
            if let index = merged.firstIndex(where: { $0.placement == set.placement && sameEncoding($0.encoding, set.encoding) }) {
                let parameters = merged[index].parameters.merging(set.parameters) { _, later in later }
                merged[index] = ParameterSet(parameters: parameters, encoding: set.encoding, placement: set.placement)
            } else if set.placement == .body, let body = merged.first(where: { $0.placement == .body }) {
                let first = sets.firstIndex { $0.placement == .body } ?? 0
                throw ParameterEncodingError(.conflictingBodies, detail:
                    "a request has one body, but parameter set \(position + 1) asks for \(describe(set.encoding)) "
                    + "after set \(first + 1) asked for \(describe(body.encoding))")
            } else {
                merged.append(set)
            }
        }
        return merged
    }

    /// Whether two encodings write the same way: the same type with equal options. Custom array
    /// keys and encodings of other types never count as the same.
    static func sameEncoding(_ lhs: any ParameterEncoding, _ rhs: any ParameterEncoding) -> Bool {
        switch (lhs, rhs) {
        case let (lhs as URLEncoding, rhs as URLEncoding):
            lhs.destination == rhs.destination && lhs.arrayEncoding.isSame(as: rhs.arrayEncoding)
                && lhs.boolEncoding == rhs.boolEncoding && lhs.nilEncoding == rhs.nilEncoding && lhs.escaping == rhs.escaping
        case let (lhs as JSONEncoding, rhs as JSONEncoding):
            lhs.options == rhs.options
        case let (lhs as PropertyListEncoding, rhs as PropertyListEncoding):
            lhs.format == rhs.format && lhs.options == rhs.options
        default:
            false
        }
    }

    private static func describe(_ encoding: any ParameterEncoding) -> String {
        switch encoding {
        case is URLEncoding: "a form (URLEncoding)"
        case let json as JSONEncoding: json.options.contains(.prettyPrinted) ? "pretty-printed JSON (JSONEncoding)" : "JSON (JSONEncoding)"
        case let plist as PropertyListEncoding: plist.format == .binary ? "a binary property list" : "an XML property list"
        default: "\(type(of: encoding))"
        }
    }
}

extension URLEncoding {
    /// The same options with another destination.
    func with(destination: Destination) -> URLEncoding {
        URLEncoding(destination: destination, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding,
                    nilEncoding: nilEncoding, escaping: escaping)
    }
}

extension URLEncoding.ArrayEncoding {
    /// Whether two array encodings key elements the same way; custom closures cannot be compared.
    func isSame(as other: Self) -> Bool {
        switch (self, other) {
        case (.brackets, .brackets), (.noBrackets, .noBrackets), (.indexInBrackets, .indexInBrackets): true
        default: false
        }
    }
}
