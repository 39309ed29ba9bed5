// MARK: - FormPath

/// The coding path of a value or container of a form encoding, built into an array only when
/// something asks for it (an error, or an `encode(to:)` that reads `codingPath`).
///
/// A value nested in a container is encoded with a link pushed onto the encoding's list: its
/// key (read through a pointer while the container's `encode` call runs, so that no key is
/// copied into an existential box) and the path of its container; the link is taken off when
/// the value is encoded. Nested containers and super encoders, which live on after the call
/// that made them, keep their path built.
enum FormPath {
    /// The path of the top-level value: empty.
    case topLevel
    /// The path that ends with the link at this position of the encoding's list.
    case link(Int32)
    /// A path kept built, at this position of the encoding's kept paths.
    case kept(Int32)

    /// The last key of a path and the path before it.
    struct Link {
        let parent: FormPath
        let key: Key
    }

    /// The last key of a path.
    enum Key {
        /// An array position.
        case index(Int)
        /// A key of a keyed container, of type `type`, at `pointer`. The pointer is valid while
        /// the link is on the list: the link is pushed inside the call the pointer was made for
        /// (``FormTreeEncoder/boxNonLeaf(_:into:parent:key:)``) and taken off before it returns.
        case codingKey(UnsafeRawPointer, any CodingKey.Type)

        /// The key, as `codingPath` holds it.
        var codingKey: any CodingKey {
            switch self {
            case .index(let index): FormCodingKey(intValue: index)
            case .codingKey(let pointer, let type): Self.load(type, from: pointer)
            }
        }

        private static func load<K: CodingKey>(_ type: K.Type, from pointer: UnsafeRawPointer) -> any CodingKey {
            pointer.assumingMemoryBound(to: K.self).pointee
        }
    }
}

// MARK: - FormCodingKey

/// A coding key for array positions.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
