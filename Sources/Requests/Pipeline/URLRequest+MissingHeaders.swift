import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - URLRequest + missing headers

extension URLRequest {
    /// Adds each header the request does not already have (names compared without case), in one
    /// change of the request.
    ///
    /// - Throws: ``ParameterEncodingError`` naming a refused header; the request is then unchanged.
    mutating func addMissingHeaders(_ headers: HTTPHeaders) throws {
        guard !headers.isEmpty else { return }
        // The request's fields read once, and looked up here: asking the request for each
        // header costs FoundationNetworking a search with case folding per name.
        var fields = allHTTPHeaderFields ?? [:]
        let present = Array(fields.keys)
        fields.reserveCapacity(fields.count + headers.count)
        var added = false
        for header in headers where !present.contains(where: { HTTPHeaders.namesMatch($0, header.name) }) {
            try header.validate()
            fields[header.name] = header.value
            added = true
        }
        if added {
            allHTTPHeaderFields = fields
        }
    }
}
