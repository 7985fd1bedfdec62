/// Conversions between 8-, 16- and 32-bit lanes for the vector paths (the inverse DCT,
/// upsampling, colour conversion, the encoder's quantiser), written lane by lane. The
/// standard library's generic `init(truncatingIfNeeded:)` between SIMD types is sometimes
/// left as an out-of-line call that converts one lane at a time; spelled out and inlined,
/// the compiler sees one vector conversion (x86: punpck, packssdw; ARM: sxtl, xtn).
enum ShortLanes {
    typealias Bytes = SIMD8<UInt8>
    typealias Short = SIMD8<Int16>
    typealias Long = SIMD8<Int32>

    /// Each lane converted as `init(truncatingIfNeeded:)` converts one integer: zero- or
    /// sign-extended (as `From` is unsigned or signed) when `To` is wider, its low bits when
    /// `To` is narrower. The one conversion behind `load`, `widen`, `truncate` and the
    /// inverse DCT's byte stores.
    @inline(__always)
    static func lanes<From: FixedWidthInteger & SIMDScalar, To: FixedWidthInteger & SIMDScalar>(
        _ v: SIMD8<From>, as _: To.Type = To.self
    ) -> SIMD8<To> {
        SIMD8<To>(To(truncatingIfNeeded: v[0]), To(truncatingIfNeeded: v[1]), To(truncatingIfNeeded: v[2]),
                  To(truncatingIfNeeded: v[3]), To(truncatingIfNeeded: v[4]), To(truncatingIfNeeded: v[5]),
                  To(truncatingIfNeeded: v[6]), To(truncatingIfNeeded: v[7]))
    }

    /// Eight bytes from `p`, zero-extended to 16 bits.
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> Short {
        lanes(UnsafeRawPointer(p).loadUnaligned(as: Bytes.self))
    }

    /// Sign-extends to 32 bits.
    @inline(__always)
    static func widen(_ v: Short) -> Long {
        lanes(v)
    }

    /// The low 16 bits of each lane.
    @inline(__always)
    static func truncate(_ v: Long) -> Short {
        lanes(v)
    }

    /// Each lane limited to −32768…32767 (x86: packssdw; ARM: sqxtn). Written as a loop of
    /// scalar limits, which the optimiser turns into the one saturating narrowing inside the
    /// transforms, where the shift-and-mask limits below stay a dozen compares and masks a
    /// vector on SSE2.
    @inline(__always)
    static func saturate(_ v: Long) -> Short {
        var result = Short()
        for i in 0 ..< 8 { result[i] = Int16(truncatingIfNeeded: min(max(v[i], -32768), 32767)) }
        return result
    }

    /// Each lane limited to 0…255.
    @inline(__always)
    static func limitToByte(_ v: Short) -> Short {
        let low = v &- (v & (v &>> 15))            // negative lanes become 0
        let over = Short(repeating: 255) &- low
        return low &+ (over & (over &>> 15))       // lanes above 255 become 255
    }

    /// (a · b) >> 16 of unsigned lanes: the high half of each 32-bit product (x86: pmulhuw;
    /// ARM: umull and a narrowing shift).
    @inline(__always)
    static func highProduct(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        lanes((lanes(a, as: UInt32.self) &* lanes(b, as: UInt32.self)) &>> 16)
    }

    /// v·k, exact in 32 bits: both factors fit in 16 bits, so the vector unit multiplies in
    /// 16-bit lanes (x86: pmaddwd or pmullw with pmulhw; ARM: smull).
    @inline(__always)
    static func product(_ v: Short, _ k: Int16) -> Long {
        widen(v) &* Long(repeating: Int32(k))
    }
}
