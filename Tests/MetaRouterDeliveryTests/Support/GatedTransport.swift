import Foundation
import MetaRouter

/// The default transport, whose answers are handed back only once the test opens the
/// gate: the upload stays "in flight" for as long as the test needs, however busy the machine.
final class GatedTransport: HTTPTransport, @unchecked Sendable {  // `held` and `open` are only touched under `lock`
    private let inner = HTTPTransports.standard(timeout: 15)
    private let lock = NSLock()
    private var held: [@Sendable () -> Void] = []
    private var open = false

    func send(_ request: TransportRequest, completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        inner.send(request) { [self] result in
            let deliver: @Sendable () -> Void = { completion(result) }
            let now = lock.withLock { () -> Bool in
                if !open { held.append(deliver) }
                return open
            }
            if now { deliver() }
        }
    }

    func release() {
        let waiting = lock.withLock { () -> [@Sendable () -> Void] in
            open = true
            defer { held = [] }
            return held
        }
        for deliver in waiting { deliver() }
    }
}
