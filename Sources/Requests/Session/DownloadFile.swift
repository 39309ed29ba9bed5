import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - DownloadFile

/// The files of one download: the partial file the body is written to, and the destination it
/// is moved to once complete.
///
/// A resumable download's partial file is `<destination>.part`, so that a later download finds it;
/// another download's is a hidden file with a unique name in the destination's directory (the
/// same file system, so that moving it into place is a rename).
struct DownloadFile: Sendable {
    let destination: URL
    let resumable: Bool
    let partial: URL

    init(destination: URL, resumable: Bool) {
        self.destination = destination
        self.resumable = resumable
        if resumable {
            partial = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
        } else {
            partial = destination.deletingLastPathComponent()
                .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
        }
    }

    /// Where a resumable download keeps the validator (`ETag`, else `Last-Modified`) of the
    /// response its partial file came from, for `If-Range`.
    var validatorFile: URL {
        partial.deletingLastPathComponent().appendingPathComponent(partial.lastPathComponent + ".validator")
    }

    /// The validator of the kept partial file, if one was recorded.
    func validator() -> String? {
        guard resumable, let data = FileManager.default.contents(atPath: validatorFile.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.contains(where: { $0.isNewline }) ? nil : text
    }

    /// Records the validator of the response now being written, or forgets an old one.
    func recordValidator(of headers: HTTPHeaders) {
        guard resumable else { return }
        let validator = headers.value(for: "ETag") ?? headers.value(for: "Last-Modified")
        if let validator, !validator.contains(where: { $0.isNewline }) {
            try? Data(validator.utf8).write(to: validatorFile, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: validatorFile)
        }
    }

    /// The length of a kept partial file to resume from; 0 when there is none.
    func resumableLength() -> Int64 {
        guard resumable,
              let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path),
              let size = attributes[.size] as? NSNumber else { return 0 }
        return size.int64Value
    }

    /// Opens the partial file for writing: appending from `offset`, or empty when `offset` is 0.
    func open(continuingAt offset: Int64, request: OutgoingRequest) throws -> DownloadWriter {
        try fileStep(request) {
            if offset == 0 || !FileManager.default.fileExists(atPath: partial.path) {
                guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                    throw CannotCreate(folder: partial.deletingLastPathComponent())
                }
            }
            let handle = try FileHandle(forWritingTo: partial)
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
            return DownloadWriter(handle: handle, file: self, request: request)
        }
    }

    /// Removes a kept partial file that cannot be resumed.
    func discardPartial(request: OutgoingRequest) throws {
        try fileStep(request) {
            if FileManager.default.fileExists(atPath: partial.path) {
                try FileManager.default.removeItem(at: partial)
            }
        }
        try? FileManager.default.removeItem(at: validatorFile)
    }

    /// Moves the complete file into place, replacing what is there, in one rename.
    func moveIntoPlace(request: OutgoingRequest) throws {
        try fileStep(request) {
            guard rename(partial.path, destination.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path,
                                                               NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
            }
        }
        if resumable {
            try? FileManager.default.removeItem(at: validatorFile)
        }
    }

    /// The download failed or was cancelled: the partial file goes, unless it is kept to resume.
    func failed() {
        if !resumable {
            try? FileManager.default.removeItem(at: partial)
        }
    }

    /// Runs a file-system step, turning its errors into ``RequestError/Code/fileFailed``.
    func fileStep<T>(_ request: OutgoingRequest, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CannotCreate {
            throw RequestError(.fileFailed, request: request, detail: "cannot download to \(destination.path): \(error.reason)")
        } catch {
            // The destination the caller named; the partial file only when it is the caller's to find.
            let file = resumable ? partial.path : destination.path
            throw RequestError(.fileFailed, request: request, detail: "cannot download to \(file)", underlyingError: error)
        }
    }

    /// The partial file could not be created (FileManager says no more than that): why, from
    /// what its folder is.
    struct CannotCreate: Error {
        let folder: URL

        var reason: String {
            var isFolder: ObjCBool = false
            let manager = FileManager.default
            if !manager.fileExists(atPath: folder.path, isDirectory: &isFolder) {
                return "the folder \(folder.path) does not exist"
            }
            if !isFolder.boolValue {
                return "\(folder.path) is not a folder"
            }
            if !manager.isWritableFile(atPath: folder.path) {
                return "the folder \(folder.path) is not writable"
            }
            return "the file system refused it"
        }
    }
}

// MARK: - DownloadWriter

/// Writes a download's chunks to its partial file.
struct DownloadWriter {
    let handle: FileHandle
    let file: DownloadFile
    let request: OutgoingRequest

    func write(_ chunk: Data) throws {
        try file.fileStep(request) { try handle.write(contentsOf: chunk) }
    }

    func finish() throws {
        try file.fileStep(request) {
            try handle.synchronize()
            try handle.close()
        }
    }

    func abandon() {
        try? handle.close()
    }
}
