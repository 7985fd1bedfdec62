import PareCore

/// Builds the Huffman codes of a deflate block (RFC 1951 3.2.2, 3.2.7) from symbol counts:
/// code lengths no longer than a limit (15 bits for literals, lengths and distances, 7 for
/// the code-length alphabet), then the canonical codes those lengths define.
///
/// The lengths come from Huffman's construction (two queues: the leaves sorted by count, the
/// merged nodes in the order they are made, which is already sorted), then, where a
/// skewed block makes a code longer than the limit, from a repair on Kraft's sum: lengths
/// above the limit are cut to it, which over-fills the code space, and the least frequent
/// symbols below the limit are lengthened until it fits. The result is always a complete
/// code (Kraft's sum exactly one), which zlib's inflate requires of every table but a
/// one-symbol distance table: a spare slot is given back by shortening the longest code.
/// A lone symbol is paired with a second one, so that even an empty block has two codes
/// of one bit.
///
/// The scratch tables are counted by the ledger and reused for every table of every block.
final class HuffmanCodeBuilder {
    /// The largest alphabet built: deflate's 286 literal/length symbols.
    static let maxSymbols = 288

    private let order: LedgerBuffer<Int>      // used symbols, then sorted by count
    private let weight: LedgerBuffer<Int>     // leaves 0 ..< n, merged nodes n ..< 2n − 1
    private let parent: LedgerBuffer<Int>
    private let depth: LedgerBuffer<Int>

    init(ledger: MemoryLedger) throws(CoreError) {
        order = try ledger.allocate(Int.self, count: Self.maxSymbols, initialValue: 0)
        weight = try ledger.allocate(Int.self, count: 2 * Self.maxSymbols, initialValue: 0)
        parent = try ledger.allocate(Int.self, count: 2 * Self.maxSymbols, initialValue: 0)
        depth = try ledger.allocate(Int.self, count: 2 * Self.maxSymbols, initialValue: 0)
    }

    /// Writes into `lengths[0 ..< symbols]` the code length of each symbol (0 for a count of
    /// 0) for `counts[0 ..< symbols]`, none longer than `limit`. `symbols` ≤ `maxSymbols`,
    /// and `1 << limit` must exceed `symbols`.
    func lengths(counts: UnsafePointer<UInt32>, symbols: Int, limit: Int, into lengths: UnsafeMutablePointer<UInt8>) {
        precondition(symbols <= Self.maxSymbols && symbols < 1 << limit)
        lengths.update(repeating: 0, count: symbols)
        var n = 0
        for s in 0 ..< symbols where counts[s] > 0 {
            order[n] = s
            n += 1
        }
        if n < 2 {
            // One symbol (or none) still needs a complete code: a second symbol of length 1.
            let first = n == 1 ? order[0] : 0
            lengths[first] = 1
            lengths[first == 0 ? 1 : 0] = 1
            return
        }
        // Leaves by count, ties by symbol, so that equal input gives equal codes.
        for i in 1 ..< n {
            let s = order[i]
            var j = i
            while j > 0 && (counts[order[j - 1]] > counts[s]
                            || (counts[order[j - 1]] == counts[s] && order[j - 1] > s)) {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = s
        }
        for i in 0 ..< n { weight[i] = Int(counts[order[i]]) }
        // Two queues: the next leaf is `leaf`, the next merged node `merged`; each merge
        // takes the two lightest fronts and appends their sum as node `next`.
        var leaf = 0, merged = n, next = n
        func lightest() -> Int {
            if leaf < n && (merged >= next || weight[leaf] <= weight[merged]) {
                leaf += 1
                return leaf - 1
            }
            merged += 1
            return merged - 1
        }
        while next < 2 * n - 1 {
            let a = lightest(), b = lightest()
            weight[next] = weight[a] + weight[b]
            parent[a] = next
            parent[b] = next
            next += 1
        }
        // The root is the last node made; every node's parent was made after it.
        depth[2 * n - 2] = 0
        for node in stride(from: 2 * n - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }

        // Kraft's sum in units of 2^−limit: complete when it equals 1 << limit.
        var kraft = 0
        for i in 0 ..< n {
            let length = min(depth[i], limit)
            lengths[order[i]] = UInt8(length)
            kraft += 1 << (limit - length)
        }
        // Over-full (only when a code was cut): lengthen the least frequent symbol of the
        // longest length below the limit, which frees the least room, until it fits.
        while kraft > 1 << limit {
            var chosen = -1
            for length in stride(from: limit - 1, through: 1, by: -1) {
                for i in 0 ..< n where Int(lengths[order[i]]) == length {
                    chosen = order[i]
                    break
                }
                if chosen >= 0 { break }
            }
            kraft -= 1 << (limit - Int(lengths[chosen]) - 1)
            lengths[chosen] += 1
        }
        // Under-full: every term is a multiple of the longest code's, so shortening the most
        // frequent symbol of the longest length takes up exactly its own share of the slack.
        while kraft < 1 << limit {
            var chosen = -1, longest = 0
            for i in stride(from: n - 1, through: 0, by: -1) where Int(lengths[order[i]]) > longest {
                longest = Int(lengths[order[i]])
                chosen = order[i]
            }
            kraft += 1 << (limit - longest)
            lengths[chosen] -= 1
        }
    }

    /// The canonical codes (RFC 1951 3.2.2) of `lengths[0 ..< symbols]`, bit-reversed so that
    /// they can be written into deflate's least-significant-bit-first stream as they are.
    static func codes(lengths: UnsafePointer<UInt8>, symbols: Int, into codes: UnsafeMutablePointer<UInt16>) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 32) { table in
            // SAFETY: 32 slots: codes of each length 0–15, then the next code of each length.
            let perLength = table.baseAddress!, next = perLength + 16
            perLength.initialize(repeating: 0, count: 32)
            for s in 0 ..< symbols { perLength[Int(lengths[s])] += 1 }
            perLength[0] = 0
            var code = 0
            for length in 1 ... 15 {
                code = (code + perLength[length - 1]) << 1
                next[length] = code
            }
            for s in 0 ..< symbols {
                let length = Int(lengths[s])
                guard length > 0 else {
                    codes[s] = 0
                    continue
                }
                codes[s] = reversed(UInt16(next[length]), bits: length)
                next[length] += 1
            }
        }
    }

    /// The low `bits` bits of `code` in the opposite order.
    static func reversed(_ code: UInt16, bits: Int) -> UInt16 {
        var value = code, result: UInt16 = 0
        for _ in 0 ..< bits {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
