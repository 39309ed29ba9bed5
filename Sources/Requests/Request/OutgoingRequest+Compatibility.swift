import Foundation

// MARK: - URLRequest spellings

/// `URLRequest`'s names for what ``OutgoingRequest`` holds, so that modifiers and interceptors
/// written against `URLRequest` (`request.setValue(token, forHTTPHeaderField: "Authorization")`)
/// keep compiling. New code reads and changes ``OutgoingRequest/headers``,
/// ``OutgoingRequest/method`` and ``OutgoingRequest/body`` directly.
extension OutgoingRequest {
    /// Sets a header field, replacing every field of that name, or removes them for `nil`, as
    /// `URLRequest.setValue(_:forHTTPHeaderField:)` does.
    ///
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the field.
    ///   - field: The field's name.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        if let value {
            headers.update(name: field, value: value)
        } else {
            headers.remove(name: field)
        }
    }

    /// Adds a value to a header field: one more field of that name, which goes out as its own
    /// line (`URLRequest` joins it to the others with `,`; the meaning is the same, RFC 9110).
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - field: The field's name.
    public mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        headers.append(name: field, value: value)
    }

    /// The values of a header field joined with `, ` (`; ` for `Cookie`), as `URLRequest` reads
    /// them, or `nil` without one.
    ///
    /// - Parameter field: The field's name; case does not matter.
    /// - Returns: The value.
    public func value(forHTTPHeaderField field: String) -> String? {
        let values = headers.values(for: field)
        guard !values.isEmpty else { return nil }
        return values.joined(separator: HTTPHeaders.namesMatch(field, "Cookie") ? "; " : ", ")
    }

    /// The header fields as a dictionary, repeats joined, as `URLRequest` holds them.
    public var allHTTPHeaderFields: [String: String]? {
        headers.wireFields.dictionary
    }

    /// The method's name, as `URLRequest` spells it.
    public var httpMethod: String? {
        get { method.rawValue }
        set { method = HTTPMethod(rawValue: newValue ?? "GET") }
    }

    /// The body's bytes when it is bytes; setting bytes (or `nil`, none) replaces the body.
    public var httpBody: Data? {
        get {
            if case .data(let data) = body.storage { return data }
            return nil
        }
        set { body = newValue.map(RequestBody.data) ?? .empty }
    }
}

extension OutgoingRequest {
    /// Sets each header, replacing every field of the same name, as
    /// `URLRequest.setHeaders(_:)` does; all are checked before any is set.
    ///
    /// - Parameter headers: The headers to set.
    /// - Throws: ``/ParameterEncoding/ParameterEncodingError`` (`invalidHeader`) naming the first
    ///   header that cannot be sent; the request is then unchanged.
    public mutating func setHeaders(_ headers: HTTPHeaders) throws {
        try headers.validate()
        for header in headers {
            self.headers.update(header)
        }
    }
}
