import Foundation
import MetaRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What an instance costs while it has nothing to do: with default options it tracks 10 events,
// delivers them, then sits idle. After a settling pause the process's context switches (every
// thread's, those that ended included) and CPU time are counted over a window in which only
// the SDK could wake it: the main thread sleeps through it in one call.
// With `baseline` for the host, no SDK: one block on a global queue and one on a serial queue,
// then the same idle window — what libdispatch itself costs an idle process here.
// With `second` after the settle time, the instance also has a `DurableDestination` of its own
// (a format posting the events to the same host): what a second destination adds while idle.
// Usage: IdleProbe <ingestionHost | baseline> <storageDirectory> [windowSeconds] [settleSeconds] [second]
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: IdleProbe <ingestionHost | baseline> <storageDirectory> [windowSeconds] [settleSeconds]\n".utf8))
    exit(2)
}
let window = arguments.count > 3 ? UInt32(arguments[3]) ?? 60 : 60
let settle = arguments.count > 4 ? UInt32(arguments[4]) ?? 15 : 15

var delivered = 0
if arguments[1] == "baseline" {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async { DispatchQueue(label: "idle-probe").async { done.signal() } }
    done.wait()
} else {
    var options = InitOptions(writeKey: "idle-probe", ingestionHost: arguments[1])
    options.storageDirectory = URL(fileURLWithPath: arguments[2])
    if arguments.count > 5, arguments[5] == "second", let url = URL(string: arguments[1] + "/second/batch") {
        options.plugins = { [DurableDestination(key: "Second", format: PostingFormat(url: url))] }
    }
    let analytics = MetaRouter.Analytics.initialize(with: options)
    for index in 0..<10 { analytics.track("Idle Probe", properties: ["n": index]) }
    await analytics.flushAndWait()
    let info = await analytics.getDebugInfo()
    delivered = info.stats.sent + (info.destinations["Second"]?.sent ?? 0)
}

/// The events as a JSON array, posted to one URL.
struct PostingFormat: DeliveryFormat {
    let url: URL

    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        DeliveryRequest(url: url, headers: ["Content-Type": "application/json"], body: Data(JSON.array(batch.events).description.utf8))
    }

    func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        (200..<300).contains(response.status) ? .delivered : .retry(after: nil)
    }
}

func usage() -> (switches: Int, cpu: Double) {
    var record = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &record)
    #else
    getrusage(RUSAGE_SELF, &record)
    #endif
    let cpu = Double(record.ru_utime.tv_sec + record.ru_stime.tv_sec) + Double(record.ru_utime.tv_usec + record.ru_stime.tv_usec) / 1e6
    return (Int(record.ru_nvcsw + record.ru_nivcsw), cpu)
}

sleep(settle)
let start = usage()
sleep(window)
let end = usage()
let perMinute = Double(end.switches - start.switches - 1) * 60 / Double(window)  // less the main thread's own sleep
print(String(format: "delivered %d; idle %ds: %.1f context switches per minute, %.2f ms CPU per minute",
             delivered, window, perMinute, (end.cpu - start.cpu) * 1000 * 60 / Double(window)))
