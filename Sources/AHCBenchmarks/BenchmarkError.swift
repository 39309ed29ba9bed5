#if AsyncHTTPClient
// MARK: - BenchmarkError

/// Why a run stopped, in one sentence.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
#endif
