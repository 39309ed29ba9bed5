import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Requests

// MARK: - RequestPlan

/// The request the command line describes, built with the library's own encoders.
struct RequestPlan {
    static let userAgent = "req/\(Version.current)"

    let request: OutgoingRequest

    /// Builds the request.
    ///
    /// - Parameters:
    ///   - options: The parsed command line.
    ///   - storedHeaders: Headers from a `--session` file; the command line's win.
    ///   - standardInput: The bytes piped into `req`, sent as the body exactly as they are.
    /// - Throws: ``UsageError`` for a bad item, URL or file, for a file field without `--form`,
    ///   or for body data items beside a whole body (standard input, `--raw`, `@path`); the
    ///   library's errors for values it cannot encode.
    init(_ options: Options, storedHeaders: [String: String] = [:], standardInput: Data? = nil) throws {
        let encoding = options.encoding ?? .json
        let body = try BodySource(options, standardInput: standardInput, encoding: encoding)
        let fileItems = options.items.filter { $0.kind == .file }
        if let file = fileItems.first, options.encoding != .form {
            throw UsageError(
                "\"\(file.text)\": a file field is sent as multipart, so it needs --form or --multipart (as in httpie); "
                    + "@path alone sends a file as the whole body"
            )
        }
        let multipart = !fileItems.isEmpty || options.multipart
        var query: [(String, any Sendable)] = []
        var fields = FieldTree(mode: encoding == .form || encoding == .query ? .form : .json)
        var files: [MultipartFormBody.Part] = []
        var headers = HTTPHeaders()
        var removed: [String] = []
        var orderedFields: [(String, any Sendable)] = []
        for item in options.items {
            switch item.kind {
            case .query:
                query.append((item.name, item.value))
            case .header:
                let value = item.value.trimmingCharacters(in: .whitespaces)
                if value.isEmpty {
                    removed.append(item.name)
                    headers.remove(name: item.name)
                } else {
                    headers.update(name: item.name, value: value)
                    removed.removeAll { $0.lowercased() == item.name.lowercased() }
                }
            case .emptyHeader:
                headers.update(name: item.name, value: "")
                removed.removeAll { $0.lowercased() == item.name.lowercased() }
            case .field:
                try fields.add(item.name, item.value, item: item.text)
                orderedFields.append((item.name, item.value))
            case .json:
                let value = try JSONInput.parse(item.value, item: item.text)
                try fields.add(item.name, value, item: item.text)
                orderedFields.append((item.name, value))
            case .textFile:
                let text = try Self.read(item.value, for: item.text)
                try fields.add(item.name, text, item: item.text)
                orderedFields.append((item.name, text))
            case .jsonFile:
                let value = try JSONInput.parse(try Self.data(item.value, for: item.text), item: item.text)
                try fields.add(item.name, value, item: item.text)
                orderedFields.append((item.name, value))
            case .file:
                files.append(try Self.filePart(item))
            case .bodyFile:
                break
            }
        }
        // With --query the fields go to the URL, so they are not body data.
        let hasBody = (!fields.isEmpty && encoding != .query) || multipart || body != nil
        let method = HTTPMethod(rawValue: options.method ?? (hasBody ? "POST" : "GET"))
        var url = try Self.url(options.url)
        if !query.isEmpty {
            url = try Self.appending(query, to: url)
        }
        let json = encoding == .json && (hasBody || options.encoding == .json)
        var all = HTTPHeaders()
        all.update(name: "User-Agent", value: Self.userAgent)
        all.update(name: "Accept", value: json ? "application/json, */*;q=0.5" : "*/*")
        for (name, value) in storedHeaders.sorted(by: { $0.key < $1.key }) {
            all.update(name: name, value: value)
        }
        for header in headers {
            all.update(header)
        }
        for name in removed {
            all.remove(name: name)
        }
        // The library refuses CR, LF and NUL and names that are not tokens, naming the header.
        try all.validate()
        // The value the session sends: the headers in the command line's order. The library's
        // encoders for ordered pairs and JSON objects write into a `URLRequest`; what they change
        // comes back with `replace(with:)`, which keeps the other fields where they were.
        var request = OutgoingRequest(url: url, method: method, headers: all)
        if options.authType == .bearer, let token = options.auth {
            request.headers.update(name: "Authorization", value: "Bearer \(token)")
        }
        if let body {
            // As httpie: the bytes as they are, labelled by the encoding flag (JSON by default)
            // unless a Content-Type item says otherwise.
            request.setBody(body.data, defaultContentType: body.contentType)
        } else if multipart {
            var parts = orderedFields.map { MultipartFormBody.Part.text($0.0, Self.text(of: $0.1)) }
            parts += files
            let multipartBody = options.boundary.map { MultipartFormBody(parts, boundary: $0) } ?? MultipartFormBody(parts)
            try request.replace(with: multipartBody.applied(to: request.urlRequest()))
        } else if !fields.isEmpty {
            switch encoding {
            case .form, .query:
                // Ordered pairs, so that a repeated name keeps every value: a=1&a=2.
                try request.replace(with: Self.urlEncoding(encoding, options).encode(request, withOrderedPairs: fields.pairs))
            case .json:
                // The command line's key order unless --sorted; a top-level array as it is.
                try request.replace(with: JSONEncoding.default.encode(request, withJSONObject: fields.jsonObject(sorted: options.sorted == true)))
            case .plist, .plistBinary:
                try Self.encoding(encoding, options).encode(try fields.parameters(), into: &request)
            }
        } else if json, request.headers["Content-Type"] == nil {
            // --json alone asks and says JSON, as httpie's does.
            request.headers.append(name: "Content-Type", value: "application/json")
        }
        // `Header:` removes a header whoever set it (an encoder sets Content-Type).
        for name in removed {
            request.headers.remove(name: name)
        }
        self.request = request
        self.removedHeaders = removed
    }

