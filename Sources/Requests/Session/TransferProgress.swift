import Foundation

// MARK: - TransferProgress

/// How far a transfer has got: an upload's body sent, or a download's file written to disk.
///
/// Uploads and downloads report the same shape: the bytes done, the whole length when it is
/// known, and the fraction done when the length is known.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes done so far: sent for an upload; on disk for a download, a resumed part included.
    public let completedBytes: Int64
    /// The whole length, when it is known: an upload's body length (`nil` for a stream of unknown
    /// length until it ends), or the length the server announced for a download.
    public let totalBytes: Int64?

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - completedBytes: Bytes done so far.
    ///   - totalBytes: The whole length, if known.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The part done, from 0 to 1, when the length is known; 1 for an empty body.
    public var fraction: Double? {
        guard let totalBytes else { return nil }
        return totalBytes > 0 ? min(1, Double(completedBytes) / Double(totalBytes)) : 1
    }
}

// MARK: - ProgressPacing

/// How often a transfer reports its progress: often enough for a progress bar, seldom enough
/// that a screen can show every value.
///
/// A value is reported when at least ``interval`` has passed since the last one and the fraction
/// has reached a new ``step`` (for a length that is not known, the interval alone counts). The
/// first value (nothing done yet) and the last (the transfer complete) are always reported, each
/// once. The default, ``standard``, reports at most 10 values a second, at most one per whole
/// percent: at most 101 values however large the transfer.
///
/// ```swift
/// var options = RequestOptions()
/// options.progressPacing = ProgressPacing(interval: .milliseconds(250), step: 0.05)
/// let download = session.download("https://example.com/big.iso", options: options, to: file)
/// ```
public struct ProgressPacing: Sendable, Hashable {
    /// The least time between two reported values.
    public let interval: Duration
    /// The least advance of ``TransferProgress/fraction`` between two reported values, from 0
    /// (any advance) to 1: 0.01 reports each whole percent at most once.
    public let step: Double

    /// Creates a pacing.
    ///
    /// - Parameters:
    ///   - interval: The least time between two reported values; zero or less for no limit.
    ///   - step: The least advance of the fraction between two reported values, clamped to 0...1;
    ///     a step under 10⁻¹² (or not a number) counts as 0, any advance.
    public init(interval: Duration, step: Double) {
        self.interval = interval
        self.step = step.isNaN || step < 1e-12 ? 0 : min(1, step)
    }

    /// At most 10 values a second and one per whole percent: the default.
    public static let standard = ProgressPacing(interval: .milliseconds(100), step: 0.01)
    /// Every value the transfer has: one per write to disk or per report of the engine.
    public static let unpaced = ProgressPacing(interval: .zero, step: 0)
}

extension RequestOptions {
    /// How often an upload or a download reports its progress; ``ProgressPacing/standard``
    /// unless set.
    public var progressPacing: ProgressPacing {
        get { self[ProgressPacingOption.self] }
        set { self[ProgressPacingOption.self] = newValue }
    }
}

enum ProgressPacingOption: RequestOptionKey {
    static let defaultValue = ProgressPacing.standard
}

// MARK: - ProgressReporter

/// Paces one transfer's progress values into its stream and ends the stream: decides under a
/// lock which values to report, and yields them after unlocking, in order, whichever thread
/// offers them; the stream ends after the last value decided on has been yielded.
final class ProgressReporter: Sendable {
    private struct State {
        var pacing: ProgressPacing
        var lastReported: ContinuousClock.Instant?
        /// The fraction's step of the last value reported.
        var lastStep = Int.min
        var lastValue: TransferProgress?
        /// Values decided on and not yet yielded, oldest first.
        var queue: [TransferProgress] = []
        /// Whether a thread is yielding the queue (the others only add to it).
        var draining = false
        /// The final value was offered: nothing more is reported.
        var finalOffered = false
        /// The stream is to end once the queue is yielded.
        var closing = false
        /// The stream was ended.
        var closed = false
    }

    /// Invariant: `queue` holds, in order, values decided on and not yet yielded; exactly one
    /// thread yields (and, once `closing`, ends the stream) while `draining` is set; after
    /// `finalOffered` or `closing`, nothing more is queued; `closed` is set once, by the thread
    /// that ends the stream.
    private let state: Guarded<State>
    private let continuation: AsyncStream<TransferProgress>.Continuation

    init(pacing: ProgressPacing, continuation: AsyncStream<TransferProgress>.Continuation) {
        self.state = Guarded(State(pacing: pacing))
        self.continuation = continuation
    }

    /// Offers a value, reported if the pacing allows; `final` for the complete transfer's value,
    /// which is always reported (once), and after which nothing more is.
    func offer(_ value: TransferProgress, final: Bool = false, now: ContinuousClock.Instant = .now) {
        let drains = state.withLock { state -> Bool in
            guard !state.finalOffered, !state.closing else { return false }
            state.finalOffered = final
            guard Self.reports(value, final: final, now: now, state: state) else { return false }
            state.lastReported = now
            state.lastValue = value
            state.lastStep = Self.step(of: value, pacing: state.pacing)
            state.queue.append(value)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if drains { drain() }
    }

    /// Ends the stream once every value decided on is yielded: at once, or by the thread
    /// yielding them. Values offered after it are dropped.
    func finish() {
        let drains = state.withLock { state -> Bool in
            state.closing = true
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if drains { drain() }
    }

    /// Yields the queue, and ends the stream when it is closing; run by the one thread that set
    /// `draining`.
    private func drain() {
        enum Step { case yield(TransferProgress), close, stop }
        while true {
            let step = state.withLock { state -> Step in
                if !state.queue.isEmpty { return .yield(state.queue.removeFirst()) }
                state.draining = false
                guard state.closing, !state.closed else { return .stop }
                state.closed = true
                return .close
            }
            switch step {
            case .yield(let value): continuation.yield(value)
            case .close: continuation.finish(); return
            case .stop: return
            }
        }
    }

    private static func reports(_ value: TransferProgress, final: Bool, now: ContinuousClock.Instant, state: State) -> Bool {
        guard let last = state.lastReported, let lastValue = state.lastValue else { return true }
        if final { return value != lastValue }
        guard now - last >= state.pacing.interval else { return false }
        // A transfer that starts over (a body sent again after a 307) is reported from where it is.
        if value.completedBytes < lastValue.completedBytes { return true }
        // A complete value waits for the final one, so that 1 is reported once.
        guard value.completedBytes > lastValue.completedBytes, value.fraction != 1 else { return false }
        return value.fraction == nil || step(of: value, pacing: state.pacing) > state.lastStep
    }

    private static func step(of value: TransferProgress, pacing: ProgressPacing) -> Int {
        guard let fraction = value.fraction else { return Int.min }
        guard pacing.step > 0 else { return Int(clamping: value.completedBytes) }
        // At most 10^12 steps (a smaller step counts as 0): the quotient fits an Int.
        // (A hair over the quotient, so that 0.29 / 0.01 counts as 29, not 28.999….)
        return Int((fraction / pacing.step + 1e-9).rounded(.down))
    }
}
