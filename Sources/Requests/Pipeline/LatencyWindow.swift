import Foundation

// MARK: - LatencyWindow

/// The latencies of an origin's last ``capacity`` answers, kept as a histogram of logarithmic
/// buckets (eight to the doubling: a bucket is 9% wide), so that recording one is two array
/// writes and a percentile is a walk over the buckets, whatever the traffic.
///
/// A ring of the samples' bucket numbers tells which bucket to take the oldest sample from when
/// a new one replaces it: the window is exactly the last ``capacity`` samples.
struct LatencyWindow {
    /// How many answers the window holds.
    static let capacity = 512
    /// Buckets to the doubling.
    private static let perOctave = 8.0
    /// Bucket 0 holds everything under 1 µs; the last, everything from about 71 minutes on.
    private static let bucketCount = 256

    private var counts = [UInt16](repeating: 0, count: bucketCount)
    private var ring = [UInt8](repeating: 0, count: capacity)
    private var next = 0
    /// How many samples the window holds, up to ``capacity``.
    private(set) var count = 0

    /// Adds a latency, replacing the oldest one once the window is full.
    mutating func record(_ latency: Duration) {
        let bucket = Self.bucket(of: latency)
        if count == Self.capacity {
            counts[Int(ring[next])] -= 1
        } else {
            count += 1
        }
        ring[next] = UInt8(bucket)
        counts[bucket] += 1
        next = (next + 1) % Self.capacity
    }

    /// The latency under which `fraction` of the window's samples fall (the upper edge of the
    /// bucket that holds that sample, so never below it); `nil` while the window is empty.
    func percentile(_ fraction: Double) -> Duration? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((min(1, max(0, fraction)) * Double(count)).rounded(.up)))
        var seen = 0
        for bucket in counts.indices {
            seen += Int(counts[bucket])
            if seen >= rank { return Self.upperEdge(of: bucket) }
        }
        return Self.upperEdge(of: Self.bucketCount - 1)
    }

    private static func bucket(of latency: Duration) -> Int {
        let micros = latency.seconds * 1_000_000
        guard micros >= 1 else { return 0 }
        return min(bucketCount - 1, Int(log2(micros) * perOctave) + 1)
    }

    private static func upperEdge(of bucket: Int) -> Duration {
        .microseconds(Int64(pow(2, Double(bucket) / perOctave).rounded(.up)))
    }
}

// MARK: - LatencyBoard

/// Each origin's ``LatencyWindow``. Invariant, under the lock: a window holds only latencies
/// recorded for its origin; its percentile is read only under the same lock.
final class LatencyBoard: Sendable {
    private let origins = Guarded([String: LatencyWindow]())

    func record(_ latency: Duration, for key: String) {
        origins.withLock { $0[key, default: LatencyWindow()].record(latency) }
    }

    /// The origin's `fraction` percentile, or `nil` while it has fewer than `minimumSamples`.
    func percentile(_ fraction: Double, for key: String, minimumSamples: Int) -> Duration? {
        origins.withLock { origins in
            guard let window = origins[key], window.count >= minimumSamples else { return nil }
            return window.percentile(fraction)
        }
    }
}
