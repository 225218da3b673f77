import CZlib
import Foundation

/// Gzip decompression for request bodies (`Content-Encoding: gzip`), with the system's zlib.
public enum Gunzip {
    /// `bytes` decompressed, or `nil` when they are not a whole gzip stream or would exceed
    /// `limit` bytes.
    public static func decompress(_ bytes: [UInt8], limit: Int = 50_000_000) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        var stream = z_stream()
        // 16 + 15: a gzip header and trailer around a window of 2^15.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                switch status {
                case Z_STREAM_END: return output
                case Z_OK where produced > 0 || stream.avail_in > 0: continue
                default: return nil
                }
            }
        }
    }
}
