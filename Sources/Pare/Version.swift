@_exported import PareCore
@_exported import PareICC

/// Pare's version, printed by `pare --version`.
public let pareVersion = "0.1.0"
