// The bodies of the libFuzzer targets in Tests/Fuzz (but mp4_read's, in MP4Tests). This file
// (with FuzzBodies+*.swift and FuzzSeeds.swift) compiles twice: into the fuzz binary
// (Tests/Fuzz/run.sh links it with the library modules, built with coverage instrumentation),
// and into IntegrationTests, where FuzzRegressionTests replays every kept crasher through the same
// functions.
import H264
#if canImport(TestSupport)
import TestSupport  // FuzzProperty; the fuzz binary compiles its file in
#endif

/// One function per fuzz target. Each takes arbitrary bytes, drives public entry points, and
/// reports (through ``FuzzBodies/check(_:_:)``) only when a property the library promises does
/// not hold; a thrown `H264Error` is a correct answer to hostile input.
enum FuzzBodies {
    /// The targets, by the names `Tests/Fuzz/run.sh` and `Tests/Fuzz/Regressions/<name>` use.
    static let targets: [String: @Sendable ([UInt8]) -> Void] = [
        "annexb_parse": annexBParse,
        "streaming": streaming,
        "avcc": avcc,
        "access_units": accessUnits,
        "roundtrip": roundTrip,
        "rtp_depacketize": rtpDepacketize,
        "y4m_parse": y4mParse,
        "sdp_parse": sdpParse,
        "flv_read": flvRead,
        "rtmp_receive": rtmpReceive,
        "rtmp_serve": rtmpServe,
        "ts_demux": tsDemux,
        "rtsp_response": rtspResponse,
    ]

