#if canImport(Glibc)
import Glibc
#endif

/// Starts libFuzzer's driver (`LLVMFuzzerRunDriver`, in the fuzzing build only), found at run
/// time so this module links without libFuzzer.
public enum FuzzDriver {
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    typealias RunDriver = @convention(c) (
        UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        TestOneInput
    ) -> Int32

    public static func run(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ test: TestOneInput
    ) -> Int32 {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "LLVMFuzzerRunDriver") else {
            let message = Array("libFuzzer is not linked in: build with make fuzz\n".utf8)
            _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            return 2
        }
        var count = argc
        var vector = argv
        return unsafeBitCast(symbol, to: RunDriver.self)(&count, &vector, test)
    }
}
