// MARK: - HTTPHeaders literals

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates headers from a dictionary literal, in the order written.
    ///
    /// - Parameter elements: Names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { HTTPHeader(name: $0.0, value: $0.1) })
    }
}

extension HTTPHeaders: ExpressibleByArrayLiteral {
    /// Creates headers from an array literal of headers, in the order written.
    ///
    /// - Parameter elements: The headers.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }
}
