import Foundation

// MARK: - BinaryPropertyListWriter

/// Writes a normalized value tree (see ``SerializableValue``) as a `bplist00` binary property list.
///
/// `PropertyListSerialization` writes dictionaries in hash order, which changes from one process
/// to the next; this writer sorts keys, so the same parameters give the same bytes in every run.
/// Objects are written children first; the offset table maps object numbers to byte offsets.
struct BinaryPropertyListWriter {
    private var bytes: [UInt8] = Array("bplist00".utf8)
    private var offsets: [Int] = []
    private let referenceSize: Int

    private init(objectCount: Int) {
        referenceSize = Self.byteWidth(for: UInt64(objectCount))
        offsets.reserveCapacity(objectCount)
    }

    /// Encodes a normalized tree.
    static func encode(_ root: PropertyListNode) -> Data {
        var writer = BinaryPropertyListWriter(objectCount: countObjects(root))
        let top = writer.writeTree(root)
        return writer.finish(topObject: top)
    }

    /// One object per value, plus one per dictionary key; counted without recursion.
    private static func countObjects(_ root: PropertyListNode) -> Int {
        var count = 0
        var pending: [PropertyListNode] = [root]
        while let value = pending.popLast() {
            count += 1
            switch value {
            case .dictionary(let keys, let values):
                count += keys.count
                pending.append(contentsOf: values)
            case .array(let values):
                pending.append(contentsOf: values)
            default:
                break
            }
        }
        return count
    }

    // MARK: Objects

    /// An open container: its children and the object numbers of those already written.
    private struct Frame {
        let keyReferences: [Int]?
        let values: [PropertyListNode]
        var references: [Int] = []

        var isComplete: Bool { references.count == values.count }
    }

    /// Writes the tree children first, with open containers on an explicit stack so any depth
    /// uses the same small amount of thread stack. Returns the root's object number.
    private mutating func writeTree(_ root: PropertyListNode) -> Int {
        var stack: [Frame] = []
        var pending = root
        while true {
            switch pending {
            case .dictionary(let keys, let values):
                var keyReferences: [Int] = []
                keyReferences.reserveCapacity(keys.count)
                for key in keys { keyReferences.append(writeString(key)) }
                stack.append(Frame(keyReferences: keyReferences, values: values, references: Self.references(values.count)))
            case .array(let values):
                stack.append(Frame(keyReferences: nil, values: values, references: Self.references(values.count)))
            default:
                let reference = writeScalar(pending)
                guard !stack.isEmpty else { return reference }
                stack[stack.count - 1].references.append(reference)
            }
            while let top = stack.last, top.isComplete {
                stack.removeLast()
                let reference = writeContainer(top)
                guard !stack.isEmpty else { return reference }
                stack[stack.count - 1].references.append(reference)
            }
            let top = stack.count - 1
            pending = stack[top].values[stack[top].references.count]
        }
    }

    /// An empty list of object numbers with room for `count`.
    private static func references(_ count: Int) -> [Int] {
        var references: [Int] = []
        references.reserveCapacity(count)
        return references
    }

    private mutating func writeContainer(_ frame: Frame) -> Int {
        beginObject { writer in
            if let keyReferences = frame.keyReferences {
                writer.writeMarker(0xD0, count: keyReferences.count)
                for reference in keyReferences { writer.writeReference(reference) }
                for reference in frame.references { writer.writeReference(reference) }
            } else {
                writer.writeMarker(0xA0, count: frame.references.count)
                for reference in frame.references { writer.writeReference(reference) }
            }
        }
    }

