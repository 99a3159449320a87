import Foundation
import H264
import MP4

/// A subcommand of `h264`.
protocol CLICommand {
    /// The word that selects the command (`nals`).
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var usage: String { get }
    /// Runs the command with the arguments after its name.
    static func run(_ args: inout Arguments) throws
}

/// An error the tool reports as one line on stderr with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

enum CLI {
    static func main(arguments: [String], commands: [any CLICommand.Type]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            print(overview(commands))
            return arguments.isEmpty ? 1 : 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.error("unknown command '\(first)'; see 'h264 --help'")
            return 1
        }
        var args = Arguments(Array(arguments.dropFirst()))
        if args.has("--help") || args.has("-h") {
            print(command.usage)
            return 0
        }
        do {
            try command.run(&args)
            try Output.flush()
            return 0
        } catch let error as H264Error {
            try? Output.flush()
            Output.error("\(error.code): \(error.reason)")
        } catch let error as MP4Error {
            try? Output.flush()
            Output.error("\(error.code): \(error.reason)")
        } catch {
            try? Output.flush()
            Output.error("\(error)")
        }
        return 1
    }

    static func overview(_ commands: [any CLICommand.Type]) -> String {
        var s = "usage: h264 <command> [options]\n\ncommands:\n"
        for c in commands { s += "  \(c.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(c.summary)\n" }
        s += "\n'h264 <command> --help' describes a command."
        return s
    }
}

/// Command-line arguments: options are taken out by name, the rest are positional.
struct Arguments {
    private(set) var items: [String]

    init(_ items: [String]) { self.items = items }

    /// True when the flag is present; the flag is removed.
    mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: name) else { return false }
        items.remove(at: i)
        return true
    }

    /// True when the flag is present (not removed).
    func has(_ name: String) -> Bool { items.contains(name) }

    /// The value after `--name` (or in `--name=value`), removed; nil when absent.
    mutating func option(_ name: String) throws -> String? {
        if let i = items.firstIndex(of: name) {
            guard i + 1 < items.count else { throw CLIError("\(name) needs a value") }
            let v = items[i + 1]
            items.removeSubrange(i...(i + 1))
            return v
        }
        if let i = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let v = String(items[i].dropFirst(name.count + 1))
            items.remove(at: i)
            return v
        }
        return nil
    }

    /// An integer option.
    mutating func intOption(_ name: String) throws -> Int? {
        guard let s = try option(name) else { return nil }
        guard let v = Int(s) else { throw CLIError("\(name): '\(s)' is not a whole number") }
        return v
    }

    /// The remaining positional arguments; any leftover `--option` is an error.
    mutating func positionals(min: Int = 0, max: Int = Int.max) throws -> [String] {
        if let unknown = items.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw CLIError("unknown option '\(unknown)'")
        }
        guard items.count >= min else { throw CLIError("expected \(min) argument(s), got \(items.count)") }
        guard items.count <= max else { throw CLIError("unexpected argument '\(items[max])'") }
        return items
    }
}

/// Reading inputs and writing outputs; `-` is stdin or stdout.
enum Input {
    /// Reads a whole file, or stdin for `-`.
    static func readAll(_ path: String) throws -> [UInt8] {
        if path == "-" {
            var out: [UInt8] = []
            while let chunk = try readChunk(FileHandle.standardInput, 1 << 20) { out += chunk }
            return out
        }
        // FoundationEssentials leaks its read buffer for an empty regular file (LeakSanitizer
        // reports 4 KiB from readBytesFromFile): such a file is read as empty without it.
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           attributes[.type] as? FileAttributeType == .typeRegular,
           let size = attributes[.size], (size as? Int) == 0 || (size as? UInt64) == 0 || (size as? NSNumber)?.intValue == 0 {
            return []
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read '\(path)'") }
        return [UInt8](data)
    }

    /// Opens a file, or stdin for `-`, for reading in chunks.
    static func open(_ path: String) throws -> FileHandle {
        if path == "-" { return FileHandle.standardInput }
        guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError("cannot open '\(path)'") }
        return h
    }

    /// The next chunk of at most `size` bytes, or nil at the end.
    static func readChunk(_ handle: FileHandle, _ size: Int) throws -> [UInt8]? {
        let data = try handle.read(upToCount: size) ?? Data()
        return data.isEmpty ? nil : [UInt8](data)
    }
}

enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    /// Appends a line to stdout (buffered).
    static func line(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        buffer.append(10)
        if buffer.count >= 1 << 16 { try? flush() }
    }

    /// Writes buffered stdout.
    static func flush() throws {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { p in
            var off = 0
            while off < p.count {
                let n = Foundation.write(1, p.baseAddress! + off, p.count - off)
                if n <= 0 { break }
                off += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes a whole file, or stdout for `-`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try flush()
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw CLIError("cannot write '\(path)'")
        }
    }

    /// One line on stderr: `h264: message`.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("h264: \(message)\n".utf8))
    }
}

/// Minimal JSON object rendering for `--json` outputs (JSON Lines).
struct JSONObject {
    private var parts: [String] = []

    mutating func add(_ key: String, _ value: Int) { parts.append("\"\(key)\":\(value)") }
    mutating func add(_ key: String, _ value: Int64) { parts.append("\"\(key)\":\(value)") }
    mutating func add(_ key: String, _ value: Double) {
        parts.append("\"\(key)\":\(value.isFinite ? String(value) : "null")")
    }
    mutating func add(_ key: String, _ value: Bool) { parts.append("\"\(key)\":\(value)") }
    mutating func add(_ key: String, _ value: String) { parts.append("\"\(key)\":\(JSONObject.quote(value))") }
    mutating func add(_ key: String, _ values: [Int]) {
        parts.append("\"\(key)\":[\(values.map(String.init).joined(separator: ","))]")
    }
    mutating func add(_ key: String, _ values: [String]) {
        parts.append("\"\(key)\":[\(values.map(JSONObject.quote).joined(separator: ","))]")
    }
    mutating func add(_ key: String, _ object: JSONObject) { parts.append("\"\(key)\":\(object.rendered)") }
    mutating func addNull(_ key: String) { parts.append("\"\(key)\":null") }

    var rendered: String { "{" + parts.joined(separator: ",") + "}" }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
