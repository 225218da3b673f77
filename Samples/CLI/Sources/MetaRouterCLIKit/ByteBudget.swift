import NIOConcurrencyHelpers

/// A count of bytes held at once, shared by every connection of one server: a request reserves
/// before it holds (all of `Content-Length` up front, a chunked body chunk by chunk) and
/// releases when done. A reservation that would pass the budget is refused whole.
final class ByteBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let held = NIOLockedValueBox(0)

    init(limit: Int) { self.limit = limit }

    /// The bytes reserved now.
    var reserved: Int { held.withLockedValue { $0 } }

    /// Reserves `bytes`, or returns `false` (reserving nothing) when that would pass the limit.
    func reserve(_ bytes: Int) -> Bool {
        held.withLockedValue { held in
            guard bytes >= 0, bytes <= limit - held else { return false }
            held += bytes
            return true
        }
    }

    /// Gives back `bytes` reserved earlier.
    func release(_ bytes: Int) {
        held.withLockedValue { $0 -= bytes }
    }
}
