// MARK: - URLEncoding options

extension URLEncoding {
    /// Where the encoded query goes.
    public enum Destination: Hashable, Sendable {
        /// The URL for `GET`, `HEAD` and `DELETE`; the body for every other method.
        case methodDependent
        /// Always the URL's query string.
        case queryString
        /// Always the body, as `application/x-www-form-urlencoded`.
        case httpBody

        /// Whether parameters for a request with this method go into the URL.
        ///
        /// - Parameter method: The request's method.
        /// - Returns: `true` for the query string, `false` for the body.
        public func encodesParametersInURL(for method: HTTPMethod) -> Bool {
            switch self {
            case .methodDependent: [HTTPMethod.get, .head, .delete].contains(method)
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// How the keys of array elements are written.
    public enum ArrayEncoding: Sendable {
        /// `key[]=a&key[]=b`, the default.
        case brackets
        /// `key=a&key=b`
        case noBrackets
        /// `key[0]=a&key[1]=b`
        case indexInBrackets
        /// Your own key for each element, given the (unescaped) key of the array and the index.
        /// The result is escaped like any other key.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        /// The key of the element at `index` of the array stored under `key`.
        ///
        /// - Parameters:
        ///   - key: The array's key.
        ///   - index: The element's position.
        /// - Returns: The element's key, unescaped.
        public func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            case .custom(let makeKey): makeKey(key, index)
            }
        }
    }

    /// How booleans (`Bool`, and `NSNumber` booleans) are written.
    public enum BoolEncoding: Hashable, Sendable {
        /// `1` and `0`, the default.
        case numeric
        /// `true` and `false`.
        case literal

        /// The text of a boolean.
        ///
        /// - Parameter value: The boolean.
        /// - Returns: Its text.
        public func encode(value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// How `nil` (an `Optional` holding nothing) and `NSNull` are written.
    public enum NilEncoding: Hashable, Sendable {
        /// Leave the pair out, the default.
        case dropKey
        /// Write the key with an empty value: `key=`.
        case dropValue
        /// Write the key with the text `null`: `key=null`.
        case null
    }
}
