internal import CX264
import H264
import MediaSupport

/// Receives x264's log messages for one encoder: forwards them to the configured handler and
/// keeps the errors for the message of a failed open. x264 may log from its worker threads.
final class X264Log: Sendable {
    let handler: (@Sendable (X264Encoder.LogLevel, String) -> Void)?
    let errors = ThreadLock<[String]>([])

    init(handler: (@Sendable (X264Encoder.LogLevel, String) -> Void)?) { self.handler = handler }

    func receive(_ level: Int32, _ message: String) {
        let level = X264Encoder.LogLevel(rawValue: Int(level)) ?? .debug
        if level == .error { errors.withLock { if $0.count < 16 { $0.append(message) } } }
        handler?(level, message)
    }

    /// Installs the C callback in `x264_param_t.pf_log`, with `p_log_private` an unretained
    /// pointer to `self`, which the encoder keeps alive as long as its `x264_t`.
    func install(in p: inout x264_param_t) {
        // A C function pointer cannot capture: the log object travels in p_log_private.
        p.pf_log = { context, level, format, args in X264Log.forward(context, level, format, args) }
        p.p_log_private = Unmanaged.passUnretained(self).toOpaque()
    }

    private static func forward(_ context: UnsafeMutableRawPointer?, _ level: Int32, _ format: UnsafePointer<CChar>?,
                                _ args: CVaListPointer?) {
        guard let context, let format, let args else { return }
        let log = Unmanaged<X264Log>.fromOpaque(context).takeUnretainedValue()
        var buffer = [CChar](repeating: 0, count: 1024)
        let written = buffer.withUnsafeMutableBufferPointer { cx264_vformat($0.baseAddress, 1024, format, args) }
        guard written >= 0 else { return }
        let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        log.receive(level, text)
    }
}
