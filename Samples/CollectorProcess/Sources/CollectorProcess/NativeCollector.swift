import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 collector in this process, for benchmarks whose rate the Python
/// collector would set: it reads each request (headers, then `Content-Length` bytes of body)
/// and answers `200 {}` on the same kept connection, a thread per connection. It does
/// not decode bodies; the benchmarks count delivered events on the SDK's side.
public final class NativeCollector: @unchecked Sendable {  // `listener` and `url` are set once; `state` locks its own
    /// The collector's base URL, to use as the ingestion host.
    public let url: URL
    private let listener: Int32
    private let state = NativeCollectorState()

    private struct SetupFailed: Error {}

    /// Listens on an ephemeral port of 127.0.0.1 and accepts connections on a thread of its own.
    public init() throws {
        #if canImport(Glibc)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SetupFailed() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw SetupFailed()
        }
        self.listener = listener
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        let state = state
        Thread.detachNewThread { Self.acceptConnections(on: listener, state: state) }
        #else
        throw SetupFailed()
        #endif
    }

    /// Stops accepting and ends every open connection.
    public func stop() {
        #if canImport(Glibc)
        shutdown(listener, Int32(SHUT_RDWR))
        state.stop { shutdown($0, Int32(SHUT_RDWR)) }
        #endif
    }

    #if canImport(Glibc)
    private static func acceptConnections(on listener: Int32, state: NativeCollectorState) {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            guard state.open(connection) else {
                close(connection)
                return
            }
            Thread.detachNewThread { serve(connection, state: state) }
        }
    }

    private static let response = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)

    /// Answers the connection's requests one after another until the peer closes it.
    private static func serve(_ connection: Int32, state: NativeCollectorState) {
        defer {
            state.closed(connection)
            close(connection)
        }
        var noDelay: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var filled = 0
        while true {
            guard let headerEnd = endOfHeaders(buffer, filled) else {
                guard readMore(connection, into: &buffer, filled: &filled) else { return }
                continue
            }
            let requestLength = headerEnd + contentLength(buffer[..<headerEnd])
            while filled < requestLength {
                guard readMore(connection, into: &buffer, filled: &filled) else { return }
            }
            let written = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written == response.count else { return }
            buffer.withUnsafeMutableBytes { bytes in
                let base = bytes.baseAddress!
                memmove(base, base + requestLength, filled - requestLength)
            }
            filled -= requestLength
        }
    }

    /// Reads what the socket has after `filled`, growing the buffer when it is full; `false`
    /// when the peer closed the connection or it failed.
    private static func readMore(_ connection: Int32, into buffer: inout [UInt8], filled: inout Int) -> Bool {
        if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress! + filled, $0.count - filled, 0) }
        guard count > 0 else { return false }
        filled += count
        return true
    }

    /// The offset just past the blank line that ends the headers, if they are all in.
    private static func endOfHeaders(_ buffer: [UInt8], _ filled: Int) -> Int? {
        guard filled >= 4 else { return nil }
        for index in 3..<filled where buffer[index] == 10 && buffer[index - 1] == 13 && buffer[index - 2] == 10 && buffer[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// The request's `Content-Length` (0 without one).
    private static func contentLength(_ headers: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: headers, as: UTF8.self).lowercased()
        guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) else { return 0 }
        return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    #endif
}

/// The collector's open connections.
private final class NativeCollectorState: @unchecked Sendable {  // every field is only touched under `lock`
    private let lock = NSLock()
    private var connections: Set<Int32> = []
    private var stopped = false

    /// Records a new connection; `false` once the collector stopped.
    func open(_ connection: Int32) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            connections.insert(connection)
            return true
        }
    }

    func closed(_ connection: Int32) { lock.withLock { _ = connections.remove(connection) } }

    /// Marks the collector stopped and passes each connection still open to `end`, under the
    /// lock: a connection leaves the set before its descriptor is closed, so `end` never sees a
    /// number the process has reused.
    func stop(_ end: (Int32) -> Void) {
        lock.withLock {
            stopped = true
            connections.forEach(end)
        }
    }
}
