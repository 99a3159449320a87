#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import H264

/// A detached POSIX thread for a frame source's `start`: a pull source reads, renders and
/// delivers frames there, blocking as long as it runs, so it must not run on a thread of
/// Swift's cooperative pool (of which there are as many as cores). The standard library cannot
/// start a thread, hence the C library's.
enum SourceThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread.
    /// - Throws: `H264VideoError.Code.limitExceeded` when the system refuses a new thread.
    static func detach(_ body: @escaping @Sendable () -> Void) throws(H264VideoError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #else
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw H264VideoError.invalid(.limitExceeded, "cannot start a thread for the frame source (error \(result))")
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }
}
