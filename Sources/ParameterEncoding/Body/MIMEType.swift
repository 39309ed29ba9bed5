// MARK: - MIMEType

/// The MIME type of common file name extensions, for multipart file parts.
enum MIMEType {
    /// The type for a file name's extension, compared without case; `application/octet-stream`
    /// for an unknown or missing extension.
    static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()] ?? octetStream
    }

    static let octetStream = "application/octet-stream"

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
}
