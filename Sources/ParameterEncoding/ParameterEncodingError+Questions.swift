// MARK: - ParameterEncodingError + questions

/// Alamofire's `AFError` questions that have a counterpart here, under the same names, so a check
/// ports as it reads:
///
/// ```swift
/// // Alamofire: error.asAFError?.isJSONEncodingFailed == true
/// #expect(error.asParameterEncodingError?.isJSONEncodingFailed == true)
/// ```
///
/// Each question is one or two codes; for the codes Alamofire has no question for, compare
/// ``ParameterEncodingError/code`` (`error.code == .nestingTooDeep`).
extension ParameterEncodingError {
    /// Whether a value could not be written as JSON: code
    /// ``Code/invalidJSONValue`` (NaN, infinity, a non-string key, a type with no JSON form) or
    /// ``Code/invalidJSONText`` (a ``RawJSON`` that is not JSON). Alamofire's
    /// `isJSONEncodingFailed`.
    public var isJSONEncodingFailed: Bool {
        code == .invalidJSONValue || code == .invalidJSONText
    }

    /// Whether a value could not be written in a property list: code ``Code/invalidPropertyListValue``.
    public var isPropertyListEncodingFailed: Bool { code == .invalidPropertyListValue }

    /// Whether the request had no URL to put a query into: code ``Code/missingURL``. Alamofire's
    /// `isMissingURLFailed`.
    public var isMissingURLFailed: Bool { code == .missingURL }

    /// Whether a string or URL components did not form a URL: code ``Code/invalidURL``.
    /// Alamofire's `isInvalidURLError`.
    public var isInvalidURLError: Bool { code == .invalidURL }

    /// Whether a multipart body could not be written: code ``Code/invalidMultipart``. Alamofire's
    /// `isMultipartEncodingError`.
    public var isMultipartEncodingError: Bool { code == .invalidMultipart }
}

// MARK: - Error + ParameterEncodingError

extension Error {
    /// The error as a ``ParameterEncodingError``, or `nil` when it is another kind: the
    /// counterpart of Alamofire's `asAFError`, for errors typed `any Error`.
    ///
    /// A `RequestError` of the `Requests` module keeps the ``ParameterEncodingError`` that caused
    /// it as its `underlyingError`.
    public var asParameterEncodingError: ParameterEncodingError? {
        self as? ParameterEncodingError
    }
}
