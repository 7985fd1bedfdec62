import PareCore

/// Warnings collected during a decode, capped, or thrown at once in strict mode.
struct WarningLog {
    var warnings: [JPEGWarning] = []
    var dropped = 0
    let strict: Bool
    let limit: Int

    // Rare, and called from many places: one copy, not one at each call.
    @inline(never)
    mutating func add(_ warning: JPEGWarning) throws(JPEGError) {
        if strict { throw .strict(warning) }
        if warnings.count < limit { warnings.append(warning) } else { dropped += 1 }
    }
}
