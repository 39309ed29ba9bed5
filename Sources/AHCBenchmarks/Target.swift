#if AsyncHTTPClient
// MARK: - Target

/// A target a row must meet, and whether it did: `≥ 0.95x ✔`, `< 1 MiB ✘`.
struct Target {
    /// The target as the table shows it, such as `≥ 0.95x`.
    let text: String
    /// Whether it was met; `nil` when the value was not measured.
    let met: Bool?

    /// A ratio of at least `minimum`.
    static func ratio(_ value: Double, atLeast minimum: Double) -> Target {
        Target(text: "≥ \(trimmed(minimum))x", met: value.isFinite ? value >= minimum : nil)
    }

    /// A size in bytes below `limit` MiB.
    static func bytes(_ value: Int?, below limit: Int, prefix: String = "") -> Target {
        Target(text: "\(prefix)< \(limit) MiB", met: value.map { $0 < limit << 20 })
    }

    /// The cell: the target and ✔ or ✘, or "not measured".
    var cell: String {
        switch met {
        case true?: "\(text) ✔"
        case false?: "\(text) ✘"
        case nil: "\(text) (not measured)"
        }
    }

    /// `0.95` as `0.95`, `3.5` as `3.5`.
    private static func trimmed(_ value: Double) -> String {
        var text = String(value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
#endif
