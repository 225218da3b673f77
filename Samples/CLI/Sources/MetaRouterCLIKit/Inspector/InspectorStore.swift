import Foundation
import MetaRouter
import NIOConcurrencyHelpers

/// A fault the inspector answers the next batches with.
public enum InspectorFault: String, Sendable, CaseIterable {
    /// `500 Internal Server Error`.
    case serverError = "500"
    /// `429 Too Many Requests` with `Retry-After: 1`.
    case tooManyRequests = "429"
    /// `413 Payload Too Large`.
    case tooLarge = "413"
    /// The connection closes before an answer.
    case drop
}

/// What the inspector holds: the last ``capacity`` events of accepted batches within
/// ``byteBudget`` bytes (the oldest go first by either), the last batches (every attempt, faults
/// included), delivery figures, and the pages listening (8 at most). An event larger than
/// ``maxEventBytes`` is kept as a preview: its identifying fields and the start of its JSON,
/// marked `truncated`. Safe from any thread; every change is sent to the listeners as one
/// server-sent event.
public final class InspectorStore: Sendable {
    private struct State {
        var events: [JSON] = []
        var eventSizes: [Int] = []
        var eventBytes = 0
        var batches: [JSON] = []
        var nextEvent = 1
        var nextBatch = 1
        var seenMessageIds: Set<String> = []
        var lastTimestamp: [String: String] = [:]
        var attempts: [String: Int] = [:]
        var duplicates = 0
        var outOfOrder = 0
        var faults: [(fault: InspectorFault, left: Int)] = []
        var listeners: [Int: AsyncStream<String>.Continuation] = [:]
        var nextListener = 0
    }

    /// Events kept (the page keeps fewer).
    public let capacity: Int
    /// Bytes of event JSON kept at most (64 MiB by default).
    public let byteBudget: Int
    /// An event whose JSON is larger than this (64 KiB) is kept as a preview.
    public static let maxEventBytes = 64 * 1024
    /// The default ``byteBudget``.
    public static let defaultByteBudget = 64 << 20
    /// Pages listening at once, at most.
    static let maxListeners = 8
    private let state = NIOLockedValueBox(State())

    /// A store of the last `capacity` events within `byteBudget` bytes.
    public init(capacity: Int = 5000, byteBudget: Int = InspectorStore.defaultByteBudget) {
        self.capacity = max(1, capacity)
        self.byteBudget = max(Self.maxEventBytes, byteBudget)
    }

    // MARK: Faults

    /// Answers the next `count` batches with `fault` (after the faults already queued).
    public func inject(_ fault: InspectorFault, count: Int) {
        state.withLockedValue { $0.faults.append((fault, max(1, min(count, 1000)))) }
        broadcast(kind: "faults", faultsJSON)
    }

    /// The fault for the batch arriving now, if one is queued.
    func takeFault() -> InspectorFault? {
        let fault = state.withLockedValue { state -> InspectorFault? in
            guard !state.faults.isEmpty else { return nil }
            state.faults[0].left -= 1
            let fault = state.faults[0].fault
            if state.faults[0].left == 0 { state.faults.removeFirst() }
            return fault
        }
        if fault != nil { broadcast(kind: "faults", faultsJSON) }
        return fault
    }

    /// The faults queued, in order.
    public var faultsJSON: JSON {
        state.withLockedValue { .array($0.faults.map { ["fault": .string($0.fault.rawValue), "left": .int(Int64($0.left))] }) }
    }

    // MARK: Recording

    /// Records one batch attempt and, when it was accepted, its events with their analysis.
    func record(batch: [String: JSON], events: [JSON], accepted: Bool, analyse: (JSON) -> EventAnalysis) {
        state.withLockedValue { state in
            var messages: [(String, JSON)] = []
            // Sent under the lock, so every page sees batches and events in the store's order.
            defer {
                messages.append(("stats", ["duplicates": .int(Int64(state.duplicates)), "outOfOrder": .int(Int64(state.outOfOrder))]))
                for (kind, payload) in messages { Self.send(kind: kind, payload, to: state.listeners) }
            }
            var batch = batch
            let number = state.nextBatch
            state.nextBatch += 1
            batch["seq"] = .int(Int64(number))
            if let key = batch["idempotencyKey"]?.stringValue {
                state.attempts[key, default: 0] += 1
                batch["attempt"] = .int(Int64(state.attempts[key] ?? 1))
            }
            let record = JSON.object(batch)
            Self.append(record, to: &state.batches, keeping: 500)
            messages.append(("batch", record))
            guard accepted else { return }
            for event in events {
                let preview = Self.preview(of: event)
                var row: [String: JSON] = ["seq": .int(Int64(state.nextEvent)), "batch": .int(Int64(number)), "event": preview ?? event]
                if preview != nil { row["truncated"] = true }
                state.nextEvent += 1
                let analysis = analyse(event)
                row["analysis"] = analysis.json
                if let id = event["messageId"]?.stringValue, !state.seenMessageIds.insert(id).inserted {
                    row["duplicate"] = true
                    state.duplicates += 1
                }
                if state.seenMessageIds.count > 200_000 { state.seenMessageIds.removeAll() }
                if state.lastTimestamp.count > 100_000 { state.lastTimestamp.removeAll() }
                let who = event["anonymousId"]?.stringValue ?? event["userId"]?.stringValue ?? ""
                if let time = event["timestamp"]?.stringValue {
                    // ISO 8601 with fixed width sorts as text.
                    if let last = state.lastTimestamp[who], time < last {
                        row["outOfOrder"] = true
                        state.outOfOrder += 1
                    } else {
                        state.lastTimestamp[who] = time
                    }
                }
                let record = JSON.object(row)
                let size = record.description.utf8.count
                state.events.append(record)
                state.eventSizes.append(size)
                state.eventBytes += size
                trimEvents(&state)
                messages.append(("event", record))
            }
        }
    }

