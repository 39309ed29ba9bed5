import Foundation

// MARK: - OutgoingRequest

/// One HTTP request as the library carries it from the call to the engine: method, target,
/// header fields in order, the body, and per-request options.
///
/// Unlike Foundation's `URLRequest`, it keeps header fields in the order they were added, repeats
/// included, and holds the body in one place, whatever its kind; its target keeps the URL it was
/// made from until a part changes. An engine builds its own request from it once
/// (``urlRequest(timeout:)`` for `URLSession`).
///
/// ```swift
/// var request = OutgoingRequest(url: URL(string: "https://api.example.com/v1/items")!, method: .post)
/// request.headers.append(name: "X-Trace", value: "a")
/// request.headers.append(name: "X-Trace", value: "b")   // both are sent
/// request.body = .data(Data(#"{"name":"pen"}"#.utf8))
/// ```
public struct OutgoingRequest: Sendable {
    /// The parts, in one box shared until one of two copies changes (copy on write): a request
    /// passes through every stage of the pipeline, and a box is one reference to pass.
    private final class Storage: @unchecked Sendable {
        // Changed only through a uniquely referenced box (`unique()`), so never while shared.
        var method: HTTPMethod
        var target: RequestTarget
        var headers: HTTPHeaders
        var body: RequestBody
        var options: RequestOptions

        init(method: HTTPMethod, target: RequestTarget, headers: HTTPHeaders, body: RequestBody, options: RequestOptions) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.options = options
        }

        func copy() -> Storage {
            Storage(method: method, target: target, headers: headers, body: body, options: options)
        }
    }

    private var storage: Storage

    /// The box, copied first when another request shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
        return storage
    }

    /// The method.
    public var method: HTTPMethod {
        get { storage.method }
        set { unique().method = newValue }
    }
    /// Where the request goes.
    public var target: RequestTarget {
        get { storage.target }
        _modify {
            let box = unique()
            yield &box.target
        }
    }
    /// The header fields, in the order they go out; a name may repeat.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify {
            let box = unique()
            yield &box.headers
        }
    }
    /// The body: none, bytes, a file, or a stream (which can be sent once).
    public var body: RequestBody {
        get { storage.body }
        set { unique().body = newValue }
    }
    /// Per-request settings that the pipeline's stages read.
    public var options: RequestOptions {
        get { storage.options }
        _modify {
            let box = unique()
            yield &box.options
        }
    }

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - target: Where it goes.
    ///   - method: The method; `GET` by default.
    ///   - headers: The header fields, in order.
    ///   - body: The body; none by default.
    ///   - options: Per-request settings; none set by default.
    public init(
        _ target: RequestTarget, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: RequestBody = .empty,
        options: RequestOptions = RequestOptions()
    ) {
        storage = Storage(method: method, target: target, headers: headers, body: body, options: options)
    }

    /// Creates a request for a URL.
    ///
    /// - Parameters:
    ///   - url: The absolute URL; kept as it is until a part of the target changes.
    ///   - method: The method; `GET` by default.
    ///   - headers: The header fields, in order.
    ///   - body: The body; none by default.
    ///   - options: Per-request settings; none set by default.
    public init(
        url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: RequestBody = .empty,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(RequestTarget(url), method: method, headers: headers, body: body, options: options)
    }

    /// The URL the target forms.
    public var url: URL { target.url }
}

// MARK: - Header fields on the wire

extension HTTPHeaders {
    /// A call's fields over a session's: every session field whose name the call does not use,
    /// in the session's order, then every field of the call, in the call's order with its
    /// repeats. A call's field replaces all of the session's fields of that name.
    ///
    /// - Parameter call: The call's fields.
    /// - Returns: The fields of the request.
    public func overridden(by call: HTTPHeaders) -> HTTPHeaders {
        guard !isEmpty else { return call }
        guard !call.isEmpty else { return self }
        var merged = HTTPHeaders()
        for field in self where !call.contains(where: { HTTPHeaders.namesMatch($0.name, field.name) }) {
            merged.append(field)
        }
        for field in call { merged.append(field) }
        return merged
    }

    /// The fields as they go out on one connection: in order, repeats kept as repeated lines,
    /// except `Cookie`, whose values are joined into one field with `"; "` (RFC 6265, section
    /// 5.4) at the position of the first.
    public var wireFields: HTTPHeaders {
        var cookies: [String] = []
        var firstCookie: Int?
        for (index, field) in enumerated() where HTTPHeaders.namesMatch(field.name, "Cookie") {
            if firstCookie == nil { firstCookie = index }
            cookies.append(field.value)
        }
        guard let firstCookie, cookies.count > 1 else { return self }
        var result = HTTPHeaders()
        for (index, field) in enumerated() {
            if index == firstCookie {
                result.append(name: field.name, value: cookies.joined(separator: "; "))
            } else if !HTTPHeaders.namesMatch(field.name, "Cookie") {
                result.append(field)
            }
        }
        return result
    }
}
