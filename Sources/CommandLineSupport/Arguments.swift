// Argument parsing shared by the `h264` tool and the benchmark executable (package access:
// command-line plumbing, in no product's API).

/// An error the tool reports as one line on stderr with exit status 1.
package struct CLIError: Error, CustomStringConvertible {
    package let description: String
    package init(_ message: String) { description = message }
}

/// Command-line arguments: options are taken out by name, the rest are positional.
package struct Arguments {
    package private(set) var items: [String]

    package init(_ items: [String]) { self.items = items }

    /// True when the flag is present; the flag is removed (a second one is left for
    /// ``positionals(min:max:)`` to report as given twice).
    package mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: name) else { return false }
        items.remove(at: i)
        taken.insert(name)
        return true
    }

    /// The options and flags taken so far, by name: one left over was given twice.
    private var taken: Set<String> = []

    /// True when the flag is present (not removed).
    package func has(_ name: String) -> Bool { items.contains(name) }

    /// The value after `--name` (or in `--name=value`), removed; nil when absent.
    /// - Throws: when the option is given twice (``values(_:)`` takes one that may be repeated).
    package mutating func option(_ name: String) throws -> String? {
        guard let value = try take(name) else { return nil }
        if items.contains(where: { $0 == name || $0.hasPrefix(name + "=") }) { throw CLIError("\(name) is given twice") }
        taken.insert(name)
        return value
    }

    /// Every value of an option that may be repeated (`--remove-sei A --remove-sei B`), in order.
    package mutating func values(_ name: String) throws -> [String] {
        var all: [String] = []
        while let value = try take(name) { all.append(value) }
        return all
    }

    /// Removes the first `--name value` or `--name=value` and returns the value.
    private mutating func take(_ name: String) throws -> String? {
        guard let i = items.firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) else { return nil }
        if items[i] == name {
            guard i + 1 < items.count else { throw CLIError("\(name) needs a value") }
            let v = items[i + 1]
            items.removeSubrange(i...(i + 1))
            return v
        }
        let v = String(items[i].dropFirst(name.count + 1))
        items.remove(at: i)
        return v
    }

    /// An integer option.
    package mutating func intOption(_ name: String) throws -> Int? {
        guard let s = try option(name) else { return nil }
        guard let v = Int(s) else { throw CLIError("\(name): '\(s)' is not a whole number") }
        return v
    }

    /// An integer option that must lie in `range`.
    package mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let v = try intOption(name) else { return nil }
        guard range.contains(v) else { throw CLIError("\(name): \(v) is outside \(range.lowerBound)...\(range.upperBound)") }
        return v
    }

    /// A number of seconds (a decimal) that must lie in `range`.
    package mutating func secondsOption(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let s = try option(name) else { return nil }
        guard let v = Double(s), range.contains(v) else {
            throw CLIError("\(name): '\(s)' is not a number of seconds in \(range.lowerBound)...\(range.upperBound)")
        }
        return v
    }

    /// A rate option `N` or `N/D` (`--fps 30000/1001`): both terms whole numbers in
    /// 1...`limit` (a decimal `N` is taken as `N`/1 when it is whole).
    package mutating func rateOption(_ name: String, limit: Int64 = 1_000_000) throws -> (numerator: Int64, denominator: Int64)? {
        guard let s = try option(name) else { return nil }
        return try Arguments.rate(s, name: name, limit: limit)
    }

    /// Parses `N` or `N/D` with both terms in 1...`limit`.
    package static func rate(_ s: String, name: String, limit: Int64 = 1_000_000) throws -> (numerator: Int64, denominator: Int64) {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let n = Int64(parts[0]), (1...limit).contains(n),
              let d = parts.count == 2 ? Int64(parts[1]) : 1, (1...limit).contains(d) else {
            throw CLIError("\(name): '\(s)' is not a rate N or N/D (whole numbers in 1...\(limit))")
        }
        return (n, d)
    }

    /// The remaining positional arguments; any leftover `--option` is an error.
    package mutating func positionals(min: Int = 0, max: Int = Int.max) throws -> [String] {
        if let unknown = items.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            let name = String(unknown.prefix { $0 != "=" })
            if taken.contains(name) { throw CLIError("\(name) is given twice") }
            throw CLIError("unknown option '\(unknown)'")
        }
        guard items.count >= min else { throw CLIError("expected \(min) argument(s), got \(items.count)") }
        guard items.count <= max else { throw CLIError("unexpected argument '\(items[max])'") }
        return items
    }
}
