import Foundation

// MARK: - ParameterValue

/// What a `Parameters` value is, as every writer sees it: the one place an `Any` is told apart.
///
/// The query, JSON and property-list writers all switch over this classification and decide
/// only what their format does with each case (a `nil` is `key=` or `null` or an error, a
/// `Date` is text or an error or a date), so that a type is recognised the same way, in the same
/// order, by all three.
///
/// The common types (`String`, `Int`, `Bool`, `Double` and the usual containers) are recognised
/// by comparing the value's static type, which never casts or bridges; the rest by casts, in
/// an order that keeps a Foundation class from being bridged before its own check.
///
/// The uncommon cases are `indirect`, so that the value every writer gets back for every
/// parameter stays as small as the common cases need (the query writer slowed by a tenth
/// when a 40-byte existential made it larger).
enum ParameterValue {
    case text(String)
    case integer(Int)
    case bool(Bool)
    case double(Double)
    /// A container's children: string-keyed dictionaries (`[String: Any]`, `NSDictionary` too
    /// once its keys are checked by the writer, see ``keyed(_:)``), arrays, sets, ordered pairs.
    case children(ParameterChildren)
    /// `nil` (of any `Optional` depth) and `NSNull`.
    case null
    /// An `NSNumber`, which may be a boolean or an `NSDecimalNumber`.
    case number(NSNumber)
    indirect case rawJSON(RawJSON)
    /// A value inside a ``RawJSON``.
    indirect case jsonText(JSONTextNode)
    /// A dictionary whose key type is not `String` (`[Int: Any]`, `[AnyHashable: Any]`,
    /// `NSDictionary`): the query writes its keys' descriptions, JSON and property lists
    /// accept it only when every key is a string (see ``stringKeyed(_:)``).
    indirect case keyed([(key: Any, value: Any)])
    /// An integer of a type other than `Int`.
    indirect case otherInteger(any BinaryInteger)
    case float(Float)
    indirect case decimal(Decimal)
    case date(Date)
    indirect case data(Data)
    /// Anything else.
    indirect case unsupported(Any)

