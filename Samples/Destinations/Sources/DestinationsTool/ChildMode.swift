import Destinations
import Foundation
import MetaRouter

/// `destinations-tool child <vendor> <storage> <built-in host> <vendor host> <from> <to>`: an
/// app the fault tests kill with SIGKILL. It opens an instance on `<storage>` with the built-in
/// destination posting to `<built-in host>` and the vendor's (`amplitude`, `mixpanel`,
/// `posthog`) to `<vendor host>`, tracks `Step` events numbered `<from>..<to>`, waits until
/// both destinations hold them in their logs, prints `durable <to>` and keeps delivering until
/// it is killed.
func runChild(_ arguments: [String]) async {
    guard arguments.count == 6, let builtIn = URL(string: arguments[2]), let host = URL(string: arguments[3]),
        let from = Int(arguments[4]), let to = Int(arguments[5]), let format = childFormat(arguments[0], host: host)
    else {
        FileHandle.standardError.write(Data("usage: destinations-tool child <vendor> <storage> <built-in host> <vendor host> <from> <to>\n".utf8))
        exit(64)
    }
    let key = arguments[0].capitalized
    var options = InitOptions(writeKey: "child-\(arguments[0])", ingestionHost: builtIn.absoluteString, flushIntervalSeconds: 1)
    options.storageDirectory = URL(fileURLWithPath: arguments[1], isDirectory: true)
    let engine: DurableDestinationOptions = {
        var engine = DurableDestinationOptions()
        engine.maxBatchEvents = 4
        engine.flushIntervalSeconds = 1
        return engine
    }()
    options.plugins = { [DurableDestination(key: key, format: format, options: engine)] }
    let analytics = Analytics.instance(for: options)
    let before = await analytics.getDebugInfo()
    for n in from..<to { analytics.track("Step", properties: ["n": n]) }
    let count = to - from
    while true {
        let info = await analytics.getDebugInfo()
        if info.stats.enqueued - before.stats.enqueued >= count,
            (info.destinations[key]?.enqueued ?? 0) - (before.destinations[key]?.enqueued ?? 0) >= count
        {
            break
        }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    // The logs commit on the executor's next turn after an append: one more turn, and they are
    // written (a kill loses nothing from here; a power cut is the sync timer's business).
    await analytics.performAndWait { _ in }
    FileHandle.standardOutput.write(Data("durable \(to)\n".utf8))
    while true { try? await Task.sleep(nanoseconds: 1_000_000_000) }
}

private func childFormat(_ vendor: String, host: URL) -> (any DeliveryFormat)? {
    switch vendor {
    case "amplitude": return AmplitudeFormat(apiKey: "KEY", endpoint: host.appendingPathComponent("2/httpapi"))
    case "mixpanel": return MixpanelFormat(token: "TOKEN", host: host)
    case "posthog": return PostHogFormat(apiKey: "phc_KEY", host: host)
    default: return nil
    }
}
