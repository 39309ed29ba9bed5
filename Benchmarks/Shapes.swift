import Foundation
import ParameterEncoding

// MARK: - Shape

/// One shape of input for the shape suite: the same data as `Parameters` and as an `Encodable`
/// value, so every encoder sees it.
struct Shape {
    /// The shape's name in the table: `flat`, `deep`, …
    let name: String
    /// Whether it nests containers, which decides the `URLEncoding` target.
    let isNested: Bool
    let parameters: Parameters
    /// The parameters without `NSNull`, which property lists cannot hold.
    let propertyListParameters: Parameters

    init(name: String, isNested: Bool, parameters: Parameters) {
        self.name = name
        self.isNested = isNested
        self.parameters = parameters
        self.propertyListParameters = Shape.droppingNulls(parameters) as? Parameters ?? parameters
    }

    private static func droppingNulls(_ value: any Sendable) -> (any Sendable)? {
        switch value {
        case is NSNull: nil
        case let dictionary as Parameters: dictionary.compactMapValues(droppingNulls)
        case let array as [any Sendable]: array.compactMap(droppingNulls)
        default: value
        }
    }

    /// The shapes every encoder is measured on, besides the nested-150 workload of the main rows.
    static let all: [Shape] = [flat, deep, wideArrays, textHeavy, numberHeavy, sparse]

    /// 200 scalar pairs: strings, integers, doubles and booleans.
    static let flat = Shape(name: "flat 200", isNested: false, parameters: Dictionary(uniqueKeysWithValues: (0..<200).map { index in
        let value: any Sendable = switch index % 4 {
        case 0: "value \(index)"
        case 1: index * 37
        case 2: Double(index) + 0.5
        default: index.isMultiple(of: 3)
        }
        return ("field_\(index)", value)
    }))

    /// Four branches eight levels deep, a few keys at each level.
    static let deep: Shape = {
        func level(_ depth: Int, branch: Int) -> Parameters {
            var node: Parameters = ["id": branch * 100 + depth, "name": "level \(depth)", "enabled": depth.isMultiple(of: 2),
                                    "meta": ["kind": "node", "weight": Double(depth) / 4] as Parameters]
            if depth < 8 { node["child"] = level(depth + 1, branch: branch) }
            return node
        }
        return Shape(name: "deep 8 levels", isNested: true, parameters: Dictionary(uniqueKeysWithValues: (0..<4).map { branch in
            ("branch\(branch)", level(1, branch: branch) as any Sendable)
        }))
    }()

    /// An array of 1,000 small dictionaries.
    static let wideArrays = Shape(name: "array of 1000 objects", isNested: true, parameters: [
        "rows": (0..<1_000).map { index -> Parameters in
            ["id": index, "name": "row \(index)", "active": index.isMultiple(of: 2)]
        },
        "total": 1_000,
    ])

    /// Long values with characters that need escaping, CJK and emoji.
    static let textHeavy = Shape(name: "text-heavy", isNested: false, parameters: Dictionary(uniqueKeysWithValues: (0..<40).map { index in
        let text = switch index % 4 {
        case 0: String(repeating: "Plain words, then \"quotes\" & ampersands = signs + pluses / slashes? ", count: 3)
        case 1: String(repeating: "日本語の長いテキストと中文的句子，還有한국어 문장。", count: 4)
        case 2: String(repeating: "emoji 👨‍👩‍👧‍👦 🇯🇵 🏳️‍🌈 café e\u{301} ", count: 6)
        default: String(repeating: "line one\nline\ttwo\\back\u{1}control ", count: 5)
        }
        return ("text_\(index)", "\(index): \(text)" as any Sendable)
    }))

    /// Doubles across magnitudes and large integers, as pairs and in an array.
    static let numberHeavy: Shape = {
        var parameters: Parameters = [:]
        for index in 0..<150 {
            parameters["n_\(index)"] = switch index % 5 {
            case 0: Double(index) * 3.141592653589793
            case 1: 1.0e-7 * Double(index + 1)
            case 2: Int.max - index
            case 3: -9_007_199_254_740_993 - index
            default: 12_345.678 + Double(index) / 1_000
            }
        }
        parameters["series"] = (0..<100).map { Double($0) * 0.1 + 1.0e10 }
        return Shape(name: "number-heavy", isNested: false, parameters: parameters)
    }()

    /// Mostly nulls and booleans, some empty strings and zeros.
    static let sparse = Shape(name: "sparse", isNested: false, parameters: Dictionary(uniqueKeysWithValues: (0..<200).map { index in
        let value: any Sendable = switch index % 5 {
        case 0, 1: NSNull()
        case 2: true
        case 3: false
        default: index.isMultiple(of: 2) ? "" : 0
        }
        return ("flag_\(index)", value)
    }))
}

// MARK: - Order

/// A realistic `Encodable` model: an order with dates, decimals, optionals, an enum, nested
/// arrays of structs and a dictionary keyed by strings.
struct Order: Encodable {
    enum Status: String, Encodable { case pending, paid, shipped }

    struct Customer: Encodable {
        let id: Int
        let name: String
        let email: String
        let phone: String?
        let marketingConsent: Bool
    }

    struct LineItem: Encodable {
        let sku: String
        let title: String
        let quantity: Int
        let unitPrice: Decimal
        let discount: Decimal?
        let options: [String: String]
        let giftWrap: Bool?
    }

    let id: Int
    let number: String
    let status: Status
    let createdAt: Date
    let paidAt: Date?
    let customer: Customer
    let items: [LineItem]
    let total: Decimal
    let note: String?
    let tags: [String]
    let metadata: [String: String]

    /// An order with `count` line items; the same every run.
    static func sample(items count: Int = 20) -> Order {
        Order(
            id: 98_765, number: "SO-2026-000042", status: .paid,
            createdAt: Date(timeIntervalSince1970: 1_790_000_000), paidAt: Date(timeIntervalSince1970: 1_790_000_360.5),
            customer: Customer(id: 4_321, name: "Zoë Ångström", email: "zoe@example.com", phone: nil, marketingConsent: true),
            items: (0..<count).map { index in
                LineItem(sku: "SKU-\(10_000 + index)", title: "Item \(index) – 日本", quantity: index % 3 + 1,
                         unitPrice: Decimal(string: "\(19 + index).99") ?? 0, discount: index.isMultiple(of: 4) ? Decimal(string: "2.50") : nil,
                         options: ["color": index.isMultiple(of: 2) ? "red" : "blue", "size": "M"], giftWrap: index.isMultiple(of: 5) ? true : nil)
            },
            total: Decimal(string: "612.80") ?? 0, note: nil, tags: ["priority", "gift"],
            metadata: ["channel": "web", "campaign": "autumn sale", "referrer": "https://example.com/?a=1&b=2"]
        )
    }
}