    /// The headers `Header:` items removed, for the note about those the transport adds back.
    let removedHeaders: [String]

    /// A `field@path` or `field@path;type=MIME` part.
    private static func filePart(_ item: RequestItem) throws -> MultipartFormBody.Part {
        var path = item.value
        var mimeType: String?
        if let range = path.range(of: ";type=", options: .backwards) {
            mimeType = String(path[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            path = String(path[..<range.lowerBound])
            if mimeType?.isEmpty == true {
                throw UsageError("\"\(item.text)\": ;type= needs a MIME type, such as ;type=text/plain")
            }
        }
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw UsageError("\"\(item.text)\": cannot read \(path)")
        }
        return .file(item.name, at: url, mimeType: mimeType)
    }

    /// The library encoding for a body encoding flag.
    static func encoding(_ encoding: Options.BodyEncoding, _ options: Options) -> any ParameterEncoding {
        switch encoding {
        case .json: return JSONEncoding.default
        case .form, .query: return urlEncoding(encoding, options)
        case .plist: return PropertyListEncoding(format: .xml)
        case .plistBinary: return PropertyListEncoding(format: .binary)
        }
    }

    /// `URLEncoding` for `--form` (the body) or anything else (the query string), with the
    /// `--arrays` and `--bools` options.
    static func urlEncoding(_ encoding: Options.BodyEncoding, _ options: Options) -> URLEncoding {
        let arrays: URLEncoding.ArrayEncoding = switch options.arrays {
        case "no-brackets": .noBrackets
        case "index": .indexInBrackets
        default: .brackets
        }
        let bools: URLEncoding.BoolEncoding = options.bools == "literal" ? .literal : .numeric
        return URLEncoding(destination: encoding == .form ? .httpBody : .queryString, arrayEncoding: arrays, boolEncoding: bools)
    }

    /// The `Content-Type` of a body from standard input: JSON unless a flag names another
    /// encoding, as httpie labels it.
    static func contentType(of encoding: Options.BodyEncoding) -> String {
        switch encoding {
        case .form: "application/x-www-form-urlencoded; charset=utf-8"
        case .plist, .plistBinary: "application/x-plist"
        case .json, .query: "application/json"
        }
    }

    /// A field value as multipart text: strings as they are, raw JSON as typed, other values
    /// as JSON.
    private static func text(of value: any Sendable) -> String {
        if let string = value as? String { return string }
        if let raw = value as? RawJSON { return raw.text }
        return (try? JSONEncoding.default.data(for: value)).map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }

    /// The URL, with `http://` added when the scheme is missing and `localhost` when only a port is.
    static func url(_ text: String) throws -> URL {
        var text = text
        if text.hasPrefix(":") {
            text = "localhost" + text
        }
        let lowered = text.lowercased()
        // A scheme is given when the text starts with one (letters, digits, `+`, `-`, `.`)
        // followed by `://`; a `://` later on (in a query, say) is not one.
        if let separator = lowered.range(of: "://"),
           case let scheme = lowered[..<separator.lowerBound],
           let first = scheme.first, first.isLetter,
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            // http and https only (httpie's rule), never `http://ftp://…`.
            guard scheme == "http" || scheme == "https" else {
                throw UsageError("\"\(text)\": only http and https URLs are sent, not \(scheme)")
            }
        } else {
            text = "http://" + text
        }
        guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
            throw UsageError("\"\(text)\" is not a URL")
        }
        if url.path.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.path = "/"
            return components.url ?? url
        }
        return url
    }

    /// The URL with query items appended, written by `URLEncoding`.
    private static func appending(_ query: [(String, any Sendable)], to url: URL) throws -> URL {
        let written = try URLEncoding.queryString.encode(URLRequest(url: url), withOrderedPairs: query)
        return written.url ?? url
    }

    static func read(_ path: String, for item: String) throws -> String {
        String(decoding: try data(path, for: item), as: UTF8.self)
    }

    static func data(_ path: String, for item: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\"\(item)\": cannot read \(path)")
        }
        return data
    }
}