    /// Forgets every event and batch (the figures too).
    public func clear() {
        state.withLockedValue { state in
            state.events = []
            state.eventSizes = []
            state.eventBytes = 0
            state.batches = []
            state.seenMessageIds = []
            state.lastTimestamp = [:]
            state.duplicates = 0
            state.outOfOrder = 0
        }
        broadcast(kind: "clear", .object([:]))
    }

    /// Drops the oldest events beyond ``capacity`` or ``byteBudget`` (in one go once a quarter
    /// over the count, at once over the bytes).
    private func trimEvents(_ state: inout State) {
        var drop = state.events.count > capacity + capacity / 4 ? state.events.count - capacity : 0
        var bytes = state.eventBytes - state.eventSizes.prefix(drop).reduce(0, +)
        while bytes > byteBudget, drop < state.events.count - 1 {
            bytes -= state.eventSizes[drop]
            drop += 1
        }
        guard drop > 0 else { return }
        state.events.removeFirst(drop)
        state.eventSizes.removeFirst(drop)
        state.eventBytes = bytes
    }

    /// `event` cut down to what identifies it and the start of its JSON, when its JSON is over
    /// ``maxEventBytes``; `nil` when it is not.
    static func preview(of event: JSON) -> JSON? {
        let text = event.description
        guard text.utf8.count > maxEventBytes else { return nil }
        var kept: [String: JSON] = [:]
        for name in ["type", "event", "name", "messageId", "userId", "anonymousId", "groupId", "previousId", "timestamp", "writeKey"] {
            if let value = event[name]?.stringValue, value.utf8.count <= 256 { kept[name] = .string(value) }
        }
        kept["truncated"] = ["bytes": .int(Int64(text.utf8.count)), "preview": .string(String(text.unicodeScalars.prefix(2048)))]
        return .object(kept)
    }

    private static func append(_ record: JSON, to list: inout [JSON], keeping limit: Int) {
        list.append(record)
        if list.count > limit + limit / 4 { list.removeFirst(list.count - limit) }
    }

    // MARK: Reading

    /// The events kept, oldest first.
    public var events: [JSON] { state.withLockedValue { Array($0.events.suffix(capacity)) } }

    /// The batches kept, oldest first.
    public var batches: [JSON] { state.withLockedValue { Array($0.batches.suffix(500)) } }

    /// Duplicates and out-of-order arrivals seen.
    public var stats: JSON {
        state.withLockedValue { ["duplicates": .int(Int64($0.duplicates)), "outOfOrder": .int(Int64($0.outOfOrder))] }
    }

    /// Everything a page needs when it opens.
    public var snapshot: JSON {
        ["events": .array(events), "batches": .array(batches), "stats": stats, "faults": faultsJSON, "capacity": .int(Int64(capacity))]
    }

    // MARK: Listeners

    /// A stream of server-sent events (`event: <kind>` and one JSON line of data) until the
    /// page goes away; `nil` when ``maxListeners`` pages listen already. A page that falls
    /// behind loses the oldest of its 500 waiting messages, not the store's memory.
    func listen() -> AsyncStream<String>? {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(500))
        let id = state.withLockedValue { state -> Int? in
            guard state.listeners.count < Self.maxListeners else { return nil }
            state.nextListener += 1
            state.listeners[state.nextListener] = continuation
            return state.nextListener
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    private func broadcast(kind: String, _ payload: JSON) {
        state.withLockedValue { Self.send(kind: kind, payload, to: $0.listeners) }
    }

    private static func send(kind: String, _ payload: JSON, to listeners: [Int: AsyncStream<String>.Continuation]) {
        let message = "event: \(kind)\ndata: \(payload.description)\n\n"
        for listener in listeners.values { listener.yield(message) }
    }
}
