extension Thumbnail: @unchecked Sendable {}
