/// GIF89a Appendix E: an interlaced frame's rows come in four passes, every 8th row from
/// row 0, every 8th from row 4, every 4th from row 2, every 2nd from row 1.
enum InterlaceOrder {
    static let passes: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    /// The frame rows in the order the data holds them.
    static func rows(height: Int) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(height)
        for pass in passes {
            var y = pass.start
            while y < height {
                order.append(y)
                y += pass.step
            }
        }
        return order
    }
}
