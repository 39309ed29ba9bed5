import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestScheduling
import Testing
import ParameterEncoding

@Suite(.backgroundPriority) struct URLRequestConvertibleTests {
    let url = URL(string: "https://example.com/") ?? URL(fileURLWithPath: "/")

    @Test func assigningHeadersReplacesEveryHeaderTheRequestHad() throws {
        var request = URLRequest(url: url)
        request.setValue("old", forHTTPHeaderField: "X-Old")
        request.setValue("text/plain", forHTTPHeaderField: "Accept")
        request.headers = [.accept("application/json"), .contentType("text/csv")]
        #expect(request.allHTTPHeaderFields == ["Accept": "application/json", "Content-Type": "text/csv"])
        #expect(request.headers.map(\.name) == ["Accept", "Content-Type"])
    }

    @Test func headersCanBeChangedInPlace() throws {
        var request = try URLRequest(url: url, method: .get, headers: ["Accept": "*/*"])
        request.headers.add(.authorization(bearerToken: "token"))
        request.headers.update(name: "accept", value: "text/html")
        request.headers["X-Trace"] = "1"
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer token")
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/html")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "1")
        request.headers.remove(name: "x-trace")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == nil)
        #expect(request.headers.count == 2)
    }

    @Test func aRepeatedFieldIsSetOnceWithItsValuesJoined() throws {
        var request = URLRequest(url: url)
        var headers = HTTPHeaders()
        headers.append(name: "Accept", value: "text/html")
        headers.append(name: "accept", value: "application/json")
        request.headers = headers
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/html, application/json")
        #expect(request.allHTTPHeaderFields?.count == 1)
    }

    @Test func assigningNoHeadersClearsThem() throws {
        var request = try URLRequest(url: url, method: .post, headers: ["A": "1", "B": "2"])
        request.headers = HTTPHeaders()
        #expect(request.headers.isEmpty)
        #expect((request.allHTTPHeaderFields ?? [:]).isEmpty)
    }

    /// The package's one way to change a field: any spelling of the name is replaced (the new
    /// spelling kept), `nil` removes it, and the other fields stay as they were.
    @Test func settingAFieldReplacesEverySpellingOfItsName() throws {
        var request = URLRequest(url: url)
        request.setValue("1", forHTTPHeaderField: "x-trace")
        request.setValue("text/plain", forHTTPHeaderField: "Accept")
        request.setField("2", for: "X-Trace")
        #expect(request.value(forHTTPHeaderField: "X-TRACE") == "2")
        #expect(request.allHTTPHeaderFields?.keys.sorted() == ["Accept", "X-Trace"])
        request.setFields([("ACCEPT", "application/json"), ("x-trace", nil), ("X-New", "n")])
        #expect(request.allHTTPHeaderFields == ["ACCEPT": "application/json", "X-New": "n"])
        #expect(request.value(forHTTPHeaderField: "accept") == "application/json")
    }

    /// `setHeaders` checks every header before it sets any, then sets them in order.
    @Test func settingHeadersChecksThemAllFirst() throws {
        var request = URLRequest(url: url)
        request.setValue("kept", forHTTPHeaderField: "X-Kept")
        #expect(throws: ParameterEncodingError.self) {
            try request.setHeaders([HTTPHeader(name: "A", value: "1"), HTTPHeader(name: "B", value: "bad\r\nvalue")])
        }
        #expect(request.allHTTPHeaderFields == ["X-Kept": "kept"])
        try request.setHeaders([HTTPHeader(name: "x-kept", value: "new"), HTTPHeader(name: "A", value: "1")])
        #expect(request.allHTTPHeaderFields == ["x-kept": "new", "A": "1"])
    }
}
