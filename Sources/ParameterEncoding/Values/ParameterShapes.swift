import Foundation

// Value shapes every writer recognises the same way, through ``ParameterValue``.

// MARK: - OptionalParameter

/// Lets the encoders see through `Optional` without knowing its payload type.
protocol OptionalParameter {
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    var wrappedParameter: Any? { map { $0 as Any } }
}

// MARK: - ArrayLikeParameter

/// Array-like values other than `Array`, written as arrays.
protocol ArrayLikeParameter {
    var parameterElements: [Any] { get }
}

extension ContiguousArray: ArrayLikeParameter {
    var parameterElements: [Any] { map { $0 as Any } }
}

extension ArraySlice: ArrayLikeParameter {
    var parameterElements: [Any] { map { $0 as Any } }
}

extension Set: ArrayLikeParameter {
    /// A set has no order of its own; its elements are written sorted by their description so
    /// the output is the same in every run.
    var parameterElements: [Any] {
        KeyOrder.sorted(map { $0 as Any }) { String(describing: $0) }
    }
}

// MARK: - NSNumber

extension NSNumber {
    /// Whether this number is a boolean (`kCFBooleanTrue`/`kCFBooleanFalse`), not an integer.
    package var isBoolean: Bool {
        self === NSNumber(value: true) || self === NSNumber(value: false)
            || String(describing: type(of: self)) == "__NSCFBoolean"
    }
}

// MARK: - NumberValue

/// What an `NSNumber` holds, told apart by its stored type: every writer asks the same question.
enum NumberValue {
    case bool(Bool)
    case integer(Int64)
    /// Unsigned storage, so values above `Int64.max` keep their value.
    case unsigned(UInt64)
    case float(Float)
    case double(Double)
}

extension NSNumber {
    /// The value with the type it was stored as.
    var numberValue: NumberValue {
        if isBoolean { return .bool(boolValue) }
        switch UInt8(bitPattern: objCType.pointee) {
        case UInt8(ascii: "f"): return .float(floatValue)
        case UInt8(ascii: "d"): return .double(doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"): return .unsigned(uint64Value)
        default: return .integer(int64Value)
        }
    }
}

// MARK: - QueryContainer

/// A container every writer descends into (see ``ParameterValue``).
protocol QueryContainer {
    var queryChildren: ParameterChildren { get }
}

extension Dictionary: QueryContainer where Key == String {
    var queryChildren: ParameterChildren {
        .sorted(keys: Array(keys), values: values.map { $0 as Any })
    }
}

/// A dictionary whose keys are not strings; its keys are written as their description.
protocol DescribedKeyContainer {
    var describedEntries: [(key: Any, value: Any)] { get }
}

extension Dictionary: DescribedKeyContainer {
    var describedEntries: [(key: Any, value: Any)] {
        map { (key: $0.key as Any, value: $0.value as Any) }
    }
}

extension KeyValuePairs: QueryContainer where Key == String {
    /// Ordered pairs keep the caller's order.
    var queryChildren: ParameterChildren {
        ParameterChildren(keys: map(\.key), values: .any(map { $0.value as Any }), ordering: .given)
    }
}

extension Array: QueryContainer {
    var queryChildren: ParameterChildren {
        // `[(String, any Sendable)]` is a list of ordered pairs, not an array of tuples.
        if Element.self == (String, any Sendable).self, let pairs = self as? [(String, any Sendable)] {
            return .ordered(pairs)
        }
        return .indexed(map { $0 as Any })
    }
}
