import Foundation

/// What one `metarouter inspect` takes from the outside before it refuses: bytes per request,
/// bytes held across all requests at once, bytes a gzip body may inflate to, connections open at
/// once, and how long a connection may sit without sending.
///
/// A request over a byte limit is answered `413` with a one-line reason and recorded as a
/// refused batch; it never reaches the store. Past the connection cap, the connection that has
/// been idle longest (a half-sent request or a kept-alive one, never one being answered) is
/// closed, so the page and ingestion always get in.
public struct InspectorLimits: Sendable {
    /// The largest body one request may send, compressed or not.
    public var requestBytes: Int
    /// The bytes of request bodies held at once across every connection: reserved from
    /// `Content-Length` before the body is read (chunked bodies as they arrive), inflated bytes
    /// included, released once the batch is recorded.
    public var bytesInFlight: Int
    /// The most a gzip body may inflate to.
    public var inflatedBytes: Int
    /// The most connections open at once.
    public var connections: Int
    /// How long a connection may send nothing (mid-headers, mid-body or between requests)
    /// before it is closed. A connection being answered (the page's live stream) is exempt.
    public var idleTimeout: Duration

    /// The defaults: 50 MB a request and inflated, 64 MiB in flight, 256 connections, 10 s idle.
    public init(
        requestBytes: Int = 50_000_000, bytesInFlight: Int = 64 << 20, inflatedBytes: Int = 50_000_000,
        connections: Int = 256, idleTimeout: Duration = .seconds(10)
    ) {
        self.requestBytes = requestBytes
        self.bytesInFlight = bytesInFlight
        self.inflatedBytes = inflatedBytes
        self.connections = connections
        self.idleTimeout = idleTimeout
    }
}
