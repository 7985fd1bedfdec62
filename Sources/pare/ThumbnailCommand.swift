/// `pare thumbnail IN... --size N …`: the main job (see DESIGN.md).
func runThumbnail(_ raw: [String]) -> Int32 {
    notImplemented("thumbnail")
}
