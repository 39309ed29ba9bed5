import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Requests

/// `import Requests` alone must give users the whole encoding API.
@Suite struct ReexportTests {
    @Test func encodingAPIIsAvailableThroughRequests() throws {
        let request = try URLEncoding.queryString.encode(URLRequest(url: "https://example.com", method: .get), with: ["page": 2])
        #expect(request.url?.absoluteString == "https://example.com?page=2")
        #expect(URLEncoding.default.escape("a b") == "a%20b")
    }
}
