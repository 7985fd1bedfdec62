/// `pare exif IN --json`: the metadata as one JSON object (see DESIGN.md).
func runExif(_ raw: [String]) -> Int32 {
    notImplemented("exif")
}
