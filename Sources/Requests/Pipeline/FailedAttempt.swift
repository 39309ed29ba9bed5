import Foundation

// MARK: - FailedAttempt

/// One try of a call that did not succeed, kept by ``RetryPolicy`` so that the final response or
/// error can say how many tries were made and why each failed.
public struct FailedAttempt: Sendable, CustomStringConvertible {
    /// The try's number, from 1.
    public let number: Int
    /// Why it failed, e.g. `status 503` or `connection lost`.
    public let reason: String
    /// The status code, when a response arrived.
    public let statusCode: Int?
    /// The error, when none did.
    public let error: (any Error)?
    /// How long the try took.
    public let duration: Duration

    /// Creates a record of a failed try.
    ///
    /// - Parameters:
    ///   - number: The try's number, from 1.
    ///   - reason: Why it failed.
    ///   - statusCode: The status code, when a response arrived.
    ///   - error: The error, when none did.
    ///   - duration: How long the try took.
    public init(number: Int, reason: String, statusCode: Int? = nil, error: (any Error)? = nil, duration: Duration = .zero) {
        self.number = number
        self.reason = reason
        self.statusCode = statusCode
        self.error = error
        self.duration = duration
    }

    /// This record with why the try after it was not sent: `status 503 (not retried: …)`.
    ///
    /// - Parameter why: Why not, in words.
    /// - Returns: The record with its reason extended.
    func notRetried(_ why: String) -> FailedAttempt {
        FailedAttempt(number: number, reason: reason + " (not retried: \(why))", statusCode: statusCode, error: error, duration: duration)
    }

    /// `#2 status 503`.
    public var description: String {
        "#\(number) \(reason)"
    }

    /// `after 3 attempts: #1 status 503; #2 connection lost; #3 status 503`, or empty for none.
    static func summary(_ attempts: [FailedAttempt]) -> String {
        guard let last = attempts.last else { return "" }
        let count = last.number == 1 ? "1 attempt" : "\(last.number) attempts"
        return "after \(count): " + attempts.map(\.description).joined(separator: "; ")
    }
}
