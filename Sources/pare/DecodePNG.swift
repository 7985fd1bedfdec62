/// `pare decode` for PNG input: PAM (P7, RGB_ALPHA, MAXVAL 255 or 65535).
func decodePNGCommand(input: String, bytes: [UInt8], output: String) -> Int32 {
    notImplemented("decode of PNG")
}
