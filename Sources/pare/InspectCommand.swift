/// `pare inspect IN`: the file's structure, for a reader learning the format.
func runInspect(_ raw: [String]) -> Int32 {
    notImplemented("inspect")
}
