import Foundation

/// Local UDP ports for the end-to-end tests (loopback only).
public enum Ports {
    /// True when a UDP socket is bound to `port` (Linux `/proc/net/udp`).
    public static func udpPortIsBound(_ port: Int) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            if let text = try? String(contentsOfFile: table, encoding: .utf8), text.contains(":\(padded) ") { return true }
        }
        return false
    }

    /// An even port with it and the next one (RTCP) free.
    public static func freeEvenPort() -> Int {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<30_000, using: &rng) * 2
            if !udpPortIsBound(port) && !udpPortIsBound(port + 1) { return port }
        }
        return 50_000
    }
}
