import Foundation
import MetaRouter

/// A transport that answers at once, in memory: `200`, or at `failureRate` one of the faults
/// the status table retries (500, 503, 408, a timeout, a dropped connection), from a seeded
/// sequence so runs compare.
final class InMemoryTransport: HTTPTransport, @unchecked Sendable {  // `random` is only touched under `lock`
    private let failureRate: Double
    private let lock = NSLock()
    private var random: UInt64
    private var requestCount = 0

    init(failureRate: Double = 0, seed: UInt64 = 7) {
        self.failureRate = failureRate
        random = seed
    }

    var requests: Int { lock.withLock { requestCount } }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        let draw: Double = lock.withLock {
            requestCount += 1
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(random >> 11) / Double(1 << 53)
        }
        guard draw < failureRate else { return completion(.success(TransportResponse(status: 200))) }
        switch Int(draw * 1_000) % 5 {
        case 0: completion(.success(TransportResponse(status: 500)))
        case 1: completion(.success(TransportResponse(status: 503)))
        case 2: completion(.success(TransportResponse(status: 408)))
        case 3: completion(.failure(URLError(.timedOut)))
        default: completion(.failure(URLError(.networkConnectionLost)))
        }
    }
}

/// Watches an events directory from outside the SDK and notes when each event's record
/// (`"n":<index>` in its payload) first appears in a segment file: the moment it reached
/// `write(2)`, which is what survives `kill -9`.
final class LogWatcher: @unchecked Sendable {  // `seen` and `offsets` are touched only by the watcher thread until `stop()` joins it
    private let directory: URL
    private var offsets: [String: Int] = [:]
    private var seen: [Int: UInt64] = [:]
    private let done = DispatchSemaphore(value: 0)
    private let stopFlag = NSLock()
    private var stopping = false

    init(directory: URL) { self.directory = directory }

    func start() {
        Thread.detachNewThread { [self] in
            while !stopFlag.withLock({ stopping }) {
                poll()
                usleep(500)
            }
            poll()
            done.signal()
        }
    }

    /// Stops watching and returns when each index was first seen (monotonic ns).
    func stop() -> [Int: UInt64] {
        stopFlag.withLock { stopping = true }
        done.wait()
        return seen
    }

    private func poll() {
        let now = DispatchTime.now().uptimeNanoseconds
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix("segment-") {
            guard let handle = FileHandle(forReadingAtPath: directory.appendingPathComponent(name).path) else { continue }
            defer { try? handle.close() }
            let offset = offsets[name, default: 0]
            try? handle.seek(toOffset: UInt64(offset))
            guard let data = try? handle.readToEnd(), !data.isEmpty else { continue }
            // Only whole records are counted: a pattern cut at the end is read again next time.
            let bytes = [UInt8](data)
            var consumed = 0
            var index = 0
            let pattern = Array("\"n\":".utf8)
            while index + pattern.count < bytes.count {
                if bytes[index] == pattern[0], Array(bytes[index..<(index + pattern.count)]) == pattern {
                    var end = index + pattern.count
                    var number = 0
                    while end < bytes.count, bytes[end] >= 48, bytes[end] <= 57 {
                        number = number * 10 + Int(bytes[end] - 48)
                        end += 1
                    }
                    guard end < bytes.count else { break }
                    if seen[number] == nil { seen[number] = now }
                    consumed = end
                    index = end
                } else {
                    index += 1
                }
            }
            offsets[name] = offset + max(consumed, 0)
        }
    }
}
