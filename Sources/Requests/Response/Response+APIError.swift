import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Validation with an API error

extension Response {
    /// Returns the response when its status code and content type are acceptable; otherwise throws,
    /// with the error body decoded into your API's error type when it is one.
    ///
    /// ```swift
    /// struct Problem: Decodable, Error { let title: String; let detail: String }
    /// do {
    ///     let user = try await session.request(url).validate(orThrow: Problem.self).decode(User.self)
    /// } catch let error as RequestError {
    ///     if let problem = error.apiError(Problem.self) { show(problem.detail) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - errorType: The type the server's error bodies decode to.
    ///   - statusCodes: The acceptable status codes; `200..<300` by default.
    ///   - contentTypes: Acceptable media types, or `nil` (the default) for any.
    ///   - decoder: Decodes the error body; a default `JSONDecoder` unless given.
    /// - Returns: `self`, so calls chain.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/unacceptableStatusCode`` whose
    ///   ``RequestError/underlyingError`` is the decoded `errorType` value, keeping this response; when
    ///   the body does not decode, the error says why and has no underlying error. A refused content
    ///   type throws as ``validate(statusCodes:contentTypes:)`` does.
    @discardableResult
    public func validate<APIError: Decodable & Error>(
        orThrow errorType: APIError.Type,
        statusCodes: some Sequence<Int> = 200..<300,
        contentTypes: [String]? = nil,
        decoder: some ResponseDecoder = JSONDecoder()
    ) throws -> Response {
        guard statusCodes.contains(statusCode) else {
            let apiError: APIError
            do {
                apiError = try decoder.decode(APIError.self, from: data)
            } catch {
                throw RequestError(
                    .unacceptableStatusCode, response: self,
                    detail: "expected \(statusCodes); the body is not a \(APIError.self)" + Self.explain(error)
                )
            }
            throw RequestError(
                .unacceptableStatusCode, response: self,
                detail: "expected \(statusCodes); the server answered with a \(APIError.self)", underlyingError: apiError
            )
        }
        return try validate(statusCodes: statusCodes, contentTypes: contentTypes)
    }
}

// MARK: - RequestError + API error

extension RequestError {
    /// The server's error decoded by ``Response/validate(orThrow:statusCodes:contentTypes:decoder:)``,
    /// when it is of the given type.
    ///
    /// - Parameter type: Your API's error type.
    /// - Returns: The decoded error, or `nil`.
    public func apiError<APIError: Error>(_ type: APIError.Type = APIError.self) -> APIError? {
        underlyingError as? APIError
    }
}
