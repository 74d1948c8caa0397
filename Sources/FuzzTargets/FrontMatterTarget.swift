import Foundation
import Markdown

/// A note's front matter, as any file brings it (an imported vault, a member's edit): found,
/// parsed by Yams, and drawn; the body always starts inside the text, after the block, and the
/// rendered view and the highlights never trap on it.
enum FrontMatterTarget {
    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        guard let matter = NoteFrontMatter(text) else {
            FuzzCheck.expect(NoteFrontMatter.body(of: text) == Substring(text), "no front matter, but the body is not the whole text")
            return
        }
        let count = text.utf8.count
        FuzzCheck.expect(count >= 7 && (7...count).contains(matter.bodyOffset), "body at \(matter.bodyOffset) of \(count)")
        FuzzCheck.expect(matter.bodyLine >= 2, "the body starts on line \(matter.bodyLine), inside the fences")
        FuzzCheck.expect(text.utf8.starts(with: "---".utf8), "front matter that does not open with ---")
        FuzzCheck.expect(matter.error == nil || matter.properties.isEmpty, "properties from YAML that did not parse")
        FuzzCheck.expect(matter.error.map { !$0.contains("\n") } ?? true, "a parse error over several lines")
        for property in matter.properties {
            FuzzCheck.expect(property.value.count <= NoteFrontMatter.displayLimit && property.key.count <= NoteFrontMatter.displayLimit,
                             "a property longer than the display limit")
        }
        FuzzCheck.expect(matter.tags.allSatisfy { !$0.isEmpty }, "an empty tag")
        let rendered = RenderedNote.layout(text, width: 40)
        if matter.error == nil {
            FuzzCheck.expect(!rendered.plainText.hasPrefix(NoteFrontMatter.warning), "a warning over front matter that parses")
        }
        _ = MarkdownParser.highlights(of: text)
    }
}
