import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - PropertyListEncoding

/// Writes parameters as a property-list body, with `Content-Type: application/x-plist` unless
/// one is set.
///
/// Property lists hold strings, numbers, booleans, dates, data, arrays and string-keyed
/// dictionaries; anything else, `nil` included, is an error naming its key path.
///
/// Both formats come from this package's own writers, which sort dictionary keys, so the same
/// parameters give the same bytes in every run (`PropertyListSerialization` writes binary
/// property lists in hash order), and which are several times faster. What they write reads
/// back through `PropertyListSerialization` as the same values.
public struct PropertyListEncoding: ParameterEncoding {
    /// The format: `.xml` or `.binary`.
    public let format: PropertyListSerialization.PropertyListFormat
    /// Write options, kept for source compatibility; Foundation defines none.
    public let options: PropertyListSerialization.WriteOptions

    /// Creates a property-list encoding.
    ///
    /// - Parameters:
    ///   - format: `.xml` (the default) or `.binary`.
    ///   - options: Write options; `0` by default.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml, options: PropertyListSerialization.WriteOptions = 0) {
        self.format = format
        self.options = options
    }

    /// XML property lists.
    public static var `default`: PropertyListEncoding { PropertyListEncoding() }
    /// XML property lists.
    public static var xml: PropertyListEncoding { PropertyListEncoding(format: .xml) }
    /// Binary property lists.
    public static var binary: PropertyListEncoding { PropertyListEncoding(format: .binary) }

    /// Returns the request with the parameters as its property-list body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to start from.
    ///   - parameters: The parameters; `nil` leaves the request unchanged.
    /// - Returns: The encoded request.
    /// - Throws: ``ParameterEncodingError`` naming the key path of a value a property list cannot
    ///   hold, ``ParameterEncodingError/Code/serializationFailed`` for a format other than XML or
    ///   binary, or the error thrown while building the request.
    public func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters else { return request }
        request.setBody(try data(for: parameters), defaultContentType: "application/x-plist")
        return request
    }

    /// Writes the parameters into the target's body as a property list, with `Content-Type:
    /// application/x-plist` unless it has one.
    ///
    /// - Parameters:
    ///   - parameters: The parameters; `nil` leaves the target as it is.
    ///   - target: The request to write into.
    /// - Throws: As ``encode(_:with:)``.
    public func encode<Target: EncodingTarget>(_ parameters: Parameters?, into target: inout Target) throws {
        guard let parameters else { return }
        target.setBody(try data(for: parameters), defaultContentType: "application/x-plist")
    }

    /// Returns the property list of a value, without any request.
    ///
    /// - Parameter propertyList: A dictionary, array or scalar property-list value.
    /// - Returns: The encoded property list.
    /// - Throws: As ``encode(_:with:)``.
    public func data(for propertyList: any Sendable) throws -> Data {
        let normalized = try SerializableValue.normalize(propertyList, for: .propertyList(datesToTheSecond: format == .xml))
        switch format {
        case .binary:
            return BinaryPropertyListWriter.encode(normalized)
        case .xml:
            return try XMLPropertyListWriter.encode(normalized)
        default:
            // Foundation cannot write OpenStep property lists either; on Linux it traps.
            throw ParameterEncodingError(.serializationFailed, detail: "property lists can be written as XML or binary, not \(format)")
        }
    }
}
