import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - ResponseHead

/// The head of a response as a transport returns it: status, headers and URL.
///
/// Repeated fields (several `Set-Cookie`, say) stay separate, in the order the server sent them.
/// ``Response/httpResponse`` makes an `HTTPURLResponse` from it only for those who ask.
public struct ResponseHead: Sendable, Hashable {
    /// The status code, e.g. `200`.
    public var statusCode: Int
    /// The header fields, in the order received where the engine keeps it (AsyncHTTPClient, the
    /// stub); by name over `URLSession`, whose `HTTPURLResponse` keeps no order. Lookups ignore
    /// case.
    public var headers: HTTPHeaders
    /// The URL the response is for: the request's, since a transport follows no redirect.
    public var url: URL?
    /// The protocol version, such as `HTTP/1.1` or `HTTP/2`, when the transport knows it.
    public var httpVersion: String?

    /// Creates a response head.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The header fields.
    ///   - url: The URL the response is for.
    ///   - httpVersion: The protocol version, when known.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL?, httpVersion: String? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.httpVersion = httpVersion
    }

    /// The head of an `HTTPURLResponse`. Its header fields come in a stable order (by name),
    /// since `HTTPURLResponse` keeps no order, and repeated fields arrive joined, as it keeps them.
    ///
    /// - Parameter response: The response.
    public init(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.append(name: String(describing: name), value: String(describing: value))
        }
        headers.sort()
        self.init(statusCode: response.statusCode, headers: headers, url: response.url)
    }

    /// The head as an `HTTPURLResponse`, for APIs that need one. Repeated fields are joined with
    /// `, `, as `HTTPURLResponse` keeps them; read ``headers`` for each on its own.
    ///
    /// - Returns: The response, or `nil` for a head that `HTTPURLResponse` cannot hold.
    public func makeHTTPURLResponse() -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for header in headers {
            if let existing = fields[header.name] {
                fields[header.name] = existing + ", " + header.value
            } else {
                fields[header.name] = header.value
            }
        }
        return HTTPURLResponse(url: url ?? URL(fileURLWithPath: "/"), statusCode: statusCode,
                               httpVersion: httpVersion ?? "HTTP/1.1", headerFields: fields)
    }
}
