import Foundation
import MetaRouter

// The full-disk mode of the child process:
//
//   MetaRouterCrashChild filelimit <directory> <host> <limit bytes>
//       a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) stands in for a full disk: the write
//       that crosses it is cut short and the next fails, as with ENOSPC. Appends events to a
//       disk log in groups of ten, committing after each, until three commits have found the
//       log faulted; lifts the limit; closes (which restores the log). Prints "appended <count>", "failed <count>",
//       and "size <bytes>" (the segment's size while the limit held).

/// Numbered events of about 200 bytes.
func fileLimitEvent(_ index: Int) -> QueuedEvent {
    QueuedEvent(
        messageId: "m-\(index)", timestamp: Date(timeIntervalSince1970: 1_800_000_000),
        payload: Array(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: 180))"}"#.utf8))
}

func runFileLimitMode(directory: String, limit: Int) {
    #if os(Linux)
    signal(SIGXFSZ, SIG_IGN)
    var original = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &original)
    var limited = original
    limited.rlim_cur = rlim_t(limit)
    setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limited)
    #endif
    let logs = Locked<[String]>([])
    struct Recording: LogSink {
        let logs: Locked<[String]>
        func log(level: LogLevel, message: String) { logs.withLock { $0.append(message) } }
    }
    var options = DiskLogOptions(directory: URL(fileURLWithPath: directory))
    options.segmentBytes = 64 * 1024 * 1024
    guard let store = try? DiskEventStore(options: options, logger: AnalyticsLogger(sink: Recording(logs: logs))) else {
        say("cannot open the log")
        exit(1)
    }
    var appended = 0
    var failures = 0
    var sizeWhileLimited = 0
    while failures < 3, appended < 100_000 {
        for _ in 0..<10 {
            _ = store.append(fileLimitEvent(appended))
            appended += 1
        }
        store.commit()
        if !store.isWritable { failures += 1 }
    }
    let segments = (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("segment-") }) ?? []
    for name in segments {
        let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0
        sizeWhileLimited = max(sizeWhileLimited, size)
    }
    #if os(Linux)
    setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &original)
    #endif
    store.close()
    say("appended \(appended)")
    say("failed \(failures)")
    say("size \(sizeWhileLimited)")
}
