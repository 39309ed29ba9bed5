import Foundation

// MARK: - URLEncodedFormEncoder strategies

extension URLEncodedFormEncoder {
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
        /// Your own text for each date.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` values are written.
    public enum DataEncoding: Sendable {
        /// As `Data` encodes itself: an array of byte values, `key[]=1&key[]=2`.
        case deferredToData
        /// Base64 text, the default.
        case base64
        /// Your own text for each value.
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
        /// Your own rewrite of each key.
        case custom(@Sendable (String) -> String)

        /// The key as written.
        ///
        /// - Parameter key: The key as the type names it.
        /// - Returns: The rewritten key.
        public func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: key
            case .convertToSnakeCase: Self.splitWords(key, separator: "_")
            case .convertToKebabCase: Self.splitWords(key, separator: "-")
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
