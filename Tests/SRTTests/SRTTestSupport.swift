import Foundation
import H264
import H264Fixtures
import MPEGTS
import SRT
import TestSupport

/// What the SRT tests share: sources, the access units to compare, receive loops, tools.
enum SRTTestSupport {
    /// One access unit as compared across a transport: its NAL units without delimiters (a
    /// muxer may add them), its sync flag, its times on the 90 kHz clock.
    struct Unit: Equatable, CustomStringConvertible {
        var payload: [[UInt8]]
        var isSync: Bool
        var pts: Int64
        var dts: Int64
        var description: String { "(sync \(isSync), pts \(pts), dts \(dts), \(payload.count) NAL units)" }
    }

    /// The access units our parser reads from `ts`, and the parser's statistics.
    static func units(_ ts: [UInt8]) -> (units: [Unit], statistics: TSParser.Statistics) {
        var parser = TSParser()
        var units: [Unit] = []
        func drain() {
            while let event = parser.next() {
                guard case .accessUnit(let au) = event else { continue }
                let t = au.timestamps?.rescaled(to: 90_000)
                units.append(Unit(payload: au.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) },
                                  isSync: au.flags.isSync, pts: t?.pts ?? -1, dts: t?.dts ?? -1))
            }
        }
        parser.append(ts)
        drain()
        parser.finish()
        drain()
        // Times from the first decoding time: a remuxer may shift them all (FFmpeg's muxer
        // delay, even with -copyts).
        if let first = units.first?.dts {
            for i in units.indices {
                units[i].pts -= first
                units[i].dts -= first
            }
        }
        return (units, parser.statistics)
    }

    /// A fixture muxed by our writer (25 fps when the stream has no timing).
    static func fixtureTS(_ fixture: Fixture) throws -> [UInt8] {
        let units = AccessUnits.assemble(annexB: fixture.bytes()[...], timing: TimestampOptions(frameRate: (25, 1)),
                                         leadingData: .skip).accessUnits.filter { !$0.flags.hasNoPicture }
        var writer = try TSWriter()
        var out: [UInt8] = []
        for au in units {
            try writer.write(au)
            out += writer.takeBytes()
        }
        return out
    }

    /// Two seconds of 320x240 at 25 fps with B-frames and an IDR every second, encoded by
    /// FFmpeg (libx264) into a transport stream once per run: 50 access units, 3 keyframes.
    static let ffmpegSource: Result<String, any Error> = Result {
        let dir = try Support.temporaryDirectory()
        let path = dir + "/source.ts"
        try FFmpeg.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "2", "-c:v", "libx264",
                           "-preset", "ultrafast", "-bf", "2", "-g", "25", "-pix_fmt", "yuv420p", "-f", "mpegts", path],
                          timeout: 60).checked("ffmpeg testsrc")
        return path
    }

    /// A UDP port free on the loopback.
    static func freePort() -> Int { Ports.freeEvenPort() }

    /// Receives messages until the peer closes the connection (or `idle` passes without one).
    /// - Returns: the bytes and whether the peer closed (false: silence ended it).
    static func receiveAll(_ socket: SRTSocket, idle: Duration = .seconds(3)) throws -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        while bytes.count < 64 << 20 {  // bounded whatever the peer does
            switch Result(catching: { () throws(SRTError) in try socket.receive(timeout: idle) }) {
            case .success(let message?): bytes += message
            case .success(nil): return (bytes, false)
            case .failure(let error) where error.code == .connectionClosed: return (bytes, true)
            case .failure(let error): throw error
            }
        }
        return (bytes, false)
    }

    /// Connects, trying again while the listener (another process starting) does not answer,
    /// for at most `within`.
    static func connect(port: Int, options: SRTOptions, within: Duration = .seconds(10)) throws -> SRTSocket {
        let deadline = ContinuousClock.now + within
        while true {
            switch Result(catching: { () throws(SRTError) in
                try SRTSocket.connect(to: "127.0.0.1", port: port, options: options, timeout: .milliseconds(500))
            }) {
            case .success(let socket): return socket
            case .failure(let error) where error.code == .timedOut && ContinuousClock.now < deadline: continue
            case .failure(let error): throw error
            }
        }
    }

    /// Sends a whole transport stream, seven packets per message.
    static func send(_ ts: [UInt8], over socket: SRTSocket) throws {
        var start = 0
        while start < ts.count {
            let end = min(ts.count, start + 1316)
            try socket.send(ts[start..<end], timeout: .seconds(2))
            start = end
        }
    }

    /// Whether srt-live-transmit (Debian srt-tools) is installed; under CI, required.
    static let srtLiveTransmitIsPresent = Tool.required("srt-live-transmit")
}
