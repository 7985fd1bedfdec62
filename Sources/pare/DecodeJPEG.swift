/// `pare decode` for JPEG input: PPM (P6) or PGM (P5), as `djpeg -pnm -scale` writes.
func decodeJPEGCommand(input: String, bytes: [UInt8], scale: String, output: String) -> Int32 {
    notImplemented("decode of JPEG")
}
