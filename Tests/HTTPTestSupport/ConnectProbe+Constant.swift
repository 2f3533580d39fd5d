import Transport

extension ConnectProbe {
    /// A probe that always answers `reachable`: the network's answer fixed for a test.
    public static func constant(_ reachable: Bool) -> ConnectProbe {
        ConnectProbe { _, _ in reachable }
    }
}
