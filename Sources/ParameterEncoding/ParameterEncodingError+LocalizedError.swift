import Foundation

// MARK: - ParameterEncodingError + LocalizedError

extension ParameterEncodingError: LocalizedError {
    /// The ``description``, so that `localizedDescription` reads as the same sentence instead of
    /// Foundation's "The operation could not be completed".
    public var errorDescription: String? { description }
}
