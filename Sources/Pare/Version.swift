@_exported import PareCore

/// Pare's version, printed by `pare --version`.
public let pareVersion = "0.1.0"
