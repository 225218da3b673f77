import Dispatch
import Foundation

/// `shared`'s kept calls moving to the instance bound to it (``AnalyticsClient``'s
/// `handOver(to:first:)`).
extension PipelineExecutor {
    /// Moves what this held executor kept into `successor`, behind what is there already and
    /// ahead of anything submitted to either from now on, and from then on sends every command
    /// submitted here to `successor`. `first(events)`, given the events kept, is run there
    /// before them. Done under this executor's lock, so a caller that submits here meanwhile
    /// lands either among the kept commands or behind them: each caller's order holds.
    func handOver(to successor: PipelineExecutor, first: (Int) -> Command?) {
        ingress.withLock { state in
            guard state.successor == nil else { return }
            var commands = state.pending
            let events = state.pendingEvents
            if let command = first(events) { commands.insert(command, at: 0) }
            successor.append(kept: commands, events: events, prompt: state.prompt)
            state.pending = []
            state.pendingEvents = 0
            state.prompt = []
            state.successor = successor
        }
    }

    /// Appends commands another executor kept, whatever the bound on events: they were
    /// counted against it where they were kept.
    func append(kept commands: [Command], events: Int, prompt: [@Sendable (Timeline) -> Void]) {
        guard !commands.isEmpty || !prompt.isEmpty else { return }
        let wake = ingress.withLock { state in
            state.pending.append(contentsOf: commands)
            state.pendingEvents += events
            state.prompt += prompt
            return state.activity.submitted(urgent: true)
        }
        perform(wake)
    }
}
