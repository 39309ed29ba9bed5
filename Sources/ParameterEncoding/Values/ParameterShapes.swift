import Foundation

// Value shapes every encoder recognises the same way: the query walk, and the JSON and
// property-list validation.

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
