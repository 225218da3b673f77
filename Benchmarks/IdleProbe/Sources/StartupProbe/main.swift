import Foundation
import MetaRouter

// What `initialize(with:)` costs the thread that calls it, the first time in a process (what an
// app's launch pays), and what a later `instance(for:)` costs once the process has made one.
// Default options, the given host (nothing is sent on the caller's thread), a fresh storage
// directory. Prints both in microseconds, then how long the first event tracked after the
// call took to be delivered.
// Usage: StartupProbe <ingestionHost> <storageDirectory>
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: StartupProbe <ingestionHost> <storageDirectory>\n".utf8))
    exit(2)
}

func microseconds(since start: DispatchTime) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1000 }

var options = InitOptions(writeKey: "startup-probe", ingestionHost: arguments[1])
options.storageDirectory = URL(fileURLWithPath: arguments[2]).appendingPathComponent("first")
let first = DispatchTime.now()
let analytics = MetaRouter.Analytics.initialize(with: options)
let firstCall = microseconds(since: first)

var other = InitOptions(writeKey: "startup-probe-2", ingestionHost: arguments[1])
other.storageDirectory = URL(fileURLWithPath: arguments[2]).appendingPathComponent("second")
let second = DispatchTime.now()
let later = MetaRouter.Analytics.instance(for: other)
let laterCall = microseconds(since: second)

let tracked = DispatchTime.now()
analytics.track("Startup Probe")
await analytics.flushAndWait()
let delivered = await analytics.getDebugInfo().stats.sent
let firstEvent = microseconds(since: tracked)
_ = await later.shutdown(timeout: 1)
_ = await analytics.shutdown(timeout: 1)
print(String(format: "initialize %.0f us; a later instance %.0f us; first event delivered (%d) after %.0f us", firstCall, laterCall, delivered, firstEvent))
