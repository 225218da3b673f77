import Foundation

/// What the calling thread last saw of an executor's ingress: whether its last event found the
/// executor behind (``PipelineExecutor/compactionThreshold`` events waiting). A thread-local
/// value, so it is read without a lock and without sharing memory with other threads; a call
/// uses it to pack its values at once (``PackedValues``) rather than be handed back by the
/// ingress and take its lock twice. It is only a hint: a stale one makes a call take the other,
/// equally correct, form.
enum BacklogHint {
    /// The key of the thread-local value (`nil` when the system had none to give: the hint is
    /// then never set, and every call goes by the ingress's answer).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// Whether this thread's last event into `executor` found it behind.
    static func isBehind(_ executor: ObjectIdentifier) -> Bool {
        guard let key, let value = pthread_getspecific(key) else { return false }
        return UInt(bitPattern: value) == UInt(bitPattern: executor)
    }

    /// Records what this thread's call into `executor` found: the executor's identity when
    /// behind, nothing otherwise.
    static func note(behind: Bool, _ executor: ObjectIdentifier) {
        guard let key else { return }
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: behind ? UInt(bitPattern: executor) : 0))
    }
}
