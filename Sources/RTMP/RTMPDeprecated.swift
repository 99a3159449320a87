// The timeouts in whole milliseconds of earlier releases, kept so that code written for them
// still builds (with a deprecation warning on the caller's side): every timeout is a
// `Duration` now, as RTP's are.

import H264

extension RTMPConnection.Options {
    /// Time allowed for the TCP connection, in milliseconds.
    @available(*, deprecated, renamed: "connectTimeout")
    public var connectTimeoutMilliseconds: Int {
        get { connectTimeout.wholeMilliseconds }
        set { connectTimeout = .milliseconds(newValue) }
    }

    /// Time allowed for each operation after the connection, in milliseconds.
    @available(*, deprecated, renamed: "timeout")
    public var timeoutMilliseconds: Int {
        get { timeout.wholeMilliseconds }
        set { timeout = .milliseconds(newValue) }
    }

    /// Creates options with timeouts in milliseconds.
    @available(*, deprecated, renamed: "init(connectTimeout:timeout:chunkSize:flashVersion:sendFCPublish:)")
    public init(connectTimeoutMilliseconds: Int, timeoutMilliseconds: Int = 5000, chunkSize: Int = 4096,
                flashVersion: String = "FMLE/3.0 (compatible; swift-h264)", sendFCPublish: Bool = true) {
        self.init(connectTimeout: .milliseconds(connectTimeoutMilliseconds), timeout: .milliseconds(timeoutMilliseconds),
                  chunkSize: chunkSize, flashVersion: flashVersion, sendFCPublish: sendFCPublish)
    }

    /// Creates options with the operation timeout in milliseconds.
    @available(*, deprecated, renamed: "init(timeout:chunkSize:flashVersion:sendFCPublish:)")
    public init(timeoutMilliseconds: Int, chunkSize: Int = 4096, flashVersion: String = "FMLE/3.0 (compatible; swift-h264)",
                sendFCPublish: Bool = true) {
        self.init(timeout: .milliseconds(timeoutMilliseconds), chunkSize: chunkSize, flashVersion: flashVersion,
                  sendFCPublish: sendFCPublish)
    }
}

extension RTMPPublisher.OverflowPolicy {
    /// Wait up to the given milliseconds for room, then drop.
    @available(*, deprecated, renamed: "block(maximumWait:)")
    public static func block(maximumWaitMilliseconds: Int) -> Self {
        .block(maximumWait: .milliseconds(maximumWaitMilliseconds))
    }
}

extension RTMPPublisher {
    /// Sends what is queued and says goodbye, waiting at most `timeoutMilliseconds`.
    @available(*, deprecated, renamed: "finish(endOfSequenceTimestamp:timeout:)")
    public func finish(endOfSequenceTimestamp: Int64? = nil, timeoutMilliseconds: Int) throws(RTMPError) {
        try finish(endOfSequenceTimestamp: endOfSequenceTimestamp, timeout: .milliseconds(timeoutMilliseconds))
    }
}

extension RTMPVideoPublisher {
    /// Sends the end of sequence and says goodbye, waiting at most `timeoutMilliseconds`.
    @available(*, deprecated, renamed: "finish(timeout:)")
    @discardableResult
    public func finish(timeoutMilliseconds: Int) throws(RTMPError) -> RTMPPublisher.Statistics {
        try finish(timeout: .milliseconds(timeoutMilliseconds))
    }
}

extension AsyncRTMPPublisher {
    /// Sends what is queued and says goodbye, waiting at most `timeoutMilliseconds`.
    @available(*, deprecated, renamed: "finish(timeout:)")
    @discardableResult
    public func finish(timeoutMilliseconds: Int) async throws(RTMPError) -> RTMPPublisher.Statistics {
        try await finish(timeout: .milliseconds(timeoutMilliseconds))
    }

    /// Publishes every sample, then finishes within `finishTimeoutMilliseconds`.
    @available(*, deprecated, renamed: "publish(_:finishTimeout:)")
    @discardableResult
    public func publish<Samples: AsyncSequence>(_ samples: Samples, finishTimeoutMilliseconds: Int) async throws
        -> RTMPPublisher.Statistics where Samples.Element: AccessUnitSample {
        try await publish(samples, finishTimeout: .milliseconds(finishTimeoutMilliseconds))
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero, clamped to `Int`.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(clamping: seconds.multipliedReportingOverflow(by: 1000).overflow
            ? (seconds < 0 ? Int64.min : Int64.max)
            : (seconds &* 1000).addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }
}
