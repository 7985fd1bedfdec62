/// Conversions between 8-, 16- and 32-bit lanes for the vector paths (the inverse DCT,
/// upsampling, colour conversion), written lane by lane. The standard library's generic
/// `init(truncatingIfNeeded:)` between SIMD types is sometimes left as an out-of-line call
/// that converts one lane at a time; spelled out and inlined, the compiler sees one vector
/// conversion (x86: punpck, packssdw; ARM: sxtl, xtn).
enum ShortLanes {
    typealias Bytes = SIMD8<UInt8>
    typealias Short = SIMD8<Int16>
    typealias Long = SIMD8<Int32>

    /// Eight bytes from `p`, zero-extended to 16 bits.
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> Short {
        let b = UnsafeRawPointer(p).loadUnaligned(as: Bytes.self)
        return Short(Int16(b[0]), Int16(b[1]), Int16(b[2]), Int16(b[3]),
                     Int16(b[4]), Int16(b[5]), Int16(b[6]), Int16(b[7]))
    }

    /// Sign-extends to 32 bits.
    @inline(__always)
    static func widen(_ v: Short) -> Long {
        Long(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// The low 16 bits of each lane.
    @inline(__always)
    static func truncate(_ v: Long) -> Short {
        Short(Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]), Int16(truncatingIfNeeded: v[2]),
              Int16(truncatingIfNeeded: v[3]), Int16(truncatingIfNeeded: v[4]), Int16(truncatingIfNeeded: v[5]),
              Int16(truncatingIfNeeded: v[6]), Int16(truncatingIfNeeded: v[7]))
    }

    /// Each lane limited to −32768…32767.
    @inline(__always)
    static func saturate(_ v: Long) -> Short {
        truncate(atMost(atLeast(v, -32768), 32767))
    }

    /// Each lane limited to 0…255.
    @inline(__always)
    static func limitToByte(_ v: Short) -> Short {
        let low = v &- (v & (v &>> 15))            // negative lanes become 0
        let over = Short(repeating: 255) &- low
        return low &+ (over & (over &>> 15))       // lanes above 255 become 255
    }

    // Limits written with shifts and masks: the standard library's `clamped`, `pointwiseMin`
    // and `pointwiseMax` are sometimes left as out-of-line calls too. Exact while the
    // differences fit in 32 bits, which they do for the values the transforms produce
    // (sums of 16-bit products, well inside ±2^30).
    @inline(__always)
    static func atLeast(_ v: Long, _ bound: Int32) -> Long {
        let below = v &- Long(repeating: bound)
        return v &- (below & (below &>> 31))
    }

    @inline(__always)
    static func atMost(_ v: Long, _ bound: Int32) -> Long {
        let room = Long(repeating: bound) &- v
        return v &+ (room & (room &>> 31))
    }

    /// The low 8 bits of each lane (callers have limited the lanes to 0…255).
    @inline(__always)
    static func bytes(_ v: Short) -> Bytes {
        Bytes(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]),
              UInt8(truncatingIfNeeded: v[3]), UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
              UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]))
    }

    /// v·k, exact in 32 bits: both factors fit in 16 bits, so the vector unit multiplies in
    /// 16-bit lanes (x86: pmaddwd or pmullw with pmulhw; ARM: smull).
    @inline(__always)
    static func product(_ v: Short, _ k: Int16) -> Long {
        widen(v) &* Long(repeating: Int32(k))
    }
}
