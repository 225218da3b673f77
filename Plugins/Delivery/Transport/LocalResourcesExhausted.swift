import Foundation

/// A request could not start because this process ran out of something of its own — file
/// descriptors (`EMFILE`, `ENFILE`), threads — not because the host is unreachable. Delivery
/// retries it later without counting it against the host (the breaker stays as it is), and
/// says so in the log.
struct LocalResourcesExhausted: Error, CustomStringConvertible {
    /// What ran out, in the system's words ("Too many open files").
    let detail: String

    var description: String { "this process is out of resources (\(detail)); the host was not reached" }
}
