import PareCore
import CZlib

/// Routes zlib's own allocations (its inflate or deflate state and sliding window) through
/// a `MemoryLedger`, so that the ledger's figures include them. zlib calls `zalloc`/`zfree`
/// with `opaque` pointing at this object; each block carries its size in a 16-byte header
/// so that `zfree`, which is not told the size, can give the right count back.
final class ZlibMemory {
    let ledger: MemoryLedger
    /// The ledger's refusal, when zlib reports Z_MEM_ERROR because of it.
    var refusal: CoreError?

    static let headerSize = 16

    init(ledger: MemoryLedger) {
        self.ledger = ledger
    }

    func allocate(items: uInt, size: uInt) -> UnsafeMutableRawPointer? {
        let (bytes, overflow) = Int(items).multipliedReportingOverflow(by: Int(size))
        guard !overflow, bytes <= Int.max - Self.headerSize else { return nil }
        let total = bytes + Self.headerSize
        do {
            try ledger.reserve(bytes: total)
        } catch {
            refusal = error
            return nil
        }
        let block = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: Self.headerSize)
        block.storeBytes(of: total, as: Int.self)
        ledger.noteAllocated()
        return block + Self.headerSize
    }

    func free(_ pointer: UnsafeMutableRawPointer) {
        let block = pointer - Self.headerSize
        ledger.release(bytes: block.load(as: Int.self))
        block.deallocate()
    }

    /// A zeroed `z_stream` whose allocator is this object. The caller keeps `self` alive
    /// for as long as the stream.
    func makeStream() -> z_stream {
        var stream = z_stream()
        stream.zalloc = zlibAllocate
        stream.zfree = zlibFree
        stream.opaque = Unmanaged.passUnretained(self).toOpaque()
        return stream
    }
}

private func zlibAllocate(_ opaque: voidpf?, _ items: uInt, _ size: uInt) -> voidpf? {
    guard let opaque else { return nil }
    return Unmanaged<ZlibMemory>.fromOpaque(opaque).takeUnretainedValue().allocate(items: items, size: size)
}

private func zlibFree(_ opaque: voidpf?, _ pointer: voidpf?) {
    guard let opaque, let pointer else { return }
    Unmanaged<ZlibMemory>.fromOpaque(opaque).takeUnretainedValue().free(pointer)
}
