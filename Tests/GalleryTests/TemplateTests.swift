import Testing
@testable import Gallery

@Suite struct TemplateTests {
    func library(_ sources: [String: String]) throws -> TemplateLibrary { try TemplateLibrary(sources: sources) }

    @Test func escapesByDefault() throws {
        let t = try library(["page": "<h1>{{title}}</h1><a title=\"{{title}}\">"])
        let out = t.render("page", context: ["title": "<script>alert('x')</script> & \"q\""])
        #expect(out == "<h1>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</h1><a title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;\">")
    }

    @Test func tripleBracesAreRawOnlyForTrustedMarkup() throws {
        let t = try library(["page": "{{{a}}}|{{{b}}}|{{&a}}"])
        let out = t.render("page", context: ["a": .html("<b>ok</b>"), "b": "<i>untrusted</i>"])
        #expect(out == "<b>ok</b>|&lt;i&gt;untrusted&lt;/i&gt;|<b>ok</b>")
    }

    @Test func sectionsLoopsConditionalsAndDottedPaths() throws {
        let t = try library(["page": "{{#items}}[{{name}}:{{owner.name}}]{{/items}}{{^items}}none{{/items}}{{#flag}}F{{/flag}}{{^flag}}f{{/flag}}{{#user}}{{name}}{{/user}}{{user.missing}}{{#list}}{{.}},{{/list}}"])
        let context: TemplateValue = [
            "owner": ["name": "O"],
            "items": [["name": "a"], ["name": "b", "owner": ["name": "P"]]],
            "flag": false,
            "user": ["name": "U"],
            "list": ["x", "y"],
        ]
        #expect(t.render("page", context: context) == "[a:O][b:P]fUx,y,")
        #expect(t.render("page", context: ["items": [], "flag": true]) == "noneF")
    }

    @Test func partialsAndLayout() throws {
        let t = try library([
            "layout": "<title>{{pageTitle}}</title><main>{{{content}}}</main>",
            "page": "{{#rows}}{{> row}}{{/rows}}",
            "row": "<p>{{text}}</p>",
        ])
        let out = t.renderPage("page", context: ["pageTitle": "T<", "rows": [["text": "1"], ["text": "<2>"]]])
        #expect(out == "<title>T&lt;</title><main><p>1</p><p>&lt;2&gt;</p></main>")
    }

    @Test func commentsVanish() throws {
        let t = try library(["page": "a{{! a comment }}b"])
        #expect(t.render("page", context: [:]) == "ab")
    }

    @Test func parseErrorsNameTheLine() {
        #expect(throws: TemplateError.self) { try library(["page": "line1\n{{#a}}x"]) }
        #expect(throws: TemplateError.self) { try library(["page": "{{#a}}{{/b}}"]) }
        #expect(throws: TemplateError.self) { try library(["page": "{{/a}}"]) }
        #expect(throws: TemplateError.self) { try library(["page": "{{a"]) }
        #expect(throws: TemplateError.self) { try library(["page": "{{> missing}}"]) }
        #expect(throws: TemplateError.self) { try library(["page": "{{a b}}"]) }
        do {
            _ = try library(["page": "one\ntwo\n{{#open}}"])
            Issue.record("expected an error")
        } catch let error as TemplateError {
            #expect(error.line == 3)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func partialCyclesAreRefusedAtLoad() throws {
        for sources in [["loop": "x{{> loop}}"], ["a": "{{>b}}{{>b}}", "b": "{{#x}}{{>a}}{{/x}}"]] {
            #expect(throws: TemplateError.self) { try library(sources) }
        }
        let shared = try library(["page": "{{>part}}{{>part}}", "part": "<i>{{a}}</i>"])
        #expect(shared.render("page", context: ["a": "1"]) == "<i>1</i><i>1</i>")
    }

    @Test func shippedTemplatesParse() throws {
        let t = try TemplateLibrary(directory: Fixtures.repoRoot.path + "/templates")
        for name in ["layout", "album", "photo", "error", "pagination", "breadcrumbs", "albumgrid", "itemgrid"] {
            #expect(t.has(name), "\(name)")
        }
    }
}
