// Times PareTIFF's full decode of each file given (rows into a sink that keeps none), the
// median of RUNS runs, with the ledger's peak. Built by Benchmarks/tiff-decode.sh.
import Glibc
import PareCore
import ParePNG
import PareTIFF

struct DiscardingSink: RowSink {
    var checksum = 0
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        checksum &+= Int(row[placement.y % row.count])
    }
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let size = ftell(f)
    fseek(f, 0, SEEK_SET)
    var bytes = [UInt8](repeating: 0, count: size)
    guard fread(&bytes, 1, size, f) == size else { return nil }
    return bytes
}

let runs = Int(getenv("RUNS").map { String(cString: $0) } ?? "5") ?? 5
for path in CommandLine.arguments.dropFirst() {
    guard let bytes = readFile(path) else { print("\(path): unreadable"); continue }
    var times: [Double] = []
    var peak = 0, info = ""
    for _ in 0 ..< runs {
        let options = TIFFOptions()
        let ledger = MemoryLedger()
        let start = now()
        do {
            var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            var sink = DiscardingSink()
            try decoder.decode(into: &sink)
            info = "\(decoder.info.width)x\(decoder.info.height) compression \(decoder.info.compression)"
        } catch {
            print("\(path): \(error)")
            break
        }
        times.append(now() - start)
        peak = ledger.peakBytes
    }
    times.sort()
    guard !times.isEmpty else { continue }
    let median = times[times.count / 2]
    print("\(path.split(separator: "/").last!): \(info): median \(Int(median * 1000)) ms of \(runs), ledger peak \(peak / 1024) KiB")
}
