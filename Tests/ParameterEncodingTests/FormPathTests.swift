import Foundation
import TestScheduling
import Testing
import ParameterEncoding

/// The coding paths the form encoder gives an `encode(to:)` and its containers: built only when
/// asked for, yet with every key as the containers were given it (its own type, string and
/// integer value), at any depth and after any number of siblings.
@Suite(.backgroundPriority) struct FormPathTests {
    /// Encodes, as a string, the coding path it sees, through the encoder and every container.
    struct Probe: Encodable {
        static func describe(_ path: [any CodingKey]) -> String {
            path.map { "\($0.stringValue)~\($0.intValue ?? -1)" }.joined(separator: ".")
        }

        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            #expect(Self.describe(single.codingPath) == Self.describe(encoder.codingPath))
            try single.encode(Self.describe(encoder.codingPath))
        }
    }

    struct Inner: Encodable {
        let probe = Probe()
        enum CodingKeys: String, CodingKey { case probe }
    }

    struct Outer: Encodable {
        let list = [Probe(), Probe()]
        let map = ["7": Probe(), "k": Probe()]
        let nested = Inner()
        let deep = [[Inner()]]
        enum CodingKeys: String, CodingKey { case list, map, nested, deep }
    }

    @Test func everyValueSeesItsOwnPath() throws {
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, keyPathEncoding: .dots).encode(Outer()) == [
            "deep%5B0%5D%5B0%5D.probe=deep~-1.0~0.0~0.probe~-1",
            "list%5B0%5D=list~-1.0~0",
            "list%5B1%5D=list~-1.1~1",
            "map.7=map~-1.7~7",
            "map.k=map~-1.k~-1",
            "nested.probe=nested~-1.probe~-1",
        ].joined(separator: "&"))
    }

    @Test func keysKeepTheirOwnTypes() throws {
        struct Typed: Encodable {
            func encode(to encoder: any Encoder) throws {
                #expect(encoder.codingPath.count == 2)
                #expect(encoder.codingPath.first is Listing.CodingKeys)
                #expect(encoder.codingPath.last?.intValue == 1)
                var single = encoder.singleValueContainer()
                try single.encode(true)
            }
        }
        struct Listing: Encodable {
            enum CodingKeys: String, CodingKey { case list }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                #expect(Probe.describe(list.codingPath) == "list~-1")
                try list.encode(Typed())
            }
        }
        #expect(try URLEncodedFormEncoder().encode(Listing()) == "list%5B%5D=1&list%5B%5D=1")
    }

    @Test func nestedContainersAndSuperEncodersKeepTheirPaths() throws {
        struct Containers: Encodable {
            enum Keys: String, CodingKey { case a, b, c }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
                var list = nested.nestedUnkeyedContainer(forKey: .b)
                try list.encode(Probe())
                var element = list.nestedContainer(keyedBy: Keys.self)
                try element.encode(Probe(), forKey: .c)
                try nested.encode(Probe.describe(element.codingPath), forKey: .c)
                let superEncoder = container.superEncoder(forKey: .b)
                var single = superEncoder.singleValueContainer()
                try single.encode(Probe.describe(superEncoder.codingPath))
            }
        }
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, keyPathEncoding: .dots).encode(Containers()) == [
            "a.b%5B0%5D=a~-1.b~-1.0~0",
            "a.b%5B1%5D.c=a~-1.b~-1.1~1.c~-1",
            "a.c=a~-1.b~-1.1~1",
            "b=b~-1",
        ].joined(separator: "&"))
    }
}
