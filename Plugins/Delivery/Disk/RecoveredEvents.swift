import MetaRouterCore

extension DiskEventStore {
    /// The event records recovery finds, read segment by segment in the order they were
    /// written: a later record of the same sequence number (a rewrite's copy) replaces the
    /// earlier one, and a removal takes out the events found before it.
    ///
    /// Kept lean because a long outage leaves a large backlog to open: the records in one array,
    /// in the order found, and a dictionary from each sequence number still alive to its place
    /// there (16 bytes a slot) — not a dictionary of the records themselves, whose slots,
    /// doubled as it grows, held the backlog's index several times over.
    struct RecoveredEvents {
        /// One event record: its index entry and the device time it was stored at.
        struct Found {
            var entry: Entry
            var millis: Int64
        }

        private var found: [Found] = []
        /// Whether each record of `found` is still the one its sequence number names.
        private var alive: [Bool] = []
        private var places: [UInt64: Int] = [:]

        /// Events alive so far.
        var count: Int { places.count }

        /// Adds an event record; it replaces any found before with its sequence number.
        mutating func add(_ entry: Entry, millis: Int64) {
            if let earlier = places[entry.sequence] { alive[earlier] = false }
            places[entry.sequence] = found.count
            found.append(Found(entry: entry, millis: millis))
            alive.append(true)
        }

        /// Takes out the events of `range` found so far.
        mutating func remove(_ range: ClosedRange<UInt64>) {
            if range.count < places.count {
                for sequence in range {
                    if let place = places.removeValue(forKey: sequence) { alive[place] = false }
                }
            } else {
                for (sequence, place) in places where range.contains(sequence) { alive[place] = false }
                places = places.filter { !range.contains($0.key) }
            }
        }

        /// The events alive, in sequence order; the records are let go.
        mutating func ordered() -> [Found] {
            places = [:]
            var result: [Found] = []
            result.reserveCapacity(alive.reduce(0) { $1 ? $0 + 1 : $0 })
            for (record, isAlive) in zip(found, alive) where isAlive { result.append(record) }
            found = []
            alive = []
            // Written in sequence order, except where a rewrite copied older events later.
            if !zip(result, result.dropFirst()).allSatisfy({ $0.entry.sequence < $1.entry.sequence }) {
                result.sort { $0.entry.sequence < $1.entry.sequence }
            }
            return result
        }
    }
}
