#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backtrace(3)`: resolved once at install (Glibc does not export it to Swift).
typealias BacktraceFunction = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32

/// An executable mapping as the handler reads it: addresses, file offset, inode, and where
/// its path sits in the shared path bytes.
struct ImageSlot {
    var start: UInt
    var end: UInt
    var fileOffset: UInt64
    var inode: UInt64
    var pathOffset: Int
    var pathLength: Int
}

/// One instance that asked for crash capture: the file its record goes to (opened in
/// advance), the record's identifier, and its breadcrumb slots.
struct CrashRegistration {
    var active = false
    var fd: Int32 = -1
    var recordId: (UInt64, UInt64) = (0, 0)
    var slots: UnsafeMutableRawPointer?
    var slotCount = 0
    var slotSize = 0
}

/// Everything the signal handler reads, prepared before the handlers are installed: pointers
/// and integers only, so reading it allocates nothing, retains nothing and takes no lock that
/// normal code could be holding (the two mutexes are only ever try-locked by the handler).
struct CrashHandlerState {
    static let maxRegistrations = 16
    static let rawFrameCapacity = CrashRecordLayout.maxFrames + 16
    static let caughtSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    var installed = false
    /// Header and frames of the record being written.
    let scratch: UnsafeMutableRawPointer
    let rawFrames: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    var backtrace: BacktraceFunction?
    var images: UnsafeMutablePointer<ImageSlot>?
    var imageCount = 0
    var imagePaths: UnsafeMutablePointer<UInt8>?
    let registrations: UnsafeMutablePointer<CrashRegistration>
    let signals: UnsafeMutablePointer<Int32>
    let signalCount: Int
    /// The actions in place before ours, one per caught signal, restored before re-raising.
    let previous: UnsafeMutablePointer<sigaction>
    /// Held by normal code while it changes the images or the registrations.
    let registryLock: UnsafeMutablePointer<pthread_mutex_t>
    /// Taken by the first crashing thread; another one waits for it, then only chains.
    let handlingLock: UnsafeMutablePointer<pthread_mutex_t>
    /// Set (to 1) by the first crashing thread once its record is written.
    let handlingDone: UnsafeMutablePointer<Int32>

    static func make() -> UnsafeMutablePointer<CrashHandlerState> {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: CrashRecordLayout.crashPartSize, alignment: 16)
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: CrashRecordLayout.crashPartSize)
        let rawFrames = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: rawFrameCapacity)
        rawFrames.initialize(repeating: nil, count: rawFrameCapacity)
        let registrations = UnsafeMutablePointer<CrashRegistration>.allocate(capacity: maxRegistrations)
        registrations.initialize(repeating: CrashRegistration(), count: maxRegistrations)
        let signals = UnsafeMutablePointer<Int32>.allocate(capacity: caughtSignals.count)
        signals.initialize(from: caughtSignals, count: caughtSignals.count)
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: caughtSignals.count)
        previous.initialize(repeating: sigaction(), count: caughtSignals.count)
        let registryLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let handlingLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(registryLock, nil)
        pthread_mutex_init(handlingLock, nil)
        let handlingDone = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        handlingDone.initialize(to: 0)
        let state = UnsafeMutablePointer<CrashHandlerState>.allocate(capacity: 1)
        state.initialize(to: CrashHandlerState(
            scratch: scratch, rawFrames: rawFrames, registrations: registrations, signals: signals,
            signalCount: caughtSignals.count, previous: previous, registryLock: registryLock, handlingLock: handlingLock,
            handlingDone: handlingDone))
        return state
    }
}
