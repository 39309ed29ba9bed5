// MARK: - EncodingPath

/// The coding path of a value or container of a tree encoding (``FormTreeEncoder`` and
/// ``JSONTreeEncoder``), built into an array only when something asks for it (an error, a
/// custom key strategy, or an `encode(to:)` that reads `codingPath`).
///
/// A value nested in a container is encoded with a link pushed onto the encoding's
/// ``CodingPathLinks``: its key (read through a pointer while the container's `encode` call
/// runs, so that no key is copied into an existential box) and the path of its container; the
/// link is taken off when the value is encoded. Nested containers and super encoders, which
/// live on after the call that made them, keep their path built.
///
/// One 32-bit word, so that a container holding two paths and a position still fits an
/// existential's inline buffer.
struct EncodingPath: Equatable {
    /// -1 for the top level, a link's position from 0 up, a kept path's position from -2 down.
    private let raw: Int32

    private init(raw: Int32) {
        self.raw = raw
    }

    /// The path of the top-level value: empty.
    static let topLevel = EncodingPath(raw: -1)

    /// The path that ends with the link at this position of the encoding's links.
    static func link(_ index: Int) -> EncodingPath {
        EncodingPath(raw: Int32(truncatingIfNeeded: index))
    }

    /// A path kept built, at this position of the encoding's kept paths.
    static func kept(_ index: Int) -> EncodingPath {
        EncodingPath(raw: -2 - Int32(truncatingIfNeeded: index))
    }

    /// The position of the link this path ends with, if it is a link.
    var linkIndex: Int? { raw >= 0 ? Int(raw) : nil }

    /// The position of the kept path, if it is one.
    var keptIndex: Int? { raw <= -2 ? Int(-2 - raw) : nil }

    /// The last key of a path and the path before it.
    struct Link {
        let parent: EncodingPath
        let key: Key
    }

    /// The last key of a path.
    enum Key {
        /// An array position.
        case index(Int)
        /// A key of a keyed container, of type `type`, at `pointer`. The pointer is valid while
        /// the link is on the list: the link is pushed inside the call the pointer was made for
        /// and taken off before it returns.
        case codingKey(UnsafeRawPointer, any CodingKey.Type)
    }
}

// MARK: - CodingPathLinks

/// The links and kept paths of one encoding, and the coding paths they stand for.
struct CodingPathLinks {
    /// How an array position is named in a coding path.
    enum IndexKeys {
        /// `"3"`, as Alamofire's form encoder names it.
        case digits
        /// `"Index 3"`, as `JSONEncoder` names it.
        case jsonEncoder
    }

    let indexKeys: IndexKeys
    /// The last keys of the paths of the values being encoded, innermost last.
    private var links: [EncodingPath.Link] = []
    /// The paths of nested containers and super encoders, built when they were made.
    private var keptPaths: [[any CodingKey]] = []

    init(indexKeys: IndexKeys) {
        self.indexKeys = indexKeys
        links.reserveCapacity(16)
    }

    /// Makes `link` the innermost link and returns the path that ends there; ``pop(_:)`` takes
    /// it off again.
    @inline(__always)
    mutating func push(_ link: EncodingPath.Link) -> EncodingPath {
        links.append(link)
        return .link(links.count - 1)
    }

    /// Takes off the link `push(_:)` returned `path` for, and any pushed after it.
    @inline(__always)
    mutating func pop(_ path: EncodingPath) {
        guard let index = path.linkIndex else { return }
        while links.count > index { links.removeLast() }
    }

    /// Keeps a path built now, for a nested container or a super encoder.
    mutating func keep(_ path: [any CodingKey]) -> EncodingPath {
        keptPaths.append(path)
        return .kept(keptPaths.count - 1)
    }

    /// The coding path `path` stands for, built by following its links outwards.
    func codingPath(_ path: EncodingPath) -> [any CodingKey] {
        var inner: [any CodingKey] = []
        var current = path
        // A link only refers to links before it; `limit` keeps the walk to those.
        var limit = links.count
        while true {
            if let index = current.linkIndex {
                // A link past the end belongs to a value whose encoding has ended; only a
                // container kept beyond its `encode(to:)` can refer to one.
                guard index < limit else { return inner.reversed() }
                let link = links[index]
                inner.append(codingKey(link.key))
                current = link.parent
                limit = index
            } else if let index = current.keptIndex {
                let kept = keptPaths.indices.contains(index) ? keptPaths[index] : []
                return kept + inner.reversed()
            } else {
                return inner.reversed()
            }
        }
    }

    /// The key, as `codingPath` holds it.
    private func codingKey(_ key: EncodingPath.Key) -> any CodingKey {
        switch key {
        case .index(let index):
            switch indexKeys {
            case .digits: FormCodingKey(intValue: index)
            case .jsonEncoder: JSONTreeKey(index: index)
            }
        case .codingKey(let pointer, let type):
            Self.load(type, from: pointer)
        }
    }

    private static func load<K: CodingKey>(_ type: K.Type, from pointer: UnsafeRawPointer) -> any CodingKey {
        pointer.assumingMemoryBound(to: K.self).pointee
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
