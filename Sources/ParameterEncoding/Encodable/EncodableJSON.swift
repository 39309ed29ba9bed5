import Foundation

// MARK: - EncodableJSON

/// The JSON of an `Encodable` value, the bytes a `JSONEncoder` writes, through
/// ``JSONTreeEncoder`` and ``JSONTreeWriter`` when the encoder's options allow it (see
/// ``JSONTreeOptions``) and through the encoder itself otherwise.
enum EncodableJSON {
    /// Returns `value` as `encoder` writes it.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder whose options (and, for options the fast path does not take,
    ///     whose implementation) are used.
    /// - Returns: UTF-8 JSON.
    /// - Throws: What `JSONEncoder` throws for the same value: an `EncodingError` naming the
    ///   coding path (a NaN without a non-conforming-float strategy, a top-level value that
    ///   encodes nothing), or the error of a custom strategy or `encode(to:)`, unchanged.
    static func data<T: Encodable>(_ value: T, encoder: JSONEncoder) throws -> Data {
        guard let options = JSONTreeOptions(encoder) else { return try encoder.encode(value) }
        return try bytes(value, options: options)
    }

    /// Returns `value` written with `options`, always through the tree.
    static func bytes<T: Encodable>(_ value: T, options: JSONTreeOptions) throws -> Data {
        let tree = JSONTree()
        let root = try JSONTreeEncoder(tree: tree, options: options).encodeTopLevel(value)
        var writer = JSONTreeWriter(tree: tree, prettyPrinted: options.prettyPrinted, escapingSlashes: options.escapingSlashes)
        writer.write(root)
        return writer.takeData()
    }
}
