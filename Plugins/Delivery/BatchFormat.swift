import Foundation
import MetaRouterCore

/// How a destination puts events on the wire. The delivery machinery (queue, batching, retry,
/// breaker) is shared; a destination supplies its format and endpoint.
package protocol BatchFormat: Sendable {
    /// Encodes one event when it is queued (without `sentAt`).
    ///
    /// - Parameter event: The event.
    /// - Returns: Its JSON, as it goes into a batch.
    func encode(_ event: Event) -> [UInt8]
    /// The request body for `events`, stamping `sentAt` on each.
    ///
    /// - Parameters:
    ///   - events: The encoded events, in order.
    ///   - sentAt: When the request leaves.
    /// - Returns: The request body.
    func body(for events: [QueuedEvent], sentAt: Date) -> Data
    /// Headers every request carries (besides `Idempotency-Key` and `Trace`).
    var headers: [String: String] { get }
}

/// MetaRouter's (Segment-compatible) format: `{"batch":[event,…]}`, each event's keys sorted
/// with `sentAt` written last, `writeKey` in every event.
package struct MetaRouterBatchFormat: BatchFormat {
    private let writeKey: String
    private let contextCache = ContextEncodingCache()
    private let shared: LastEncodedEvent?

    /// The format for `writeKey`; with `shared` (the instance's, used on its executor only), an
    /// event another destination of the instance encoded just before is not encoded again.
    package init(writeKey: String, shared: LastEncodedEvent? = nil) {
        self.writeKey = writeKey
        self.shared = shared
    }

    /// Sets `writeKey` and encodes the event.
    package func encode(_ event: Event) -> [UInt8] {
        guard let shared else { return event.jsonBytes(writeKey: writeKey, sentAt: nil, encodingContext: contextCache.bytes(for:)) }
        return shared.bytes(for: event, writeKey: writeKey) {
            event.jsonBytes(writeKey: writeKey, sentAt: nil, encodingContext: contextCache.bytes(for:))
        }
    }

    /// `{"batch":[…]}` with `"sentAt"` appended to each event (in place of its closing brace).
    /// Sized first, then each payload copied in with one `memcpy`: a batch of 500 events is
    /// 300 KB, and appending them to a growing array cost a thousand instructions per event.
    package func body(for events: [QueuedEvent], sentAt: Date) -> Data {
        let stamp = Array(",\"sentAt\":\"\(Timestamp.string(from: sentAt))\"}".utf8)
        let opening = Array("{\"batch\":[".utf8)
        let closing = Array("]}".utf8)
        // An object with no member (`{}`) takes the stamp without its comma.
        func isEmptyObject(_ payload: [UInt8]) -> Bool { payload.count == 2 }
        var size = opening.count + closing.count + max(events.count - 1, 0)
        for event in events { size += max(event.payload.count - 1, 0) + stamp.count - (isEmptyObject(event.payload) ? 1 : 0) }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 1)
        var offset = 0
        func copy(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, bytes.count > 0, offset + bytes.count <= size else { return }
            (memory + offset).copyMemory(from: source, byteCount: bytes.count)
            offset += bytes.count
        }
        opening.withUnsafeBytes(copy)
        for (index, event) in events.enumerated() {
            if index > 0, offset < size {
                memory.storeBytes(of: UInt8(ascii: ","), toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
            event.payload.withUnsafeBytes { copy(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
            stamp.withUnsafeBytes { copy(isEmptyObject(event.payload) ? UnsafeRawBufferPointer(rebasing: $0.dropFirst()) : $0) }
        }
        closing.withUnsafeBytes(copy)
        return Data(bytesNoCopy: memory, count: offset, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// `Content-Type: application/json` and a `User-Agent` naming the library.
    package var headers: [String: String] {
        ["Content-Type": "application/json", "User-Agent": DeliveryHeaders.userAgent]
    }
}

/// Header values shared by formats.
package enum DeliveryHeaders {
    /// `metarouter-swift/<version> (<platform>)`.
    package static let userAgent = "\(LibraryInfo.name)/\(LibraryInfo.version) (\(RuntimePlatform.current.userAgentName))"
}

/// Remembers the encoding of the last context seen. Nearly every event carries the context
/// plugin's shared dictionary, whose equality check is a storage-identity fast path, so most
/// events skip encoding their context.
final class ContextEncodingCache: Sendable {
    private let last = Locked<(context: [String: JSON], bytes: [UInt8])?>(nil)

    func bytes(for context: [String: JSON]) -> [UInt8] {
        last.withLock { cached in
            if let cached, cached.context == context { return cached.bytes }
            var bytes: [UInt8] = []
            JSONWriter.writeObject(context, into: &bytes)
            cached = (context, bytes)
            return bytes
        }
    }
}
