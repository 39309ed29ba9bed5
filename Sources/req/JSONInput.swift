import Foundation
import Requests

// MARK: - JSONInput

/// A raw JSON value from the command line (`name:=json`, `name:=@file`), kept as the text typed:
/// `n:=12345678901234567890`, `f:=1.0` and `e:=1e3` go out as written, not as
/// `1.2345678901234567e+19`, `1` and `1000`. The library's ``RawJSON`` checks the text.
enum JSONInput {
    /// Checks `text`, naming `item` in the error.
    ///
    /// - Throws: ``UsageError`` naming the item, its text and what is wrong with it.
    static func parse(_ text: String, item: String) throws -> RawJSON {
        do {
            return try RawJSON(text)
        } catch let error as ParameterEncodingError {
            throw UsageError("\"\(item)\": \(text.isEmpty ? "an empty value" : "\"\(text)\"") is not valid JSON (\(error.detail))")
        }
    }

    /// Checks the contents of a file, naming `item` in the error.
    ///
    /// - Throws: ``UsageError`` naming the item and what is wrong with the file's text.
    static func parse(_ data: Data, item: String) throws -> RawJSON {
        do {
            return try RawJSON(data)
        } catch let error as ParameterEncodingError {
            throw UsageError("\"\(item)\": the file is not valid JSON (\(error.detail))")
        }
    }
}
