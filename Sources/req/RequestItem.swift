import Foundation

// MARK: - RequestItem

/// One `ITEM` argument, in httpie's syntax.
///
/// | syntax          | kind                                   |
/// |-----------------|----------------------------------------|
/// | `name==value`   | query parameter                        |
/// | `Header:value`  | header (`Header:` sends it empty)      |
/// | `name=value`    | string field                           |
/// | `name:=json`    | raw JSON field                         |
/// | `field@path`    | file upload (the request is multipart) |
/// | `name=@path`    | string field read from a file          |
/// | `name:=@path`   | raw JSON field read from a file        |
///
/// The item is split at its first separator; at one position the longest separator wins. A
/// backslash before `=`, `:`, `@` or `\` in the name makes it literal.
struct RequestItem: Equatable {
    enum Kind: String, CaseIterable {
        case jsonFile = ":=@"
        case textFile = "=@"
        case query = "=="
        case json = ":="
        case file = "@"
        case field = "="
        case header = ":"
    }

    let kind: Kind
    let name: String
    let value: String
    /// The argument as typed, for messages.
    let text: String

    /// Separators by length, longest first, so that `:=@` wins over `:=` and `:`.
    private static let separators = Kind.allCases.sorted { $0.rawValue.count > $1.rawValue.count }

    /// Parses one argument.
    ///
    /// - Throws: ``UsageError`` naming the argument when it has no separator or no name.
    init(parsing argument: String) throws {
        text = argument
        let characters = Array(argument)
        var name = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "=:@\\".contains(characters[index + 1]) {
                name.append(characters[index + 1])
                index += 2
                continue
            }
            for kind in Self.separators where Self.matches(kind.rawValue, characters, at: index) {
                guard !name.isEmpty else {
                    throw UsageError("request item \"\(argument)\" has no name before \"\(kind.rawValue)\"")
                }
                self.kind = kind
                self.name = name
                self.value = String(characters[(index + kind.rawValue.count)...])
                return
            }
            name.append(character)
            index += 1
        }
        throw UsageError("\"\(argument)\" is not a request item (name=value, name:=json, name==query, Header:value, field@file)")
    }

    private static func matches(_ separator: String, _ characters: [Character], at index: Int) -> Bool {
        let separator = Array(separator)
        guard index + separator.count <= characters.count else { return false }
        return Array(characters[index..<(index + separator.count)]) == separator
    }

    /// Whether this item goes into the request body.
    var isBodyData: Bool {
        switch kind {
        case .field, .json, .textFile, .jsonFile, .file: true
        case .query, .header: false
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
