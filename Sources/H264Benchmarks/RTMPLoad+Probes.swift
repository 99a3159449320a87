import Foundation
import MediaSupport

/// A server's CPU time and resident memory at one moment, from `/proc` (Linux), summed over
/// its processes (nginx's workers).
struct ProcessSample: Sendable {
    /// utime + stime of every process, in seconds (their threads included).
    let cpuSeconds: Double
    /// VmRSS of every process, in bytes.
    let residentBytes: Int

    /// Nil when there is no process id, or one of them cannot be read (it has exited).
    init?(pids: [Int32]) {
        guard !pids.isEmpty else { return nil }
        var cpu = 0.0
        var rss = 0
        for pid in pids {
            guard let c = Self.cpuSeconds(pid: "\(pid)"), let r = Self.residentBytes(pid: pid) else { return nil }
            cpu += c
            rss += r
        }
        cpuSeconds = cpu
        residentBytes = rss
    }

    /// utime + stime of `/proc/PID/stat` in seconds (fields 14 and 15, counted after the
    /// command name's closing parenthesis, since the name may hold spaces).
    static func cpuSeconds(pid: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3): utime is field 14, stime 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS of `/proc/PID/status`, in bytes.
    static func residentBytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kB * 1024
    }

    /// This process's CPU time so far, in seconds.
    static func ownCPUSeconds() -> Double { cpuSeconds(pid: "self") ?? 0 }
}

/// The bytes waiting in the kernel on the connections to a port, from `/proc/net/tcp`: for
/// each connection, the client's send queue (`tx_queue`, written but not yet taken by the
/// peer) plus the server's receive queue (`rx_queue`, received but not yet read by the
/// server). A server that keeps up reads what arrives: both stay near zero. One that falls
/// behind leaves them growing, for seconds before the publisher's own queue notices (loopback
/// socket buffers grow to several MB).
enum KernelQueues {
    /// What the monitor saw.
    struct Backlog: Sendable {
        /// The most bytes waiting on one connection at any sample.
        var maximumPerConnection = 0
        /// The most bytes waiting on all connections together at any sample.
        var maximumTotal = 0
        /// Samples taken.
        var samples = 0
    }

    /// Bytes waiting per connection to `port` now, keyed by the client's port.
    static func backlog(port: UInt16) -> [UInt16: Int] {
        var perClient: [UInt16: Int] = [:]
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue ...
                let f = line.split(separator: " ", omittingEmptySubsequences: true)
                guard f.count > 4, f[3] == "01", let local = Self.port(f[1]), let remote = Self.port(f[2]) else { continue }
                let queues = f[4].split(separator: ":")
                guard queues.count == 2, let tx = Int(queues[0], radix: 16), let rx = Int(queues[1], radix: 16) else { continue }
                if remote == port && local != port {
                    perClient[local, default: 0] += tx  // the client's side: what it could not hand over
                } else if local == port {
                    perClient[remote, default: 0] += rx  // the server's side: what it has not read
                }
            }
        }
        return perClient
    }

    /// The port of `ADDRESS:PORT` (hexadecimal).
    private static func port(_ field: Substring) -> UInt16? {
        field.split(separator: ":").last.flatMap { UInt16($0, radix: 16) }
    }

    /// Samples ``backlog(port:)`` every 250 ms on a thread of its own until stopped.
    final class Monitor: Sendable {
        let port: UInt16
        private let state = ThreadLock((stop: false, backlog: Backlog(), done: false))

        init(port: UInt16) { self.port = port }

        /// Starts the sampling thread.
        func start() throws {
            try BlockingWorker.detach { [self] in
                while !state.withLock({ $0.stop }) {
                    let b = KernelQueues.backlog(port: port)
                    let one = b.values.max() ?? 0
                    let total = b.values.reduce(0, +)
                    state.withLock {
                        $0.backlog.maximumPerConnection = max($0.backlog.maximumPerConnection, one)
                        $0.backlog.maximumTotal = max($0.backlog.maximumTotal, total)
                        $0.backlog.samples += 1
                    }
                    usleep(250_000)
                }
                state.withLock { $0.done = true }
            }
        }

        /// Stops the sampling and returns what it saw (within one sampling period).
        func stop() -> Backlog {
            state.withLock { $0.stop = true }
            // Polled, not waited for on the lock's condition: a loop over the `inout` state
            // inside `withLock` may be compiled with its read hoisted out of the loop.
            while true {
                if let backlog = state.withLock({ $0.done ? $0.backlog : nil }) { return backlog }
                usleep(10_000)
            }
        }
    }
}
