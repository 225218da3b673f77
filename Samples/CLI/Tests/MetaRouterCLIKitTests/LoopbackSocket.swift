import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to 127.0.0.1, for what an HTTP client will not do: stop halfway through a
/// request, send headers and hold the body back, or promise a length it never sends. Every wait
/// is for an outcome, bounded by a deadline, on a thread of its own: a test blocking the
/// cooperative pool (two threads on a two-core machine) would starve the very server it waits on.
// @unchecked: one test drives a socket, one call at a time (each call is awaited), and `received`
// is touched only inside those calls.
final class LoopbackSocket: @unchecked Sendable {
    private let descriptor: Int32
    private var received: [UInt8] = []

    struct Failure: Error { let call: String; let code: Int32 }

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "connect", code: code)
        }
    }

    deinit { close(descriptor) }

    /// Runs `work` on a thread of its own.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: work()) }.start() }
    }

    /// Sends all of `bytes`; `false` when the peer closed first.
    @discardableResult
    func send(_ bytes: Data) async -> Bool { await Self.offThePool { self.blockingSend(bytes) } }

    /// Sends `text`.
    @discardableResult
    func send(_ text: String) async -> Bool { await send(Data(text.utf8)) }

    /// The next whole response (status and body), or `nil` when none came within `seconds`.
    func response(within seconds: Double) async -> (status: Int, body: String)? {
        await Self.offThePool { self.blockingResponse(within: seconds) }
    }

    /// Whether the server closed this connection within `seconds` (reading and discarding
    /// anything it sent first).
    func closedByPeer(within seconds: Double) async -> Bool {
        await Self.offThePool { self.blockingClosedByPeer(within: seconds) }
    }

    private func blockingSend(_ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(descriptor, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads what arrives within `seconds`; `nil` when the peer closed (or reset), else the bytes
    /// (empty when nothing came).
    private func readSome(within seconds: Double) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(0, seconds * 1000))) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? Array(buffer[0..<count]) : nil
    }

    private func blockingResponse(within seconds: Double) -> (status: Int, body: String)? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let parsed = Self.parse(received) {
                received.removeFirst(parsed.length)
                return (parsed.status, parsed.body)
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, let bytes = readSome(within: remaining), !bytes.isEmpty else { return nil }
            received += bytes
        }
    }

    private func blockingClosedByPeer(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0 {
            guard readSome(within: deadline.timeIntervalSinceNow) != nil else { return true }
        }
        return false
    }

    /// A whole response at the start of `bytes`: its status, body and length.
    private static func parse(_ bytes: [UInt8]) -> (status: Int, body: String, length: Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = head.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let length = head.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        return (status, String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self), end + 4 + length)
    }
}
