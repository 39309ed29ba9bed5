#if AsyncHTTPClient
import Foundation

// MARK: - Report

/// The results of a run as two markdown tables, requests first, then memory and streaming, with
/// every target and whether it was met.
struct Report {
    var throughput: [ThroughputBenchmark.Result] = []
    var memory: [MemoryGrowthBenchmark.Result] = []
    var stream: StreamingBenchmark.Result?
    var slowReader: SlowReaderBenchmark.Result?
    /// The slow reader's pace, for its row's name.
    var slowBytesPerSecond = 0

    /// The targets the rows checked, in table order.
    private(set) var targets: [Target] = []

    /// The requests table: each client's median requests per second, and the ratios the issue's
    /// targets name (each the median of the per-round ratios).
    mutating func requestsTable() -> String {
        var table = MarkdownTable([
            ("client", .left), ("in flight", .right), ("req/s", .right), ("ratio", .left), ("target", .left),
        ])
        for result in throughput {
            let inFlight = "\(result.inFlight)"
            func rate(_ kind: Client.Kind) -> String {
                MarkdownTable.grouped(result.requestsPerSecond(kind))
            }
            func ratio(_ ours: Client.Kind, _ baseline: Client.Kind, _ name: String) -> (Double, String) {
                let value = result.ratio(ours, to: baseline)
                return (value, String(format: "%.2fx ", value) + name)
            }
            table.append(Client.Kind.rawURLSession.name, inFlight, rate(.rawURLSession), "1.00x (baseline)", "")
            let viaURLSession = ratio(.sessionOverURLSession, .rawURLSession, "raw URLSession")
            table.append(Client.Kind.sessionOverURLSession.name, inFlight, rate(.sessionOverURLSession), viaURLSession.1, "")
            let raw = ratio(.rawAsyncHTTPClient, .rawURLSession, "raw URLSession")
            table.append(Client.Kind.rawAsyncHTTPClient.name, inFlight, rate(.rawAsyncHTTPClient), raw.1, "")
            if result.rounds.first?[.transportAlone] != nil {
                let alone = ratio(.transportAlone, .rawAsyncHTTPClient, "raw AsyncHTTPClient")
                table.append(Client.Kind.transportAlone.name, inFlight, rate(.transportAlone), alone.1, "(--split)")
            }
            let againstRaw = ratio(.sessionOverAsyncHTTPClient, .rawAsyncHTTPClient, "raw AsyncHTTPClient")
            table.append(Client.Kind.sessionOverAsyncHTTPClient.name, inFlight, rate(.sessionOverAsyncHTTPClient),
                         againstRaw.1, record(.ratio(againstRaw.0, atLeast: 0.95)))
            let againstURLSession = ratio(.sessionOverAsyncHTTPClient, .rawURLSession, "raw URLSession")
            table.append(Client.Kind.sessionOverAsyncHTTPClient.name, inFlight, rate(.sessionOverAsyncHTTPClient),
                         againstURLSession.1, record(.ratio(againstURLSession.0, atLeast: 3.5)))
        }
        return table.text
    }

    /// The memory and streaming rows.
    mutating func memoryAndStreamingTable() -> String {
        var table = MarkdownTable([("measurement", .left), ("result", .left), ("target", .left)])
        for result in memory {
            let name = "resident memory growth, \(result.kind.name), \(MarkdownTable.grouped(Double(result.requests))) requests, \(result.inFlight) in flight"
            let value = "\(ResidentMemory.formatChange(result.growth)) (\(ResidentMemory.format(result.before)) → \(ResidentMemory.format(result.after)); \(MarkdownTable.grouped(result.requestsPerSecond)) req/s)"
            let target = result.kind == .sessionOverAsyncHTTPClient ? record(.bytes(result.growth, below: 1)) : "(for context)"
            table.append(name, value, target)
        }
        if let stream {
            let size = Self.label(stream.size)
            table.append("stream \(size) chunk by chunk, \(Client.Kind.rawAsyncHTTPClient.name) (`response.body`)",
                         "\(MarkdownTable.grouped(stream.rawMegabytesPerSecond)) MB/s", "")
            table.append("stream \(size) chunk by chunk, \(Client.Kind.sessionOverAsyncHTTPClient.name) (`session.stream(url)`)",
                         "\(MarkdownTable.grouped(stream.sessionMegabytesPerSecond)) MB/s, " + String(format: "%.2fx raw AsyncHTTPClient", stream.ratio),
                         record(.ratio(stream.ratio, atLeast: 0.95)))
            table.append("peak resident memory while `Session` streamed \(size)",
                         "\(ResidentMemory.format(stream.sessionPeak)) (\(ResidentMemory.format(stream.sessionStart)) when it began)",
                         record(.bytes(stream.sessionPeak, below: 64, prefix: "peak ")))
        }
        if let slowReader {
            let pace = Self.label(slowBytesPerSecond) + "/s"
            table.append("slow reader, `Session` over AsyncHTTPClient, \(Self.label(slowReader.size)) at \(pace) (\(String(format: "%.1f", slowReader.seconds)) s)",
                         "\(ResidentMemory.format(slowReader.start)) at the start, \(ResidentMemory.format(slowReader.peak)) at the peak (\(ResidentMemory.formatChange(slowReader.growth)))",
                         record(.bytes(slowReader.growth, below: 4, prefix: "flat: growth ")))
        }
        return table.text
    }

    /// One line: how many targets were met, and which were missed.
    var summary: String {
        let measured = targets.filter { $0.met != nil }
        let met = measured.filter { $0.met == true }.count
        let unmeasured = targets.count - measured.count
        return "targets met: \(met) of \(measured.count)" + (unmeasured > 0 ? " (\(unmeasured) not measured on this platform)" : "")
    }

    private mutating func record(_ target: Target) -> String {
        targets.append(target)
        return target.cell
    }

    /// `1 GiB`, `64 MiB`.
    static func label(_ bytes: Int) -> String {
        bytes >= 1 << 30 && bytes.isMultiple(of: 1 << 30) ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }
}
#endif
