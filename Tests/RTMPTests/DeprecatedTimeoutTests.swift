import Testing
import TestSupport
@testable import RTMP

/// The timeouts in milliseconds of earlier releases still build (with a warning on the
/// caller's side) and mean the `Duration`s that replaced them. Called through protocols the
/// deprecated members witness, so that this test itself builds without warnings.
@Suite struct DeprecatedTimeoutTests {
    @Test func connectionOptionsInMillisecondsMeanTheirDurations() {
        let both = LegacyOptions.make(connect: 1500, operation: 250)
        #expect(both.connectTimeout == .milliseconds(1500))
        #expect(both.timeout == .milliseconds(250))
        #expect(both.chunkSize == RTMPConnection.Options().chunkSize)
        let operationOnly = LegacyOptions.make(operation: 300)
        #expect(operationOnly.connectTimeout == RTMPConnection.Options().connectTimeout)
        #expect(operationOnly.timeout == .milliseconds(300))
        var options = RTMPConnection.Options(connectTimeout: .milliseconds(2750), timeout: .microseconds(1999))
        #expect(LegacyOptions.milliseconds(of: options) == (2750, 1))  // whole milliseconds, toward zero
        LegacyOptions.set(&options, connect: 40, operation: 7)
        #expect(options.connectTimeout == .milliseconds(40))
        #expect(options.timeout == .milliseconds(7))
    }

    @Test func blockingPolicyInMillisecondsMeansItsDuration() {
        #expect(LegacyPolicy.block(40) == .block(maximumWait: .milliseconds(40)))
    }
}

private protocol LegacyConnectionOptions {
    init(connectTimeoutMilliseconds: Int, timeoutMilliseconds: Int, chunkSize: Int, flashVersion: String, sendFCPublish: Bool)
    init(timeoutMilliseconds: Int, chunkSize: Int, flashVersion: String, sendFCPublish: Bool)
    var connectTimeoutMilliseconds: Int { get set }
    var timeoutMilliseconds: Int { get set }
}

extension RTMPConnection.Options: LegacyConnectionOptions {}

private enum LegacyOptions {
    static func make(connect: Int, operation: Int) -> RTMPConnection.Options {
        build(RTMPConnection.Options.self, connect: connect, operation: operation)
    }

    static func make(operation: Int) -> RTMPConnection.Options { build(RTMPConnection.Options.self, operation: operation) }

    static func milliseconds(of options: RTMPConnection.Options) -> (Int, Int) { read(options) }

    static func set(_ options: inout RTMPConnection.Options, connect: Int, operation: Int) {
        write(&options, connect: connect, operation: operation)
    }

    private static func build<O: LegacyConnectionOptions>(_: O.Type, connect: Int, operation: Int) -> O {
        O(connectTimeoutMilliseconds: connect, timeoutMilliseconds: operation, chunkSize: 4096,
          flashVersion: "FMLE/3.0 (compatible; swift-h264)", sendFCPublish: true)
    }

    private static func build<O: LegacyConnectionOptions>(_: O.Type, operation: Int) -> O {
        O(timeoutMilliseconds: operation, chunkSize: 4096, flashVersion: "FMLE/3.0 (compatible; swift-h264)", sendFCPublish: true)
    }

    private static func read<O: LegacyConnectionOptions>(_ options: O) -> (Int, Int) {
        (options.connectTimeoutMilliseconds, options.timeoutMilliseconds)
    }

    private static func write<O: LegacyConnectionOptions>(_ options: inout O, connect: Int, operation: Int) {
        options.connectTimeoutMilliseconds = connect
        options.timeoutMilliseconds = operation
    }
}

private protocol LegacyOverflowPolicy {
    static func block(maximumWaitMilliseconds: Int) -> Self
}

extension RTMPPublisher.OverflowPolicy: LegacyOverflowPolicy {}

private enum LegacyPolicy {
    static func block(_ milliseconds: Int) -> RTMPPublisher.OverflowPolicy { make(RTMPPublisher.OverflowPolicy.self, milliseconds) }

    private static func make<P: LegacyOverflowPolicy>(_: P.Type, _ milliseconds: Int) -> P {
        P.block(maximumWaitMilliseconds: milliseconds)
    }
}
