import Testing
import TestSupport

/// `h264 --help` lists every command by its whole name (the overview used to cut names
/// longer than ten characters: "build-stre").
@Suite struct CLIHelpTests {
    @Test(.enabled(if: Support.h264 != nil, "the h264 executable is not built"))
    func overviewNamesEveryCommandWhole() throws {
        let run = try CLIRobustnessTests.run(["--help"])
        #expect(run.status == 0)
        let text = String(decoding: run.stdout, as: UTF8.self)
        let names = text.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first }.map(String.init)
        #expect(names.contains("build-stream"))
        #expect(names.count >= 10)
        // Each name is a command: its own help works.
        for name in names {
            #expect(try CLIRobustnessTests.run([name, "--help"]).status == 0, "\(name) --help")
        }
    }

    /// The shipped tool measures nothing: `bench` is the benchmark executable's, and the C
    /// allocator's counting entry points (CAllocationCounter, which interposes malloc) are not
    /// linked into `h264`.
    @Test(.enabled(if: Support.h264 != nil, "the h264 executable is not built"))
    func theToolHasNoBenchmarkNorAllocationCounter() throws {
        let run = try CLIRobustnessTests.run(["bench", "--json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("unknown command 'bench'"), "\(run.stderr)")
        let binary = Support.readFile(try #require(Support.h264))
        #expect(binary.count > 1 << 20)
        #expect(!binary.contains(Array("h264_allocation_counting".utf8)), "h264 links the allocation counter")
    }
}
