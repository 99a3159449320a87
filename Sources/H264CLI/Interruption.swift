#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MediaSupport
import Synchronization

/// SIGINT and SIGTERM for the commands that run long (`encode`, `convert`, `segment`,
/// `rtp-receive`, `edit`, `build-stream`): the first signal asks the command to stop, and the
/// command finishes its output with what is whole (flushes the encoder, writes the `moov`, ends
/// the playlist) and exits, as FFmpeg does. The fourth signal ends the process at once (FFmpeg's
/// "more than 3 signals"), leaving its output under its temporary name.
///
/// The handlers are installed with `sigaction` whatever the disposition the process inherited
/// (and the two signals unblocked): a shell script starts background jobs with SIGINT ignored,
/// and such a job must still stop when told to. They are installed without `SA_RESTART`, so a blocking system call on the
/// thread that takes the signal returns `EINTR`; and since the signal may be delivered to any
/// thread, the handler also fires an `Interrupt` (the package's one, whose firing is
/// async-signal-safe: an atomic flag and a write to a pipe) that ``waitReadable(_:)`` watches
/// along with the descriptor it waits for: a read on a pipe or terminal never outlives the
/// signal, whichever thread reads.
///
/// Loops check ``isRequested`` between chunks, frames or packets.
enum Interruption {
    /// The first signal received (0 while none).
    private static let signalNumber = Atomic<Int32>(0)
    /// Signals received.
    private static let count = Atomic<Int>(0)
    /// Fired by the handler: every ``waitReadable(_:)`` returns from the first signal on.
    private static let wake = Interrupt()
    /// True once the handlers are installed.
    private static let installed = Atomic<Bool>(false)

    /// Installs the handlers for SIGINT and SIGTERM (once; later calls do nothing).
    static func install() {
        guard installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        // Every global the handler touches is made here, not in the handler.
        _ = signalNumber.load(ordering: .relaxed)
        _ = count.load(ordering: .relaxed)
        _ = wake.isFired
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { received in Interruption.handle(received) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocked read returns EINTR
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM] {
            sigaction(signal, &action, nil)
            sigaddset(&set, signal)
        }
        // A mask inherited with these signals blocked would hold them back for ever; threads
        // started later inherit this thread's mask.
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The handler: async-signal-safe operations only (atomics, `write`, `_exit`, `raise`).
    private static func handle(_ received: Int32) {
        _ = signalNumber.compareExchange(expected: 0, desired: received, ordering: .relaxed)
        let n = count.wrappingAdd(1, ordering: .relaxed).newValue
        wake.fire()
        if n > 3 {
            // The process ends by the signal, as it would without a handler (the signal is
            // blocked while its handler runs: unblocked first).
            var action = sigaction()
            action.__sigaction_handler.sa_handler = SIG_DFL
            sigaction(received, &action, nil)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, received)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(received)
            _exit(128 &+ received)
        }
    }

    /// True once SIGINT or SIGTERM has been received.
    static var isRequested: Bool { signalNumber.load(ordering: .relaxed) != 0 }

    /// The signal's name (`SIGINT`, `SIGTERM`), nil before one arrived.
    static var signalName: String? {
        switch signalNumber.load(ordering: .relaxed) {
        case 0: nil
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case let n: "signal \(n)"
        }
    }

    /// Waits until `fd` has something to read (or its end, or an error, to report), or an
    /// interruption is requested.
    /// - Returns: false when interrupted.
    static func waitReadable(_ fd: Int32) -> Bool {
        !isRequested && wake.waitUntilReadable(fd) && !isRequested
    }

    /// What ``read(_:into:mayBlock:)`` got.
    enum ReadResult {
        /// Bytes read.
        case bytes(Int)
        /// The end of the input.
        case end
        /// An interruption came before any byte.
        case interrupted
        /// The read failed.
        case failed(FileError)
    }

    /// One read that gives up at an interruption: on a descriptor that may block (a pipe, a
    /// terminal, a socket) it first waits with ``waitReadable(_:)``; a regular file is read at
    /// once (it never blocks for long) and the caller checks ``isRequested`` between reads.
    /// - Parameter buffer: not empty.
    static func read(_ file: SystemFile, into buffer: UnsafeMutableRawBufferPointer, mayBlock: Bool) -> ReadResult {
        while true {
            if mayBlock && !waitReadable(file.descriptor) { return .interrupted }
            do throws(FileError) {
                guard let n = try file.readSome(into: buffer) else {  // EINTR or EAGAIN
                    if isRequested { return .interrupted }
                    continue
                }
                return n > 0 ? .bytes(n) : .end
            } catch {
                return .failed(error)
            }
        }
    }

    /// How ``fill(_:_:mayBlock:)`` stopped.
    enum FillEnd { case full, end, interrupted }

    /// Reads into `buffer` with ``read(_:into:mayBlock:)`` until it is full, the input ends or
    /// an interruption comes.
    /// - Returns: the bytes read, and why it stopped.
    /// - Throws: the read's ``FileError``.
    static func fill(_ file: SystemFile, _ buffer: UnsafeMutableRawBufferPointer,
                     mayBlock: Bool) throws(FileError) -> (count: Int, end: FillEnd) {
        var count = 0
        while count < buffer.count {
            switch read(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), mayBlock: mayBlock) {
            case .bytes(let n): count &+= n  // n <= buffer.count - count
            case .end: return (count, .end)
            case .interrupted: return (count, .interrupted)
            case .failed(let e): throw e
            }
        }
        return (count, .full)
    }
}
