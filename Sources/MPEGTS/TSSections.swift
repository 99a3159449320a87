import MediaSupport

/// The PSI sections the module writes and reads (ISO/IEC 13818-1 2.4.4): the program association
/// section (PAT, `table_id` 0) and the program map section (PMT, `table_id` 2).
enum TSSections {
    /// The longest PAT or PMT section, header and CRC included: `section_length` is at most
    /// 1,021 (2.4.4.4, 2.4.4.9), after 3 bytes.
    static let maximumSize = 1024

    // MARK: Writing

    /// A PAT section listing `programs` (number, PMT PID).
    static func pat(transportStreamID: UInt16, version: UInt8, programs: [(number: UInt16, pmtPID: UInt16)]) -> [UInt8] {
        var body: [UInt8] = []
        for program in programs {
            body.writeUInt16(program.number)
            body.writeUInt16(0xE000 | program.pmtPID)
        }
        return section(tableID: 0, idExtension: transportStreamID, version: version, body: body)
    }

    /// A PMT section for `map`.
    static func pmt(_ map: TSProgramMap) -> [UInt8] {
        var body: [UInt8] = []
        body.writeUInt16(0xE000 | map.pcrPID)
        body.writeUInt16(0xF000 | UInt16(truncatingIfNeeded: map.descriptors.count))
        body += map.descriptors
        for stream in map.streams {
            body.append(stream.streamType.rawValue)
            body.writeUInt16(0xE000 | stream.pid)
            body.writeUInt16(0xF000 | UInt16(truncatingIfNeeded: stream.descriptors.count))
            body += stream.descriptors
        }
        return section(tableID: 2, idExtension: map.programNumber, version: map.version, body: body)
    }

    /// A long-form section: header, `body`, CRC_32 (`section_number` 0 of 0).
    private static func section(tableID: UInt8, idExtension: UInt16, version: UInt8, body: [UInt8]) -> [UInt8] {
        var s: [UInt8] = [tableID]
        s.writeUInt16(0xB000 | UInt16(truncatingIfNeeded: body.count &+ 9))  // syntax 1, '0', reserved; body < 1015: checked by the writer
        s.writeUInt16(idExtension)
        s.append(0xC1 | (version & 0x1F) << 1)  // reserved, version_number, current_next_indicator 1
        s.append(0)  // section_number
        s.append(0)  // last_section_number
        s += body
        s.writeUInt32(TSPacketLayout.crc32(s))
        return s
    }

    // MARK: Reading

    /// The common header of a long-form section, its CRC checked: `table_id`, the 16-bit id
    /// extension, `version_number`, `current_next_indicator`, and a reader over the body (between
    /// `last_section_number` and the CRC).
    static func open(_ section: ArraySlice<UInt8>, tableID: UInt8)
        throws(TSError) -> (idExtension: UInt16, version: UInt8, current: Bool, body: ByteReader<TSByteReads>) {
        var r = ByteReader<TSByteReads>(section)
        let id = try r.readUInt8("table_id")
        guard id == tableID else { throw TSError.invalid(.invalidSection, "table_id \(id), expected \(tableID)") }
        let lengthField = try r.readUInt16("section_length")
        guard lengthField & 0x8000 != 0 else { throw TSError.invalid(.invalidSection, "section_syntax_indicator 0 in table \(tableID)") }
        let length = Int(lengthField & 0x0FFF)
        guard length >= 9, length <= 1021 else { throw TSError.invalid(.invalidSection, "section_length \(length) outside 9...1021") }
        var whole = ByteReader<TSByteReads>(section)
        let bytes = try whole.readBytes(3 &+ length, "section")  // length <= 1021
        guard TSPacketLayout.crc32(bytes) == 0 else { throw TSError.invalid(.invalidSection, "CRC_32 mismatch in table \(tableID)") }
        let idExtension = try r.readUInt16("table_id_extension")
        let flags = try r.readUInt8("version_number")
        _ = try r.readUInt16("section_number")
        let body = ByteReader<TSByteReads>(bytes[(bytes.startIndex &+ 8)..<(bytes.endIndex &- 4)])  // length >= 9
        return (idExtension, flags >> 1 & 0x1F, flags & 1 == 1, body)
    }

    /// A PAT: its `transport_stream_id`, version and programs (number, PMT PID; program 0, the
    /// network PID, left out).
    static func readPAT(_ section: ArraySlice<UInt8>)
        throws(TSError) -> (transportStreamID: UInt16, version: UInt8, current: Bool, programs: [(number: UInt16, pmtPID: UInt16)]) {
        var (tsid, version, current, r) = try open(section, tableID: 0)
        var programs: [(number: UInt16, pmtPID: UInt16)] = []
        while r.count >= 4 {  // at most 253 entries in 1,012 bytes
            let number = try r.readUInt16("program_number")
            let pid = try r.readUInt16("program_map_PID") & 0x1FFF
            if number != 0 { programs.append((number, pid)) }
        }
        return (tsid, version, current, programs)
    }

    /// A PMT as a program map (`pmtPID` is where it came from).
    static func readPMT(_ section: ArraySlice<UInt8>, pmtPID: UInt16) throws(TSError) -> (map: TSProgramMap, current: Bool) {
        var (number, version, current, r) = try open(section, tableID: 2)
        let pcrPID = try r.readUInt16("PCR_PID") & 0x1FFF
        let infoLength = Int(try r.readUInt16("program_info_length") & 0x0FFF)
        let descriptors = Array(try r.readBytes(infoLength, "program_info"))
        var streams: [TSElementaryStreamInfo] = []
        while r.count >= 5 {  // at most 202 entries in a section
            let type = try r.readUInt8("stream_type")
            let pid = try r.readUInt16("elementary_PID") & 0x1FFF
            let esInfoLength = Int(try r.readUInt16("ES_info_length") & 0x0FFF)
            let esDescriptors = Array(try r.readBytes(esInfoLength, "ES_info"))
            streams.append(TSElementaryStreamInfo(pid: pid, streamType: TSStreamType(rawValue: type), descriptors: esDescriptors))
        }
        return (TSProgramMap(programNumber: number, pmtPID: pmtPID, pcrPID: pcrPID, version: version, descriptors: descriptors,
                             streams: streams), current)
    }
}
