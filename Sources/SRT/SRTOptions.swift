/// The settings of an SRT connection in live mode (the mode of MPEG-TS over SRT), given to
/// ``SRTSocket/connect(to:port:options:timeout:)`` and to an ``SRTListener`` (whose
/// accepted connections take them).
public struct SRTOptions: Sendable, Hashable {
    /// The receiver's buffering time (`SRTO_LATENCY`, both directions): packets lost are
    /// retransmitted within it, and each message is handed over this long after it was sent.
    /// The peers agree on the larger of their two. Default 120 ms (libsrt's).
    public var latency: Duration
    /// The stream id a caller sends (`SRTO_STREAMID`, at most ``maximumStreamIDLength``
    /// bytes): what a listener decides by (``SRTListener/Options/accept``). Nil sends none.
    /// Ignored by a listener.
    public var streamID: String?
    /// The passphrase of AES encryption (`SRTO_PASSPHRASE`, 10...79 bytes); nil for none. Both
    /// peers must have the same one, or none: otherwise the connection is refused
    /// (``SRTError/Code/passphraseMismatch``).
    public var passphrase: String?
    /// The AES key length in bytes (`SRTO_PBKEYLEN`): 16, 24 or 32 (AES-128, -192, -256).
    /// Used with a ``passphrase``.
    public var keyLength: Int
    /// The most bytes of one message (`SRTO_PAYLOADSIZE`): 1,316 (seven 188-byte TS packets)
    /// by default, at most ``maximumPayloadSize``.
    public var payloadSize: Int

    /// Whether the receiver hands each message over one ``latency`` after it was sent
    /// (`SRTO_TSBPDMODE`, libsrt's default: the sender's pacing reproduced, packets too late
    /// for it dropped) or as soon as it and those before it have arrived (false: a recorder or
    /// a relay whose output carries its own timing, the PCR of a transport stream, and which
    /// keeps what a peer sent just before closing: with timed delivery the receiver drops what
    /// it holds, up to one latency of the stream, when the peer closes).
    public var timestampBasedDelivery: Bool

    /// The longest stream id libsrt sends.
    public static let maximumStreamIDLength = 512
    /// The largest payload of a live-mode message over a 1,500-byte MTU (libsrt's
    /// `SRT_LIVE_MAX_PLSIZE`).
    public static let maximumPayloadSize = 1456
    /// The payload size that carries seven 188-byte TS packets.
    public static let transportStreamPayloadSize = 7 * 188

    /// Live-mode options: 120 ms of latency, no stream id, no encryption, 1,316-byte messages.
    public init(latency: Duration = .milliseconds(120), streamID: String? = nil, passphrase: String? = nil,
                keyLength: Int = 16, payloadSize: Int = SRTOptions.transportStreamPayloadSize,
                timestampBasedDelivery: Bool = true) {
        self.timestampBasedDelivery = timestampBasedDelivery
        self.latency = latency
        self.streamID = streamID
        self.passphrase = passphrase
        self.keyLength = keyLength
        self.payloadSize = payloadSize
    }

    /// Checks what libsrt would refuse later with a less precise error.
    func validate() throws(SRTError) {
        guard latency >= .zero, latency <= .seconds(60) else {
            throw SRTError.invalid(.invalidArgument, "latency \(latency) is outside 0...60 s")
        }
        if let streamID, streamID.utf8.count > Self.maximumStreamIDLength {
            throw SRTError.invalid(.invalidArgument, "the stream id is \(streamID.utf8.count) bytes, more than \(Self.maximumStreamIDLength)")
        }
        if let passphrase, !(10...79).contains(passphrase.utf8.count) {
            throw SRTError.invalid(.invalidArgument, "the passphrase is \(passphrase.utf8.count) bytes: SRT takes 10...79")
        }
        guard [16, 24, 32].contains(keyLength) else {
            throw SRTError.invalid(.invalidArgument, "key length \(keyLength): SRT takes 16, 24 or 32 bytes")
        }
        guard (188...Self.maximumPayloadSize).contains(payloadSize) else {
            throw SRTError.invalid(.invalidArgument, "payload size \(payloadSize) is outside 188...\(Self.maximumPayloadSize)")
        }
    }
}
