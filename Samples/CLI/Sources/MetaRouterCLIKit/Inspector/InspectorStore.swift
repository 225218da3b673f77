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
/// included), delivery figures, and the pages listening (8 at most). An event whose record is
/// larger than ``maxEventBytes`` is kept as a preview: its identifying fields and the start of
/// its JSON, marked `truncated`. Safe from any thread; every change is sent to the listeners as one
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
    /// An event whose record (its JSON and its analysis) is larger than this (64 KiB) is kept
    /// as a preview.
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
            // Each record as the text sent to the pages, written once.
            var messages: [(kind: String, text: String)] = []
            // Sent under the lock, so every page sees batches and events in the store's order.
            defer {
                let stats: JSON = ["duplicates": .int(Int64(state.duplicates)), "outOfOrder": .int(Int64(state.outOfOrder))]
                messages.append(("stats", stats.description))
                for message in messages { Self.send(kind: message.kind, text: message.text, to: state.listeners) }
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
            messages.append(("batch", record.description))
            guard accepted else { return }
            for event in events {
                var row: [String: JSON] = ["seq": .int(Int64(state.nextEvent)), "batch": .int(Int64(number)), "event": event]
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
                var text = JSON.object(row).description
                if text.utf8.count > Self.maxEventBytes {
                    // Let go of the oversized text before the preview writes the event out again.
                    text = ""
                    row["event"] = Self.preview(of: event)
                    row["truncated"] = true
                    text = JSON.object(row).description
                }
                state.events.append(.object(row))
                state.eventSizes.append(text.utf8.count)
                state.eventBytes += text.utf8.count
                trimEvents(&state)
                messages.append(("event", text))
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

    /// `event` cut down to what identifies it and the start of its JSON: what is kept of an
    /// event whose record is over ``maxEventBytes``.
    static func preview(of event: JSON) -> JSON {
        let text = event.description
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
        let text = payload.description
        state.withLockedValue { Self.send(kind: kind, text: text, to: $0.listeners) }
    }

    private static func send(kind: String, text: String, to listeners: [Int: AsyncStream<String>.Continuation]) {
        let message = "event: \(kind)\ndata: \(text)\n\n"
        for listener in listeners.values { listener.yield(message) }
    }
}
