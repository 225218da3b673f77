import Dispatch
import Foundation

/// The ordered ingress and the serial executor of one client.
///
/// Callers append commands to a lock-guarded buffer; the first append into an idle buffer
/// wakes the executor (one serial dispatch queue per client), which swaps out the whole buffer
/// and runs it through the timeline, repeating until the buffer is empty — and, after events,
/// until a short pause finds nothing new (``ExecutorActivity``). No `Task` is created per call,
/// callers never wait for the executor, and commands run strictly in arrival order.
final class PipelineExecutor: @unchecked Sendable {  // `timeline` and `spare` are only touched by a drain; `queue` and `pauseEnd` are written once, by the first start under the ingress's lock, before any drain or later start reads them (the ingress's activity orders every start after the drain before it)
    struct Ingress {
        init(held: Bool) { activity = ExecutorActivity(held: held) }

        var pending: [Command] = []
        /// Events among `pending`.
        var pendingEvents = 0
        /// Events refused because `pendingEvents` was at its limit, and their reports.
        var overflowed = 0
        var overflowReports = ReportThrottle(interval: PipelineExecutor.overflowReportInterval)
        /// Track calls taken with their values packed (``Command/packedTracks(_:)``).
        var packed = 0
        /// Chunks for the runs of packed calls.
        var chunkPool = PackedChunkPool()
        /// Work that runs ahead of the pending commands (see ``submitPromptly(_:)``).
        var prompt: [@Sendable (Timeline) -> Void] = []
        /// Idle, draining, pausing or held.
        var activity: ExecutorActivity
        /// The client is shut down or disabled: events are refused (operations still run).
        var refusingEvents = false
        /// Where every command goes once ``handOver(to:first:)`` moved the kept ones there.
        var successor: PipelineExecutor?
    }

    /// What ``submit(_:)`` did with a command.
    enum Admission {
        case accepted
        /// The event was refused: the ingress holds its maximum of events. `report` carries
        /// the refusals not yet reported, at most once per ``overflowReportInterval``.
        case overflowed(report: Int?)
        /// The event was refused: the client no longer takes events (``refuseEvents()``).
        case refused
        /// Refused: this process is a `fork()` child, where the executor's thread does not
        /// exist (``ForkGuard``).
        case forked
        /// Not taken yet: a track call with values arrived while ``compactionThreshold`` events
        /// were waiting. The caller submits it again with its values packed
        /// (``submitPacked(name:timestamp:values:problems:hint:)``).
        case behind
    }

    /// Events waiting in the ingress from which a track call's values are packed at the call
    /// (``PackedTrackRun``) instead of waiting as the caller's dictionaries: a burst that outruns
    /// the executor then holds about 120 bytes a call instead of about 750. Below it, calls stay
    /// as cheap as they can be; the memory they hold is bounded by it (under a megabyte).
    static let compactionThreshold = 1_024

    /// Seconds between two reports of refused events.
    static let overflowReportInterval = 10.0

    let timeline = Timeline()
    private let maxPendingEvents: Int
    /// Seconds a drain waits for more events after running some (``ExecutorActivity/pause``).
    private let pause: Double
    private let label: String
    /// The serial queue drains run on, made by the first start (``startDrain()``).
    private var queue: DispatchQueue?
    let ingress: Locked<Ingress>
    /// Ends a pause early (``ExecutorActivity/Wake/endPause``); signalled once per pause at most.
    /// Made by the first start: only a drain pauses.
    private var pauseEnd: DispatchSemaphore?

    /// The buffer the ingress gets when the executor takes its commands: the last batch's,
    /// emptied, or — while callers outrun the executor — a larger one whose pages the executor
    /// has touched, so the page faults of a growing backlog land on the executor, not on the
    /// caller (``prepareSpare(after:)``). Both buffers are freed when the executor goes idle.
    /// Only touched on `queue`.
    private var spare: [Command] = []
    /// The most commands ``spare`` is prepared for or kept with (3 MB; the default
    /// `maxPendingEvents`, 50,000, fits): a larger batch's buffer is freed.
    static let spareCapacity = 65_536

    /// The executor the calling thread is draining, if any, for ``isCurrent``: set for the
    /// length of each drain. A thread-specific value rather than the queue's own specific
    /// value, whose generic key the Swift runtime would have to make while `initialize` waits.
    private static let draining: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// An executor; a `held` one keeps commands in order and runs none until ``release()``.
    /// `pause` is for tests, which lengthen it to show what ends a pause early.
    init(label: String, held: Bool = false, maxPendingEvents: Int = Defaults.maxPendingEvents, pause: Double = ExecutorActivity.pause) {
        self.maxPendingEvents = max(1, maxPendingEvents)
        self.pause = pause
        self.label = label
        ingress = Locked(Ingress(held: held))
    }

