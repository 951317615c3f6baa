extension String {
    /// `self` with every `target` replaced (the tests fill in templates; FoundationEssentials has no
    /// `replacingOccurrences`).
    public func replacingAll(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = self[...]
        while !target.isEmpty, let found = rest.firstRange(of: target) {
            out += rest[..<found.lowerBound] + replacement
            rest = rest[found.upperBound...]
        }
        return out + rest
    }
}
