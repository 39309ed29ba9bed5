import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParameterEncoding

// MARK: - Outgoing request check

extension InterceptorChain {
    /// The last check before a request reaches the transport, whatever built or changed it:
    /// the call, a modifier, an interceptor or a redirect policy.
    ///
    /// `URLSession` would otherwise read `file:` URLs from disk, try `ftp:`, send to port 99999 or
    /// to no host at all, and pass header values with CR or LF to a libcurl that may split them
    /// into headers of their own.
    ///
    /// - Parameter request: The request about to be sent.
    /// - Throws: ``RequestError`` with ``RequestError/Code/invalidURL`` for a URL that is not
    ///   http(s) with a host and a valid port, or ``RequestError/Code/encodingFailed`` (the
    ///   underlying ``ParameterEncodingError`` names the header) for a header that cannot be sent.
    static func checkOutgoing(_ request: OutgoingRequest) throws {
        let target = request.target
        let scheme = target.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else {
            let text = request.url.absoluteString
            let rest = text.dropFirst(scheme.count + 1)
            let detail: String
            if scheme.isEmpty, let fixed = URLText.withScheme(text) {
                detail = "only http and https URLs are sent, and this one has no scheme; write \"\(fixed)\""
            } else if target.host.isEmpty, !rest.hasPrefix("/"), rest.first?.isNumber == true, let fixed = URLText.withScheme(text) {
                // `localhost:8080/items` parses, with "localhost" as its scheme and a port as its path.
                detail = "only http and https URLs are sent, and this one has no scheme (\"\(scheme):\" reads as one); write \"\(fixed)\""
            } else {
                let named = scheme.isEmpty ? "no scheme" : "the scheme \"\(scheme)\""
                detail = "only http and https URLs are sent, and this one has \(named)"
            }
            throw RequestError(.invalidURL, request: request, detail: detail)
        }
        guard !target.host.isEmpty else {
            throw RequestError(.invalidURL, request: request, detail: "the URL has no host")
        }
        if let port = target.port, !(1...65535).contains(port) {
            throw RequestError(.invalidURL, request: request, detail: "the port \(port) is not between 1 and 65535")
        }
        do {
            try request.method.validate()
        } catch {
            throw RequestError(.encodingFailed, request: request, detail: "the method cannot be sent", underlyingError: error)
        }
        do {
            try request.headers.validate()
        } catch {
            throw RequestError(.encodingFailed, request: request, detail: "a header was set that cannot be sent", underlyingError: error)
        }
    }
}