    /// Starts running the commands kept while held; does nothing when not held.
    func release() {
        let start = ingress.withLock { state in
            state.activity.released(hasWork: !state.pending.isEmpty || !state.prompt.isEmpty)
        }
        if start { startDrain() }
    }

    /// Runs a drain on the executor's queue. The first start makes the queue on a thread of its
    /// own (``FirstStart``), so that the thread creating a client never waits for libdispatch to
    /// make a queue and its first worker thread.
    private func startDrain() {
        if let queue { return queue.async { self.drain() } }
        FirstStart.run { [self] in
            let queue = DispatchQueue(label: label, qos: .utility)
            let pauseEnd = DispatchSemaphore(value: 0)
            // Under the ingress's lock, for ``capacitiesAfterDrain``, which no start orders.
            ingress.withLock { _ in
                self.queue = queue
                self.pauseEnd = pauseEnd
            }
            queue.async { self.drain() }
        }
    }

    /// Whether the caller is running on this executor.
    var isCurrent: Bool { pthread_getspecific(Self.draining) == Unmanaged.passUnretained(self).toOpaque() }

    /// Stops a debug build when the caller is not on this executor; does nothing in release
    /// builds, where a misplaced call must not take the host down.
    func assertOnQueue() {
        assert(isCurrent, "not on the client's executor")
    }

    /// Appends a command and wakes the executor if it was idle; an event is refused when the
    /// ingress already holds `maxPendingEvents` of them. With `compacting` — which the caller
    /// passes only for a track call with values — a ``Command/track(_:)`` is handed back
    /// (``Admission/behind``) when ``compactionThreshold`` events wait. `hint` is what the
    /// caller read of ``seemsBehind`` for this call, if it read it: the thread's hint is
    /// rewritten when the ingress found otherwise.
    @discardableResult
    func submit(_ command: Command, compacting: Bool = false, hint: Bool? = nil) -> Admission {
        guard !ForkGuard.isChild else { return .forked }
        let isEvent = command.isEvent
        let compactable = compacting && command.isTrackCall
        let (wake, admission, behind, successor) = ingress.withLock { state -> (ExecutorActivity.Wake, Admission, Bool, PipelineExecutor?) in
            if let successor = state.successor { return (.none, .accepted, false, successor) }
            let behind = state.pendingEvents >= Self.compactionThreshold
            if isEvent {
                if let refusal = refusal(of: &state) { return (.none, refusal, behind, nil) }
                if compactable, behind { return (.none, .behind, behind, nil) }
                state.pendingEvents += 1
            }
            state.pending.append(command)
            return (state.activity.submitted(urgent: !isEvent), .accepted, behind, nil)
        }
        if let successor { return successor.submit(command, compacting: compacting, hint: hint) }
        perform(wake)
        if let hint, hint != behind { BacklogHint.note(behind: behind, ObjectIdentifier(self)) }
        return admission
    }

    /// Appends a track call made without options with its values packed: into the ingress's
    /// last command when that is a ``PackedTrackRun`` of the same reporter, else into a new run
    /// appended after it, so the calls keep their order with every other command. Refused as
    /// ``submit(_:compacting:hint:)`` refuses an event; `hint` as there. `nil`, with nothing
    /// submitted, when one of `values` is of a kind ``PackedValues`` does not pack.
    func submitPacked(name: String, timestamp: Date, values: [String: Any], problems: InputProblemReporter, hint: Bool?) -> Admission? {
        guard !ForkGuard.isChild else { return .forked }
        if let successor = ingress.withLock({ $0.successor }) {
            return successor.submitPacked(name: name, timestamp: timestamp, values: values, problems: problems, hint: hint)
        }
        // The hand-over may happen between the look above and this lock: looked at again here,
        // under the lock the hand-over takes, so no call is appended to an executor that has
        // handed over (and will never run again).
        let taken = PackedValues.withPacked(values) { packed in
            ingress.withLock { state -> (ExecutorActivity.Wake, Admission, Bool, PipelineExecutor?) in
                if let successor = state.successor { return (.none, .accepted, false, successor) }
                let behind = state.pendingEvents >= Self.compactionThreshold
                if let refusal = refusal(of: &state) { return (.none, refusal, behind, nil) }
                state.pendingEvents += 1
                state.packed += 1
                if case .packedTracks(let run) = state.pending.last, run.problems === problems {
                    run.append(name: name, timestamp: timestamp, values: packed, pool: &state.chunkPool)
                } else {
                    let run = PackedTrackRun(problems: problems)
                    run.append(name: name, timestamp: timestamp, values: packed, pool: &state.chunkPool)
                    state.pending.append(.packedTracks(run))
                }
                return (state.activity.submitted(urgent: false), .accepted, behind, nil)
            }
        }
        guard let (wake, admission, behind, successor) = taken else { return nil }
        if let successor { return successor.submitPacked(name: name, timestamp: timestamp, values: values, problems: problems, hint: hint) }
        perform(wake)
        if let hint, hint != behind { BacklogHint.note(behind: behind, ObjectIdentifier(self)) }
        return admission
    }

