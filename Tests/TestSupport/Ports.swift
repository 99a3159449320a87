import Foundation
import Glibc

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

/// A loopback port held, bound but not listening, while the server that had it is down:
/// connections to it are refused, as to a server that is gone, and no other test running at the
/// same time can be given it by the system (a publisher reconnecting would reach that test's
/// server).
public final class PortHold {
    private var fd: Int32 = -1

    /// Binds `port` as soon as the server that had it has let it go (up to 5 s).
    public init(_ port: Int) throws {
        for _ in 0..<500 {
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var one: Int32 = 1
            setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = UInt16(port).bigEndian
            let bound = withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound {
                fd = s
                return
            }
            Glibc.close(s)
            usleep(10_000)
        }
        throw NSError(domain: "port \(port) was not let go", code: 1)
    }

    /// Lets the port go (for the server that comes back).
    public func release() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { release() }
}
