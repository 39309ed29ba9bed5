import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Underlying errors in descriptions

extension RequestError {
    /// An underlying error as one readable phrase.
    ///
    /// A `URLError` prints as its code's name and number and its message, such as
    /// `URLError networkConnectionLost (-1005): Recv failure: Connection reset by peer`, instead of
    /// the `NSError` dump (domain, user info, nested errors) that string interpolation gives.
    static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "\(error)" }
        let code = urlError.code
        var text = "URLError"
        if let name = URLError.names[code] {
            text += " \(name)"
        }
        text += " (\(code.rawValue))"
        let message = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? urlError.localizedDescription
        // FoundationNetworking's stand-in when it has no words of its own repeats the code.
        if !message.isEmpty, !message.hasPrefix("The operation could not be completed") {
            text += ": " + message
        }
        return text
    }
}

extension URLError {
    /// The names of the codes a transfer commonly fails with.
    fileprivate static let names: [URLError.Code: String] = [
        .unknown: "unknown",
        .cancelled: "cancelled",
        .badURL: "badURL",
        .timedOut: "timedOut",
        .unsupportedURL: "unsupportedURL",
        .cannotFindHost: "cannotFindHost",
        .cannotConnectToHost: "cannotConnectToHost",
        .networkConnectionLost: "networkConnectionLost",
        .dnsLookupFailed: "dnsLookupFailed",
        .httpTooManyRedirects: "httpTooManyRedirects",
        .resourceUnavailable: "resourceUnavailable",
        .notConnectedToInternet: "notConnectedToInternet",
        .badServerResponse: "badServerResponse",
        .userAuthenticationRequired: "userAuthenticationRequired",
        .zeroByteResource: "zeroByteResource",
        .cannotDecodeRawData: "cannotDecodeRawData",
        .cannotDecodeContentData: "cannotDecodeContentData",
        .cannotParseResponse: "cannotParseResponse",
        .dataLengthExceedsMaximum: "dataLengthExceedsMaximum",
        .secureConnectionFailed: "secureConnectionFailed",
        .serverCertificateUntrusted: "serverCertificateUntrusted",
        .cannotWriteToFile: "cannotWriteToFile",
    ]
}
