#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's mathematics the standard library leaves out, for the placeholders' cosine
/// transforms and sRGB curves.
enum Maths {
    static func cos(_ x: Float) -> Float {
        #if canImport(Glibc)
        Glibc.cosf(x)
        #elseif canImport(Musl)
        Musl.cosf(x)
        #else
        Darwin.cosf(x)
        #endif
    }

    static func pow(_ x: Float, _ y: Float) -> Float {
        #if canImport(Glibc)
        Glibc.powf(x, y)
        #elseif canImport(Musl)
        Musl.powf(x, y)
        #else
        Darwin.powf(x, y)
        #endif
    }

    static func cos(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.cos(x)
        #elseif canImport(Musl)
        Musl.cos(x)
        #else
        Darwin.cos(x)
        #endif
    }
}