    /// Classifies `value`, whose dynamic type `T` is (see ``classifyParameter(_:)``). Once `T`
    /// is known to be `String`, `unsafeBitCast` to `String` is the identity.
    static func classify<T>(_ value: T) -> ParameterValue {
        if T.self == String.self { return .text(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        // Generic container types are compared with metatypes looked up once: naming them here
        // would instantiate their metadata on every call.
        let type: Any.Type = T.self
        if type == CommonTypes.sendable {
            // An `any Sendable` boxed as `Any` opens to the inner existential; open that one too.
            return _openExistential(unsafeBitCast(value, to: (any Sendable).self), do: classifyParameter)
        }
        if type == CommonTypes.parameters {
            return .children(.parameters(unsafeBitCast(value, to: [String: any Sendable].self)))
        }
        if type == CommonTypes.sendableArray {
            return .children(.indexed(unsafeBitCast(value, to: [any Sendable].self)))
        }
        if type == CommonTypes.stringArray {
            return .children(ParameterChildren(keys: [], values: .strings(unsafeBitCast(value, to: [String].self)), ordering: .array))
        }
        if type == CommonTypes.parametersArray {
            return .children(.indexed(unsafeBitCast(value, to: [[String: any Sendable]].self).map { $0 as any Sendable }))
        }
        if type == CommonTypes.anyDictionary {
            return .children(unsafeBitCast(value, to: [String: Any].self).queryChildren)
        }
        if type == CommonTypes.anyArray {
            return .children(.indexed(unsafeBitCast(value, to: [Any].self)))
        }
        // `NSNull`, the usual null of a dictionary, by its exact class: otherwise it would reach
        // the end of the casts below, each a failed conformance lookup (microseconds a value).
        if type == CommonTypes.null { return .null }
        return classifyUncommon(value)
    }

    /// The types ``classify(_:)`` does not recognise by their static type.
    private static func classifyUncommon(_ value: Any) -> ParameterValue {
        // An `AnyHashable` (a `Set<AnyHashable>`'s elements, say) is what it wraps.
        if type(of: value) == AnyHashable.self, let hashable = value as? AnyHashable {
            return _openExistential(hashable.base, do: classifyParameter)
        }
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else { return .null }
            return _openExistential(wrapped, do: classifyParameter)
        }
        // Class checks by metatype: a cast to a class would first try to bridge the value, and
        // on Linux `value is NSNull` converts a whole Swift tree to Foundation objects.
        let type = type(of: value)
        if type is NSNumber.Type, let number = value as? NSNumber { return .number(number) }
        if type == RawJSON.self, let raw = value as? RawJSON { return .rawJSON(raw) }
        if type == JSONTextNode.self, let node = value as? JSONTextNode { return .jsonText(node) }
        if let container = value as? any QueryContainer { return .children(container.queryChildren) }
        if let sequence = value as? any ArrayLikeParameter { return .children(.indexed(sequence.parameterElements)) }
        if let dictionary = value as? any DescribedKeyContainer { return .keyed(dictionary.describedEntries) }
        if let integer = value as? any BinaryInteger { return .otherInteger(integer) }
        if let float = value as? Float { return .float(float) }
        if let decimal = value as? Decimal { return .decimal(decimal) }
        if let text = value as? any StringProtocol { return .text(String(text)) }
        if let character = value as? Character { return .text(String(character)) }
        // Casts, not type checks: an `NSDate` or `NSData` is taken as the value type it bridges to.
        if let date = value as? Date { return .date(date) }
        if let data = value as? Data { return .data(data) }
        if type is NSNull.Type { return .null }
        if type is NSString.Type, let string = value as? String { return .text(string) }
        if type is NSDictionary.Type, let dictionary = value as? NSDictionary {
            return .keyed(dictionary.map { (key: $0.key, value: $0.value) })
        }
        if type is NSArray.Type, let array = value as? NSArray { return .children(.indexed(array.map { $0 })) }
        return .unsupported(value)
    }

    /// The entries of a ``keyed(_:)`` dictionary as string-keyed children, or the one key that
    /// is not a string (the first by description, so the error is the same in every run).
    static func stringKeyed(_ entries: [(key: Any, value: Any)]) -> Result<ParameterChildren, NonStringKey> {
        var keys: [String] = []
        keys.reserveCapacity(entries.count)
        for entry in entries {
            guard let key = entry.key as? String else {
                let first = entries.lazy.map { Self.base(of: $0.key) }.min { String(describing: $0) < String(describing: $1) }
                return .failure(NonStringKey(text: first.map { String(describing: $0) } ?? "",
                                             typeName: first.map { String(describing: Swift.type(of: $0)) } ?? "unknown"))
            }
            keys.append(key)
        }
        return .success(.sorted(keys: keys, values: entries.map(\.value)))
    }

    /// A dictionary key that is not a string, as an error names it.
    struct NonStringKey: Error {
        let text: String
        let typeName: String

        /// The sentence every writer that needs string keys throws.
        var detail: String { "dictionary keys must be strings, found key \(text) of type \(typeName)" }
    }

    /// The value an `AnyHashable` key wraps, so that an error names the key's own type.
    private static func base(of key: Any) -> Any {
        (key as? AnyHashable)?.base ?? key
    }
}

// MARK: - classifyParameter

/// ``ParameterValue/classify(_:)`` as a function, for `_openExistential(value, do: classifyParameter)`,
/// which hands the classifier the value's dynamic type as `T`: three times cheaper than a
/// dynamic cast per value. (A free function: the compiler crashes opening an existential into a
/// static method here.)
func classifyParameter<T>(_ value: T) -> ParameterValue {
    ParameterValue.classify(value)
}

// MARK: - CommonTypes

/// Metatypes of the containers parameters are usually built from, looked up once.
private enum CommonTypes {
    static let sendable: Any.Type = (any Sendable).self
    static let parameters: Any.Type = [String: any Sendable].self
    static let sendableArray: Any.Type = [any Sendable].self
    static let stringArray: Any.Type = [String].self
    static let parametersArray: Any.Type = [[String: any Sendable]].self
    static let anyDictionary: Any.Type = [String: Any].self
    static let anyArray: Any.Type = [Any].self
    static let null: Any.Type = NSNull.self
}
