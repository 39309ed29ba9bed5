import Foundation

// MARK: - HTTPHeaders

/// An ordered list of HTTP headers with case-insensitive names.
///
/// ``add(_:)`` and ``update(_:)`` replace a header whose name matches case-insensitively: it keeps
/// its position and takes the new spelling and value (the last spelling wins, as in Alamofire), so
/// a name appears once, as in `URLRequest`. A response may repeat a field (several `Set-Cookie`): ``append(_:)`` keeps each,
/// ``values(for:)`` reads them all.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(.authorization(bearerToken: token))
/// headers["accept"] // "application/json"
/// ```
public struct HTTPHeaders: Hashable, Sendable {
    private var headers: [HTTPHeader] = []

    /// Creates an empty list.
    public init() {}

    /// Creates a list from headers, in order; a later header replaces the spelling and value of an
    /// earlier one of the same name, at the earlier one's position.
    ///
    /// - Parameter headers: The headers.
    public init(_ headers: [HTTPHeader]) {
        self.init(merging: headers)
    }

    /// Creates a list from a dictionary, sorted by name so the order is the same in every run.
    ///
    /// Keys that differ only in case become one header: the spelling that sorts last, with its value.
    ///
    /// - Parameter dictionary: Names and values.
    public init(_ dictionary: [String: String]) {
        self.init(merging: dictionary.keys.sorted().map { HTTPHeader(name: $0, value: dictionary[$0] ?? "") })
    }

    /// The headers in order, a later one replacing the spelling and value of an earlier one of the
    /// same name.
    ///
    /// Linear in the number of headers, through an index by lowercased name: a response with
    /// 100,000 headers must not cost 5 billion name comparisons, as calling ``update(_:)`` for each would.
    private init(merging list: [HTTPHeader]) {
        headers.reserveCapacity(list.count)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(list.count)
        for header in list {
            let key = Self.foldedName(header.name)
            if let index = positions[key] {
                headers[index] = header
            } else {
                positions[key] = headers.count
                headers.append(header)
            }
        }
    }

