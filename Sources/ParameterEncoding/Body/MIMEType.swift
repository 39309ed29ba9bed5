import Foundation

// MARK: - MIMEType

/// The MIME types of common file name extensions, and the other way round: what multipart file
/// parts are labelled with, and what a downloaded file can be named after.
///
/// ```swift
/// MIMEType.forFileName("photo.JPG")                       // "image/jpeg"
/// MIMEType.fileExtension(for: "application/json; charset=utf-8")  // "json"
/// ```
public enum MIMEType {
    /// The type for a file name's extension, compared without case.
    ///
    /// - Parameter fileName: A file name or path; only the text after its last dot is read.
    /// - Returns: The type, or ``octetStream`` for an unknown or missing extension (and for a
    ///   name that only starts with a dot, such as `.profile`).
    public static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()] ?? octetStream
    }

    /// The usual file name extension (without the dot) for a MIME type, as a `Content-Type`
    /// field spells it.
    ///
    /// Parameters (`; charset=utf-8`), surrounding spaces and case are ignored. Where several
    /// extensions share a type, the common one is given: `jpg` for `image/jpeg`, `txt` for
    /// `text/plain`, `html` for `text/html`.
    ///
    /// - Parameter mimeType: A MIME type, such as a response's `Content-Type`.
    /// - Returns: The extension, or `nil` for a type not in the table.
    public static func fileExtension(for mimeType: String) -> String? {
        let essence = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let type = essence.trimmingCharacters(in: .whitespaces).lowercased()
        guard !type.isEmpty else { return nil }
        return preferredExtension[type] ?? byType[type]
    }

    /// `application/octet-stream`: bytes of no particular type.
    public static let octetStream = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript", "mjs": "text/javascript",
        "xml": "application/xml", "json": "application/json", "yaml": "application/yaml", "yml": "application/yaml",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "7z": "application/x-7z-compressed", "wasm": "application/wasm", "plist": "application/x-plist",
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "avif": "image/avif",
        "mp3": "audio/mpeg", "wav": "audio/wav", "m4a": "audio/mp4", "aac": "audio/aac", "ogg": "audio/ogg",
        "flac": "audio/flac", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm", "avi": "video/x-msvideo", "mkv": "video/x-matroska",
        "bin": octetStream,
    ]

    /// The extension for types that several extensions share; the others have one.
    private static let preferredExtension: [String: String] = [
        "text/plain": "txt", "text/html": "html", "text/javascript": "js", "application/yaml": "yaml",
        "image/jpeg": "jpg", "image/tiff": "tiff", "video/mp4": "mp4", octetStream: "bin",
        // Types spelled more than one way in the wild.
        "application/javascript": "js", "application/x-yaml": "yaml", "text/yaml": "yaml", "text/xml": "xml",
        "application/x-gzip": "gz", "application/x-zip-compressed": "zip", "audio/mp3": "mp3", "image/jpg": "jpg",
    ]

    /// The table read backwards; each type here has exactly one extension above, or a
    /// ``preferredExtension``.
    private static let byType: [String: String] = Dictionary(
        byExtension.map { ($0.value, $0.key) }, uniquingKeysWith: { first, second in min(first, second) }
    )
}
