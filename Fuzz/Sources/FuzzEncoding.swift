import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - escape

/// `escape` writes only unreserved characters, `/`, `?` (both allowed in a query, RFC 3986 3.4)
/// and `%XX`, and percent-decodes back to its input.
func fuzzEscape(_ input: FuzzInput) {
    var input = input
    let text = String(decoding: input.rest(), as: UTF8.self)
    let escaped = URLEncoding.default.escape(text)
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?%".utf8)
    guard escaped.utf8.allSatisfy(allowed.contains) else { fail("escape(\(text.debugDescription)) = \(escaped) has a reserved character") }
    guard percentDecoded(escaped) == text else { fail("escape(\(text.debugDescription)) = \(escaped) does not decode back") }
}

// MARK: - query

/// `query` of a nested shape: every pair percent-decodes to the key path and value it came from.
func fuzzQuery(_ input: FuzzInput) {
    var input = input
    var parameters: Parameters = [:]
    var expected: [String] = []
    var keys = Set<String>()
    while !input.isAtEnd, parameters.count < 8 {
        let shape = input.byte() % 4
        var key = input.string(limit: 16)
        // A fresh name for an empty or repeated key, itself unused: "k3" may have come from the input.
        var fallback = keys.count
        while key.isEmpty || keys.contains(key) {
            key = "k\(fallback)"
            fallback += 1
        }
        keys.insert(key)
        switch shape {
        case 0:
            let value = input.string()
            parameters[key] = value
            expected.append(key + "=" + value)
        case 1:
            let values = (0..<Int(input.byte() % 4)).map { _ in input.string(limit: 16) }
            parameters[key] = values
            expected += values.map { key + "[]=" + $0 }
        case 2:
            let sub = input.string(limit: 16)
            let value = input.string(limit: 16)
            parameters[key] = [sub: value] as Parameters
            expected.append(key + "[" + sub + "]=" + value)
        default:
            let flag = input.byte() % 2 == 0
            parameters[key] = flag
            expected.append(key + "=" + (flag ? "1" : "0"))
        }
    }
    let query: String
    do {
        query = try URLEncoding.default.query(parameters)
    } catch {
        fail("query threw \(error) for \(parameters)")
    }
    let pairs = query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
        let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2, let key = percentDecoded(halves[0]),
              let value = percentDecoded(halves[1]) else { fail("query \(query) has a malformed pair \(pair)") }
        return key + "=" + value
    }
    guard pairs.sorted() == expected.sorted() else { fail("query \(query) reads back as \(pairs.sorted()), expected \(expected.sorted())") }

    // Now and then a container large enough to be sorted by its keys' bytes: ASCII keys, from
    // the input's strings with counters, come out in byte order.
    let stems = keys.filter { $0.utf8.allSatisfy { $0 < 0x80 } }.sorted()
    if let seed = stems.first, (seed.utf8.count + query.utf8.count) % 32 == 0 {
        var large: Parameters = [:]
        for index in 0..<3_000 {
            large[String(stems[index % stems.count].prefix(20)) + String(index * 7_919 % 3_001)] = index
        }
        let written: String
        do {
            written = try URLEncoding.default.query(large)
        } catch {
            fail("query threw \(error) for \(large.count) keys")
        }
        let order = written.split(separator: "&").map { pair -> [UInt8] in
            Array((percentDecoded(pair.split(separator: "=", maxSplits: 1)[0]) ?? "").utf8)
        }
        guard order.count == large.count, zip(order, order.dropFirst()).allSatisfy({ $0.lexicographicallyPrecedes($1) }) else {
            fail("a query of \(large.count) keys is not in byte order")
        }
    }
}

// MARK: - Value trees

