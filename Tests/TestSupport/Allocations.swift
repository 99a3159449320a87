import CAllocationCounter
import Testing

/// Heap allocations counted on the calling thread, for the allocation suites: the C allocator's
/// entry points (malloc, calloc, realloc and the aligned forms, the Swift runtime's allocations
/// included) are interposed in the test process by `CAllocationCounter`, which the benchmark
/// executable counts with too; the shipped `h264` does not link it.
///
/// Counts mean something in an optimised build only (an unoptimised one also allocates
/// temporaries the optimiser removes): the suites are enabled with ``isOptimizedBuild``, and
/// `.ci/run` runs them in a release pass (`swift test -c release -Xswiftc -enable-testing --filter
/// 'Allocation|Allocates|FormatChangeReuse'`).
public enum Allocations {
    /// True in a build with optimisation (no `DEBUG` condition).
    public static let isOptimizedBuild: Bool = {
        #if DEBUG
        return false
        #else
        return true
        #endif
    }()

    /// The reason the allocation suites give when they do not run.
    public static let optimizedBuildOnly: Comment = "counts allocations of an optimised build only: .ci/run runs them in a release pass"

    /// False in a sanitizer build, whose runtime owns the allocator: no count then.
    public static var isAvailable: Bool { h264_allocation_counting_available() != 0 }

    /// The number of heap allocations `body` makes on the calling thread (other threads of the
    /// process do not count); 0 when not ``isAvailable``.
    public static func count(_ body: () throws -> Void) rethrows -> Int {
        h264_allocation_counting_begin()
        defer { _ = h264_allocation_counting_end() }
        try body()
        return h264_allocation_counting_end()
    }
}