    /// Why an event is refused now, counting an overflow; `nil` when it may be taken.
    private func refusal(of state: inout Ingress) -> Admission? {
        guard !state.refusingEvents else { return .refused }
        guard state.pendingEvents < maxPendingEvents else {
            state.overflowed += 1
            let uptime = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            return .overflowed(report: state.overflowReports.add(1, at: uptime))
        }
        return nil
    }

    /// Whether this thread's last event found the ingress behind (``BacklogHint``): a track
    /// call then packs its values before it submits.
    var seemsBehind: Bool { BacklogHint.isBehind(ObjectIdentifier(self)) }

    /// Refuses every event submitted from now on. The client's lifecycle check rides on the
    /// ingress lock this way, instead of taking a lock of its own on every call.
    func refuseEvents() {
        ingress.withLock { $0.refusingEvents = true }
    }

    /// Appends work that runs ahead of the commands still waiting — at the latest after the
    /// next ``promptInterval`` of them — for work whose order with the calls does not matter:
    /// a transport's answer, a timer. Under a backlog of incoming events, an upload's answer
    /// then waits for a few dozen events, not for thousands.
    func submitPromptly(_ work: @escaping @Sendable (Timeline) -> Void) {
        guard !ForkGuard.isChild else { return }
        let (wake, successor) = ingress.withLock { state -> (ExecutorActivity.Wake, PipelineExecutor?) in
            if let successor = state.successor { return (.none, successor) }
            state.prompt.append(work)
            return (state.activity.submitted(urgent: true), nil)
        }
        if let successor { return successor.submitPromptly(work) }
        perform(wake)
    }

    func perform(_ wake: ExecutorActivity.Wake) {
        switch wake {
        case .start: startDrain()
        case .endPause: pauseEnd?.signal()
        case .none: break
        }
    }

    /// The capacity of the ingress's buffer, in commands (for tests).
    var ingressCapacity: Int { ingress.withLock { $0.pending.capacity } }

    /// The capacities of the ingress's buffer and of ``spare`` once the current drain has
    /// ended, in commands (for tests): at once when no drain has begun (its first start may
    /// still be making the queue). Not to be called on the executor.
    var capacitiesAfterDrain: (ingress: Int, spare: Int) {
        let spare = ingress.withLock { _ in queue }?.sync { self.spare.capacity } ?? 0
        return (ingressCapacity, spare)
    }

    /// Commands run between two looks at the prompt work.
    static let promptInterval = 64

    /// What the drain does next.
    private enum Step {
        /// Run the commands taken into ``spare``.
        case run
        /// The ingress is empty after events: wait for more (``ExecutorActivity/pause``).
        case pause
        /// The ingress is empty: the executor is idle.
        case stop
    }