/// A JSON-like value built from fuzz input, and comparable after a round trip.
indirect enum Tree: Equatable {
    case string(String), number(Double), bool(Bool), null, array([Tree]), object([String: Tree])

    static func make(_ input: inout FuzzInput, depth: Int = 0, allowNull: Bool = true) -> Tree {
        switch input.byte() % (depth >= 4 ? 4 : 6) {
        case 0: return .string(input.string(limit: 24))
        case 1:
            let raw = Int64(input.byte()) << 8 | Int64(input.byte())
            return input.byte() % 2 == 0 ? .number(Double(raw - 32768)) : .number(Double(raw) / 64)
        case 2: return .bool(input.byte() % 2 == 0)
        case 3: return allowNull ? .null : .string("")
        case 4: return .array((0..<Int(input.byte() % 4)).map { _ in make(&input, depth: depth + 1, allowNull: allowNull) })
        default:
            var members: [String: Tree] = [:]
            for _ in 0..<Int(input.byte() % 4) { members[input.string(limit: 12)] = make(&input, depth: depth + 1, allowNull: allowNull) }
            return .object(members)
        }
    }

    var parameter: any Sendable {
        switch self {
        case .string(let value): value
        case .number(let value): value
        case .bool(let value): value
        case .null: NSNull()
        case .array(let values): values.map(\.parameter) as [any Sendable]
        case .object(let members): members.mapValues(\.parameter) as Parameters
        }
    }

    /// Whether a key or string anywhere in the tree starts with U+FEFF.
    var hasStringStartingWithBOM: Bool { containsString { $0.hasPrefix("\u{FEFF}") } }

    /// Whether a key or string anywhere in the tree satisfies `predicate`.
    func containsString(_ predicate: (String) -> Bool) -> Bool {
        switch self {
        case .string(let text): predicate(text)
        case .array(let values): values.contains { $0.containsString(predicate) }
        case .object(let members): members.contains { predicate($0.key) || $0.value.containsString(predicate) }
        default: false
        }
    }

    /// The tree a Foundation parser returned.
    init?(parsed value: Any) {
        switch value {
        case let value as String: self = .string(value)
        case let value as NSNull: _ = value; self = .null
        case let value as [Any]:
            var elements: [Tree] = []
            for element in value {
                guard let tree = Tree(parsed: element) else { return nil }
                elements.append(tree)
            }
            self = .array(elements)
        case let value as [String: Any]:
            var members: [String: Tree] = [:]
            for (key, member) in value {
                guard let tree = Tree(parsed: member) else { return nil }
                members[key] = tree
            }
            self = .object(members)
        case let value as NSNumber:
            self = String(cString: value.objCType) == "c" ? .bool(value.boolValue) : .number(value.doubleValue)
        default: return nil
        }
    }
}

// MARK: - json

