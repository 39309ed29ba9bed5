import Foundation

// MARK: - MultipartFormBody.Part

extension MultipartFormBody {
    /// One field of a multipart form: text, bytes, or a file streamed from disk.
    public struct Part: Sendable {
        /// Where a part's bytes come from.
        public enum Content: Sendable {
            /// Bytes in memory.
            case data(Data)
            /// A file, read in chunks while the body is written.
            case file(URL)
        }

        /// The field name.
        public let name: String
        /// The file name sent with the part, or `nil` for a plain field.
        public let fileName: String?
        /// The part's `Content-Type`, or `nil` for none (which means `text/plain`).
        public let mimeType: String?
        /// The part's bytes.
        public let content: Content

        /// Creates a part.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - fileName: The file name, or `nil`.
        ///   - mimeType: The `Content-Type`, or `nil`.
        ///   - content: The bytes or the file.
        public init(name: String, fileName: String?, mimeType: String?, content: Content) {
            self.name = name
            self.fileName = fileName
            self.mimeType = mimeType
            self.content = content
        }

        /// A text field, sent as UTF-8 without a `Content-Type`.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The text.
        /// - Returns: The part.
        public static func text(_ name: String, _ value: String) -> Part {
            Part(name: name, fileName: nil, mimeType: nil, content: .data(Data(value.utf8)))
        }

        /// Bytes in memory, as a file if a file name is given.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - data: The bytes.
        ///   - fileName: The file name to send, or `nil`.
        ///   - mimeType: The `Content-Type`; by default the type of `fileName`'s extension, or
        ///     `application/octet-stream`.
        /// - Returns: The part.
        public static func data(_ name: String, _ data: Data, fileName: String? = nil, mimeType: String? = nil) -> Part {
            let type = mimeType ?? fileName.map(MIMEType.forFileName) ?? MIMEType.octetStream
            return Part(name: name, fileName: fileName, mimeType: type, content: .data(data))
        }

        /// A file on disk, streamed in chunks when the body is written, never read whole.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - url: The file's URL.
        ///   - fileName: The file name to send; the URL's last path component by default.
        ///   - mimeType: The `Content-Type`; by default the type of the file name's extension
        ///     (`image/png` for `.png`), or `application/octet-stream`.
        /// - Returns: The part.
        public static func file(_ name: String, at url: URL, fileName: String? = nil, mimeType: String? = nil) -> Part {
            let fileName = fileName ?? url.lastPathComponent
            return Part(name: name, fileName: fileName, mimeType: mimeType ?? MIMEType.forFileName(fileName), content: .file(url))
        }
    }
}