    /// Writes one value that is not a container and returns its object number.
    private mutating func writeScalar(_ value: PropertyListNode) -> Int {
        switch value {
        case .string(let string):
            return writeString(string)
        case .bool(let bool):
            return beginObject { $0.bytes.append(bool ? 0x09 : 0x08) }
        case .integer(let integer):
            return beginObject { $0.writeInteger(Int64(integer)) }
        case .unsigned(let unsigned):
            return beginObject { $0.writeUnsigned(unsigned) }
        case .real(let double):
            return beginObject { $0.writeReal(double) }
        case .number(let number):
            return beginObject { $0.writeNumber(number) }
        case .date(let date):
            return beginObject {
                $0.bytes.append(0x33)
                $0.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8)
            }
        case .data(let data):
            return beginObject {
                $0.writeMarker(0x40, count: data.count)
                $0.bytes.append(contentsOf: data)
            }
        case .dictionary, .array:
            // Containers are written by ``writeTree(_:)``, never as scalars.
            return beginObject { $0.writeMarker(0xA0, count: 0) }
        }
    }

    private mutating func beginObject(_ body: (inout BinaryPropertyListWriter) -> Void) -> Int {
        offsets.append(bytes.count)
        body(&self)
        return offsets.count - 1
    }

    private mutating func writeString(_ string: String) -> Int {
        beginObject { writer in
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                writer.writeMarker(0x50, count: string.utf8.count)
                writer.bytes.append(contentsOf: string.utf8)
            } else {
                let units = Array(string.utf16)
                writer.writeMarker(0x60, count: units.count)
                for unit in units { writer.appendBigEndian(UInt64(unit), width: 2) }
            }
        }
    }

    private mutating func writeNumber(_ number: NSNumber) {
        switch number.numberValue {
        case .bool(let bool): bytes.append(bool ? 0x09 : 0x08)
        case .float(let float): writeReal(Double(float))
        case .double(let double): writeReal(double)
        case .unsigned(let unsigned): writeUnsigned(unsigned)
        case .integer(let integer): writeInteger(integer)
        }
    }

    private mutating func writeReal(_ double: Double) {
        bytes.append(0x23)
        appendBigEndian(double.bitPattern, width: 8)
    }

    private mutating func writeInteger(_ value: Int64) {
        guard value >= 0 else {
            bytes.append(0x13)
            return appendBigEndian(UInt64(bitPattern: value), width: 8)
        }
        let width = Self.byteWidth(for: UInt64(value))
        bytes.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(value), width: width)
    }

    /// Values above `Int64.max` take the 16-byte integer form, which readers treat as unsigned.
    private mutating func writeUnsigned(_ value: UInt64) {
        guard value > UInt64(Int64.max) else { return writeInteger(Int64(value)) }
        bytes.append(0x14)
        appendBigEndian(0, width: 8)
        appendBigEndian(value, width: 8)
    }

    /// A type marker whose low nibble holds `count`, or `0xF` followed by an integer object.
    private mutating func writeMarker(_ marker: UInt8, count: Int) {
        if count < 15 {
            bytes.append(marker | UInt8(count))
        } else {
            bytes.append(marker | 0x0F)
            writeInteger(Int64(count))
        }
    }

    private mutating func writeReference(_ reference: Int) {
        appendBigEndian(UInt64(reference), width: referenceSize)
    }

    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    // MARK: Trailer

    private mutating func finish(topObject: Int) -> Data {
        let offsetTableStart = bytes.count
        let offsetSize = Self.byteWidth(for: UInt64(offsetTableStart))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0])  // unused
        bytes.append(0)  // sort version
        bytes.append(UInt8(offsetSize))
        bytes.append(UInt8(referenceSize))
        appendBigEndian(UInt64(offsets.count), width: 8)
        appendBigEndian(UInt64(topObject), width: 8)
        appendBigEndian(UInt64(offsetTableStart), width: 8)
        return Data(bytes)
    }

    /// 1, 2, 4 or 8: the fewest bytes that hold `value`.
    private static func byteWidth(for value: UInt64) -> Int {
        switch value {
        case ..<0x100: 1
        case ..<0x1_0000: 2
        case ..<0x1_0000_0000: 4
        default: 8
        }
    }
}
