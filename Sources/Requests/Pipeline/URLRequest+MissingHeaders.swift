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
        var fields = allHTTPHeaderFields ?? [:]
        var added = false
        for header in headers where value(forHTTPHeaderField: header.name) == nil {
            try header.validate()
            fields[header.name] = header.value
            added = true
        }
        if added {
            allHTTPHeaderFields = fields
        }
    }
}
