// Made by scripts/typo-table from kits/web/typos.json, the one source: edit that, then run the script.

/// The typo table's data; the rule that reads it is `TypoDomains`.
enum TypoTable {
    static let topLevelSlips: [String: String] = [
        "con": "com", "cmo": "com", "ocm": "com", "vom": "com", "xom": "com", "cpm": "com", "coom": "com",
        "comm": "com", "colm": "com", "nte": "net", "nett": "net", "ogr": "org", "orgg": "org",
    ]
    static let providers: [String] = [
        "gmail.com", "googlemail.com", "hotmail.com", "outlook.com", "yahoo.com", "icloud.com", "hotmail.co.uk",
        "yahoo.co.uk", "live.com", "aol.com", "proton.me", "protonmail.com",
    ]
    static let realNeighbours: Set<String> = [
        "mail.com", "email.com", "ymail.com", "gmx.com", "live.co", "love.com", "aim.com", "aol.de",
        "hotmail.de", "hotmail.fr", "hotmail.it", "hotmail.es", "yahoo.de", "yahoo.fr", "yahoo.es", "yahoo.it",
        "yahoo.ca", "yahoo.in", "yahoo.cn", "yahoo.co.in", "outlook.de", "outlook.fr", "outlook.es",
        "outlook.it", "icloud.de", "live.de", "live.fr", "live.it", "live.nl", "live.ca", "msn.com",
        "proton.ch",
    ]
    static let editedProviderMinLength = 8
}
