import Foundation
import Requests

// MARK: - BodySource

/// A request body given whole, sent byte for byte as httpie sends it: standard input, `--raw
/// TEXT`, or `@path`. There can be one, and no request data items beside it.
struct BodySource {
    /// The bytes to send.
    let data: Data
    /// The `Content-Type` unless an item sets one: for `@path` the type of a known file name
    /// extension, otherwise the encoding flag's (JSON by default), as httpie labels a raw body.
    let contentType: String

    /// The whole body `options` give, or `nil` when the body is made of fields.
    ///
    /// - Parameters:
    ///   - options: The command line.
    ///   - standardInput: What was piped in, already read (`nil` when none or `--ignore-stdin`).
    ///   - encoding: The encoding flag, or JSON.
    /// - Throws: ``UsageError`` for two whole bodies, for body data items beside one, or for a
    ///   file that cannot be read, naming the item or option.
    init?(_ options: Options, standardInput: Data?, encoding: Options.BodyEncoding) throws {
        var sources: [(label: String, data: Data, contentType: String?)] = []
        if let standardInput {
            sources.append(("standard input", standardInput, nil))
        }
        if let raw = options.raw {
            sources.append(("--raw", Data(raw.utf8), nil))
        }
        for item in options.items where item.kind == .bodyFile {
            let data = try RequestPlan.data(item.value, for: item.text)
            let type = MIMEType.forFileName(item.value)
            sources.append(("\"\(item.text)\"", data, type == MIMEType.octetStream ? nil : type))
        }
        guard let source = sources.first else { return nil }
        if sources.count > 1 {
            let hint = standardInput != nil ? "; pass --ignore-stdin to leave standard input unread" : ""
            throw UsageError("\(sources[0].label) and \(sources[1].label) are both the whole request body; give one\(hint)")
        }
        // With --query the fields go to the URL, so they are not body data; files always are.
        if let item = options.items.first(where: { $0.isBodyData && $0.kind != .bodyFile && (encoding != .query || $0.kind == .file) }) {
            if standardInput != nil {
                throw UsageError(
                    "standard input is the request body (\(source.data.count) bytes), so request data items such as "
                        + "\"\(item.text)\" cannot be sent beside it; pass --ignore-stdin to send the items instead"
                )
            }
            throw UsageError("\(source.label) is the request body, so request data items such as \"\(item.text)\" cannot be sent beside it")
        }
        if options.multipart {
            throw UsageError("--multipart sends fields, but \(source.label) is the whole request body")
        }
        data = source.data
        contentType = source.contentType ?? RequestPlan.contentType(of: encoding)
    }
}
