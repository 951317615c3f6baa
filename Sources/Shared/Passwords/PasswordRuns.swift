/// Which code points of a folded password are what an attacker types first: runs (a repeated
/// block, a sequence, a keyboard row) and context words. `PasswordPolicy` refuses a password when
/// these cover more than half of it.
enum PasswordRuns {
    /// Sequences, forwards or backwards: the alphabet, the digits, and the rows of the common
    /// keyboards (US, German, French), their shifted digit row too, lower case (passwords are
    /// folded first). A row's run is 3 or more neighbours along it in one direction.
    static let rows: [[Unicode.Scalar]] = [
        "abcdefghijklmnopqrstuvwxyz", "0123456789",
        "`1234567890-=", "~!@#$%^&*()_+", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./",
        "qwertzuiopü", "asdfghjklöä", "yxcvbnm", "azertyuiop", "qsdfghjklmù", "wxcvbn",
    ].map { Array($0.unicodeScalars) }

    static let shortestRun = 3

    /// Marks every code point that is part of a run:
    /// - a repeated block: a stretch that repeats its first p code points (any p) at least twice
    ///   over and is at least 3 long ("aaa", "abab", "passwordpassword", "abcabc");
    /// - a sequence: at least 3 code points that are neighbours, in one direction, along one of `rows`.
    static func mark(_ s: [Unicode.Scalar], into covered: inout [Bool]) {
        let n = s.count
        if n >= 2 {
            for period in 1...(n / 2) {
                var k = period
                while k < n {
                    guard s[k] == s[k - period] else {
                        k += 1
                        continue
                    }
                    let start = k
                    while k < n && s[k] == s[k - period] { k += 1 }
                    if k - start + period >= max(2 * period, shortestRun) {
                        for i in (start - period)..<k { covered[i] = true }
                    }
                }
            }
        }
        for row in rows {
            let position = s.map { row.firstIndex(of: $0) }
            for step in [1, -1] {
                var k = 1
                while k < n {
                    guard let here = position[k], let before = position[k - 1], here == before + step else {
                        k += 1
                        continue
                    }
                    let start = k - 1
                    while k < n, let here = position[k], let before = position[k - 1], here == before + step { k += 1 }
                    if k - start >= shortestRun {
                        for i in start..<k { covered[i] = true }
                    }
                }
            }
        }
    }

    /// Marks every occurrence of each word (already folded), overlapping ones too.
    static func mark(words: [[Unicode.Scalar]], in s: [Unicode.Scalar], into covered: inout [Bool]) {
        for word in words where !word.isEmpty && word.count <= s.count {
            for start in 0...(s.count - word.count) where s[start..<(start + word.count)].elementsEqual(word) {
                for i in start..<(start + word.count) { covered[i] = true }
            }
        }
    }
}
