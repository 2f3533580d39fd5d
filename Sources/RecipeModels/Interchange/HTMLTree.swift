/// A page's elements nested as a browser nests them, as far as microdata and RDFa need: tags, their attributes
/// (names lower-cased, character references decoded) and their text, in one pass over the page's bytes.
///
/// What a browser does that matters here is done: `<script>` and `<style>` bodies are not markup, comments are left
/// out, void elements (`<img>`, `<meta>`, `<br>` …) hold nothing, an `<li>`, `<p>`, `<dt>`/`<dd>`, `<tr>`, `<td>` or
/// `<option>` left open is closed by the next one (as old pages write lists), and an end tag closes every element
/// opened inside the one it names; one with nothing open of its name is ignored. Every walk of the tree is a loop,
/// not a recursion, so a page nested thousands deep is read like any other.
struct HTMLTree {
    /// One element: its name (lower case), its attributes, and what it holds in order.
    struct Element {
        var name: String
        var attributes: [String: String]
        var children: [Child] = []
    }

    /// What an element holds: another element (by its index in `elements`) or text (references decoded).
    enum Child {
        case element(Int)
        case text(String)
    }

    /// The elements; the first is the document itself (name ""), which holds the page's top elements.
    private(set) var elements: [Element] = [Element(name: "", attributes: [:])]

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    /// Elements whose text is not markup: their body runs to their own end tag and is left out.
    static let rawTextElements: Set<String> = ["script", "style"]
    /// The elements that end a line of text: a step or an ingredient in one of them is a line of its own.
    static let blockElements: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "td", "th", "tr", "ul",
    ]
    /// The start tags that close an open `<p>` (HTML's "close a p element" list, the ones pages write).
    static let closingParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "div", "dl", "fieldset", "figure", "footer", "form", "h1", "h2",
        "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p", "pre", "section", "table", "ul",
    ]

    private init() {}

    /// The tree of `html`.
    init(html: String) {
        var tree = HTMLTree()
        tree.read(Array(html.utf8))
        self = tree
    }

    private mutating func read(_ bytes: [UInt8]) {
        var open: [Int] = [0]
        var index = 0
        var textStart = 0
        func flushText(upTo end: Int) {
            guard end > textStart else { return }
            let raw = bytes[textStart..<end]
            let text = String(decoding: raw, as: UTF8.self)
            let decoded = raw.contains(UInt8(ascii: "&")) ? RecipeJSONLD.decodeEntities(text) : text
            elements[open[open.count - 1]].children.append(.text(decoded))
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else {
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                flushText(upTo: index)
                if HTMLScan.matches(Array("<!--".utf8), bytes, at: index) {
                    index = HTMLScan.find("-->", in: bytes, from: index + 4).map { $0 + 3 } ?? bytes.count
                } else {
                    index = bytes[index...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.count
                }
                textStart = index
                continue
            }
            let closing = next == UInt8(ascii: "/")
            let nameStart = closing ? index + 2 : index + 1
            guard nameStart < bytes.count, Self.isLetter(bytes[nameStart]) else {
                index += 1
                continue
            }
            flushText(upTo: index)
            var nameEnd = nameStart
            while nameEnd < bytes.count, !HTMLScan.isBlank(bytes[nameEnd]), bytes[nameEnd] != UInt8(ascii: ">"),
                  bytes[nameEnd] != UInt8(ascii: "/") {
                nameEnd += 1
            }
            let name = String(decoding: bytes[nameStart..<nameEnd].map(HTMLScan.lower), as: UTF8.self)
            let tagEnd = Self.tagEnd(bytes, from: nameEnd)
            index = min(tagEnd + 1, bytes.count)
            textStart = index
            if closing {
                if name == "br" {
                    append(Element(name: "br", attributes: [:]), to: &open, void: true)
                } else if let at = open.lastIndex(where: { elements[$0].name == name }), at > 0 {
                    open.removeSubrange(at...)
                }
                continue
            }
            let attributes = Self.attributes(bytes[nameEnd..<min(tagEnd, bytes.count)])
            closeImplied(by: name, open: &open)
            let isVoid = Self.voidElements.contains(name)
            append(Element(name: name, attributes: attributes), to: &open, void: isVoid)
            if Self.rawTextElements.contains(name) {
                // The body is not markup: it runs to the element's own end tag (`</script` not followed by a letter).
                let endTag = "</" + name
                var search = index
                var end = bytes.count
                while let found = HTMLScan.find(endTag, in: bytes, from: search) {
                    let after = found + endTag.utf8.count
                    if after >= bytes.count || !Self.isLetter(bytes[after]) {
                        end = found
                        break
                    }
                    search = after
                }
                index = end < bytes.count ? bytes[end...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.count : end
                textStart = index
                open.removeLast()
            }
        }
        flushText(upTo: bytes.count)
    }

    /// Adds `element` inside the innermost open element, and opens it unless it is void.
    private mutating func append(_ element: Element, to open: inout [Int], void: Bool) {
        elements.append(element)
        let index = elements.count - 1
        elements[open[open.count - 1]].children.append(.element(index))
        if !void { open.append(index) }
    }

    /// What a start tag closes: the open elements of those names, unless one of the boundaries is opened after them
    /// (an `<li>` closes the open `<li>` of its own list, not one of an outer list).
    private static let implied: [String: (names: Set<String>, boundaries: Set<String>)] = [
        "li": (["li"], ["ul", "ol", "menu", "div", "section", "table"]),
        "dt": (["dt", "dd"], ["dl", "div", "section", "table"]),
        "dd": (["dt", "dd"], ["dl", "div", "section", "table"]),
        "tr": (["tr"], ["table", "tbody", "thead", "tfoot"]),
        "td": (["td", "th"], ["tr", "table"]),
        "th": (["td", "th"], ["tr", "table"]),
        "option": (["option"], ["select", "datalist"]),
    ]
    private static let paragraph: (names: Set<String>, boundaries: Set<String>) =
        (["p"], ["div", "section", "article", "li", "td", "th", "blockquote", "button"])

    /// Closes what a start tag `name` closes: an open `<li>` of the same list, `<dt>`/`<dd>` of the same list, a
    /// `<tr>` or cell of the same table, an `<option>`, and an open `<p>` before a block.
    private func closeImplied(by name: String, open: inout [Int]) {
        func close(_ rule: (names: Set<String>, boundaries: Set<String>)) {
            for at in stride(from: open.count - 1, to: 0, by: -1) {
                let openName = elements[open[at]].name
                if rule.names.contains(openName) {
                    open.removeSubrange(at...)
                    return
                }
                if rule.boundaries.contains(openName) { return }
            }
        }
        if let rule = Self.implied[name] { close(rule) }
        if Self.closingParagraph.contains(name) || name == "li" { close(Self.paragraph) }
    }

    /// The index of the `>` ending a tag whose attributes start at `start` (quoted values may hold `>`), or the
    /// page's end.
    private static func tagEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A quote opens a value only after `=` (blanks between allowed).
                var before = index - 1
                while before >= start, isBlank(bytes[before]) { before -= 1 }
                if before >= start, bytes[before] == UInt8(ascii: "=") { quote = byte }
            } else if byte == UInt8(ascii: ">") {
                return index
            }
            index += 1
        }
        return bytes.count
    }

    /// A tag's attributes: `name="value"`, `name='value'`, `name=value` or `name` alone; names lower-cased, values'
    /// character references decoded; the first of a name given twice counts, as in a browser.
    static func attributes(_ text: ArraySlice<UInt8>) -> [String: String] {
        guard text.contains(where: isLetter) else { return [:] }  // most tags have none
        let raw = RecipeJSONLD.attributes(Substring(String(decoding: text, as: UTF8.self)), keepingFirst: true)
        return raw.mapValues { $0.utf8.contains(UInt8(ascii: "&")) ? RecipeJSONLD.decodeEntities($0) : $0 }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        let lowered = HTMLScan.lower(byte)
        return lowered >= UInt8(ascii: "a") && lowered <= UInt8(ascii: "z")
    }

    private static func isBlank(_ byte: UInt8) -> Bool { HTMLScan.isBlank(byte) }

    // MARK: Reading the tree

    /// The text inside element `index`, as a reader sees it: each block element (`<p>`, `<li>`, `<br>` …) on a line
    /// of its own, blanks inside a line collapsed to one space, empty lines left out.
    func text(of index: Int) -> String {
        var lines: [String] = []
        var line = ""
        func endLine() {
            let collapsed = line.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            if !collapsed.isEmpty { lines.append(collapsed) }
            line = ""
        }
        enum Work {
            case enter(Int)
            case leave(Int)
            case text(String)
        }
        var work: [Work] = [.enter(index)]
        while let item = work.popLast() {
            switch item {
            case .text(let text):
                line += text
            case .leave(let element):
                if Self.blockElements.contains(elements[element].name) { endLine() }
            case .enter(let element):
                let name = elements[element].name
                if Self.blockElements.contains(name) { endLine() }
                work.append(.leave(element))
                for child in elements[element].children.reversed() {
                    switch child {
                    case .element(let inner): work.append(.enter(inner))
                    case .text(let text): work.append(.text(text))
                    }
                }
            }
        }
        endLine()
        return lines.joined(separator: "\n")
    }

    /// The indices of the elements directly inside element `index`.
    func childElements(of index: Int) -> [Int] {
        elements[index].children.compactMap { child in
            if case .element(let inner) = child { return inner }
            return nil
        }
    }
}
