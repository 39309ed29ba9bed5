import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - SessionStore

/// A `--session` file: headers, cookies and `--auth` kept between runs, as JSON (credentials in
/// plain text, as httpie keeps them).
///
/// `--session NAME` is `<config>/sessions/<host>/<NAME>.json`, where `<config>` is `$REQ_CONFIG_DIR`
/// or `~/.config/req`; a name with a `/` in it is a path.
struct SessionStore {
    struct Stored: Codable {
        var headers: [String: String] = [:]
        var cookies: [StoredCookie] = []
        var auth: StoredAuth?
    }

    /// `--auth` and `--auth-type`, sent again on later runs unless `--auth` is given.
    struct StoredAuth: Codable {
        let type: String
        let credentials: String
    }

    struct StoredCookie: Codable {
        let name: String
        let value: String
        let domain: String
        let path: String
        let expires: Double?
        let secure: Bool
    }

    let file: URL
    private(set) var stored: Stored
    /// The session's cookie jar, loaded from the file.
    let cookies: Cookies

    /// Headers that describe one request's body, never kept.
    static let transientHeaders: Set<String> = ["content-type", "content-length", "host", "cookie"]

    init(name: String, url: URL) throws {
        if name.contains("/") {
            file = URL(fileURLWithPath: name)
        } else {
            let environment = ProcessInfo.processInfo.environment
            let config = environment["REQ_CONFIG_DIR"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/req")
            let host = (url.host ?? "localhost") + (url.port.map { "_\($0)" } ?? "")
            file = config.appendingPathComponent("sessions").appendingPathComponent(host).appendingPathComponent(name + ".json")
        }
        if let data = FileManager.default.contents(atPath: file.path) {
            do {
                stored = try JSONDecoder().decode(Stored.self, from: data)
            } catch {
                throw UsageError("session file \(file.path) is not a req session: \(error)")
            }
        } else {
            stored = Stored()
        }
        cookies = Cookies.inMemory()
        for cookie in stored.cookies {
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: cookie.name, .value: cookie.value, .domain: cookie.domain, .path: cookie.path,
            ]
            if let expires = cookie.expires { properties[.expires] = Date(timeIntervalSince1970: expires) }
            if cookie.secure { properties[.secure] = "TRUE" }
            if let made = HTTPCookie(properties: properties) {
                cookies.storage?.setCookie(made)
            }
        }
    }

    /// Keeps the command line's headers, its `--auth` when given, and the jar's cookies.
    mutating func save(headers: [RequestItem], auth: StoredAuth?) throws {
        if let auth { stored.auth = auth }
        for item in headers where !Self.transientHeaders.contains(item.name.lowercased()) {
            let value = item.value.trimmingCharacters(in: .whitespaces)
            switch item.kind {
            case .header where value.isEmpty: stored.headers[item.name] = nil
            case .header, .emptyHeader: stored.headers[item.name] = value
            default: break
            }
        }
        stored.cookies = (cookies.storage?.cookies ?? [])
            .filter { $0.expiresDate.map { $0 > Date() } ?? true }
            .map { StoredCookie(name: $0.name, value: $0.value, domain: $0.domain, path: $0.path,
                                expires: $0.expiresDate?.timeIntervalSince1970, secure: $0.isSecure) }
            .sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(stored).write(to: file, options: .atomic)
    }
}
