import Foundation

// MARK: - FieldPath

/// A field name split into steps: `a[b][]` is `[.key("a"), .key("b"), .append]`, `[0]` is
/// `[.index(0)]`.
enum FieldPath {
    enum Step: Equatable {
        case key(String)
        case index(Int)
        case append

        /// The first step as written, for messages: `a`, `[0]`, `[]`.
        var leadingText: String {
            if case .key(let key) = self { return key }
            return text
        }

        /// A later step as written, for messages: `[b]`, `[0]`, `[]`.
        var text: String {
            switch self {
            case .key(let key): "[\(key)]"
            case .index(let index): "[\(index)]"
            case .append: "[]"
            }
        }
    }

    /// Splits a name.
    ///
    /// - Throws: ``UsageError`` naming the item and what is wrong, in ``FieldTree/Mode/json``
    ///   only; a form name that does not parse is one literal key.
    static func parse(_ name: String, mode: FieldTree.Mode, item: String) throws -> [Step] {
        do {
            var steps = try steps(of: name)
            if mode == .form {
                steps = steps.map { if case .index(let index) = $0 { .key(String(index)) } else { $0 } }
                guard case .key? = steps.first else {
                    throw UsageError("\"\(item)\": a name that starts with a bracket makes a top-level array, which only JSON can send")
                }
            }
            return steps
        } catch let error as PathError {
            guard mode == .json else { return [.key(name)] }
            throw UsageError("\"\(item)\": \(error.message) in the field name \"\(name)\"")
        }
    }

    private struct PathError: Error {
        let message: String
    }

    private static func steps(of name: String) throws -> [Step] {
        let characters = Array(name)
        var steps: [Step] = []
        var key = ""
        var index = 0
        // The leading key, up to the first unescaped bracket.
        while index < characters.count, characters[index] != "[" {
            if characters[index] == "\\", index + 1 < characters.count, "[]\\".contains(characters[index + 1]) {
                key.append(characters[index + 1])
                index += 2
                continue
            }
            if characters[index] == "]" { throw PathError(message: "\"]\" without \"[\" at character \(index + 1)") }
            key.append(characters[index])
            index += 1
        }
        let topLevel = key.isEmpty
        if !topLevel { steps.append(.key(key)) }
        while index < characters.count {
            guard characters[index] == "[" else {
                throw PathError(message: "expected \"[\" at character \(index + 1)")
            }
            index += 1
            var inner = ""
            while index < characters.count, characters[index] != "]" {
                if characters[index] == "\\", index + 1 < characters.count, "[]\\".contains(characters[index + 1]) {
                    inner.append(characters[index + 1])
                    index += 2
                    continue
                }
                if characters[index] == "[" { throw PathError(message: "\"[\" inside brackets at character \(index + 1)") }
                inner.append(characters[index])
                index += 1
            }
            guard index < characters.count else { throw PathError(message: "a \"[\" is not closed") }
            index += 1
            if inner.isEmpty {
                steps.append(.append)
            } else if inner.allSatisfy(\.isASCII), inner.allSatisfy(\.isNumber) {
                guard let number = Int(inner), number <= 100_000 else {
                    throw PathError(message: "the index \(inner) is too large (at most 100000)")
                }
                steps.append(.index(number))
            } else if inner.hasPrefix("-"), inner.dropFirst().allSatisfy(\.isNumber), inner.count > 1 {
                throw PathError(message: "negative indexes such as [\(inner)] are not supported")
            } else if steps.isEmpty {
                throw PathError(message: "a top-level array takes [] or [index], not [\(inner)]")
            } else {
                steps.append(.key(inner))
            }
        }
        if steps.isEmpty { throw PathError(message: "no name") }
        return steps
    }
}
