import Foundation
import LoopbackFixture
import TestScheduling
import Testing
@testable import ParameterEncoding

/// The direct JSON writer, checked value by value and against `JSONSerialization`.
@Suite(.backgroundPriority) struct JSONWriterTests {
    func text(_ value: any Sendable, _ options: JSONSerialization.WritingOptions = []) throws -> String {
        String(decoding: try JSONEncoding(options: options).data(for: value), as: UTF8.self)
    }

    func foundation(_ value: Any, _ options: JSONSerialization.WritingOptions = []) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: options.union(.sortedKeys)), as: UTF8.self)
    }

    @Test func stringsAreEscapedAsJSONSerializationEscapesThem() throws {
        let value: Parameters = ["s": "quote \" backslash \\ slash / \u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F} del \u{7F} é 日本 👨‍👩‍👧 \u{2028}"]
        #expect(try text(value) == #"{"s":"quote \" backslash \\ slash \/ \u0000\u0001\b\t\n\u000b\f\r\u001f del "# + "\u{7F} é 日本 👨‍👩‍👧 \u{2028}\"}")
        #expect(try text(value) == foundation(value))
        #expect(try text(["a/b": "c/d"] as Parameters, .withoutEscapingSlashes) == #"{"a/b":"c/d"}"#)
    }

    @Test func numbersUseTheShortestRoundTripText() throws {
        let value: Parameters = [
            "d": [1.0, 0.1, -0.0, 1e20, 1e21, 1e-5, 123456789.123, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude],
            "f": [Float(0.1), Float(1), Float(3.4e38)],
            "i": [Int.min, Int.max, 0], "u": UInt64.max, "i8": Int8(-8), "u16": UInt16(65535),
            "n": [NSNumber(value: 2.5), NSNumber(value: Float(0.1)), NSNumber(value: UInt64.max), NSNumber(value: -7), NSNumber(value: true)],
            "dec": Decimal(string: "1.25") ?? 0,
        ]
        #expect(try text(value) == #"{"d":[1,0.1,-0,1e+20,1e+21,1e-05,123456789.123,5e-324,1.7976931348623157e+308],"dec":1.25,"# +
            #""f":[0.1,1,3.4e+38],"i":[-9223372036854775808,9223372036854775807,0],"i8":-8,"n":[2.5,0.1,18446744073709551615,-7,true],"# +
            #""u":18446744073709551615,"u16":65535}"#)
    }

    @Test func booleansNullsAndOptionals() throws {
        let none: String? = nil
        let some: Int? = 3
        let value: Parameters = ["t": true, "f": false, "nb": NSNumber(value: false), "null": NSNull(), "none": none, "some": some]
        #expect(try text(value) == #"{"f":false,"nb":false,"none":null,"null":null,"some":3,"t":true}"#)
    }

    @Test func prettyPrintingHasJSONSerializationsLayout() throws {
        let value: Parameters = ["a": [1, [] as [Int], [:] as Parameters, ["x": [1, 2]] as Parameters] as [any Sendable], "e": [:] as Parameters, "f": [] as [Int]]
        #expect(try text(value, .prettyPrinted) == foundation(value, .prettyPrinted))
        #expect(try text(value, .prettyPrinted) == """
            {
              "a" : [
                1,
                [

                ],
                {

                },
                {
                  "x" : [
                    1,
                    2
                  ]
                }
              ],
              "e" : {

              },
              "f" : [

              ]
            }
            """)
        #expect(try text([:] as Parameters, .prettyPrinted) == "{\n\n}")
    }

    @Test func orderedPairsAreObjectsInTheCallersOrder() throws {
        let pairs: KeyValuePairs<String, any Sendable> = ["z": 1, "a": ["y": 2, "b": 3] as Parameters]
        #expect(try text(["p": pairs] as Parameters) == #"{"p":{"z":1,"a":{"b":3,"y":2}}}"#)
        #expect(try text(["p": [("b", 1), ("a", 2)] as [(String, any Sendable)]] as Parameters) == #"{"p":{"b":1,"a":2}}"#)
        #expect(try text(["p": [] as [(String, any Sendable)]] as Parameters) == #"{"p":{}}"#)
    }

    @Test func otherContainersAreWrittenByTheirContents() throws {
        let value: Parameters = [
            "set": Set(["b", "a"]), "slice": [1, 2, 3][1...], "contiguous": ContiguousArray([true]),
            "sub": "abc".dropFirst(), "char": Character("x"),
        ]
        #expect(try text(value) == #"{"char":"x","contiguous":[true],"set":["a","b"],"slice":[2,3],"sub":"bc"}"#)
    }

    // MARK: Key order

    @Test func keysAreInJSONSerializationsOrder() throws {
        let keys = ["b", "B", "a", "A", "_", "a10", "a2", "a02", "a1", "[", "`", "~", "Z", "z", "é", "e", "f", "aa", "a_", "a-", "a.",
                    "10", "9", "09", "x y", "X", "x", "ab", "aB", "Ab", "AB", "1a", "01", "1", "user_id", "userId", "user-id"]
        let value = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        #expect(try text(value) == foundation(value))
        #expect(try text(["userId": 1, "user_id": 2, "username": 3] as Parameters) == #"{"user_id":2,"userId":1,"username":3}"#)
    }

    /// The ASCII collation keys agree with Foundation's comparison on random keys built from the
    /// characters where orders differ most: case, digit runs with leading zeros, punctuation.
    @Test func asciiCollationKeysAgreeWithFoundation() {
        var generator = SplitMix64(seed: 0x5EED_0001)
        let alphabet = Array("aAbBzZ0019_-.~$[ !\"#%&'()*+,/:;<=>?@\\]^`{|}\t\n")
        for _ in 0..<2_000 {
            let keys = (0..<12).map { _ in
                String((0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            }
            let unique = Array(Set(keys))
            let ours = JSONKeyOrder.sortedIndices(unique).map { unique[$0] }
            let theirs = JSONKeyOrder.foundationSortedIndices(unique).map { unique[$0] }
            #expect(ours == theirs)
            if ours != theirs { return }
        }
    }

    /// Keys of letters and `_` take a shorter path (byte order of their lowercase forms), which
    /// agrees with Foundation, and leaves keys the same but for case to the collation keys.
    @Test func letterKeysAgreeWithFoundation() {
        var generator = SplitMix64(seed: 0x5EED_0002)
        let alphabet = Array("aAbBzZ_yY")
        for round in 0..<2_000 {
            let count = round.isMultiple(of: 2) ? Int.random(in: 2...16, using: &generator) : Int.random(in: 17...40, using: &generator)
            let keys = (0..<count).map { _ in
                String((0..<Int.random(in: 0...20, using: &generator)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            }
            let unique = Array(Set(keys))
            let order = JSONKeyOrder.writingOrder(unique)
            let ours = unique.indices.map { unique[order.slot($0)] }
            let theirs = JSONKeyOrder.foundationSortedIndices(unique).map { unique[$0] }
            #expect(ours == theirs)
            if ours != theirs { return }
        }
    }

    // MARK: Differential

    /// 10,000 seeded random trees of strings, integers, booleans, arrays and dictionaries give
    /// the same bytes as `JSONSerialization` with `.sortedKeys`, in each layout.
    @Test(arguments: [JSONSerialization.WritingOptions(), .prettyPrinted, .withoutEscapingSlashes])
    func randomTreesAreByteIdenticalToJSONSerialization(options: JSONSerialization.WritingOptions) async throws {
        let firstMismatch = try await inBackground { () throws -> String? in
            var generator = SplitMix64(seed: 0x0150_2026 &+ UInt64(options.rawValue))
            for _ in 0..<(options.isEmpty ? 10_000 : 2_000) {
                let tree = RandomParameters.tree(using: &generator)
                let ours = try text(tree, options)
                let theirs = try foundation(tree, options)
                if ours != theirs { return "\(ours)\n\(theirs)" }
            }
            return nil
        }
        #expect(firstMismatch == nil)
    }

    /// 10,000 seeded random trees, with doubles, nulls and extreme integers, read back through
    /// `JSONSerialization` as the values written, and as exactly what it reads from its own
    /// output.
    ///
    /// Doubles are allowed a relative error of 1e-13: Foundation's parser on Linux misreads some
    /// shortest round-trip texts (it reads `1.0341229578536245e-44` five steps off), its own
    /// output included. Python's exact reading is checked below.
    @Test func randomTreesReadBackEqual() async throws {
        let firstMismatch = try await inBackground { () throws -> String? in
            var generator = SplitMix64(seed: 0x0150_2027)
            for _ in 0..<10_000 {
                let tree = JSONTrees.tree(using: &generator)
                let data = try JSONEncoding.default.data(for: tree)
                let parsed = try JSONSerialization.jsonObject(with: data)
                let reference = try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: tree))
                // Values read back are compared through Foundation's own canonical text of them.
                guard JSONTrees.matches(parsed, tree), try foundation(parsed) == foundation(reference) else {
                    return String(decoding: data, as: UTF8.self)
                }
            }
            return nil
        }
        #expect(firstMismatch == nil)
    }

    /// Python's `json` module reads every tree as the same value it reads from Foundation's
    /// output, and every double as exactly the double written, bit for bit.
    @Test func pythonReadsTheSameValues() async throws {
        var generator = SplitMix64(seed: 0x0150_2028)
        var trees = ""
        for _ in 0..<2_000 {
            let tree = JSONTrees.tree(using: &generator)
            trees += String(decoding: try JSONEncoding.default.data(for: tree), as: UTF8.self) + "\n"
            trees += try foundation(tree) + "\n"
        }
        var doubles = ""
        for _ in 0..<2_000 {
            var double = Double(bitPattern: generator.next())
            while !double.isFinite { double = Double(bitPattern: generator.next()) }
            doubles += String(decoding: try JSONEncoding.default.data(for: [double]), as: UTF8.self) + " \(double.bitPattern)\n"
        }
        let script = """
            import json, struct, sys
            trees, doubles = sys.stdin.read().split("\\n=\\n")
            lines = trees.split("\\n")
            bad = [lines[i] for i in range(0, len(lines) - 1, 2) if json.loads(lines[i]) != json.loads(lines[i + 1])]
            for line in doubles.strip().split("\\n"):
                text, bits = line.rsplit(" ", 1)
                if struct.unpack("<Q", struct.pack("<d", json.loads(text)[0]))[0] != int(bits):
                    bad.append(text)
            print(len(bad), bad[:1])
            """
        let output = try await runPython(script, input: trees + "=\n" + doubles)
        #expect(output.hasPrefix("0 "), "python3 disagreed: \(output)")
    }

    /// Runs `script` with `input` on its standard input (from a file: it is larger than a pipe
    /// holds), waiting off the cooperative pool.
    private func runPython(_ script: String, input: String) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("json-writer-\(UUID().uuidString).txt")
        try Data(input.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script], input: .file(file)
        )
        return String(decoding: output.stdout, as: UTF8.self)
    }
}

/// Random JSON trees with every scalar kind, and a strict comparison of what was read back.
enum JSONTrees {
    static func tree(using generator: inout SplitMix64, depth: Int = 0) -> Parameters {
        var parameters: Parameters = [:]
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            parameters[RandomParameters.word(&generator)] = value(using: &generator, depth: depth + 1)
        }
        return parameters
    }

    static func value(using generator: inout SplitMix64, depth: Int) -> any Sendable {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &generator) {
        case 0: return RandomParameters.value(using: &generator, depth: 4)
        case 1:
            // Any finite double, from its bits.
            var double = Double(bitPattern: generator.next())
            while !double.isFinite { double = Double(bitPattern: generator.next()) }
            return double
        case 2: return Double(Int.random(in: -100_000...100_000, using: &generator)) / 100
        case 3: return [Int.min, Int.max, 0, -1][Int.random(in: 0...3, using: &generator)]
        case 4: return NSNull()
        case 5: return Bool.random(using: &generator)
        case 6:
            return (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(using: &generator, depth: depth + 1) }
        default: return tree(using: &generator, depth: depth)
        }
    }

    /// Whether `parsed` is `expected`. Foundation's parser on Linux reads some numbers through
    /// `Decimal` and lands a few units in the last place off, so doubles may differ by 1e-13
    /// relative; Python's reading is checked exactly.
    static func matches(_ parsed: Any, _ expected: Any) -> Bool {
        ReadBack.matches(parsed, expected) { read, written in (read - written).magnitude <= written.magnitude * 1e-13 }
    }
}
