import PareCore

/// What a decompressor made of one strip or tile: the bytes it wrote (never more than the
/// output it was given, so no stream can make more than the segment's size: the bound on
/// a decompression bomb) and, when it stopped early, why.
struct Decompressed {
    var produced: Int
    /// Why the output is not full: the data ended, or was refused (the reason).
    var damage: Damage?

    enum Damage {
        case ended
        case refused(MessageText)
    }
}
