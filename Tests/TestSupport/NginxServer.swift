import Foundation
import Glibc

/// An nginx with the RTMP module, run by a test in its own directory on a free loopback port,
/// recording every published stream there.
///
/// Started with `posix_spawn` and an empty signal mask: test threads block SIGTERM, a child
/// started from one would inherit that, and nginx (single process) would never stop.
public final class NginxServer {
    public static let binary = Support.which("nginx") ?? "/usr/sbin/nginx"
    public static let modulePaths = ["/usr/lib/nginx/modules/ngx_rtmp_module.so", "/usr/share/nginx/modules/ngx_rtmp_module.so"]
    public static let module = modulePaths.first { FileManager.default.fileExists(atPath: $0) }
    /// Whether nginx and its RTMP module are installed; under CI, true (see ``Tool``).
    public static let isAvailable: Bool = Tool.required("nginx with libnginx-mod-rtmp",
                                                        present: FileManager.default.isExecutableFile(atPath: binary) && module != nil)

    public let directory: String
    public let port: UInt16
    private var pid: pid_t = 0

    /// Starts nginx and waits until it accepts connections.
    /// - Parameter logLevel: the `error_log` level (`debug` shows what the RTMP module parsed).
    public init(logLevel: String = "info") throws {
        directory = try Support.temporaryDirectory()
        port = try Self.freePort()
        let conf = """
        load_module \(Self.module ?? "");
        master_process off;
        error_log \(directory)/error.log \(logLevel);
        pid \(directory)/nginx.pid;
        events { worker_connections 64; }
        rtmp {
            server {
                listen 127.0.0.1:\(port);
                chunk_size 4096;
                application live { live on; record all; record_path \(directory); }
            }
        }
        """
        try conf.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        try start()
    }

    /// Starts nginx with the configuration written and waits until it accepts connections.
    private func start() throws {
        try spawn([Self.binary, "-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log",
                   "-g", "daemon off;"])
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            usleep(50_000)
        }
        stop()
        throw NSError(domain: "nginx did not start: \(log)", code: 1)
    }

    /// Starts nginx again, on the same port and directory, after ``kill()`` or ``stop()``: a
    /// server that comes back. A recording of a stream published again replaces the old one.
    public func restart() throws {
        if pid > 0 { stop() }
        try start()
    }

    /// The server's log.
    public var log: String { (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "" }

    /// The recording of a stream.
    public func recording(_ stream: String) -> String { directory + "/" + stream + ".flv" }

    private func spawn(_ args: [String]) throws {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&pid, args[0], &actions, &attr, argv, environ)
        guard rc == 0 else { throw NSError(domain: "posix_spawn nginx: \(rc)", code: 3) }
    }

    /// Stops nginx (SIGTERM, then SIGKILL after 5 s) and waits for it.
    public func stop() { signal(SIGTERM) }

    /// Waits (up to 2 s) until a published stream was deleted, so that nginx has closed its
    /// recording, then stops nginx.
    public func stopAfterStreamEnds() {
        for _ in 0..<40 where !log.contains("deleteStream") { usleep(50_000) }
        stop()
    }

    /// Kills nginx at once (SIGKILL), to test a server vanishing mid-stream.
    public func kill() { signal(SIGKILL) }

    private func signal(_ sig: Int32) {
        guard pid > 0 else { return }
        Glibc.kill(pid, sig)
        var status: Int32 = 0
        for _ in 0..<500 {
            if waitpid(pid, &status, WNOHANG) == pid { pid = 0; return }
            usleep(10_000)
        }
        Glibc.kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        pid = 0
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A loopback port nothing listens on right now.
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
            }
        }
        guard ok else { throw NSError(domain: "cannot bind a loopback port", code: 2) }
        return UInt16(bigEndian: addr.sin_port)
    }

    public static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
