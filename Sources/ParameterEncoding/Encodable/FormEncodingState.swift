import Foundation

// MARK: - FormSlot

/// Where one value of a form's tree goes: an entry of a container of the ``JSONTree``, or the
/// top level.
struct FormSlot {
    /// The container's position in the tree; -1 for the top level.
    let container: Int32
    /// The entry's position in its container.
    let entry: Int32

    init(container: Int, entry: Int) {
        self.container = Int32(truncatingIfNeeded: container)
        self.entry = Int32(truncatingIfNeeded: entry)
    }

    /// The top-level value.
    static let topLevel = FormSlot(container: -1, entry: 0)
}

// MARK: - FormEncodingState

/// What one form encoding shares between its encoders and containers: the options, the tree,
/// the top-level value, and the coding paths of the values being encoded.
///
/// How containers share a slot, as Alamofire's encoder shares a node: a container asked for
/// where one of the same kind is writes into it (keyed entries and array elements merge); a
/// container of the other kind, or one asked for where a single value was written, replaces
/// what is there when it first writes, not when it is asked for. A single value written where
/// anything else already was is an error, as is a second value through one single-value
/// container. A key encoded again is appended again: the writer keeps its first position and
/// spelling and its last value, as a dictionary keyed by `String` would.
final class FormEncodingState {
    let options: URLEncodedFormEncoder
    let tree = JSONTree()
    /// Whether keys are written as the types name them (`.useDefaultKeys`).
    private let keepsKeys: Bool
    /// The top-level value. Like the tree's containers, not checked for overlapping access at
    /// run time: every access is a single read or write.
    @exclusivity(unchecked) private(set) var topLevel: JSONTree.Value = .nothing
    /// The coding paths of the values and containers being encoded.
    @exclusivity(unchecked) private var links = CodingPathLinks(indexKeys: .digits)
    /// How many times a slot's value was replaced by a new container: the only way a slot that
    /// holds a container changes, so a container may keep the position of the one it writes to
    /// while this count stays the same.
    @exclusivity(unchecked) private(set) var replacements = 0

    init(options: URLEncodedFormEncoder) {
        self.options = options
        if case .useDefaultKeys = options.keyEncoding { keepsKeys = true } else { keepsKeys = false }
    }

    /// The key as written, after ``URLEncodedFormEncoder/keyEncoding``.
    @inline(__always)
    func name(of key: some CodingKey) -> String {
        keepsKeys ? key.stringValue : options.keyEncoding.encode(key.stringValue)
    }

    // MARK: Slots

    /// The value in `slot`.
    subscript(slot: FormSlot) -> JSONTree.Value {
        get {
            slot.container < 0 ? topLevel : tree.containers[Int(slot.container)].entries[Int(slot.entry)].value
        }
        set {
            if slot.container < 0 {
                topLevel = newValue
            } else {
                tree.containers[Int(slot.container)].entries[Int(slot.entry)].value = newValue
            }
        }
    }

    /// The position of the container of that kind in `slot`, if there is one.
    @inline(__always)
    func container(in slot: FormSlot, isObject: Bool) -> Int? {
        guard case .container(let index) = self[slot], tree.containers[index].isObject == isObject else { return nil }
        return index
    }

    /// The container of that kind in `slot`, or a new one that replaces what the slot held:
    /// called when a container writes, so that the replacement is lazy.
    @inline(__always)
    func writableContainer(in slot: FormSlot, isObject: Bool) -> Int {
        if let index = container(in: slot, isObject: isObject) { return index }
        let index = tree.makeContainer(isObject: isObject)
        self[slot] = .container(index)
        replacements &+= 1
        return index
    }

    /// Puts a new container of that kind in `slot` if nothing is there yet.
    func makeContainerIfEmpty(_ slot: FormSlot, isObject: Bool) {
        if case .nothing = self[slot] { self[slot] = .container(tree.makeContainer(isObject: isObject)) }
    }

    /// The slot of `key` in the object at `container`: its last entry if it has one (for a
    /// container or super encoder asked for twice), else a new, empty one.
    func existingOrNewSlot(forKey name: String, in container: Int) -> FormSlot {
        let entry = tree.lastEntry(forKey: name, in: container) ?? tree.append(.nothing, key: name, to: container)
        return FormSlot(container: container, entry: entry)
    }

    // MARK: Coding paths

    /// Makes `link` the innermost link and returns the path that ends there; ``pop(_:)`` takes
    /// it off again.
    @inline(__always)
    func push(_ link: EncodingPath.Link) -> EncodingPath {
        links.push(link)
    }

    /// Takes off the link `push(_:)` returned `path` for, and any pushed after it.
    @inline(__always)
    func pop(_ path: EncodingPath) {
        links.pop(path)
    }

    /// Keeps a path built now, for a nested container or a super encoder.
    func keep(_ path: [any CodingKey]) -> EncodingPath {
        links.keep(path)
    }

    /// The coding path `path` stands for.
    func codingPath(_ path: EncodingPath) -> [any CodingKey] {
        links.codingPath(path)
    }
}
