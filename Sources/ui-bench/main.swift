import Dispatch
#if canImport(Glibc)
import Glibc
#endif

// ui-bench            frame-time benchmark of the TerminalUI widgets (into an in-memory grid)
// ui-bench editor     key + redraw times of the note editor on a 1 MiB, 20,000-line note
// ui-bench merge [N]  three-way merges of two edited copies of a 1 MiB, 20,000-line note
// ui-bench demo       an interactive demo on the real terminal, for manual and tmux checks
// ui-bench images [N] thumbnail-to-cells benchmark; `ui-bench images demo [SHIFT]` shows them on the terminal
// ui-bench viewer [N] the photo viewer's pan step on a 16000×2000 panorama at 200×60 cells
// ui-bench pictures  bytes a kitty terminal is sent: viewer pan steps and photo-list scrolls, before and now
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "demo":
    Demo.run()
    dispatchMain()
case nil, "bench":
    Bench.run(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 2000 : 2000)
    print("")
    Bench.runEditor(iterations: 500)
case "merge":
    MergeBench.run(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 50 : 50)
case "editor":
    Bench.runEditor(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500)
case "images" where arguments.count > 1 && arguments[1] == "demo":
    ImageDemo.run(shift: arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0)
    dispatchMain()
case "images":
    ImageBench.run(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500)
case "viewer":
    ViewerBench.run(iterations: arguments.count > 1 ? Int(arguments[1]) ?? 200 : 200)
case "pictures":
    PictureBench.run()
case "-h", "--help", "help":
    print("usage: ui-bench [bench [ITERATIONS]] | editor [ITERATIONS] | merge [ITERATIONS] | demo | images [ITERATIONS | demo [SHIFT]] | viewer [ITERATIONS] | pictures")
default:
    print("usage: ui-bench [bench [ITERATIONS]] | editor [ITERATIONS] | merge [ITERATIONS] | demo | images [ITERATIONS | demo [SHIFT]] | viewer [ITERATIONS] | pictures")
    exit(2)
}
