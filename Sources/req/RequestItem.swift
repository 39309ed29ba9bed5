import Foundation

// MARK: - RequestItem

/// One `ITEM` argument, in httpie's syntax.
///
/// | syntax          | kind                                   |
/// |-----------------|----------------------------------------|
/// | `name==value`   | query parameter                        |
/// | `Header:value`  | header (`Header:` removes a default)   |
/// | `Header;`       | header sent with an empty value        |
/// | `name=value`    | string field                           |
/// | `name:=json`    | raw JSON field                         |
/// | `field@path`    | file upload (the request is multipart) |
/// | `name=@path`    | string field read from a file          |
/// | `name:=@path`   | raw JSON field read from a file        |
/// | `@path`         | the file is the whole request body     |
///
/// The item is split at its first separator; at one position the longest separator wins. A
/// backslash before `=`, `:`, `@`, `;` or `\` in the name makes it literal.
struct RequestItem: Equatable {
    enum Kind: String, CaseIterable {
        case jsonFile = ":=@"
        case textFile = "=@"
        case query = "=="
        case json = ":="
        case file = "@"
        case field = "="
        case header = ":"
        case emptyHeader = ";"
        /// `@path`: no name, the file is the body (not a separator: only at the start).
        case bodyFile = "@path"
    }

    let kind: Kind
    let name: String
    let value: String
    /// The argument as typed, for messages.
    let text: String

    /// Separators by length, longest first, so that `:=@` wins over `:=` and `:`.
    private static let separators = Kind.allCases.filter { $0 != .bodyFile }.sorted { $0.rawValue.count > $1.rawValue.count }

    /// Parses one argument.
    ///
    /// - Throws: ``UsageError`` naming the argument when it has no separator or no name.
    init(parsing argument: String) throws {
        text = argument
        if argument.hasPrefix("@") {
            guard argument.count > 1 else { throw UsageError("request item \"@\" names no file; @path sends the file as the body") }
            kind = .bodyFile
            name = ""
            value = String(argument.dropFirst())
            return
        }
        let characters = Array(argument)
        var name = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "=:@;\\".contains(characters[index + 1]) {
                name.append(characters[index + 1])
                index += 2
                continue
            }
            for kind in Self.separators where Self.matches(kind.rawValue, characters, at: index) {
                guard !name.isEmpty else {
                    throw UsageError("request item \"\(argument)\" has no name before \"\(kind.rawValue)\"")
                }
                let value = String(characters[(index + kind.rawValue.count)...])
                if kind == .emptyHeader, !value.isEmpty {
                    throw UsageError("request item \"\(argument)\": Header; sends an empty header and takes no value (Header:value sends one)")
                }
                self.kind = kind
                self.name = name
                self.value = value
                return
            }
            name.append(character)
            index += 1
        }
        throw UsageError("\"\(argument)\" is not a request item (name=value, name:=json, name==query, Header:value, Header;, field@file, @file)")
    }

    private static func matches(_ separator: String, _ characters: [Character], at index: Int) -> Bool {
        let separator = Array(separator)
        guard index + separator.count <= characters.count else { return false }
        return Array(characters[index..<(index + separator.count)]) == separator
    }

    /// Whether this item goes into the request body.
    var isBodyData: Bool {
        switch kind {
        case .field, .json, .textFile, .jsonFile, .file, .bodyFile: true
        case .query, .header, .emptyHeader: false
        }
    }
}

// MARK: - UsageError

/// A mistake on the command line: reported on one line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
