import Foundation

// MARK: - URLEncodedFormEncoder strategies

extension URLEncodedFormEncoder {
    /// How array elements are keyed: ``URLEncoding/ArrayEncoding``, under Alamofire's name.
    public typealias ArrayEncoding = URLEncoding.ArrayEncoding
    /// How booleans are written: ``URLEncoding/BoolEncoding``, under Alamofire's name.
    public typealias BoolEncoding = URLEncoding.BoolEncoding
    /// How `nil` is written: ``URLEncoding/NilEncoding``, under Alamofire's name.
    public typealias NilEncoding = URLEncoding.NilEncoding

    /// How `Date` values are written.
    public enum DateEncoding: Sendable {
        /// As `Date` encodes itself: seconds since 2001-01-01 00:00:00 UTC.
        case deferredToDate
        /// Seconds since 1970-01-01 00:00:00 UTC, such as `1700000000.5`.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 00:00:00 UTC, such as `1700000000500.0`.
        case millisecondsSince1970
        /// `yyyy-MM-ddTHH:mm:ssZ` in UTC, fractions of a second dropped (as `ISO8601DateFormatter`
        /// writes by default). Dates outside years 1 to 9999 are an error.
        case iso8601
        /// The text `formatter` writes, such as `2001-01-01 00:02:03.4560` for the format
        /// `yyyy-MM-dd HH:mm:ss.SSSS`. The formatter is shared, not copied: do not change it while
        /// an encoding may be running.
        case formatted(DateFormatter)
        /// Your own text for each date. An error it throws reaches the caller unchanged.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` values are written.
    public enum DataEncoding: Sendable {
        /// As `Data` encodes itself: an array of byte values, `key[]=1&key[]=2`.
        case deferredToData
        /// Base64 text, the default.
        case base64
        /// Your own text for each value. An error it throws reaches the caller unchanged.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How keys are rewritten before they are written.
    public enum KeyEncoding: Sendable {
        /// Keys as the types name them, the default.
        case useDefaultKeys
        /// `userID` becomes `user_id`, `myURLValue` becomes `my_url_value`.
        case convertToSnakeCase
        /// `userID` becomes `user-id`, `myURLValue` becomes `my-url-value`.
        case convertToKebabCase
        /// The first character uppercased: `oneTwoThree` becomes `OneTwoThree`.
        case capitalized
        /// Every letter lowercased: `oneTwoThree` becomes `onetwothree`.
        case lowercased
        /// Every letter uppercased: `oneTwoThree` becomes `ONETWOTHREE`.
        case uppercased
        /// Your own rewrite of each key.
        case custom(@Sendable (String) -> String)

        /// The key as written.
        ///
        /// Each key is rewritten on its own, as `JSONEncoder`'s key strategies do: `parent[child]`
        /// with ``capitalized`` is `Parent[Child]` (Alamofire rewrites the whole path once, giving
        /// `Parent[child]`).
        ///
        /// - Parameter key: The key as the type names it.
        /// - Returns: The rewritten key.
        public func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: key
            case .convertToSnakeCase: Self.splitWords(key, separator: "_")
            case .convertToKebabCase: Self.splitWords(key, separator: "-")
            case .capitalized: key.prefix(1).uppercased() + key.dropFirst()
            case .lowercased: key.lowercased()
            case .uppercased: key.uppercased()
            case .custom(let rewrite): rewrite(key)
            }
        }

        /// Lowercases a camel-case key and puts `separator` before each word that starts with an
        /// uppercase letter: at a lowercase-or-digit-to-uppercase step, and before the last capital
        /// of an acronym that a lowercase letter follows (`URLValue` is `url` and `value`).
        /// Underscores and other characters are kept as they are.
        static func splitWords(_ key: String, separator: Character) -> String {
            let characters = Array(key)
            var result = ""
            result.reserveCapacity(key.utf8.count + 4)
            for (index, character) in characters.enumerated() {
                if character.isUppercase, index > 0 {
                    let previous = characters[index - 1]
                    let next = index + 1 < characters.count ? characters[index + 1] : nil
                    let startsWord = previous.isLowercase || previous.isNumber
                        || (previous.isUppercase && next?.isLowercase == true)
                    if startsWord { result.append(separator) }
                }
                result += character.lowercased()
            }
            return result
        }
    }
}

// MARK: - KeyPathEncoding

extension URLEncodedFormEncoder {
    /// How the key of a value nested in a keyed container is joined to its parent's key.
    ///
    /// ```swift
    /// // ["parent": ["child": "value"]]
    /// .brackets  // parent[child]=value, the default
    /// .dots      // parent.child=value
    /// KeyPathEncoding { "/\($0)" }  // parent/child=value
    /// ```
    ///
    /// Array elements are keyed by ``URLEncodedFormEncoder/arrayEncoding`` instead. The joined
    /// key is percent-encoded like any other.
    public struct KeyPathEncoding: Sendable {
        enum Style: Sendable {
            case brackets
            case dots
            case custom(@Sendable (String) -> String)
        }

        let style: Style

        private init(style: Style) {
            self.style = style
        }

        /// Creates an encoding that appends what `encoding` returns for each nested key.
        ///
        /// - Parameter encoding: Given a nested key (unescaped), the text to append to the
        ///   parent's key, such as `"[\(key)]"`.
        public init(encoding: @escaping @Sendable (_ subkey: String) -> String) {
            self.style = .custom(encoding)
        }

        /// `parent[child]`, the default.
        public static let brackets = KeyPathEncoding(style: .brackets)

        /// `parent.child`.
        public static let dots = KeyPathEncoding(style: .dots)

        /// The text appended to the parent's key for a nested key.
        ///
        /// - Parameter subkey: The nested key, unescaped.
        /// - Returns: The text to append, unescaped.
        public func encode(_ subkey: String) -> String {
            switch style {
            case .brackets: "[" + subkey + "]"
            case .dots: "." + subkey
            case .custom(let encoding): encoding(subkey)
            }
        }
    }
}

// MARK: - SpaceEncoding

extension URLEncodedFormEncoder {
    /// How a space is written: the choice of ``URLEncoding/Escaping/encodesSpaceAsPlus``, under
    /// Alamofire's name.
    public enum SpaceEncoding: Hashable, Sendable {
        /// `%20`, the default.
        case percentEscaped
        /// `+`, as HTML forms write it. A `+` in the text is still written `%2B`.
        case plusReplaced
    }
}