    /// A name with ASCII letters lowercased, the key under which ``namesMatch(_:_:)`` finds it.
    private static func foldedName(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return name }
        return String(decoding: name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Adds a header, or replaces the header that has the same name, ignoring case (its position is
    /// kept; the new spelling and value are taken).
    ///
    /// - Parameters:
    ///   - name: The header name.
    ///   - value: The header value.
    public mutating func add(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Adds a header, or replaces the header that has the same name, ignoring case (its position is
    /// kept; the new spelling and value are taken).
    ///
    /// - Parameter header: The header.
    public mutating func add(_ header: HTTPHeader) {
        update(header)
    }

    /// Replaces the header that has the same name, ignoring case, or appends the header. The
    /// replaced header keeps its position and takes the new spelling and value: `"c"` then `"C"`
    /// leaves `C`, as in Alamofire.
    ///
    /// - Parameters:
    ///   - name: The header name.
    ///   - value: The header value.
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Replaces the header that has the same name, ignoring case, or appends the header. The
    /// replaced header keeps its position and takes the new spelling and value (the last spelling
    /// wins, as in Alamofire); repeats of that name after the first are removed.
    ///
    /// - Parameter header: The header.
    public mutating func update(_ header: HTTPHeader) {
        if let index = index(of: header.name) {
            headers[index] = header
            if headers[(index + 1)...].contains(where: { Self.namesMatch($0.name, header.name) }) {
                var position = 0
                headers.removeAll { field in
                    defer { position += 1 }
                    return position > index && Self.namesMatch(field.name, header.name)
                }
            }
        } else {
            headers.append(header)
        }
    }

    /// Appends a header even when one of the same name is there: a repeated field, such as the
    /// several `Set-Cookie` of one response.
    ///
    /// - Parameters:
    ///   - name: The header name.
    ///   - value: The header value.
    public mutating func append(name: String, value: String) {
        headers.append(HTTPHeader(name: name, value: value))
    }

    /// Appends a header even when one of the same name is there: a repeated field.
    ///
    /// - Parameter header: The header.
    public mutating func append(_ header: HTTPHeader) {
        headers.append(header)
    }

    /// Removes every header with this name, ignoring case.
    ///
    /// - Parameter name: The header name.
    public mutating func remove(name: String) {
        headers.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Sorts the headers by name, ignoring case.
    public mutating func sort() {
        headers.sort { Self.nameOrder($0.name, $1.name) }
    }

    /// Whether `lhs` sorts before `rhs`, ignoring case: ASCII names (every valid one) byte by
    /// byte with letters folded, without the two lowercased copies a comparison would make;
    /// others by their lowercased forms.
    static func nameOrder(_ lhs: String, _ rhs: String) -> Bool {
        @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        // Unicode ordering compares canonical forms, which ASCII bytes cannot tell apart from.
        guard lhs.utf8.allSatisfy({ $0 < 0x80 }), rhs.utf8.allSatisfy({ $0 < 0x80 }) else {
            return lhs.lowercased() < rhs.lowercased()
        }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case let (a?, b?):
                let (x, y) = (folded(a), folded(b))
                if x != y { return x < y }
            }
        }
    }

    /// Returns the headers sorted by name, ignoring case.
    ///
    /// - Returns: A sorted copy.
    public func sorted() -> HTTPHeaders {
        var copy = self
        copy.sort()
        return copy
    }

    /// The value of the header with this name, ignoring case; the first, when the field repeats.
    ///
    /// - Parameter name: The header name.
    /// - Returns: The value, or `nil` when there is no such header.
    public func value(for name: String) -> String? {
        index(of: name).map { headers[$0].value }
    }

    /// The values of every header with this name, ignoring case, in order.
    ///
    /// - Parameter name: The header name.
    /// - Returns: The values; empty when there is no such header.
    public func values(for name: String) -> [String] {
        headers.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// The value of a header, ignoring the case of its name; assigning `nil` removes it, assigning
    /// a value is ``update(name:value:)``, so the name is spelled as written here.
    ///
    /// - Parameter name: The header name.
    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue {
                update(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// The headers as a dictionary, in the form `URLRequest.allHTTPHeaderFields` takes; the values
    /// of a repeated field (its name spelled in any case) are joined with `, `, as HTTP combines
    /// them, under its first spelling.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(headers.count)
        // For long lists, the spelling each folded name is kept under: a scan per header would
        // be quadratic.
        var spellings: [String: String] = [:]
        for header in headers {
            let key: String?
            if result[header.name] != nil {
                key = header.name
            } else if headers.count <= 16 {
                key = result.keys.first { Self.namesMatch($0, header.name) }
            } else {
                let folded = Self.foldedName(header.name)
                key = spellings[folded]
                if key == nil { spellings[folded] = header.name }
            }
            if let key, let earlier = result[key] {
                result[key] = earlier + ", " + header.value
            } else {
                result[header.name] = header.value
            }
        }
        return result
    }

    /// Checks every header with ``HTTPHeader/validate()``.
    ///
    /// - Throws: ``ParameterEncodingError`` naming the first refused header.
    public func validate() throws {
        for header in headers {
            try header.validate()
        }
    }

    private func index(of name: String) -> Int? {
        headers.firstIndex { Self.namesMatch($0.name, name) }
    }

    /// ASCII case-insensitive comparison, without allocating lowercased copies: over the two
    /// strings' contiguous UTF-8 when they have it (native strings do), else byte by byte.
    package static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        let contiguous = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for index in left.indices where !bytesMatch(left[index], right[index]) { return false }
                return true
            }
        }
        if let contiguous, let result = contiguous { return result }
        return zip(lhs.utf8, rhs.utf8).allSatisfy(bytesMatch)
    }

    /// The members of a comma-separated list value (RFC 9110 §5.6.1), such as `Vary`'s or
    /// `Connection`'s field names: trimmed of spaces and tabs, lowercased, empty members skipped.
    package static func listMembers(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether two bytes are equal, ignoring the case of ASCII letters.
    @inline(__always)
    private static func bytesMatch(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}

// MARK: Collection

extension HTTPHeaders: RandomAccessCollection {
    /// The position of the first header.
    public var startIndex: Int { headers.startIndex }
    /// The position past the last header.
    public var endIndex: Int { headers.endIndex }

    /// The header at a position.
    ///
    /// - Parameter position: A valid index.
    public subscript(position: Int) -> HTTPHeader { headers[position] }
}

// MARK: CustomStringConvertible

extension HTTPHeaders: CustomStringConvertible {
    /// One `Name: Value` line per header.
    public var description: String {
        headers.map(\.description).joined(separator: "\n")
    }
}
