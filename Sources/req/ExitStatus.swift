import Foundation
import Requests

// MARK: - ExitStatus

/// `req`'s exit statuses, httpie's numbers.
///
/// | status | meaning |
/// |---|---|
/// | 0 | a response arrived (any status, unless `--check-status`) |
/// | 1 | an error: no connection, a refused request, a failed download…, or a usage error |
/// | 2 | a timeout (`--timeout`) |
/// | 3, 4, 5 | with `--check-status`: a 3xx (not followed), 4xx or 5xx response |
/// | 6 | more redirects than `--max-redirects` |
enum ExitStatus {
    static let ok: Int32 = 0
    static let error: Int32 = 1
    /// httpie's: a script tells a typo (1) from a timeout (2).
    static let usage: Int32 = 1
    static let timeout: Int32 = 2
    static let tooManyRedirects: Int32 = 6

    /// The status for an error that ended the call.
    static func of(_ error: any Error) -> Int32 {
        guard let error = error as? RequestError else { return Self.error }
        if error.code == .timedOut || error.transportErrorKind == .timedOut { return timeout }
        if error.code == .tooManyRedirects { return tooManyRedirects }
        return Self.error
    }

    /// The status for a response: 0, or with `checkStatus` 3, 4 or 5 for a 3xx, 4xx or 5xx.
    static func of(_ statusCode: Int, checkStatus: Bool) -> Int32 {
        guard checkStatus else { return ok }
        switch statusCode {
        case 300..<400: return 3
        case 400..<500: return 4
        case 500..<600: return 5
        default: return ok
        }
    }
}
