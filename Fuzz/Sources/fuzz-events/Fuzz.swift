#if canImport(Glibc)
import Glibc
#endif
import FuzzTargets

// Built by `make fuzz` with -sanitize=fuzzer,address -parse-as-library -DFUZZING. SwiftPM points
// `main` at `<module>_main`, so that is where libFuzzer's driver is started from. The ordinary
// build gets a stub, so `swift build` links.
#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.events(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@_cdecl("fuzz_events_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv, fuzzOneInput)
}
#else
@main enum Stub {
    static func main() { print("fuzz-events: build it with make fuzz") }
}
#endif
