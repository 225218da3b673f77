import Foundation
import Hummingbird
import NIOCore

/// How the inspector takes a request body in under its ``InspectorLimits``: the bytes are
/// reserved from the shared ``ByteBudget`` before they are held — all of `Content-Length` before
/// the first byte is read, a chunked body chunk by chunk — and a gzip body's inflated bytes too.
/// A body over a limit is refused with a one-line reason, answered `413`.
struct InspectorIntake: Sendable {
    let limits: InspectorLimits
    let budget: ByteBudget

    init(limits: InspectorLimits) {
        self.limits = limits
        budget = ByteBudget(limit: limits.bytesInFlight)
    }

    /// The bytes one request has reserved; the request releases them when it is done.
    final class Reservation {
        private let budget: ByteBudget
        private(set) var bytes = 0
        /// Whether the budget (not a per-request limit) refused the last reservation.
        private(set) var budgetRefused = false

        init(budget: ByteBudget) { self.budget = budget }

        /// Reserves `count` more bytes, or returns `false`.
        func take(_ count: Int) -> Bool {
            guard budget.reserve(count) else {
                budgetRefused = true
                return false
            }
            bytes += count
            return true
        }

        /// Gives everything back.
        func release() {
            budget.release(bytes)
            bytes = 0
        }
    }

    /// Why the budget refused `bytes` more.
    private func busy(_ bytes: Int) -> String {
        if bytes > budget.limit { return "\(bytes) bytes are over the inspector's \(budget.limit)-byte budget for bytes in flight" }
        return "the inspector is holding \(budget.reserved) bytes of other requests and \(bytes) more would pass its \(budget.limit)-byte budget; retry later"
    }

    /// `request`'s body, reserved into `reservation`, or why it is refused.
    func read(_ request: inout Request, into reservation: Reservation) async throws -> Result<Data, Refusal> {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared {
            guard declared <= limits.requestBytes else { return .failure(.init(reason: "a body of \(declared) bytes is over the \(limits.requestBytes)-byte limit for one request")) }
            guard reservation.take(declared) else { return .failure(.init(reason: busy(declared))) }
        }
        var body = Data()
        body.reserveCapacity(declared ?? 0)
        for try await chunk in request.body {
            guard body.count + chunk.readableBytes <= limits.requestBytes else {
                return .failure(.init(reason: "the body is over the \(limits.requestBytes)-byte limit for one request"))
            }
            if declared == nil, !reservation.take(chunk.readableBytes) { return .failure(.init(reason: busy(chunk.readableBytes))) }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return .success(body)
    }

    /// `wire` inflated, its bytes reserved into `reservation`, or why not.
    func inflate(_ wire: Data, into reservation: Reservation) -> Result<Data, Refusal> {
        switch Gunzip.inflate(wire, limit: limits.inflatedBytes, reserve: reservation.take) {
        case .success(let body): return .success(body)
        case .failure(.notGzip): return .failure(.init(reason: "Content-Encoding: gzip, but the body is not gzip", status: .badRequest))
        case .failure(.tooLarge) where reservation.budgetRefused:
            return .failure(.init(reason: "Content-Encoding: gzip, and the body is too large when inflated: \(busy(64 * 1024))"))
        case .failure(.tooLarge):
            return .failure(.init(reason: "Content-Encoding: gzip, and the body is too large when inflated (over the \(limits.inflatedBytes)-byte limit)"))
        }
    }

    /// A request turned away: its status (`413` unless said) and a one-line reason.
    /// Whether a body with this `Content-Encoding` is gzip (`true`) or as sent (`false`, for
    /// none or `identity`); any other coding, stacked ones (`gzip, gzip`) included, is refused
    /// with 415, since the SDK sends nothing else and the inspector inflates at most once.
    static func contentCoding(_ header: String?) -> Result<Bool, Refusal> {
        let codings = (header ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
        switch codings {
        case []: return .success(false)
        case ["gzip"]: return .success(true)
        default:
            return .failure(Refusal(
                reason: "Content-Encoding \(header ?? "") is not supported: gzip once, or none", status: .unsupportedMediaType))
        }
    }

    struct Refusal: Error {
        let reason: String
        var status: HTTPResponse.Status = .contentTooLarge

        /// The answer: the status and the reason as plain text.
        var response: Response {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: reason + "\n")))
        }
    }
}
