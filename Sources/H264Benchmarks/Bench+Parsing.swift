import H264

/// Parsing measurements for the benchmark executable: the access-unit layer and the header parsers.
enum ParsingBench {
    /// `access_units_gbps`: the whole access-unit layer over the stream (split, parameter sets,
    /// slice headers, boundaries per 7.4.1.2.4, keyframe flags, POC, DTS/PTS).
    /// - Returns: a number that depends on the result (access units plus keyframes).
    static func accessUnits(_ stream: ArraySlice<UInt8>) -> Int {
        let (units, errors) = AccessUnits.assemble(annexB: stream, leadingData: .skip)
        var n = errors.count
        for au in units {
            n &+= 1
            if au.isRandomAccessPoint { n &+= 1 }
            n &+= Int(truncatingIfNeeded: au.pts ?? 0)
        }
        return n
    }

    /// `access_units_streaming_gbps`: the same layer as ``accessUnits(_:)`` through
    /// ``AccessUnitParser`` (what `h264 inspect` uses), fed 1 MiB chunks, each access unit
    /// handed back to the parser (`next(into:)`) once used: the steady state of a long-lived
    /// service.
    /// - Returns: a number that depends on the result (access units plus keyframes).
    static func accessUnitsStreaming(_ stream: ArraySlice<UInt8>) -> Int {
        var parser = AccessUnitParser(leadingData: .skip)
        var au = AccessUnit()
        var n = 0
        var i = stream.startIndex
        var ended = false
        while true {
            if parser.needsInput && !ended {
                if i < stream.endIndex {
                    let end = Swift.min(i &+ (1 << 20), stream.endIndex)
                    parser.append(stream[i..<end])
                    i = end
                } else {
                    parser.finish()
                    ended = true
                }
            }
            do throws(H264Error) {
                if try parser.next(into: &au) {
                    n &+= au.isRandomAccessPoint ? 2 : 1
                } else if ended {
                    return n
                }
            } catch {
                n &+= 1
            }
        }
    }

    /// The number of access units ``accessUnits(_:)`` assembles from `stream`.
    static func accessUnitCount(_ stream: ArraySlice<UInt8>) -> Int {
        AccessUnits.assemble(annexB: stream, leadingData: .skip).accessUnits.count
    }

    /// `parse_headers_gbps`: every NAL unit header, SPS, PPS, subset SPS, SEI and slice header
    /// of the stream parsed, with a ``ParameterSetStore`` as their context and each slice's
    /// parameter sets made active (errors counted, not thrown: the
    /// generated stream's slice headers are random bits). Each slice header is parsed into one
    /// kept across the stream (`SliceHeader.parse(_:context:into:)`), as a reader that keeps
    /// nothing of a header past its slice does.
    static func parseHeaders(_ stream: ArraySlice<UInt8>) throws -> Int {
        var splitter = AnnexB.Splitter(stream, leadingData: .skip)
        var store = ParameterSetStore()
        var header = SliceHeader()
        var n = 0
        while let unit = try splitter.next() {
            n &+= Int(unit.type.rawValue) &+ Int(unit.nalRefIdc)
            do throws(H264Error) {
                switch unit.type {
                case .sps, .pps, .subsetSPS: try store.ingest(unit)
                case .sei: n &+= try SEI.parse(unit, context: store).messages.count
                case .slice, .idrSlice, .sliceExtension:
                    n &+= try SliceHeader.parse(unit, context: store, into: &header)
                    try store.activate(header)
                default: break
                }
            } catch {
                n &+= 1
            }
        }
        return n
    }

    /// The NAL units of a stream for ``sliceHeadersPerSecond(_:)``: its parameter sets and its
    /// slices (types 1, 5), in order.
    static func headerUnits(_ stream: [UInt8]) -> [NALUnit] {
        var splitter = AnnexB.Splitter(stream[...], leadingData: .skip)
        var units: [NALUnit] = []
        while let unit = try? splitter.next() {
            if [.slice, .idrSlice, .sps, .pps].contains(unit.type) { units.append(unit) }
        }
        return units
    }

    /// `slice_headers_per_s`: slice headers parsed (and their parameter sets made active, as a
    /// stream reader does) per second of this thread's CPU time (parameter sets ingested as they
    /// come; only slices whose header parses are counted),
    /// over passes for at least `seconds`.
    static func sliceHeadersPerSecond(_ units: [NALUnit], seconds: Double = 0.3) throws -> Double {
        var parsed = 0
        var sink = 0
        func pass() {
            var store = ParameterSetStore()
            parsed = 0
            for unit in units {
                if unit.type == .sps || unit.type == .pps {
                    _ = try? store.ingest(unit)
                } else if let h = try? SliceHeader.parse(unit, context: store), (try? store.activate(h.header)) != nil {
                    parsed &+= 1
                    sink &+= h.bitLength
                }
            }
        }
        pass()
        let perPass = parsed
        let perNanosecond = RTPBench.measure(bytesPerPass: perPass, seconds: seconds, pass)
        return sink != 0 ? perNanosecond * 1e9 : 0
    }

    /// `slice_headers_reused_per_s`: ``sliceHeadersPerSecond(_:seconds:)``'s loop with every
    /// header parsed into one kept across the stream (`SliceHeader.parse(_:context:into:)`;
    /// its lists grow at the stream's first slices that have them),
    /// as a stream reader that keeps nothing of a header past its slice does.
    static func reusedSliceHeadersPerSecond(_ units: [NALUnit], seconds: Double = 0.3) throws -> Double {
        var parsed = 0
        var sink = 0
        func pass() {
            var store = ParameterSetStore()
            var header = SliceHeader()  // per pass, as the store: one per stream
            parsed = 0
            for unit in units {
                if unit.type == .sps || unit.type == .pps {
                    _ = try? store.ingest(unit)
                } else if let bits = try? SliceHeader.parse(unit, context: store, into: &header), (try? store.activate(header)) != nil {
                    parsed &+= 1
                    sink &+= bits
                }
            }
        }
        pass()
        let perPass = parsed
        let perNanosecond = RTPBench.measure(bytesPerPass: perPass, seconds: seconds, pass)
        return sink != 0 ? perNanosecond * 1e9 : 0
    }
}
