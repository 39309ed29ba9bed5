import Foundation

// MARK: - ByteBuffer

/// A growable run of bytes the writers own outright.
///
/// Unlike `[UInt8]`, appending never checks whether the storage is shared, and space can be
/// reserved once and then written through a pointer: the query writer appends a few bytes at a
/// time, hundreds of times per request, and those checks were a large part of its cost.
///
/// The storage comes from `malloc`, so that growing a large buffer is a `realloc` (which moves
/// pages rather than copying bytes, and never holds the old and new storage at once) and a
/// finished buffer can become a `Data` without a copy (``takeData()``).
struct ByteBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        base = Self.reallocate(nil, to: self.capacity)
    }

    deinit {
        free(base)
    }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `extra` more bytes and returns where they go; ``commit(_:)`` counts them.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < extra { grow(toHold: count + extra) }
        return base + count
    }

    /// Counts `written` bytes stored after ``reserve(_:)``.
    @inline(__always)
    mutating func commit(_ written: Int) {
        count += written
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the UTF-8 bytes of `text`.
    @inline(__always)
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends `byte` `count` times.
    @inline(__always)
    mutating func append(_ byte: UInt8, count: Int) {
        guard count > 0 else { return }
        reserve(count).update(repeating: byte, count: count)
        self.count += count
    }

    /// Appends the bytes of another buffer.
    @inline(__always)
    mutating func append(_ other: borrowing ByteBuffer) {
        reserve(other.count).update(from: other.base, count: other.count)
        count += other.count
    }

    /// Drops every byte after the first `length`.
    @inline(__always)
    mutating func truncate(to length: Int) {
        count = min(count, length)
    }

    /// Replaces the contents with `bytes`.
    mutating func replace(with bytes: [UInt8]) {
        count = 0
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Calls `body` with the bytes, which stay valid (and unchanged) while it runs.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes as an array.
    var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes as `Data`.
    var data: Data {
        Data(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes as text; they are ASCII when they come from an ``URLEncoding/Escaping``.
    var text: String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// The bytes as `Data`, without copying them: the storage passes to the `Data`, trimmed to
    /// the bytes written when much of it is unused.
    consuming func takeData() -> Data {
        // Data keeps up to 14 bytes inline; copying those is cheaper than a storage object.
        guard count > 14 else {
            let copy = data
            free(base)
            discard self
            return copy
        }
        if capacity - count > max(4_096, count / 8) {
            base = Self.reallocate(base, to: count)
            capacity = count
        }
        let data = Data(bytesNoCopy: base, count: count, deallocator: .free)
        discard self
        return data
    }

    /// Doubles small buffers; a large one grows by half, since `realloc` moves its pages
    /// without copying, so growing often costs little and the unused tail stays small.
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity < 1 << 20 ? capacity * 2 : capacity + capacity / 2)
        base = Self.reallocate(base, to: newCapacity)
        capacity = newCapacity
    }

    /// `realloc`, typed; running out of memory stops the process, as any Swift allocation does.
    private static func reallocate(_ pointer: UnsafeMutablePointer<UInt8>?, to capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let raw = realloc(pointer, capacity) else {
            preconditionFailure("out of memory: a buffer of \(capacity) bytes could not be allocated")
        }
        return raw.assumingMemoryBound(to: UInt8.self)
    }
}
