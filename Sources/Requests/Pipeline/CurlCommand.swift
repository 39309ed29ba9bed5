import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - CurlCommand

/// A request written as a `curl` command line that sends the same request from a shell.
///
/// Arguments are single-quoted for POSIX shells (`$'…'` when the text has control characters),
/// headers sorted by name, and an empty header written as `Name;` as curl wants it.
struct CurlCommand {
    /// Headers whose values are secrets.
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    let request: OutgoingRequest
    let redactsCredentials: Bool
    let bodyLimit: Int

    var text: String {
        var words = ["curl"]
        let method = request.method.rawValue
        if method == "HEAD" {
            words.append("--head")
        } else if method != "GET" || !request.body.isEmpty {
            let plain = !method.isEmpty && method.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "-") }
            words += ["-X", plain ? method : Self.quote(method)]
        }
        // In the order they go out, repeats as repeated options.
        for field in request.headers {
            let (name, value) = (field.name, field.value)
            let shown = redactsCredentials && Self.credentialHeaders.contains(name.lowercased()) ? Self.redacted(value) : value
            words += ["-H", Self.quote(shown.isEmpty ? name + ";" : name + ": " + shown)]
        }
        var note = ""
        switch request.body.storage {
        case .empty:
            break
        case .data(let body):
            let shown = body.prefix(max(0, bodyLimit))
            if let text = Self.text(ofPrefix: shown) {
                words += ["--data-binary", Self.quote(text)]
                if text.utf8.count < body.count {
                    note = " # body cut at \(text.utf8.count) of \(body.count) bytes"
                }
            } else {
                words += ["--data-binary", "@-"]
                note = " # \(body.count)-byte binary body not shown"
            }
        case .file(let url, _):
            words += ["--data-binary", Self.quote("@" + url.path)]
        case .stream:
            note = " # streamed body not shown"
        }
        words.append(Self.quote(request.url.absoluteString))
        return words.joined(separator: " ") + note
    }

    static func redacted(_ value: String) -> String {
        let parts = value.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].allSatisfy({ $0.isLetter || $0 == "-" }) {
            return parts[0] + " <redacted>"
        }
        return "<redacted>"
    }

    /// The text as one shell word.
    static func quote(_ text: String) -> String {
        let needsEscapes = text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        guard needsEscapes else {
            return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        var quoted = "$'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\\": quoted += "\\\\"
            case "'": quoted += "\\'"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                quoted += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "'"
    }
}

extension CurlCommand {
    /// The bytes as text when they are UTF-8, allowing a sequence cut at the end (which is dropped);
    /// `nil` when they are not text.
    static func text(ofPrefix bytes: Data) -> String? {
        guard !bytes.isEmpty else { return "" }
        for drop in 0...min(3, bytes.count - 1) {
            if let text = String(data: bytes.dropLast(drop), encoding: .utf8) {
                return text
            }
        }
        return nil
    }
}
