import Foundation

// MARK: - SnakeCase

/// `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`, word for word: words split where a
/// lowercase letter meets an uppercase one and before the last capital of a run of them, joined
/// by `_` and lowercased (`myURLProperty` → `my_url_property`). Foundation does not publish its
/// function, so this is its algorithm, checked against `JSONEncoder` on random keys.
enum SnakeCase {
    static func converted(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upper = key.rangeOfCharacter(from: .uppercaseLetters, options: [], range: searchRange) {
            words.append(wordStart..<upper.lowerBound)
            searchRange = upper.lowerBound..<searchRange.upperBound
            guard let lower = key.rangeOfCharacter(from: .lowercaseLetters, options: [], range: searchRange) else {
                wordStart = searchRange.lowerBound
                break
            }
            if lower.lowerBound == key.index(after: upper.lowerBound) {
                // One capital starts the word.
                wordStart = upper.lowerBound
            } else {
                // A run of capitals is a word of its own, less the last, which starts the next.
                let beforeLower = key.index(before: lower.lowerBound)
                words.append(upper.lowerBound..<beforeLower)
                wordStart = beforeLower
            }
            searchRange = lower.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }
}
