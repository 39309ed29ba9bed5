import Foundation
import LoopbackFixture
import ParameterEncoding
import TestScheduling
import Testing

/// `query(_:)` output read back by the parsers servers really use: PHP's `parse_str` and Ruby
/// Rack's `Rack::Utils.parse_nested_query`. Seeded random nested parameter sets must come back with
/// the same keys, nesting, values and order.
///
/// `.ci/run` installs `php-cli`, `ruby` and `ruby-rack` and sets `REQUESTS_REAL_PARSERS=required`,
/// so there a missing parser fails the test; elsewhere a missing parser skips it.
@Suite(.backgroundPriority) struct RealParserTests {
    static let seed: UInt64 = 0x5EED_2026
    static let count = 1000

    @Test func phpParseStrReadsBackEveryParameterSet() async throws {
        let script = """
        function canon($v) {
            if (!is_array($v)) { return (string)$v; }
            if (array_is_list($v)) { return ["l" => array_map("canon", $v)]; }
            $pairs = [];
            foreach ($v as $k => $x) { $pairs[] = [(string)$k, canon($x)]; }
            return ["o" => $pairs];
        }
        while (($line = fgets(STDIN)) !== false) {
            parse_str(rtrim($line, "\\n"), $out);
            echo json_encode(canon($out), JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\\n";
        }
        """
        try await Self.compare(parser: "php", arguments: ["-r", script])
    }

    @Test func rackParseNestedQueryReadsBackEveryParameterSet() async throws {
        let script = """
        require "rack"
        require "json"
        def canon(v)
          case v
          when Hash then { "o" => v.map { |k, x| [k.to_s, canon(x)] } }
          when Array then { "l" => v.map { |x| canon(x) } }
          else v.to_s
          end
        end
        STDIN.each_line { |line| puts JSON.generate(canon(Rack::Utils.parse_nested_query(line.chomp))) }
        """
        try await Self.compare(parser: "ruby", arguments: ["-e", script])
    }

    /// Encodes ``count`` generated sets, has `parser` read them back one per line, and compares.
    private static func compare(parser: String, arguments: [String]) async throws {
        guard let executable = Self.executable(named: parser) else {
            if ProcessInfo.processInfo.environment["REQUESTS_REAL_PARSERS"] == "required" {
                Issue.record("\(parser) is not installed; .ci/run installs php-cli, ruby and ruby-rack")
            }
            return
        }
        var generator = ParameterGenerator(seed: seed)
        var sets: [Parameters] = []
        var lines: [String] = []
        for _ in 0..<count {
            let parameters = generator.parameters()
            sets.append(parameters)
            lines.append(try URLEncoding.default.query(parameters))
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("queries-\(UUID().uuidString).txt")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let output = try await ChildProcess.run(executable, arguments: arguments, input: .file(input))
        let stderr = String(decoding: output.stderr, as: UTF8.self)
        try #require(output.status == 0, "\(parser) failed: \(stderr)")
        let parsed = String(decoding: output.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        try #require(parsed.count >= count, "\(parser) answered \(parsed.count) lines for \(count) queries: \(stderr)")
        var mismatches = 0
        for index in 0..<count {
            let expected = Canonical(parameters: sets[index])
            let actual = try JSONDecoder().decode(Canonical.self, from: Data(parsed[index].utf8))
            if actual != expected {
                mismatches += 1
                if mismatches <= 3 {
                    Issue.record("\(parser) read \(lines[index])\nas \(actual)\nnot \(expected)")
                }
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(count) sets came back different from \(parser)")
    }

    private static func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

// MARK: - Canonical

/// A parsed query as both parsers print it: text, a list, or ordered key–value pairs.
enum Canonical: Decodable, Equatable, CustomStringConvertible {
    case text(String)
    case list([Canonical])
    case object([Pair])

    struct Pair: Decodable, Equatable {
        let key: String
        let value: Canonical

        init(key: String, value: Canonical) {
            self.key = key
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            key = try container.decode(String.self)
            value = try container.decode(Canonical.self)
        }
    }

    private enum Keys: String, CodingKey { case l, o }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .text(text)
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        if let list = try container.decodeIfPresent([Canonical].self, forKey: .l) {
            self = .list(list)
        } else {
            self = .object(try container.decode([Pair].self, forKey: .o))
        }
    }

    /// What a parser must read from `query(parameters)`: keys in sorted order at every level,
    /// numbers in their Swift spelling, booleans as 1 and 0.
    init(parameters: Parameters) {
        self = .object(parameters.sorted { $0.key < $1.key }.map { Pair(key: $0.key, value: Canonical(value: $0.value)) })
    }

    private init(value: Any) {
        switch value {
        case let dictionary as Parameters: self.init(parameters: dictionary)
        case let array as [any Sendable]: self = .list(array.map { Canonical(value: $0) })
        case let bool as Bool: self = .text(bool ? "1" : "0")
        default: self = .text("\(value)")
        }
    }

    var description: String {
        switch self {
        case .text(let text): return text.debugDescription
        case .list(let list): return "[" + list.map(\.description).joined(separator: ", ") + "]"
        case .object(let pairs): return "{" + pairs.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

// MARK: - ParameterGenerator

/// Random nested parameters from a seed (SplitMix64), within what both parsers can express:
/// no empty containers (a query cannot carry them), arrays of scalars only (`a[][b]=1&a[][c]=2`
/// is one element to Rack and two to PHP), keys that start with a letter and hold no `.`, space,
/// `[` or `]` (PHP rewrites or splits on them), at most 4 levels.
struct ParameterGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func parameters(depth: Int = 0) -> Parameters {
        var result: Parameters = [:]
        for _ in 0..<(1 + next(4)) {
            result[key()] = value(depth: depth)
        }
        return result
    }

    private mutating func value(depth: Int) -> any Sendable {
        switch next(20) {
        case 0..<9: return text()
        case 9..<11: return Int(truncatingIfNeeded: Int64(bitPattern: random())) >> next(60)
        case 11..<12: return next(2) == 0
        case 12..<13: return Double(next(100_000)) / 64
        case 13..<16: return (0..<(1 + next(4))).map { _ -> any Sendable in next(3) == 0 ? next(1000) : text() }
        default: return depth < 3 ? parameters(depth: depth + 1) : text()
        }
    }

    private static let keyCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~&=+%#?/:;,!$'()*@éüß日本語🎉")
    private static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    private static let textCharacters = keyCharacters + Array(" .[]\"\\<>{}|^`\t\n\r…€中文😀\u{301}")

    private mutating func key() -> String {
        var key = String(Self.letters[next(Self.letters.count)])
        for _ in 0..<next(8) {
            key.append(Self.keyCharacters[next(Self.keyCharacters.count)])
        }
        return key
    }

    private mutating func text() -> String {
        String((0..<next(12)).map { _ in Self.textCharacters[next(Self.textCharacters.count)] })
    }

    private mutating func next(_ bound: Int) -> Int {
        Int(random() % UInt64(bound))
    }

    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
