import Foundation

/// Polls `condition` until it holds, for at most 60 s (only a failing test waits that long): a
/// test waits for what it needs to see, never for a length of time.
func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    // A last look: the process may have been starved past the deadline (a busy machine), with
    // the condition come true meanwhile.
    return await condition()
}
