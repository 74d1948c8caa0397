import Dispatch
#if canImport(Glibc)
import Glibc
#endif

// ui-bench            frame-time benchmark of the TerminalUI widgets (into an in-memory grid)
// ui-bench demo       an interactive demo on the real terminal, for manual and tmux checks
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "demo":
    Demo.run()
    dispatchMain()
case nil, "bench":
    Bench.run(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 2000 : 2000)
case "-h", "--help", "help":
    print("usage: ui-bench [bench [ITERATIONS]] | demo")
default:
    print("usage: ui-bench [bench [ITERATIONS]] | demo")
    exit(2)
}
