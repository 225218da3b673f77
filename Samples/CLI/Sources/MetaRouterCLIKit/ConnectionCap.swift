import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// The open connections of one server, at most `limit` of them. A connection past the cap
/// closes the one that has been idle longest — sending nothing since it opened, since its last
/// request part or since its last answer; a half-sent request counts as idle, one being
/// answered (the page's live stream) never does — so a new request always gets in. When every
/// other connection is being answered, the new one is closed instead.
final class ConnectionCap: Sendable {
    private struct Entry {
        let channel: any Channel
        var lastActive: NIODeadline
        var answering = false
    }

    /// The most connections open at once.
    let limit: Int
    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    init(limit: Int) { self.limit = max(1, limit) }

    /// The connections open now.
    var count: Int { entries.withLockedValue { $0.count } }

    /// A handler for one connection's pipeline (after the HTTP codec).
    func handler() -> any RemovableChannelHandler { ConnectionCapHandler(cap: self) }

    /// Counts `channel` in; returns the connection to close to stay under the cap, if any.
    fileprivate func open(_ channel: any Channel) -> (any Channel)? {
        let id = ObjectIdentifier(channel)
        return entries.withLockedValue { entries -> (any Channel)? in
            entries[id] = Entry(channel: channel, lastActive: .now())
            guard entries.count > limit else { return nil }
            let idle = entries.filter { $0.key != id && !$0.value.answering }
            let victim = idle.min { $0.value.lastActive < $1.value.lastActive }?.key ?? id
            return entries.removeValue(forKey: victim)?.channel
        }
    }

    /// Records activity on `channel`: `answering` while a whole request is being answered.
    fileprivate func touch(_ channel: any Channel, answering: Bool) {
        entries.withLockedValue { entries in
            entries[ObjectIdentifier(channel)]?.lastActive = .now()
            entries[ObjectIdentifier(channel)]?.answering = answering
        }
    }

    /// Counts `channel` out.
    fileprivate func close(_ channel: any Channel) {
        _ = entries.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// Tells the ``ConnectionCap`` when its connection opens, reads a request part, finishes an
/// answer and closes.
private final class ConnectionCapHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let cap: ConnectionCap
    private var counted = false
    /// Whether the current request has been read whole (and is being answered).
    private var answering = false

    init(cap: ConnectionCap) { self.cap = cap }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { count(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        count(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cap.close(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cap.close(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { answering = true }
        cap.touch(context.channel, answering: answering)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answering = false
            cap.touch(context.channel, answering: false)
        }
        context.write(data, promise: promise)
    }

    private func count(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        guard let closing = cap.open(context.channel) else { return }
        if closing === context.channel {
            context.close(promise: nil)
        } else {
            closing.close(promise: nil)
        }
    }
}
