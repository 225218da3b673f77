import Foundation
import MetaRouterCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` behind ``NetworkSignals``, first in the `protocolClasses` of the
/// configurations passed to ``NetworkSignals/watch(_:)``. It sends each watched request on through a session of its own (without
/// itself), hands the answer back unchanged, and emits a signal for the request and one for the
/// response. Requests to hosts no instance watches are left to the other protocols.
package final class NetworkSignalsProtocol: URLProtocol {
    private static let handledKey = "io.metarouter.signals.handled"
    private static let session = URLSession(configuration: .ephemeral)
    private static let handoff = DispatchQueue(label: "io.metarouter.signals.network", qos: .utility)

    /// Carries the protocol into the inner task's completion.
    private struct Loading: @unchecked Sendable {  // one loading per protocol instance; after startLoading only the completion, on the hand-off queue, touches it
        let owner: NetworkSignalsProtocol

        /// Emits the response signal and hands the answer to the loading system unchanged.
        func finish(url: URL, data: Data?, response: URLResponse?, error: (any Error)?) {
            if let error {
                owner.client?.urlProtocol(owner, didFailWithError: error)
                return
            }
            let http = response as? HTTPURLResponse
            NetworkSignals.emit(url: url, statusCode: http?.statusCode ?? 0, body: data, contentType: http?.value(forHTTPHeaderField: "Content-Type"))
            if let response { owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed) }
            if let data { owner.client?.urlProtocol(owner, didLoad: data) }
            owner.client?.urlProtocolDidFinishLoading(owner)
        }
    }

    /// Watched hosts only, and never a request this protocol already sent on.
    package override class func canInit(with request: URLRequest) -> Bool {
        guard URLProtocol.property(forKey: handledKey, in: request) == nil else { return false }
        return NetworkSignals.isWatched(request.url)
    }

    /// The request as given.
    package override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Emits the request signal and sends the request on.
    package override func startLoading() {
        guard let url = request.url, let marked = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        URLProtocol.setProperty(true, forKey: Self.handledKey, in: marked)
        NetworkSignals.emit(url: url, statusCode: nil, body: nil, contentType: nil)
        let loading = Loading(owner: self)
        let forwarded = Forwarded(request: marked as URLRequest)
        // Off the loading system's queue, both ways: on Linux every session's work queue
        // targets one serial queue, and starting a task (or answering the client) from it
        // traps in dispatch_sync.
        Self.handoff.async {
            let task = Self.session.dataTask(with: forwarded.request) { data, response, error in
                Self.handoff.async { loading.finish(url: url, data: data, response: response, error: error) }
            }
            task.resume()
        }
    }

    /// The request on its way to the inner session.
    private struct Forwarded: @unchecked Sendable {  // a value copied once, read on the hand-off queue only
        let request: URLRequest
    }

    /// Nothing to stop: the inner request runs to its end (cancelling one mid-request crashes
    /// FoundationNetworking on Linux) and its answer is dropped with this protocol.
    package override func stopLoading() {}
}
