import Foundation

// MARK: - URLEncoding.Escaping + CharacterSet

extension URLEncoding.Escaping {
    /// Creates an escaping table from a `CharacterSet`, as Alamofire's `allowedCharacters` names one.
    ///
    /// Only visible ASCII members count: every other byte of a key or value's UTF-8 form, and
    /// `%`, `&`, `=`, `#` and `+`, are always encoded, so keys and values can always be told
    /// apart (Alamofire leaves a member such as `&` or `é` as it is).
    ///
    /// - Parameters:
    ///   - allowedCharacters: The characters to write as they are.
    ///   - encodesSpaceAsPlus: Whether to write a space as `+` instead of `%20`.
    public init(allowedCharacters: CharacterSet, encodesSpaceAsPlus: Bool = false) {
        let visible = (UInt8(0x21)..<UInt8(0x7F)).filter { allowedCharacters.contains(Unicode.Scalar($0)) }
        self.init(allowedCharacters: String(decoding: visible, as: UTF8.self), encodesSpaceAsPlus: encodesSpaceAsPlus)
    }

    /// The characters this table writes as they are, as a `CharacterSet`.
    public var allowedCharacterSet: CharacterSet {
        CharacterSet(charactersIn: allowedCharacters)
    }
}

// MARK: - CharacterSet + afURLQueryAllowed

extension CharacterSet {
    /// The characters a query keeps unencoded by default, under Alamofire's name: RFC 3986's
    /// query characters less its sub-delimiters, `:`, `@`, `[` and `]`, so `A-Z a-z 0-9 - . _ ~ / ?`.
    ///
    /// The same set as ``URLEncoding/Escaping/rfc3986``, the default of ``URLEncoding`` and
    /// ``URLEncodedFormEncoder``.
    public static let afURLQueryAllowed = URLEncoding.Escaping.rfc3986.allowedCharacterSet
}
