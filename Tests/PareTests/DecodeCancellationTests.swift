import Pare
import PareCore
import Synchronization
import TestSupport
import Testing

/// Cancellation of the decodes the async tests do not reach: a progressive JPEG (its scans
/// and then its output pass) and a restart-interval JPEG decoded in bands on two workers.
/// The check says "cancelled" from its Nth call on; the job must end in `.cancelled` well
/// before the whole decode's number of checks, with every ledger byte given back.
@Suite struct DecodeCancellationTests {
    final class StopAfter: Sendable {
        let calls = Atomic<Int>(0)
        let limit: Int
        init(_ limit: Int) { self.limit = limit }
        var check: CancellationCheck { CancellationCheck { [self] in calls.add(1, ordering: .relaxed).newValue > limit } }
    }

    static func options(workers: Int) -> ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: 2048)
        options.decodeWorkers = workers
        return options
    }

    @Test(arguments: [("progressive", 1), ("restart bands", 2)])
    func cancelledDecodeStopsAndGivesBackItsMemory(_ kind: String, _ workers: Int) throws {
        let file = kind == "progressive" ? SyntheticProgressiveJPEG.make(width: 2048, height: 1536)
            : SyntheticJPEG.make(width: 2048, height: 1536, restartInterval: 4)
        let whole = StopAfter(.max)
        let ledger = MemoryLedger()
        let thumbnail = try ImageSource(bytes: file).thumbnail(options: Self.options(workers: workers), ledger: ledger,
                                                               cancellation: whole.check)
        #expect(thumbnail.image.width == 2048 && ledger.currentBytes == 0)
        let total = whole.calls.load(ordering: .relaxed)
        // Progressive: a check per MCU row of each scan and of the output (673); bands: one
        // per band, whose size depends on how the two workers share them (33 to 65 seen).
        #expect(total >= (kind == "progressive" ? 673 : 16), "\(kind): \(total) checks")

        let part = StopAfter(total / 10)
        let cancelledLedger = MemoryLedger()
        #expect(throws: PareError.cancelled) {
            _ = try ImageSource(bytes: file).thumbnail(options: Self.options(workers: workers), ledger: cancelledLedger,
                                                       cancellation: part.check)
        }
        let calls = part.calls.load(ordering: .relaxed)
        #expect(calls > total / 10 && calls < total / 2, "\(kind): stopped after \(calls) of \(total) checks")
        #expect(cancelledLedger.currentBytes == 0, "\(kind): \(cancelledLedger.currentBytes) ledger bytes kept")
        print("cancel \(kind): whole decode \(total) checks, cancelled after \(calls)")
    }
}
