import Foundation
import MetaRouter

// The crash-capture modes of the child process:
//
//   MetaRouterCrashChild crash <directory> <host> <kind>
//       starts an instance with captureCrashes, leaves breadcrumbs ("before <kind>"), prints
//       "armed" and crashes: fatal, unwrap, overflow, recursion, nullwrite, twothreads (two
//       threads write through a null pointer at once), or hosthandler (a
//       SIGSEGV handler of the host's own, installed first, writes <directory>/host-handler
//       and exits 42 when called).
//   MetaRouterCrashChild report <directory> <host>
//       starts an instance with captureCrashes, delivers everything, prints "reported".
//   MetaRouterCrashChild off <directory> <host>
//       starts an instance without captureCrashes and prints whether SIGSEGV's action changed.

/// The host's own handler for the `hosthandler` kind: marks that it ran, then exits. The
/// marker's path is written once, before the handler is installed.
nonisolated(unsafe) private let hostHandlerMarker = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)

/// The flags the `twothreads` kind's threads spin on.
nonisolated(unsafe) private let crashTogether = UnsafeMutablePointer<Int>.allocate(capacity: 2)

private let hostHandler: @convention(c) (Int32) -> Void = { _ in
    let fd = open(hostHandlerMarker, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    if fd >= 0 { close(fd) }
    _exit(42)
}

func currentSegvAction() -> UInt {
    var action = sigaction()
    sigaction(SIGSEGV, nil, &action)
    return UInt(bitPattern: unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self))
}

@inline(never)
func recurse(_ depth: Int) -> Int {
    if depth < 0 { return 0 }
    var frame = [depth, depth &+ 1]
    frame[0] = recurse(depth + 1)
    return frame[0] &+ frame[1]
}

func crashInstance(directory: String, host: String, capture: Bool) -> MetaRouter.Analytics {
    var options = InitOptions(writeKey: "crash-capture-key", ingestionHost: host, flushIntervalSeconds: 1)
    options.storageDirectory = URL(fileURLWithPath: directory)
    options.keyValueStore = FileKeyValueStore(file: URL(fileURLWithPath: directory).appendingPathComponent("identity.json"))
    options.logSink = StandardErrorSink()
    options.requestTimeoutSeconds = 2
    options.captureCrashes = capture
    return MetaRouter.Analytics.instance(for: options)
}

/// Waits, blocking the calling thread, until the instance has run what was submitted before.
func settleBlocking(_ analytics: MetaRouter.Analytics) {
    let done = DispatchSemaphore(value: 0)
    analytics.engine.perform { _ in done.signal() }
    done.wait()
}

/// The crash and off modes run on the main thread, before the top-level code first awaits (on
/// Linux the main thread leaves once it does), as an app's code runs: crash capture gives
/// the thread that starts an instance an alternate signal stack, so its stack overflow can be
/// reported.
func runCrashMode(_ mode: String, arguments: [String]) {
    let directory = arguments[2]
    let host = arguments[3]
    switch mode {
    case "crash":
        // No core file from the crashes this child is made for, whatever the machine's limit.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
        let kind = arguments.count > 4 ? arguments[4] : "nullwrite"
        if kind == "hosthandler" {
            _ = (directory + "/host-handler").withCString { strncpy(hostHandlerMarker, $0, 4095) }
            signal(SIGSEGV, hostHandler)
        }
        let analytics = crashInstance(directory: directory, host: host, capture: true)
        analytics.addBreadcrumb(Breadcrumb(category: "test", message: "before \(kind)"))
        analytics.track("Before Crash")
        settleBlocking(analytics)
        say(Thread.isMainThread ? "armed" : "armed off the main thread")
        // Values the optimizer cannot see through, so each crash happens at run time.
        let opaque = arguments.count
        switch kind {
        case "fatal": fatalError("crash test \(opaque)")
        case "unwrap":
            let missing: Int? = opaque > 100 ? opaque : nil
            say("\(missing!)")
        case "overflow":
            let big = Int.max - 2 + opaque
            say("\(big)")
        case "recursion": say("\(recurse(opaque))")
        case "twothreads":
            // One thread spins until the other flips a flag; each then writes through a null
            // pointer: with both on a core, they fault within nanoseconds of each other.
            crashTogether.initialize(repeating: 0, count: 2)
            Thread.detachNewThread {
                crashTogether[1] = 1
                while crashTogether[0] == 0 { continue }
                UnsafeMutablePointer<Int>(bitPattern: 0x10 &* opaque)!.pointee = opaque
            }
            Thread.detachNewThread {
                while crashTogether[1] == 0 { continue }
                crashTogether[0] = 1
                UnsafeMutablePointer<Int>(bitPattern: 0x10 &* opaque)!.pointee = opaque
            }
            Thread.sleep(forTimeInterval: 10)
        default:
            UnsafeMutablePointer<Int>(bitPattern: 0x10 &* opaque)!.pointee = opaque
        }
        say("survived")
    default:
        let before = currentSegvAction()
        let analytics = crashInstance(directory: directory, host: host, capture: false)
        settleBlocking(analytics)
        say(currentSegvAction() == before ? "unchanged" : "changed")
    }
}

/// Starts an instance with crash capture, which reports what the last run left, and delivers it.
func reportCrashes(directory: String, host: String) async {
    let analytics = crashInstance(directory: directory, host: host, capture: true)
    let deadline = Date().addingTimeInterval(30)
    var info = await analytics.getDebugInfo()
    repeat {
        await analytics.flushAndWait()
        info = await analytics.getDebugInfo()
    } while info.queueLength > 0 && Date() < deadline
    await analytics.shutdown()
    say("reported \(info.stats.sent)")
}

