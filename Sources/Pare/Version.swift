/// `import Pare` is the one import an application needs: it re-exports the codec modules,
/// so `ImageSource`, `Thumbnail`, `Image`, `PareError` and the codecs' own types
/// (`JPEGDecoder`, `JPEGError`, `PNGDecoder`, `PNGEncoder`, `PNGError`, `EXIFReader`,
/// `EXIFError` and their options) are all in scope. Code that needs one codec alone can
/// depend on its library product (`PareJPEG`, `ParePNG`, `PareEXIF`) instead.
@_exported import PareCore
@_exported import PareICC
@_exported import PareJPEG
@_exported import PareEXIF
@_exported import ParePNG

/// Pare's version, printed by `pare --version`.
public let pareVersion = "0.1.0"
