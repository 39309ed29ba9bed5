// MARK: - ParameterEncodingError + questions

/// One-word questions about an error's ``ParameterEncodingError/code``, named as Alamofire's
/// `AFError` flags are, so a check ports as it reads:
///
/// ```swift
/// // Alamofire: result.failure?.asAFError?.isJSONEncodingFailed == true
/// #expect(result.failure?.asParameterEncodingError?.isJSONEncodingFailed == true)
/// ```
///
/// Each question is one or two codes; a `switch` on ``ParameterEncodingError/code`` says the same
/// with the codes spelled out.
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

    /// Whether parameters nested deeper than ``maximumDepth`` levels: code ``Code/nestingTooDeep``,
    /// whichever encoder was writing.
    public var isNestingTooDeepError: Bool { code == .nestingTooDeep }

    /// Whether Foundation's serializer failed or was asked for a format it cannot write: code
    /// ``Code/serializationFailed``.
    public var isSerializationFailed: Bool { code == .serializationFailed }

    /// Whether a header name or value was refused: code ``Code/invalidHeader``.
    public var isInvalidHeaderError: Bool { code == .invalidHeader }

    /// Whether an HTTP method was not a valid token: code ``Code/invalidMethod``.
    public var isInvalidMethodError: Bool { code == .invalidMethod }

    /// Whether parameter sets asked for two different bodies: code ``Code/conflictingBodies``.
    public var isConflictingBodiesError: Bool { code == .conflictingBodies }

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
