import Foundation
import FuzzTargets

#if FUZZING
/// libFuzzer's driver, from its `fuzzer_no_main` runtime: our `main` picks the target first.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target libFuzzer's callback feeds; set once, before the driver starts.
///
/// `nonisolated(unsafe)`: written by `main` before `LLVMFuzzerRunDriver` runs and only read by
/// its callback afterwards, on the driver's one thread (make fuzz runs no `-jobs`/`-workers`
/// within a process), so no two accesses overlap.
nonisolated(unsafe) private var selected: FuzzTargets.Target?
#endif

/// `byteclub-fuzz TARGET [libFuzzer options and corpus folders]`, or `BYTECLUB_FUZZ_TARGET=TARGET`.
///
/// Built by `make fuzz` (with `-DFUZZING` and libFuzzer), it runs libFuzzer on the target. In a
/// plain build it replays the files and folders it is given through the target, one by one,
/// which is how a finding is tried again without the fuzzer (`FuzzCorpusReplayTests` does the
/// same for every committed seed).
@main
struct FuzzMain {
    static func main() {
        var arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "--list" {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
            return
        }
        var name = ProcessInfo.processInfo.environment["BYTECLUB_FUZZ_TARGET"]
        if name == nil, arguments.count > 1, !arguments[1].hasPrefix("-") { name = arguments.remove(at: 1) }
        guard let name, let target = FuzzTargets.named(name) else {
            let known = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: byteclub-fuzz TARGET [options] [corpus...]; targets: \(known)\n".utf8))
            exit(2)
        }
        #if FUZZING
        selected = target
        var argc = CInt(arguments.count)
        let cStrings = arguments.map { strdup($0) } + [nil]
        let argvBuffer = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: cStrings.count)
        argvBuffer.initialize(from: cStrings, count: cStrings.count)
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argvBuffer
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
            selected?.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
            return 0
        })
        #else
        replay(target, paths: arguments.dropFirst().filter { !$0.hasPrefix("-") })
        #endif
    }

    /// Runs each file (or each file in each folder) through `target`; a finding traps as it would
    /// under the fuzzer.
    static func replay(_ target: FuzzTargets.Target, paths: [String]) {
        var count = 0
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("byteclub-fuzz: no such file: \(path)\n".utf8))
                exit(2)
            }
            let files = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(data)
                count += 1
            }
        }
        print("\(target.name): replayed \(count) inputs, no finding")
    }
}
