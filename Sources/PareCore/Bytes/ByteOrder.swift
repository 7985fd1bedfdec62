/// The byte order of multi-byte integers: TIFF says which in its header ("II" or "MM");
/// JPEG and PNG are always big-endian.
public enum ByteOrder: Sendable, Equatable {
    case bigEndian
    case littleEndian
}
