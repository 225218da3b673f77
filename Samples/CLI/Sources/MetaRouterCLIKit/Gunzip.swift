import CZlib
import Foundation

/// Gzip decompression for request bodies (`Content-Encoding: gzip`), with the system's zlib,
/// inflating no further than a cap: a gzip bomb stops there.
public enum Gunzip {
    /// Why a body did not inflate.
    public enum Failure: Error, Equatable, Sendable {
        /// Not a whole gzip stream.
        case notGzip
        /// It inflates past the cap (or past what the caller could hold).
        case tooLarge
    }

    /// `bytes` decompressed, or `nil` when they are not a whole gzip stream or would exceed
    /// `limit` bytes.
    public static func decompress(_ bytes: [UInt8], limit: Int = 50_000_000) -> [UInt8]? {
        (try? inflate(Data(bytes), limit: limit).get()).map { [UInt8]($0) }
    }

    /// `bytes` inflated, stopping with `.tooLarge` once the output would pass `limit` bytes or
    /// `reserve` refuses the next chunk (it is asked for every chunk's bytes before they are kept;
    /// what it granted is the caller's to release, whatever the outcome).
    public static func inflate(_ bytes: Data, limit: Int, reserve: (Int) -> Bool = { _ in true }) -> Result<Data, Failure> {
        guard !bytes.isEmpty else { return .failure(.notGzip) }
        var stream = z_stream()
        // 16 + 15: a gzip header and trailer around a window of 2^15.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return .failure(.notGzip) }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeMutableBytes { raw -> Result<Data, Failure> in
            let source = raw.bindMemory(to: UInt8.self)
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { return .failure(.notGzip) }
                if produced > 0 {
                    guard output.count + produced <= limit, reserve(produced) else { return .failure(.tooLarge) }
                    output.append(contentsOf: chunk[0..<produced])
                }
                switch status {
                case Z_STREAM_END: return .success(output)
                case Z_OK where produced > 0 || stream.avail_in > 0: continue
                default: return .failure(.notGzip)
                }
            }
        }
    }
}
