#if AsyncHTTPClient
// MARK: - MarkdownTable

/// A markdown table whose columns line up in a terminal too.
struct MarkdownTable {
    enum Alignment {
        case left, right
    }

    let header: [String]
    let alignments: [Alignment]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        header = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func append(_ cells: String...) {
        rows.append(cells)
    }

    var text: String {
        let widths = header.indices.map { column in
            ([header] + rows).map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let padded = header.indices.map { column -> String in
                let cell = column < cells.count ? cells[column] : ""
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return alignments[column] == .left ? cell + padding : padding + cell
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        // The rule spans the cell and its two spaces; a right-aligned column ends it with `:`.
        let rule = header.indices.map { column -> String in
            let dashes = String(repeating: "-", count: widths[column] + 1)
            return alignments[column] == .left ? dashes + "-" : dashes + ":"
        }
        return ([line(header), "|" + rule.joined(separator: "|") + "|"] + rows.map(line))
            .joined(separator: "\n")
    }

    // MARK: Numbers

    /// `value` rounded, with thousands separated by commas: `12,345`; `-` when not a number.
    static func grouped(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let digits = String(Int(value.rounded()).magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index).isMultiple(of: 3) { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}
#endif