/// `JSONEncoding` output parses back through `JSONSerialization` to an equal tree.
func fuzzJSON(_ input: FuzzInput) {
    var input = input
    var tree = Tree.make(&input)
    // JSONEncoding writes an array or an object at the top, as JSONSerialization does by default.
    switch tree {
    case .array, .object: break
    default: tree = .array([tree])
    }
    let data: Data
    do {
        data = try JSONEncoding.default.data(for: tree.parameter)
    } catch {
        fail("JSONEncoding threw \(error) for \(tree)")
    }
    guard let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
        fail("JSONSerialization cannot read \(String(decoding: data, as: UTF8.self))")
    }
    // JSONSerialization drops a U+FEFF that starts a string or follows an escape in one (it
    // decodes each run of raw bytes on its own and takes the U+FEFF for a byte-order mark;
    // Foundation writes such strings as these bytes too), so a tree with a U+FEFF is checked by
    // JSONDecoder alone, which keeps it.
    if !tree.containsString({ $0.unicodeScalars.contains("\u{FEFF}") }), Tree(parsed: parsed) != tree {
        fail("\(String(decoding: data, as: UTF8.self)) reads back as \(parsed), not \(tree)")
    }
    do {
        let decoded = try JSONDecoder().decode(Tree.self, from: data)
        guard decoded == tree else { fail("\(String(decoding: data, as: UTF8.self)) decodes as \(decoded), not \(tree)") }
    } catch {
        fail("JSONDecoder cannot read \(String(decoding: data, as: UTF8.self)): \(error)")
    }

    // The same tree as an `Encodable` value: the fast writer behind `JSONParameterEncoder` must
    // write Foundation's `JSONEncoder`'s bytes, with the same options.
    let preset = JSONParameterEncoder.default
    let foundation: Data
    do {
        foundation = try preset.encoder.encode(tree)
    } catch {
        fail("JSONEncoder threw \(error) for \(tree)")
    }
    guard let url = URL(string: "https://example.com/") else { fail("no URL") }
    let ours: Data?
    do {
        ours = try preset.encode(tree, into: URLRequest(url: url, method: .post)).httpBody
    } catch {
        fail("JSONParameterEncoder threw \(error) for \(tree)")
    }
    guard ours == foundation else {
        fail("JSONParameterEncoder wrote \(String(decoding: ours ?? Data(), as: UTF8.self)), JSONEncoder \(String(decoding: foundation, as: UTF8.self))")
    }
    // Written straight into a request value: the same bytes, no URLRequest on the way.
    var request = OutgoingRequest(url: url, method: .post)
    do {
        try preset.encode(tree, into: &request)
    } catch {
        fail("JSONParameterEncoder into a request value threw \(error) for \(tree)")
    }
    guard case .data(let direct) = request.body.storage, direct == foundation else {
        fail("JSONParameterEncoder into a request value wrote \(request.body.storage), JSONEncoder \(String(decoding: foundation, as: UTF8.self))")
    }

    // A Decimal from the input's bytes: written as its description, as JSONEncoder writes it.
    if !input.isAtEnd {
        let significand = (0..<Int(input.byte() % 9)).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(input.byte()) }
        let exponent = Int(input.byte() % 64) - 32
        var decimal = Decimal(sign: input.byte() % 2 == 0 ? .plus : .minus, exponent: exponent, significand: Decimal(significand))
        if input.byte() % 4 == 0 { decimal *= Decimal(sign: .plus, exponent: 0, significand: Decimal(UInt64.max)) }
        let written: Data
        do {
            written = try JSONEncoding.default.data(for: ["d": decimal])
        } catch {
            fail("JSONEncoding threw \(error) for the Decimal \(decimal)")
        }
        guard written == Data("{\"d\":\(decimal.description)}".utf8) else {
            fail("the Decimal \(decimal.description) was written as \(String(decoding: written, as: UTF8.self))")
        }
    }
}

/// The tree read by `JSONDecoder`: null, a Boolean, a number, a string, an array or an object,
/// whichever the value is (JSONDecoder reads no Boolean as a number, nor a number as a Boolean).
extension Tree: Decodable {
    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: Key.self) {
            var members: [String: Tree] = [:]
            for key in container.allKeys { members[key.stringValue] = try container.decode(Tree.self, forKey: key) }
            self = .object(members)
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [Tree] = []
            while !container.isAtEnd { elements.append(try container.decode(Tree.self)) }
            self = .array(elements)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }
}

/// The tree as an `Encodable` value, each case through the container JSON gives it.
extension Tree: Encodable {
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }
}

// MARK: - plist

/// Both property-list writers read back through `PropertyListSerialization` to an equal tree.
func fuzzPropertyList(_ input: FuzzInput) {
    var input = input
    var tree = Tree.make(&input, allowNull: false)
    if case .object = tree {} else { tree = .object(["root": tree]) }
    for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
        let data: Data
        do {
            data = try PropertyListEncoding(format: format).data(for: tree.parameter)
        } catch {
            // The one refusal allowed: XML cannot give back a string's leading U+FEFF.
            if format == .xml, tree.hasStringStartingWithBOM, "\(error)".contains("U+FEFF") { continue }
            fail("PropertyListEncoding(\(format)) threw \(error) for \(tree)")
        }
        guard let parsed = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
            fail("PropertyListSerialization cannot read the \(format) output for \(tree)")
        }
        guard Tree(parsed: parsed) == tree else { fail("the \(format) property list reads back as \(parsed), not \(tree)") }
    }
}
