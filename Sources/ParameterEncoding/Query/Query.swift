// MARK: - URLEncoding + query

extension URLEncoding {
    /// Percent-encodes a string with this encoding's ``escaping`` table.
    ///
    /// ```swift
    /// URLEncoding.default.escape("a b&c") // "a%20b%26c"
    /// ```
    ///
    /// - Parameter string: The text to encode.
    /// - Returns: The encoded text.
    public func escape(_ string: String) -> String {
        escaping.escape(string)
    }

    /// Builds a query string from parameters, keys sorted at every level.
    ///
    /// ```swift
    /// try URLEncoding.default.query(["foo": ["a", 1, true]]) // "foo%5B%5D=a&foo%5B%5D=1&foo%5B%5D=1"
    /// ```
    ///
    /// - Parameter parameters: The parameters.
    /// - Returns: `key=value` pairs joined by `&`, without a leading `?`.
    /// - Throws: ``ParameterEncodingError`` with code ``ParameterEncodingError/Code/nestingTooDeep``
    ///   and the key path when containers nest deeper than ``ParameterEncodingError/maximumDepth``.
    public func query(_ parameters: Parameters) throws -> String {
        try queryBuffer(.parameters(parameters)).text
    }

    /// Builds a query string from ordered pairs, in the order given.
    ///
    /// - Parameter pairs: Keys and values. Nested dictionaries are still sorted.
    /// - Returns: `key=value` pairs joined by `&`.
    /// - Throws: As ``query(_:)-(Parameters)``.
    public func query(_ pairs: KeyValuePairs<String, any Sendable>) throws -> String {
        try queryBuffer(.ordered(pairs.lazy.map { ($0.key, $0.value) })).text
    }

    /// Builds a query string from ordered pairs, in the order given.
    ///
    /// - Parameter pairs: Keys and values. Nested dictionaries are still sorted.
    /// - Returns: `key=value` pairs joined by `&`.
    /// - Throws: As ``query(_:)-(Parameters)``.
    public func query(_ pairs: [(String, any Sendable)]) throws -> String {
        try queryBuffer(.ordered(pairs)).text
    }

    /// The escaped pairs one key and its value flatten into, in order.
    ///
    /// ```swift
    /// try URLEncoding.default.queryComponents(fromKey: "a", value: ["b": [1, 2]])
    /// // [("a%5Bb%5D%5B%5D", "1"), ("a%5Bb%5D%5B%5D", "2")]
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key, unescaped.
    ///   - value: The value: a scalar, an array, a dictionary, or any nesting of them.
    /// - Returns: Escaped key and value of each pair.
    /// - Throws: As ``query(_:)-(Parameters)``.
    public func queryComponents(fromKey key: String, value: Any) throws -> [(String, String)] {
        let bytes = try queryBuffer(ParameterChildren(keys: [key], values: .any([value]), ordering: .given)).bytes
        // `&` and `=` are always escaped inside keys and values, so they split the output exactly.
        return bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(decoding: parts[0], as: UTF8.self)
            let value = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
            return (name, value)
        }
    }

    /// Bytes reserved for a query before writing starts.
    static let initialQueryCapacity = 4_096

    /// The query bytes for top-level children; every `query` and `encode` entry point ends here.
    /// Callers take the bytes as text, `Data` or an array straight from the buffer, in one copy.
    func queryBuffer(_ root: ParameterChildren, keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding = .brackets) throws -> ByteBuffer {
        // One page to start with: most queries fit in it, so the buffer is allocated once, and
        // a large allocation costs little more than a small one. Starting from an estimate of a
        // few bytes per top-level child cost a nested 150-pair query four regrowths (8% of it).
        var writer = QueryWriter(self, keyPathEncoding: keyPathEncoding, capacity: max(root.count * 12, Self.initialQueryCapacity))
        try writer.write(root)
        return writer.output
    }

    /// The query bytes for the top-level object of an `Encodable` value's tree (from
    /// ``URLEncodedFormEncoder``), with its keys sorted at every level or in encoding order.
    func queryBuffer(_ root: TreeContainer, of tree: JSONTree, keyPathEncoding: URLEncodedFormEncoder.KeyPathEncoding,
                     sortsKeys: Bool) throws -> ByteBuffer {
        var writer = QueryWriter(self, keyPathEncoding: keyPathEncoding, tree: tree, sortsTreeKeys: sortsKeys,
                                 capacity: max(root.entries.count * 12, Self.initialQueryCapacity))
        try writer.write(root)
        return writer.output
    }
}