    private func drain() {
        let outer = pthread_getspecific(Self.draining)
        pthread_setspecific(Self.draining, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.draining, outer) }
        /// Whether events ran since the drain started or last paused: a stream may go on.
        var ranEvents = false
        while true {
            runPromptWork()
            let step = ingress.withLock { state -> Step in
                guard !state.pending.isEmpty || !state.prompt.isEmpty else {
                    guard state.activity.foundEmpty(afterEvents: ranEvents) else {
                        // Idle: both buffers and the packed calls' chunks go back to the
                        // allocator (this buffer is empty).
                        state.pending = []
                        state.chunkPool.empty()
                        return .stop
                    }
                    return .pause
                }
                ranEvents = ranEvents || state.pendingEvents > 0
                state.pendingEvents = 0
                swap(&state.pending, &spare)
                return .run
            }
            switch step {
            case .stop:
                spare = []
                return
            case .pause:
                ranEvents = false
                waitOutPause()
            case .run:
                var batch = spare
                spare = []
                let taken = batch.count
                // Taken out of the batch one by one (from the end of the reversed batch: the
                // arrival order), so that each event is the only reference to its fields and
                // the plugins edit it in place.
                batch.reverse()
                var index = 0
                while let command = batch.popLast() {
                    if case .packedTracks(let run) = command {
                        run.forEachEvent(giveBack: { chunk in ingress.withLock { $0.chunkPool.giveBack(chunk) } }) { event in
                            runPromptWork(turn: &index)
                            timeline.process(consume event)
                        }
                        continue
                    }
                    runPromptWork(turn: &index)
                    switch consume command {
                    case .event(let prepared): timeline.process((consume prepared).resolved())
                    case .track(let call): timeline.process((consume call).resolved())
                    case .packedTracks: break  // run above, call by call
                    case .operation(let work): work(timeline)
                    }
                }
                spare = batch
                prepareSpare(after: taken)
            }
        }
    }

    /// Makes ``spare`` — the emptied batch — ready for the ingress while callers outrun the
    /// executor: room for what they are expected to add during the next batch (see
    /// ``spareWanted(taken:arrived:limit:)``), in memory already touched — otherwise a burst's
    /// growing backlog is fresh memory the caller faults in, one call in 85 (a 4 KB page of
    /// 48-byte slots). When nothing arrived during the batch, the stream may be over and
    /// nothing is prepared.
    private func prepareSpare(after taken: Int) {
        let arrived = ingress.withLock { $0.pending.count }
        let wanted = Self.spareWanted(taken: taken, arrived: arrived, limit: maxPendingEvents)
        guard wanted > spare.capacity || spare.capacity > Self.spareCapacity else { return }
        spare = Self.touchedBuffer(capacity: wanted)
    }

    /// Commands the ingress should have room for during the next batch, after a batch of
    /// `taken` during which `arrived` came in: twice the arrivals, scaled by how much faster
    /// they came than the executor ran (a burst grows by that ratio each batch); at most
    /// ``spareCapacity`` and `limit` (the events the ingress may hold), and nothing when none
    /// arrived.
    static func spareWanted(taken: Int, arrived: Int, limit: Int) -> Int {
        guard taken > 0, arrived > 0 else { return 0 }
        let cap = min(spareCapacity, limit)
        guard arrived <= cap else { return cap }
        return min(2 * arrived * max(1, arrived / taken), cap)
    }

    /// An empty buffer with room for `capacity` commands, every page of it written once.
    private static func touchedBuffer(capacity: Int) -> [Command] {
        [Command](unsafeUninitializedCapacity: capacity) { buffer, count in
            if let base = buffer.baseAddress { memset(base, 0, buffer.count * MemoryLayout<Command>.stride) }
            count = 0
        }
    }

    /// Waits up to ``ExecutorActivity/pause`` on the executor's thread; an operation or prompt
    /// work submitted meanwhile ends the wait.
    private func waitOutPause() {
        guard let pauseEnd, pauseEnd.wait(timeout: .now() + pause) == .timedOut else { return }
        // A submission that ended the pause as it timed out signals (or is about to): take that
        // signal, so that it does not end the next pause.
        if ingress.withLock({ $0.activity.pauseTimedOut() }) { pauseEnd.wait() }
    }

    /// Counts one more command (or packed call) of a batch, and runs the prompt work every
    /// ``promptInterval`` of them.
    private func runPromptWork(turn index: inout Int) {
        if index % Self.promptInterval == Self.promptInterval - 1 { runPromptWork() }
        index += 1
    }

    /// Runs the prompt work waiting, and adds to the chunks for packed calls what the callers
    /// are expected to pack before the next look (``PackedChunkPool``): the executor takes the
    /// page faults of a growing run, not the caller holding the ingress's lock.
    private func runPromptWork() {
        let (prompt, chunks) = ingress.withLock { state -> ([@Sendable (Timeline) -> Void], Int) in
            let chunks = state.chunkPool.wanted()
            guard !state.prompt.isEmpty else { return ([], chunks) }
            defer { state.prompt = [] }
            return (state.prompt, chunks)
        }
        if chunks > 0 {
            let touched = (0..<chunks).map { _ in PackedChunkPool.touchedChunk() }
            ingress.withLock { $0.chunkPool.add(touched) }
        }
        for work in prompt { work(timeline) }
    }
}
