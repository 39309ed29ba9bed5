import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Validation

extension Response {
    /// Returns the response when its status code and content type are acceptable; throws otherwise.
    ///
    /// ```swift
    /// let user = try await session.request(url).validate().decode(User.self)
    /// try response.validate(statusCodes: [200, 204], contentTypes: ["application/json"])
    /// ```
    ///
    /// - Parameters:
    ///   - statusCodes: The acceptable status codes; `200..<300` by default.
    ///   - contentTypes: Acceptable media types, such as `application/json`, `text/*` or `*/*`;
    ///     `nil` (the default) accepts any. An empty body without `Content-Type` is accepted.
    /// - Returns: `self`, so calls chain.
    /// - Throws: ``RequestError`` with code ``RequestError/Code/unacceptableStatusCode`` or
    ///   ``RequestError/Code/unacceptableContentType``; the error keeps this response, so its
    ///   description shows the status and the first KiB of the body.
    @discardableResult
    public func validate(
        statusCodes: some Sequence<Int> = 200..<300,
        contentTypes: [String]? = nil
    ) throws -> Response {
        guard statusCodes.contains(statusCode) else {
            throw RequestError(.unacceptableStatusCode, response: self, detail: "expected \(statusCodes)")
        }
        if let contentTypes {
            try validate(contentTypes: contentTypes)
        }
        return self
    }

    private func validate(contentTypes: [String]) throws {
        guard let contentType else {
            if data.isEmpty { return }
            throw RequestError(
                .unacceptableContentType, response: self,
                detail: "the response has no Content-Type; expected one of \(contentTypes)"
            )
        }
        guard contentTypes.contains(where: contentType.matches) else {
            throw RequestError(
                .unacceptableContentType, response: self,
                detail: "got \(contentType.mediaType); expected one of \(contentTypes)"
            )
        }
    }
}
