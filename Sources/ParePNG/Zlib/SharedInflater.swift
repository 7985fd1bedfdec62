import PareCore

extension ZlibInflater {
    /// ParePNG's inflater, lent to decoders that cannot depend on ParePNG (PareTIFF's
    /// Deflate strips): one whole stream per call, its buffers counted in the ledger.
    public static let zlib = ZlibInflater { input, output, ledger in
        let inflater: Inflater
        do throws(PNGError) { inflater = try Inflater(ledger: ledger) } catch {
            if case let .core(core) = error { return (0, .refused(core)) }
            return (0, .damaged("\(error)"))
        }
        guard let base = input.baseAddress, input.count > 0 else { return (0, .inputEnded) }
        // The inflater only reads through the pointer.
        inflater.supply(UnsafeMutableRawPointer(mutating: base), count: input.count)
        guard let out = output.baseAddress else { return (0, .outputFull) }
        var produced = 0
        while produced < output.count {
            let n: Int
            do throws(PNGError) {
                n = try inflater.inflate(into: out + produced, count: output.count - produced,
                                         offset: input.count - inflater.availableInput)
            } catch {
                switch error {
                case let .zlibDataError(_, message): return (produced, .damaged(message))
                case let .core(core): return (produced, .refused(core))
                default: return (produced, .damaged("\(error)"))
                }
            }
            produced += n
            if inflater.finished { return (produced, .finished) }
            if n == 0 { return (produced, .inputEnded) }
        }
        return (produced, inflater.finished ? .finished : .outputFull)
    }
}
