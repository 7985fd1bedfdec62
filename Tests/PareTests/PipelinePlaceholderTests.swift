import Synchronization
import Testing
@testable @_spi(CommandLine) import Pare
import PareCore
import TestSupport

/// The pipeline's placeholders: served ahead of thumbnails, kept, left behind by the last
/// trim level for the thumbnails that were visible; and trims that deepen when repeated.
@Suite struct PipelinePlaceholderTests {
    /// At a full gate a placeholder's waiter goes before every thumbnail's, whatever came first.
    @Test func gateServesPlaceholdersBeforeThumbnails() async throws {
        let order = try await PipelinePriorityTests.grantOrder([("v1", .thumbnail(.visible)), ("p1", .thumbnail(.prefetch)),
                                                                ("h1", .placeholder), ("v2", .thumbnail(.visible)),
                                                                ("h2", .placeholder)])
        #expect(order == ["h1", "h2", "v1", "v2", "p1"])
    }

    /// The pipeline's placeholder is `ImageSource.placeholder`'s; asked again it is a hit,
    /// and concurrent requests share one decode.
    @Test func placeholderIsTheSourcesAndIsKept() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let request = PipelineFixtures.request(PipelineFixtures.medium, key: "p", priority: .visible)
        let expected = try ImageSource(bytes: PipelineFixtures.medium).placeholder(.thumbHash, options: request.options)
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0 ..< 8 { group.addTask { try await pipeline.placeholder(request).text } }
            var texts: [String] = []
            for try await text in group { texts.append(text) }
            return texts
        }
        #expect(texts == [String](repeating: expected.text, count: 8))
        #expect(try await pipeline.placeholder(request) == expected)
        #expect(pipeline.cachedPlaceholder(request) == expected)
        let blurHash = try await pipeline.placeholder(request, kind: .blurHash())
        #expect(blurHash == (try ImageSource(bytes: PipelineFixtures.medium).placeholder(.blurHash(), options: request.options)))
        let stats = pipeline.statistics
        #expect(stats.placeholderDecodes == 2)
        #expect(stats.placeholderHits + stats.placeholderDecodes + stats.coalesced == 10)
        #expect(stats.decodes == 0)
    }

    /// One decode slot, held by a thumbnail, with three more visible thumbnails queued: a
    /// placeholder asked for after them all is made before any of the three.
    @Test func placeholderGoesAheadOfQueuedThumbnails() async throws {
        let pipeline = try PipelineFixtures.pipeline { $0.maxConcurrentDecodes = 1 }
        let order = OrderRecorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0 ..< 4 {
                group.addTask {
                    _ = try await pipeline.thumbnail(PipelineFixtures.request(PipelineFixtures.large, key: "t\(index)",
                                                                              fullScale: true, priority: .visible))
                    order.append("t\(index)")
                }
                // Each queues before the next is asked for: t0 holds the slot, t1…t3 wait.
                #expect(await PipelineFixtures.eventually { pipeline.slots.inUse == 1 && pipeline.slots.waiting == index })
            }
            group.addTask {
                _ = try await pipeline.placeholder(PipelineFixtures.request(PipelineFixtures.medium, key: "h"))
                order.append("h")
            }
            try await group.waitForAll()
        }
        #expect(order.names.firstIndex(of: "h")! <= 1, "\(order.names)")
        #expect(Set(order.names.dropFirst(2)).isSubset(of: ["t1", "t2", "t3"]))
    }

    /// `trim(.everything)` empties the memory cache, and each thumbnail a visible request
    /// had leaves its placeholder, made from the thumbnail; a thumbnail delivered to a
    /// normal request leaves none.
    @Test func lastTrimLeavesPlaceholdersForVisibleThumbnails() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let visible = PipelineFixtures.request(PipelineFixtures.medium, key: "v", priority: .visible)
        let normal = PipelineFixtures.request(PipelineFixtures.medium, key: "n", size: 48)
        let thumbnail = try await pipeline.thumbnail(visible)
        _ = try await pipeline.thumbnail(normal)
        #expect(pipeline.cachedPlaceholder(visible) == nil)
        #expect(pipeline.trim(.everything) == .everything)
        #expect(pipeline.memoryCacheBytes == 0)
        let left = try #require(pipeline.cachedPlaceholder(visible))
        #expect(left == (try thumbnail.placeholder(.thumbHash)))
        #expect(pipeline.cachedPlaceholder(normal) == nil)
        // It is what `placeholder` answers, without a decode.
        #expect(try await pipeline.placeholder(visible) == left)
        #expect(pipeline.statistics.placeholderDecodes == 0)
    }

    /// Trims asked again within the window go one level deeper each time, up to
    /// `everything`; after the window, or for a deeper level, the level asked applies.
    @Test func repeatedTrimsDeepen() throws {
        let clock = TestClock()
        let pipeline = try PipelineFixtures.pipeline {
            $0.now = { clock.now }
            $0.trimEscalationWindow = .seconds(5)
        }
        #expect(pipeline.trim(.offscreen) == .offscreen)
        clock.advance(.seconds(1))
        #expect(pipeline.trim(.offscreen) == .prefetched)
        clock.advance(.seconds(4))
        #expect(pipeline.trim(.offscreen) == .allButVisible)
        clock.advance(.seconds(1))
        #expect(pipeline.trim(.diskCacheIndex) == .everything)
        clock.advance(.seconds(1))
        #expect(pipeline.trim(.prefetched) == .everything)
        clock.advance(.seconds(5))
        #expect(pipeline.trim(.offscreen) == .offscreen)
        clock.advance(.seconds(1))
        #expect(pipeline.trim(.allButVisible) == .allButVisible)
        clock.advance(.milliseconds(4999))
        #expect(pipeline.trim(.offscreen) == .everything)
    }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex(Duration.zero)
    var now: ContinuousClock.Instant { start + offset.withOrderedLock { $0 } }
    func advance(_ by: Duration) { offset.withOrderedLock { $0 += by } }
}
