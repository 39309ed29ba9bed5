import Foundation

// MARK: - JSONTreeOptions

/// The options of a `JSONEncoder` that ``JSONTreeEncoder`` writes exactly as `JSONEncoder` does.
///
/// Output formatting must include `.sortedKeys` (without it `JSONEncoder`'s key order changes
/// from run to run, so there are no bytes to match) and may add `.prettyPrinted` and
/// `.withoutEscapingSlashes`. Taken: every key strategy (`.useDefaultKeys`, `.convertToSnakeCase`,
/// `.custom`), both non-conforming-float strategies, every data strategy (`.deferredToData`,
/// `.base64`, `.custom`), and the date strategies `.deferredToDate`, `.secondsSince1970`,
/// `.millisecondsSince1970`, `.iso8601` and `.custom` (and `.formatted` where Foundation makes
/// it a `.custom`, as on Linux). Left to `JSONEncoder` itself: output without `.sortedKeys`,
/// `.formatted` where it is a case of its own (Apple platforms), and any option or strategy
/// added to Foundation later.
struct JSONTreeOptions {
    let prettyPrinted: Bool
    let escapingSlashes: Bool
    let dateEncoding: JSONEncoder.DateEncodingStrategy
    let dataEncoding: JSONEncoder.DataEncodingStrategy
    let keyEncoding: KeyEncoding
    let nonConformingFloats: NonConformingFloats
    let userInfo: [CodingUserInfoKey: Any]

    /// How keys of keyed containers are written.
    enum KeyEncoding {
        case useDefaultKeys
        case convertToSnakeCase
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// Whether keys are written as they are (`.useDefaultKeys`).
    var keepsKeys: Bool {
        if case .useDefaultKeys = keyEncoding { return true }
        return false
    }

    /// What NaN and the infinities become.
    enum NonConformingFloats {
        case `throw`
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// The options of `encoder`, or `nil` when the fast writer does not take them.
    init?(_ encoder: JSONEncoder) {
        let formatting = encoder.outputFormatting
        let known: JSONEncoder.OutputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard formatting.contains(.sortedKeys), known.isSuperset(of: formatting) else { return nil }
        prettyPrinted = formatting.contains(.prettyPrinted)
        escapingSlashes = !formatting.contains(.withoutEscapingSlashes)
        switch encoder.keyEncodingStrategy {
        case .useDefaultKeys: keyEncoding = .useDefaultKeys
        case .convertToSnakeCase: keyEncoding = .convertToSnakeCase
        case .custom(let convert): keyEncoding = .custom(convert)
        @unknown default: return nil
        }
        switch encoder.nonConformingFloatEncodingStrategy {
        case .throw: nonConformingFloats = .throw
        case .convertToString(let positive, let negative, let nan):
            nonConformingFloats = .convertToString(positiveInfinity: positive, negativeInfinity: negative, nan: nan)
        @unknown default: return nil
        }
        // `.formatted(DateFormatter)` is a case of its own only where Foundation has it (Apple
        // platforms); elsewhere it is made as `.custom`, which is taken.
        guard Self.takes(encoder.dateEncodingStrategy) else { return nil }
        switch encoder.dataEncodingStrategy {
        case .deferredToData, .base64, .custom: break
        @unknown default: return nil
        }
        dateEncoding = encoder.dateEncodingStrategy
        dataEncoding = encoder.dataEncodingStrategy
        userInfo = encoder.userInfo
    }

    /// Whether the date strategy is one ``JSONTreeEncoder`` implements; asked case by case, as
    /// the list of cases differs by platform.
    private static func takes(_ strategy: JSONEncoder.DateEncodingStrategy) -> Bool {
        if case .deferredToDate = strategy { return true }
        if case .secondsSince1970 = strategy { return true }
        if case .millisecondsSince1970 = strategy { return true }
        if case .iso8601 = strategy { return true }
        if case .custom = strategy { return true }
        return false
    }
}