    /// Reports a broken promise (``FuzzProperty``: a trap in the fuzz binary, a recorded issue
    /// in the tests) when `condition` is false.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        FuzzProperty.check(condition, message())
    }

    /// The NAL units of an Annex-B stream, going on after errors (leading bytes skipped).
    static func nalUnits(_ bytes: ArraySlice<UInt8>) -> [NALUnit] {
        var splitter = AnnexB.Splitter(bytes, leadingData: .skip)
        var units: [NALUnit] = []
        var steps = 0
        while steps <= bytes.count &+ 2 {  // each step consumes input; the bound guards a loop bug
            steps &+= 1
            do throws(H264Error) {
                guard let unit = try splitter.next() else { break }
                units.append(unit)
            } catch {}
        }
        return units
    }

    // MARK: - annexb_parse

    /// Annex-B split, then every NAL unit parsed as what it is (SPS, PPS, subset SPS through the
    /// store; SEI with the store as context; slice headers), and traced.
    static func annexBParse(_ data: [UInt8]) {
        var store = ParameterSetStore()
        var traceStore = ParameterSetStore()
        var strict = ParameterSetStore(parseMode: .strict)
        var lenient = ParameterSetStore(parseMode: .lenient)
        for unit in nalUnits(data[...]) {
            _ = try? store.ingest(unit)
            // Whatever SPS the strict mode accepts, the lenient one accepts too (a PPS depends
            // on the SPS each store holds, which may differ).
            let strictStored = (try? strict.ingest(unit)) ?? false
            let lenientStored = (try? lenient.ingest(unit)) ?? false
            check(unit.type != .sps || !strictStored || lenientStored, "a lenient store refuses an SPS a strict one accepts")
            switch unit.type {
            case .sei:
                _ = try? SEI.parse(unit, context: store)
                _ = try? SEI.parse(unit, context: store, options: .framingOnly)
                _ = try? SEI.trace(unit, context: store)
                _ = try? SEI.removingMessages(ofType: SEIPayloadType(5), from: unit)
            case .slice, .idrSlice, .sliceExtension:
                _ = try? SliceHeader.parse(unit, context: store)
            default:
                break
            }
            let trace = NALUnitTrace.trace(unit, store: &traceStore)
            check(!trace.elements.isEmpty || trace.error != nil, "a trace with neither elements nor error")
            // Resource property: every element but the header's takes at least one bit, and a
            // byte payload is one element: what a trace keeps follows the NAL unit's size.
            check(trace.elements.count <= unit.count &* 8 &+ 16, "\(trace.elements.count) trace elements for \(unit.count) bytes")
        }
    }

    // MARK: - streaming

    /// The streaming parser, fed in chunk sizes the first bytes choose, yields exactly what the
    /// batch splitter yields for the same bytes.
    static func streaming(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let sizeCount = Int(first & 7) &+ 1  // 1...8 size bytes follow
        guard data.count > sizeCount else { return }
        let sizes = data[1...sizeCount].map { Int($0) &+ 1 }  // 1...256 bytes per chunk
        let stream = Array(data[(sizeCount &+ 1)...])
        let policy: AnnexB.LeadingDataPolicy = first & 8 == 0 ? .reject : .skip
        let batch = FramingEvents.split(stream[...], policy: policy)
        let streamed = FramingEvents.stream(stream, sizes: sizes, policy: policy)
        check(batch == streamed, "streaming \(streamed.count) events != batch \(batch.count) events, chunks \(sizes)")
        // A small NAL unit limit must be enforced without trapping, whatever the chunking.
        _ = FramingEvents.stream(stream, sizes: sizes, policy: policy, maximum: Int(first >> 4) &+ 1)
    }

    // MARK: - avcc

    /// avcC record parsing and writing, AVCC splitting, and both conversions. Byte 0 chooses the
    /// length size, bytes 1-2 (big-endian) the length of the avcC record that follows; the rest
    /// is the length-prefixed payload (and, for annexBToAVCC, an Annex-B stream).
    static func avcc(_ data: [UInt8]) {
        guard data.count >= 3 else { return }
        let first = data[0]
        let body = data[3...]
        let recordLength = min(body.count, Int(data[1]) << 8 | Int(data[2]))
        let recordBytes = body.prefix(recordLength)
        let payload = body.dropFirst(recordLength)
        let lengthSizes: [AVCC.LengthSize] = [.one, .two, .four]
        let lengthSize = lengthSizes[Int(first) % 3]
        _ = try? AVCC.split(payload, lengthSize: lengthSize)
        if let record = try? AVCDecoderConfigurationRecord(parsing: recordBytes) {
            let written: [UInt8]
            do throws(H264Error) { written = try record.serialized() } catch {
                check(false, "a parsed avcC record does not write: \(error)"); return
            }
            let again = try? AVCDecoderConfigurationRecord(parsing: written[...])
            check(again == record, "an avcC record does not survive serialise + parse")
            if let annexB = try? FormatConversion.avccToAnnexB(payload, configuration: record) {
                _ = nalUnits(annexB[...])
                // Resource property: start codes for length fields (at most 2.5 times), and
                // parameter sets inserted at most the input's bytes plus one access unit's bound.
                let bound = 4 &* data.count &+ ParameterSetInserter.defaultMaximumBytesPerAccessUnit
                check(annexB.count <= bound, "\(annexB.count) Annex-B bytes from \(data.count) input bytes")
            }
            _ = try? FormatConversion.avccToAnnexB(payload, configuration: record, lengthSize: lengthSize)
        }
        if let converted = try? FormatConversion.annexBToAVCC(body, lengthSize: lengthSize, leadingData: .skip) {
            let units = try? AVCC.split(converted.bytes, lengthSize: lengthSize)
            check(units != nil, "AVCC written by annexBToAVCC does not split")
            _ = try? FormatConversion.avccToAnnexB(converted.bytes[...], configuration: converted.configuration)
        }
    }

    // MARK: - access_units

    /// Access-unit assembly with POC and timestamps, batch and streaming; the first byte
    /// chooses the timing configuration, small limits and the chunk size.
    static func accessUnits(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let stream = data[1...]
        let timing = TimestampOptions(
            frameRate: first & 1 == 0 ? nil : (numerator: Int64(first >> 4) &+ 1, denominator: 1),
            overridesStreamTiming: first & 2 != 0,
            reorderDepth: first & 4 == 0 ? nil : Int(first >> 5))
        var dropped = 0
        let (units, errors) = AccessUnits.assemble(annexB: stream, timing: timing, leadingData: .skip, droppedErrorCount: &dropped)
        for au in units { check(!au.nalUnits.isEmpty, "an empty access unit") }
        // Resource properties: a format change keeps the parameter sets that changed, never a
        // copy of all of them (so all changes together hold at most the input's parameter
        // sets); error lists stay capped.
        let parameterSets = nalUnits(stream).filter { $0.type == .sps || $0.type == .pps }.count
        let kept = units.reduce(0) { $0 &+ ($1.formatChange?.changedParameterSets.count ?? 0) }
        check(kept <= parameterSets, "format changes keep \(kept) parameter sets of \(parameterSets) in the input")
        check(errors.count <= AccessUnits.maximumErrors, "\(errors.count) errors kept")
        for au in units { check(au.diagnostics.count <= AccessUnitAssembler.maximumDiagnostics, "\(au.diagnostics.count) diagnostics kept") }

        let limits = first & 8 == 0 ? AccessUnitLimits()
            : AccessUnitLimits(maxAccessUnitBytes: 512, maxNALUnitsPerAccessUnit: 4)
        var parser = AccessUnitParser(timing: timing, limits: limits, leadingData: .skip)
        let chunk = Int(first >> 4) &* 16 &+ 1
        var i = stream.startIndex
        var produced = 0
        func drain() {
            var steps = 0
            while steps <= data.count &+ 2 {
                steps &+= 1
                do throws(H264Error) {
                    guard let au = try parser.next() else { return }
                    check(!au.nalUnits.isEmpty, "an empty access unit")
                    produced &+= 1
                } catch {}
            }
            check(false, "the access-unit parser did not stop yielding")
        }
        while i < stream.endIndex {
            let end = min(i + chunk, stream.endIndex)
            parser.append(stream[i..<end])
            drain()
            i = end
        }
        parser.finish()
        drain()
        check(produced <= data.count, "more access units than bytes")
    }

    // MARK: - roundtrip

    /// `AnnexBHeaderEditor` without edits returns any input unchanged (every NAL unit is
    /// written again, and one it cannot parse is copied); with edits the last byte chooses,
    /// it returns a stream or a typed error.
    static func headerEditor(_ data: [UInt8]) {
        var unparsed: [(index: Int, error: H264Error)] = []
        do throws(H264Error) {
            let same = try AnnexBHeaderEditor.edit(data[...], edits: HeaderEdits(), unparsed: &unparsed)
            check(same == data, "the header editor without edits changed the stream")
            // The streaming editor in small chunks gives the same bytes.
            var editor = AnnexBStreamEditor(edits: HeaderEdits(), maximumNALUnitSize: 64)
            var out: [UInt8] = []
            var i = 0
            while i < data.count {
                let end = min(i &+ 7, data.count)
                try editor.append(data[i..<end], to: &out)
                i = end
            }
            try editor.finish(to: &out)
            check(out == data, "the streaming editor without edits changed the stream")
            check(editor.unparsed.count <= AnnexBStreamEditor.maximumReports, "unparsed reports past the cap")
        } catch {
            check(false, "the header editor without edits threw \(error)")
        }
        check(zip(unparsed, unparsed.dropFirst()).allSatisfy { $0.index < $1.index }, "unparsed NAL units out of order")
        let k = data.last ?? 0
        var edits = HeaderEdits()
        if k & 1 != 0 { edits.sampleAspectRatio = (UInt16(k), 3) }
        if k & 2 != 0 { edits.accessUnitDelimiters = k & 4 != 0 ? .insert : .remove }
        if k & 8 != 0 { edits.levelIDC = 41 }
        if k & 16 != 0 { edits.frameRate = (30000, 1001) }
        if k & 32 != 0 { edits.crop = [0, 2, 0, 2] }
        if k & 64 != 0 { edits.removedSEIPayloadTypes = [SEIPayloadType(5), SEIPayloadType(6)] }
        if k & 128 != 0 { edits.fullRange = true; edits.colourPrimaries = 1 }
        if let edited = try? AnnexBHeaderEditor.edit(data[...], edits: edits) {
            // Resource property: an AUD (6 bytes) per access unit, SPS fields a few bytes each.
            check(edited.count <= 3 &* data.count &+ 64, "\(edited.count) bytes edited from \(data.count)")
        }
    }

    /// SEI insertion (captions on every picture, a time code with the pic_struct SPS edit, a
    /// recovery point) in small chunks: never traps, never more output than the input plus a
    /// bounded amount per picture, reports within their cap.
    static func seiInserter(_ data: [UInt8]) {
        let k = data.first ?? 0
        var schedule = SEIInsertionSchedule()
        if let captions = try? SEIMessage.captions(A53CaptionData(constructs: [.init(type: .ntscField1, data1: 0x94, data2: 0x20)])) {
            schedule.add(captions, on: .all)
        }
        if k & 1 != 0, let start = try? SMPTETimecode(parsing: "23:59:59:00") { schedule.timecode = .init(start: start) }
        if k & 2 != 0 { schedule.recoveryPoints = .init(recoveryFrameCount: 3, frames: k & 4 != 0 ? nil : .all) }
        var inserter = SEIInserter(schedule: schedule, options: .init(setsPicStructPresent: k & 1 != 0, maximumHeldBytes: 1 << 12,
                                                                      maximumNALUnitSize: 1 << 12))
        var out: [UInt8] = []
        do throws(H264Error) {
            var i = 0
            while i < data.count {
                let end = min(i &+ 5, data.count)
                try inserter.append(data[i..<end], to: &out)
                i = end
            }
            try inserter.finish(to: &out)
        } catch {
            check(false, "the SEI inserter threw \(error)")
        }
        // Per picture: one SEI NAL unit of three small messages; per SPS: a VUI of a few bytes.
        check(out.count <= 2 &* data.count &+ 64 &* (inserter.picturesWithInsertions &+ 1), "\(out.count) bytes from \(data.count)")
        check(inserter.problems.count <= SEIInserter.maximumReports, "SEI inserter reports past the cap")
    }

    /// Whatever parses (SPS, PPS, subset SPS, slice header, SEI) writes back and parses again
    /// to an equal value; the header editor without edits gives back the input byte for byte.
    static func roundTrip(_ data: [UInt8]) {
        headerEditor(data)
        seiInserter(data)
        var store = ParameterSetStore()
        for unit in nalUnits(data[...]) {
            switch unit.type {
            case .sps:
                // A lenient parse (a repaired SPS) writes back to a conforming SPS.
                var warnings: [ParseWarning] = []
                if let repaired = try? SequenceParameterSet(rbsp: unit.rbsp, mode: .lenient, warnings: &warnings),
                   let bytes = try? repaired.rbsp() {
                    check((try? SequenceParameterSet(rbsp: bytes[...], mode: .default, warnings: &warnings)) == repaired,
                          "a leniently parsed SPS does not survive write + parse")
                }
                guard let sps = try? SequenceParameterSet(rbsp: unit.rbsp) else { continue }
                let written: [UInt8]
                do throws(H264Error) { written = try sps.rbsp() } catch {
                    check(false, "a parsed SPS does not write: \(error)"); continue
                }
                let again = try? SequenceParameterSet(rbsp: written[...])
                check(again == sps, "an SPS does not survive write + parse")
                store.insert(sps)
            case .pps:
                guard let pps = try? PictureParameterSet(rbsp: unit.rbsp, context: store) else { continue }
                let written: [UInt8]
                do throws(H264Error) { written = try pps.rbsp(context: store) } catch {
                    check(false, "a parsed PPS does not write: \(error)"); continue
                }
                let again = try? PictureParameterSet(rbsp: written[...], context: store)
                check(again == pps, "a PPS does not survive write + parse")
                store.insert(pps)
            case .subsetSPS:
                guard let subset = try? SubsetSequenceParameterSet(rbsp: unit.rbsp) else { continue }
                let written: [UInt8]
                do throws(H264Error) {
                    written = try subset.rbsp(context: store)
                } catch {
                    check(false, "a parsed subset SPS does not write: \(error)"); continue
                }
                let again = try? SubsetSequenceParameterSet(rbsp: written[...])
                check(again == subset, "a subset SPS does not survive write + parse")
                store.insert(subset)
            case .sei:
                guard let sei = try? SEI.parse(unit, context: store) else { continue }
                let written: NALUnit
                do throws(H264Error) { written = try sei.nalUnit() } catch {
                    check(false, "a parsed SEI does not write: \(error)"); continue
                }
                let again = try? SEI.parse(written, context: store)
                check(again == sei, "an SEI NAL unit does not survive write + parse")
            case .slice, .idrSlice:
                guard let (header, _) = try? SliceHeader.parse(unit, context: store) else { continue }
                let bits: BitWriter
                do throws(H264Error) {
                    bits = try header.write(context: store)
                } catch {
                    check(false, "a parsed slice header does not write: \(error)"); continue
                }
                // Slice data follows the header: pad with a one bit and zeros, like a stop bit.
                var padded = bits
                padded.writeTrailingBits()
                let again = try? SliceHeader.parse(rbsp: padded.bytes[...], nalUnitHeader: NALUnitHeader(unit), context: store)
                check(again?.header == header, "a slice header does not survive write + parse")
            default:
                break
            }
        }
    }
}
