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
        // Looked up among the request's fields, read once: asking the request for each header
        // costs FoundationNetworking a search with case folding per name.
        let present = Array((allHTTPHeaderFields ?? [:]).keys)
        let missing = headers.filter { header in !present.contains { HTTPHeaders.namesMatch($0, header.name) } }
        for header in missing {
            try header.validate()
        }
        setFields(missing.map { ($0.name, $0.value) })
    }
}
