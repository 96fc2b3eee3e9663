package import Extractors
import Foundation
import Core

/// `report.html`: one self-contained page (inline CSS, inline SVG, a few lines of inline script to sort and filter
/// the fixture index, no external resource) that opens from disk or a CI artifact. Fixture text is untrusted, so
/// every text node and attribute is escaped; the script reads only the page's own data attributes.
package enum EvalHTML {
    package static func render(_ report: EvalReport, fixtures: [Fixture]) -> String {
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <title>Extractor eval — \(escape(report.createdAt))</title>
            <style>\(css)</style></head><body>
            <h1>Extractor eval</h1>
            \(gateBanner(report))
            <p>\(report.fixtureCount) fixtures from <code>\(escape(report.fixturesPath))</code>, run \(escape(report.createdAt)).
            Features: \(escape(report.features.map(\.rawValue).joined(separator: ", "))).\(report.gitCommit.map { " Commit <code>\(escape($0))</code>." } ?? "")</p>

            """
        html += promptHeader(report)
        html += failureBanner(report)
        html += charts(report)
        html += scoreTable(report)
        html += fixtureIndex(report)
        html += variantTable(report)
        html += groundingSection(report)
        html += fieldTable(report)
        html += preFilterSection(report)
        if let baseline = report.baseline { html += baselineSection(baseline, features: report.features) }
        html += fixtureSections(report, fixtures: fixtures)
        html += "</body></html>\n"
        return html
    }

    /// The gate's verdict first: red with each failed check when the run failed, green when every check passed.
    static func gateBanner(_ report: EvalReport) -> String {
        guard let gate = report.gate else { return "" }
        let rows = (gate.checks.filter { !$0.passed } + gate.checks.filter(\.passed)).map { check in
            "<li class=\"\(check.passed ? "good" : "bad")\">\(check.passed ? "✓" : "✗") <code>\(escape(check.gate))</code>: \(escape(check.detail))</li>"
        }.joined()
        return "<div class=\"\(gate.passed ? "verdict" : "banner")\" id=\"gate\"\(gate.passed ? "" : " role=\"alert\"")><strong>Gate: \(escape(gate.headline))</strong>"
            + "<ul>\(rows)</ul></div>"
    }

    /// A red banner over everything else when a variant's extractions failed: its numbers then measure the failure,
    /// not the prompt.
    static func failureBanner(_ report: EvalReport) -> String {
        let failed = report.variants.filter { !$0.errors.isEmpty }
        guard !failed.isEmpty else { return "" }
        return "<div class=\"banner\" role=\"alert\"><strong>Extractions failed: these numbers do not measure the prompts.</strong><ul>"
            + failed.map { "<li>\(escape(EvalGates.failedExtractions($0)))</li>" }.joined()
            + "</ul></div>\n"
    }

    /// Escapes `& < > " '` so text is safe in element content and in quoted attributes.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static let css = """
        body{font:14px/1.4 -apple-system,system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
        table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:3px 7px;vertical-align:top}
        th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f3f3f3;padding:0 3px}
        .charts{display:flex;flex-wrap:wrap;gap:12px}.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
        .tp{background:#e6f4ea}.fp{background:#fdecea}.fn{background:#fff4e5}.bad{color:#b00020;font-weight:600}
        .mark{font-weight:700;text-align:center}details{margin:.3em 0;border:1px solid #ddd;padding:.3em .6em}
        summary{cursor:pointer}.msg td:nth-child(4){white-space:pre-wrap}.good{color:#137333}
        .banner{background:#fdecea;border:2px solid #b00020;color:#5f0010;padding:.6em 1em;margin:0 0 1em}
        .banner ul,.verdict ul{margin:.3em 0 0;padding-left:1.2em}.verdict{background:#e6f4ea;border:2px solid #137333;padding:.6em 1em;margin:0 0 1em}.prompts{font-size:12px;color:#444}.prompts code{font-size:11px}
        .filters button{margin-right:4px}.filters button.on{background:#222;color:#fff}th.sort{cursor:pointer;text-decoration:underline dotted}
        td.up{color:#137333;font-weight:600}td.down{color:#b00020;font-weight:600}tr.failed td:first-child{border-left:4px solid #b00020}
        .index{max-height:32em;overflow:auto;display:inline-block;border:1px solid #ddd}.index table{margin:0}
        .msg td:nth-child(3){white-space:nowrap}.index thead th{position:sticky;top:0}
        """

    static let colors = ["#4e79a7", "#f28e2b", "#59a14f"]

    // MARK: Charts

    static func charts(_ report: EvalReport) -> String {
        var out = "<h2>Precision, recall and F1</h2>\n<p class=\"legend\">"
        for (name, color) in zip(["precision", "recall", "F1"], colors) { out += "<span style=\"background:\(color)\"></span>\(name)" }
        out += "</p>\n<div class=\"charts\">\n"
        for feature in report.features {
            out += chart(title: feature.rawValue, report.variants.map { ($0.id, $0.score.features[feature]?.metrics ?? .zero) })
        }
        out += chart(title: "micro", report.variants.map { ($0.id, $0.score.micro) })
        return out + "</div>\n"
    }

    /// A grouped bar chart: one group of three bars (P, R, F1) per variant, 0 to 1.
    static func chart(title: String, _ groups: [(String, Metrics)]) -> String {
        let bar = 16.0, gap = 2.0, groupGap = 22.0, plot = 120.0, top = 26.0, left = 30.0
        let groupWidth = 3 * bar + 2 * gap
        let width = max(170, left + Double(groups.count) * (groupWidth + groupGap) + 4)
        let height = top + plot + 34
        func y(_ v: Double) -> Double { top + plot * (1 - min(1, max(0, v))) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(escape(title))\">"
        svg += "<text x=\"4\" y=\"14\" font-size=\"13\" font-weight=\"600\">\(escape(title))</text>"
        for tick in [0.0, 0.5, 1.0] {
            svg += "<line x1=\"\(left)\" x2=\"\(width - 2)\" y1=\"\(y(tick))\" y2=\"\(y(tick))\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(left - 4)\" y=\"\(y(tick) + 4)\" font-size=\"10\" text-anchor=\"end\">\(tick)</text>"
        }
        for (index, (name, metrics)) in groups.enumerated() {
            let x0 = left + 8 + Double(index) * (groupWidth + groupGap)
            for (k, rate) in [metrics.precision, metrics.recall, metrics.f1].enumerated() {
                let x = x0 + Double(k) * (bar + gap)
                guard let value = rate else {
                    // Nothing predicted: no bar, a dash where it would stand.
                    svg += "<text x=\"\(x + bar / 2)\" y=\"\(top + plot - 3)\" font-size=\"12\" text-anchor=\"middle\" fill=\"\(colors[k])\"><title>\(escape(name)) precision undefined: nothing predicted</title>—</text>"
                    continue
                }
                let h = plot * min(1, max(0, value))
                svg += "<rect x=\"\(x)\" y=\"\(y(value))\" width=\"\(bar)\" height=\"\(h)\" fill=\"\(colors[k])\"><title>\(escape(name)) \(["precision", "recall", "F1"][k]) \(EvalFormat.rate(value))</title></rect>"
            }
            svg += "<text x=\"\(x0 + groupWidth / 2)\" y=\"\(top + plot + 13)\" font-size=\"10\" text-anchor=\"middle\">\(escape(name))</text>"
            svg += "<text x=\"\(x0 + groupWidth / 2)\" y=\"\(top + plot + 26)\" font-size=\"10\" text-anchor=\"middle\">F1 \(EvalFormat.rate(metrics.f1))</text>"
        }
        return svg + "</svg>\n"
    }

    // MARK: Tables

    static func scoreTable(_ report: EvalReport) -> String {
        let compares = report.main == nil ? [] : report.variants.filter { $0.role == .compare }
        var out = "<h2>Scores</h2>\n<table><tr><th rowspan=\"2\">feature</th>"
        for v in report.variants { out += "<th colspan=\"6\">\(escape(v.id))</th>" }
        for v in compares { out += "<th rowspan=\"2\" title=\"F1 of \(escape(v.id)) minus F1 of the main variant\">ΔF1<br>\(escape(v.id))</th>" }
        out += "</tr><tr>" + report.variants.map { _ in "<th>TP</th><th>FP</th><th>FN</th><th>P</th><th>R</th><th>F1</th>" }.joined() + "</tr>\n"
        func row(_ name: String, _ metrics: (EvalVariantReport) -> Metrics?) -> String {
            "<tr><th>\(escape(name))</th>" + report.variants.map { v in
                guard let m = metrics(v) else { return "<td colspan=\"6\">-</td>" }
                return [String(m.tp), String(m.fp), String(m.fn), EvalFormat.rate(m.precision), EvalFormat.rate(m.recall), EvalFormat.rate(m.f1)]
                    .map { "<td class=\"n\">\($0)</td>" }.joined()
            }.joined() + compares.map { v in
                guard let main = report.main, let a = metrics(main), let b = metrics(v) else { return "<td class=\"n\">-</td>" }
                return deltaCell(b.f1 - a.f1)
            }.joined() + "</tr>\n"
        }
        for feature in report.features { out += row(feature.rawValue) { $0.score.features[feature]?.metrics } }
        out += row("micro") { $0.score.micro }
        if report.variants.contains(where: { $0.nights != nil }) {
            out += row("nights: micro") { $0.nights?.micro }
            out += row("last nights") { $0.nights?.lastNights }
            out += "<tr><th>exactly right</th>" + report.variants.map { v in
                "<td colspan=\"6\">" + (v.nights.map { "\($0.exact) of \($0.nights.count) nights (\(EvalFormat.rate($0.exactShare)))" } ?? "-") + "</td>"
            }.joined() + compares.map { _ in "<td></td>" }.joined() + "</tr>\n"
        }
        return out + "</table>\n" + nightsTable(report)
    }

    /// Each nights fixture of the main variant, night by night: F1, and whether the night was shown exactly right.
    static func nightsTable(_ report: EvalReport) -> String {
        guard let main = report.main, let nights = main.nights else { return "" }
        var order: [String] = []
        for night in nights.nights where !order.contains(night.fixture) { order.append(night.fixture) }
        var out = "<h2>Nights (\(escape(main.id)))</h2>\n<table><tr><th>fixture</th><th>F1 per night (✓ exactly right)</th></tr>\n"
        for fixture in order {
            let cells = nights.nights.filter { $0.fixture == fixture }
                .map { "night \($0.night): \(EvalFormat.rate($0.metrics.f1))\($0.exact ? " ✓" : "")" }.joined(separator: " · ")
            out += "<tr><th>\(escape(fixture))</th><td>\(escape(cells))</td></tr>\n"
        }
        return out + "</table>\n"
    }

    /// A signed change, green when up and red when down; a dash when undefined (precision with nothing predicted).
    static func deltaCell(_ delta: Double?) -> String {
        guard let delta else { return "<td class=\"n\">—</td>" }
        let rounded = (delta * 1000).rounded() / 1000
        return "<td class=\"n\(rounded > 0 ? " up" : rounded < 0 ? " down" : "")\">\(EvalFormat.delta(delta))</td>"
    }

    /// Every prompt each variant sent, with the start of its SHA-256: two runs of the same id and version with
    /// different text differ here.
    static func promptHeader(_ report: EvalReport) -> String {
        var seen = Set<String>()
        var items: [String] = []
        for variant in report.variants where variant.provider != "rules" {
            for feature in report.features {
                guard let ref = variant.prompts[feature], let sha = ref.sha256, seen.insert("\(ref.id)@\(ref.version)").inserted else { continue }
                items.append("<code title=\"sha256 \(escape(sha))\">\(escape(ref.id))@\(ref.version) \(escape(String(sha.prefix(12))))</code>")
            }
        }
        guard !items.isEmpty else { return "" }
        return "<p class=\"prompts\">Prompts (id@version sha256): \(items.joined(separator: " "))</p>\n"
    }

    /// One row per fixture: F1 of each variant, the change from main to the first compare variant and against the
    /// baseline, and whether its extraction failed; sortable by F1, by either change, and filterable (F1 below 1,
    /// changed, extraction failed, regressed) with a few lines of script.
    static func fixtureIndex(_ report: EvalReport) -> String {
        let compare = report.main == nil ? nil : report.variants.first { $0.role == .compare }
        let scored = report.variants.map { v in (v, Dictionary(v.score.fixtures.map { ($0.fixture, $0) }, uniquingKeysWith: { a, _ in a })) }
        let regressions = Dictionary(report.baseline?.regressions.map { ($0.fixture, $0.current.f1 - $0.baseline.f1) } ?? [],
                                     uniquingKeysWith: { a, _ in a })
        let regressed = Set(regressions.keys)
        let ids = report.main?.score.fixtures.map(\.fixture) ?? report.variants.first?.score.fixtures.map(\.fixture) ?? []
        var rows: [String] = []
        var counts = ["all": ids.count, "changed": 0, "imperfect": 0, "failed": 0, "regressed": 0]
        for id in ids {
            let f1s = scored.map { _, byFixture in byFixture[id].map { EvalFormat.metrics($0, report.features).f1 } }
            // The first variant's F1 (the main one's when there is one): what the F1 sort and the "F1 below 1" filter read.
            let first = f1s.first.flatMap { $0 } ?? 0
            var delta: Double?
            if let compare, let main = report.main, let a = scored.first(where: { $0.0.id == main.id })?.1[id],
               let b = scored.first(where: { $0.0.id == compare.id })?.1[id] {
                delta = EvalFormat.metrics(b, report.features).f1 - EvalFormat.metrics(a, report.features).f1
            }
            // Per variant, the features whose extraction failed on this fixture ("all" when every one did).
            let failures = report.variants.map { v in v.errors.filter { $0.fixture == id }.flatMap { $0.features ?? [$0.feature] } }
            let failed = zip(report.variants, failures).compactMap { v, features -> String? in
                guard !features.isEmpty else { return nil }
                return "\(v.id): " + (v.ranFeatures.count > 1 && Set(features).isSuperset(of: v.ranFeatures)
                    ? "all \(v.ranFeatures.count) features" : features.map(\.rawValue).joined(separator: ", "))
            }
            let changed = delta.map { abs($0) >= 0.0005 } ?? false
            let imperfect = first < 0.9995
            for (filter, on) in [("changed", changed), ("imperfect", imperfect), ("failed", !failed.isEmpty), ("regressed", regressed.contains(id))]
            where on {
                counts[filter, default: 0] += 1
            }
            var row = "<tr data-delta=\"\(delta.map { String(format: "%.4f", $0) } ?? "0")\" data-f1=\"\(String(format: "%.4f", first))\" "
                + "data-regression=\"\(String(format: "%.4f", regressions[id] ?? 0))\" data-changed=\"\(changed)\" data-imperfect=\"\(imperfect)\" "
                + "data-failed=\"\(!failed.isEmpty)\" data-regressed=\"\(regressed.contains(id))\"\(failed.isEmpty ? "" : " class=\"failed\"")>"
            row += "<td><a href=\"#fx-\(escape(id))\">\(escape(id))</a>"
                + (regressed.contains(id) ? " <span class=\"bad\" title=\"the main variant's F1 fell against the baseline\">regressed</span>" : "") + "</td>"
            row += zip(f1s, failures).map { f1, failedFeatures in
                // A failed extraction predicts nothing, which can still score 1.000 where nothing was expected: mark it.
                failedFeatures.isEmpty ? "<td class=\"n\">\(f1.map { EvalFormat.rate($0) } ?? "-")</td>"
                    : "<td class=\"n bad\" title=\"extractions failed: scored as predicting nothing\">\(f1.map { EvalFormat.rate($0) } ?? "-") ✗</td>"
            }.joined()
            if compare != nil { row += delta.map { deltaCell($0) } ?? "<td class=\"n\">-</td>" }
            if report.baseline != nil { row += regressions[id].map { deltaCell($0) } ?? "<td class=\"n\">-</td>" }
            row += "<td>\(escape(failed.joined(separator: "; ")))</td></tr>\n"
            rows.append(row)
        }
        var out = "<h2>Fixtures at a glance</h2>\n<p class=\"filters\">Show: "
        // "changed" compares main with a compare variant; without one there is nothing to filter on.
        // "failed" is an extraction that failed (a dead server, an invalid answer); "F1 below 1" is a wrong answer.
        let filters = [("all", "all"), ("imperfect", "F1 below 1"), ("changed", "changed"), ("failed", "extraction failed"),
                       ("regressed", "regressed")]
            .filter { (compare != nil || $0.0 != "changed") && (report.baseline != nil || $0.0 != "regressed") }
        for (filter, label) in filters {
            out += "<button type=\"button\" data-filter=\"\(filter)\"\(filter == "all" ? " class=\"on\"" : "")>\(label) (\(counts[filter] ?? 0))</button>"
        }
        out += " <span id=\"fx-count\"></span></p>\n<div class=\"index\"><table id=\"fx-index\"><thead><tr><th>fixture</th>"
        out += report.variants.enumerated().map { index, variant in
            index == 0 ? "<th class=\"sort\" data-sort=\"f1\" title=\"click to sort: lowest F1 first, then highest\">F1 \(escape(variant.id)) <span></span></th>"
                : "<th>F1 \(escape(variant.id))</th>"
        }.joined()
        if let compare {
            out += "<th class=\"sort\" data-sort=\"delta\" title=\"click to sort: largest drop first, then largest gain first\">"
                + "ΔF1 \(escape(compare.id)) − main <span></span></th>"
        }
        if report.baseline != nil {
            out += "<th class=\"sort\" data-sort=\"regression\" title=\"click to sort: largest drop against the baseline first\">"
                + "ΔF1 vs baseline <span></span></th>"
        }
        out += "<th>extraction failed</th></tr></thead><tbody>\n" + rows.joined()
        out += "</tbody></table></div>\n"
        // Filters hide rows by their data attributes; each sortable header sorts by its column, lowest first, then back.
        out += """
            <script>
            (function(){var t=document.getElementById('fx-index');if(!t)return;var b=t.tBodies[0],n=document.getElementById('fx-count');
            function show(f){var k=0;for(var r of b.rows){var v=f==='all'||r.dataset[f]==='true';r.hidden=!v;if(v)k++;}n.textContent=k+' of '+b.rows.length+' fixtures';
            for(var x of document.querySelectorAll('[data-filter]'))x.classList.toggle('on',x.dataset.filter===f);}
            for(var x of document.querySelectorAll('[data-filter]'))x.onclick=function(){show(this.dataset.filter);};
            for(var h of t.querySelectorAll('[data-sort]')){h.up=true;h.onclick=function(){var k=this.dataset.sort,up=this.up,rs=Array.from(b.rows);
            rs.sort(function(p,q){return up?p.dataset[k]-q.dataset[k]:q.dataset[k]-p.dataset[k];});
            for(var o of t.querySelectorAll('[data-sort] span'))o.textContent='';this.querySelector('span').textContent=up?'▲ lowest first':'▼ highest first';
            this.up=!up;rs.forEach(function(r){b.appendChild(r);});};}
            show('all');})();
            </script>

            """
        return out
    }

    /// Field accuracy on matched pairs, and latency, per variant.
    static func fieldTable(_ report: EvalReport) -> String {
        var out = "<h2>Field accuracy and latency</h2>\n<table><tr><th>field</th>" + report.variants.map { "<th>\(escape($0.id))</th>" }.joined() + "</tr>\n"
        var any = false
        for feature in report.features {
            let fields = Set(report.variants.flatMap { $0.score.features[feature]?.fieldAccuracy.keys.map { $0 } ?? [] }).sorted()
            for field in fields {
                any = true
                out += "<tr><td>\(feature.rawValue).\(escape(field))</td>" + report.variants.map { v in
                    guard let a = v.score.features[feature]?.fieldAccuracy[field], a.total > 0 else { return "<td class=\"n\">-</td>" }
                    return "<td class=\"n\(a.correct < a.total ? " bad" : "")\">\(a.accuracy.map { EvalFormat.rate($0) } ?? "-") (\(a.correct)/\(a.total))</td>"
                }.joined() + "</tr>\n"
            }
        }
        if !any { out += "<tr><td colspan=\"\(report.variants.count + 1)\">no matched pairs to judge</td></tr>\n" }
        out += "<tr><td>latency p50 / p95 / max per extraction</td>" + report.variants.map { v in
            guard let l = v.latency else { return "<td class=\"n\">-</td>" }
            return "<td class=\"n\">" + String(format: "%.0f / %.0f / %.0f ms", l.p50Ms, l.p95Ms, l.maxMs) + "</td>"
        }.joined() + "</tr>\n"
        return out + "</table>\n"
    }

    static func variantTable(_ report: EvalReport) -> String {
        var out = "<h2>Variants</h2>\n<table><tr><th>variant</th><th>role</th><th>label</th><th>provider / model</th><th>prompts</th>"
            + "<th>requests</th><th>tokens</th><th>cache</th><th>failed</th></tr>\n"
        for v in report.variants {
            out += "<tr><td>\(escape(v.id))</td><td>\(v.role.rawValue)</td><td>\(escape(v.label))</td><td>\(escape(v.provider)) / \(escape(v.model))</td>"
                + "<td>\(escape(EvalFormat.prompts(v, report.features)))</td><td class=\"n\">\(v.requests) (\(v.reasks) re-asks)</td>"
                + "<td>\(escape(EvalFormat.usage(v.usage)))</td><td>\(escape(EvalFormat.cache(v.cache)))</td><td class=\"n\">\(v.errors.count)</td></tr>\n"
        }
        out += "</table>\n"
        let errors = report.variants.flatMap { v in v.errors.map { (v.id, $0) } }
        if !errors.isEmpty {
            out += "<h3>Failed extractions</h3>\n<p>Counted as predicting nothing.</p>\n<table><tr><th>variant</th><th>fixture</th><th>feature</th><th>error</th></tr>\n"
            for (variant, error) in errors {
                out += "<tr><td>\(escape(variant))</td><td>\(escape(error.fixture))</td><td>\(escape(error.unit))</td><td>\(escape(error.detail))</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }

    /// Per variant and feature, how the evidence check kept, moved or dropped the model's items.
    static func groundingSection(_ report: EvalReport) -> String {
        var out = "<h2>Grounding</h2>\n<p>How each item's quoted evidence was checked: verbatim in a cited message, aligned "
            + "with one (a little misquoted), moved to the message it is in, or dropped (in no message, or citing only "
            + "unknown ids); and dates kept from the model because code could not read the whole phrase.</p>\n"
            + "<table><tr><th>variant</th><th>feature</th><th>exact</th><th>aligned</th><th>re-cited</th><th>dropped</th>"
            + "<th>model dates kept</th></tr>\n"
        for v in report.variants {
            for feature in report.features {
                let g = v.grounding?[feature] ?? GroundingCounts()
                out += "<tr><td>\(escape(v.id))</td><td>\(feature.rawValue)</td><td class=\"n\">\(g.exact)</td>"
                    + "<td class=\"n\">\(g.aligned)</td><td class=\"n\">\(g.recited)</td><td class=\"n\">\(g.dropped)</td>"
                    + "<td class=\"n\">\(g.datesUnconfirmed)</td></tr>\n"
            }
        }
        return out + "</table>\n"
    }

    static func preFilterSection(_ report: EvalReport) -> String {
        let audit = report.preFilter
        var out = "<h2>Pre-filter</h2>\n<p>The scan's pre-filter drops \(audit.droppedMessages) of \(audit.messages) fixture messages. "
            + "Expected items citing only dropped messages (must be 0): <strong class=\"\(audit.totalMisses == 0 ? "good" : "bad")\">\(audit.totalMisses)</strong>.</p>\n"
        out += "<table><tr><th>feature</th><th>expected items</th><th>citing only dropped messages</th></tr>\n"
        for feature in report.features {
            let count = audit.features[feature] ?? PreFilterCount()
            out += "<tr><td>\(feature.rawValue)</td><td class=\"n\">\(count.expected)</td><td class=\"n\">\(count.onlyDropped)</td></tr>\n"
        }
        out += "</table>\n"
        if !audit.misses.isEmpty {
            out += "<ul>" + audit.misses.map {
                "<li>\(escape($0.fixture)) \($0.feature.rawValue)[\($0.expectedIndex)]: sources \(escape($0.sources.joined(separator: ", ")))</li>"
            }.joined() + "</ul>\n"
        }
        return out
    }

    static func baselineSection(_ baseline: BaselineComparison, features: [ExtractionFeature]) -> String {
        var out = "<h2>Versus baseline</h2>\n<p>Main variant against <code>\(escape(baseline.path))</code>.</p>\n"
        out += "<table><tr><th>feature</th><th>F1 before</th><th>F1 now</th><th>ΔF1</th><th>ΔP</th><th>ΔR</th></tr>\n"
        func row(_ name: String, _ d: FeatureDelta) -> String {
            "<tr><td>\(escape(name))</td><td class=\"n\">\(EvalFormat.rate(d.baseline.f1))</td><td class=\"n\">\(EvalFormat.rate(d.current.f1))</td>"
                + [d.f1Delta, d.precisionDelta, d.recallDelta].map { deltaCell($0) }.joined() + "</tr>\n"
        }
        for feature in features { if let d = baseline.features[feature] { out += row(feature.rawValue, d) } }
        out += row("micro", baseline.micro) + "</table>\n"
        if baseline.regressions.isEmpty {
            out += "<p>No fixture regressed.</p>\n"
        } else {
            out += "<h3>Regressed fixtures</h3>\n<table><tr><th>fixture</th><th>F1 before</th><th>F1 now</th><th>TP before</th><th>TP now</th><th>features</th></tr>\n"
            for r in baseline.regressions {
                out += "<tr><td><a href=\"#fx-\(escape(r.fixture))\">\(escape(r.fixture))</a></td><td class=\"n\">\(EvalFormat.rate(r.baseline.f1))</td>"
                    + "<td class=\"n bad\">\(EvalFormat.rate(r.current.f1))</td><td class=\"n\">\(r.baseline.tp)</td><td class=\"n\">\(r.current.tp)</td>"
                    + "<td>\(r.features.map(\.rawValue).joined(separator: ", "))</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }

    // MARK: Fixtures

    static func fixtureSections(_ report: EvalReport, fixtures: [Fixture]) -> String {
        var out = "<h2>Fixtures</h2>\n<p>Per fixture and feature, for each variant: expected beside predicted. "
            + "<span class=\"tp\">TP</span> matched (wrong fields in red), <span class=\"fn\">FN</span> missed, "
            + "<span class=\"fp\">FP</span> predicted but not expected.</p>\n"
        // A nights fixture is shown night by night (`<id>#<n>`), each with the messages up to that night.
        let byID = Dictionary(fixtures.flatMap { $0.nights == nil ? [$0] : $0.nightFixtures }.map { ($0.id, $0) },
                              uniquingKeysWith: { first, _ in first })
        let scores = report.variants.map { v in
            (v, Dictionary(v.score.fixtures.map { ($0.fixture, $0) }, uniquingKeysWith: { first, _ in first }))
        }
        let ids = report.main?.score.fixtures.map(\.fixture) ?? fixtures.map(\.id)
        for id in ids {
            let badges = scores.map { v, byFixture in
                let m = byFixture[id].map { EvalFormat.metrics($0, report.features) } ?? .zero
                let failed = v.errors.contains { $0.fixture == id } ? " <span class=\"bad\">✗ extraction failed</span>" : ""
                return "\(escape(v.id)) F1 \(EvalFormat.rate(m.f1))\(failed)"
            }.joined(separator: " · ")
            out += "<details id=\"fx-\(escape(id))\"><summary><strong>\(escape(id))</strong> — \(badges)</summary>\n"
            if let fixture = byID[id] {
                out += "<p>\(escape(fixture.description))</p>\n"
                out += "<p>Reference: \(escape(fixture.reference.now.text)) \(escape(fixture.reference.timezone)), user \(escape(fixture.reference.user))</p>\n"
                out += "<table class=\"msg\"><tr><th>id</th><th>sender</th><th>sent at</th><th>text</th></tr>\n"
                for m in fixture.messages {
                    out += "<tr><td>\(escape(m.id))</td><td>\(escape(m.sender))</td><td>\(escape(m.sentAt.text))</td><td>\(escape(m.text))</td></tr>\n"
                }
                out += "</table>\n"
            }
            for feature in report.features {
                let details = scores.compactMap { v, byFixture in byFixture[id]?.features[feature].map { (v.id, $0) } }
                guard details.contains(where: { !$0.1.matched.isEmpty || !$0.1.falsePositives.isEmpty || !$0.1.falseNegatives.isEmpty }) else { continue }
                out += "<h4>\(feature.rawValue)</h4>\n<table><tr><th>variant</th><th></th><th>expected</th><th>predicted</th></tr>\n"
                for (variant, detail) in details {
                    var rows: [String] = []
                    for pair in detail.matched {
                        let wrong = pair.fields.filter { !$0.value }.keys.sorted()
                        let note = wrong.isEmpty ? "" : "<br><span class=\"bad\">wrong: \(escape(wrong.joined(separator: ", ")))</span>"
                        rows.append("<tr class=\"tp\"><td class=\"mark\">TP</td><td>\(item(pair.expected))</td><td>\(item(pair.predicted))\(note)</td></tr>")
                    }
                    for miss in detail.falseNegatives {
                        rows.append("<tr class=\"fn\"><td class=\"mark\">FN</td><td>\(item(miss.expected))</td><td>—</td></tr>")
                    }
                    for extra in detail.falsePositives {
                        let note = extra.dateMistake ? "<br><span class=\"bad\">date mistake</span>" : ""
                        rows.append("<tr class=\"fp\"><td class=\"mark\">FP</td><td>—</td><td>\(item(extra.predicted))\(note)</td></tr>")
                    }
                    if rows.isEmpty { rows.append("<tr><td class=\"mark\"></td><td colspan=\"2\">nothing expected, nothing predicted</td></tr>") }
                    out += rows.enumerated().map { index, row in
                        // The variant cell spans the variant's rows.
                        let cell = index == 0 ? "<td rowspan=\"\(rows.count)\">\(escape(variant))</td>" : ""
                        guard let end = row.firstIndex(of: ">") else { return row }
                        return String(row[...end]) + cell + String(row[row.index(after: end)...])
                    }.joined(separator: "\n") + "\n"
                }
                out += "</table>\n"
            }
            out += itemNotes(report, fixture: id)
            out += "</details>\n"
        }
        return out
    }

    /// Per variant, each item of the fixture the checks dropped or corrected, and why.
    static func itemNotes(_ report: EvalReport, fixture: String) -> String {
        let rows = report.variants.flatMap { v in
            (v.notes ?? []).filter { $0.fixture == fixture }.map { note in
                "<tr\(note.dropped ? " class=\"fp\"" : "")><td>\(escape(v.id))</td><td>\(escape(note.feature.rawValue))</td>"
                    + "<td>\(note.dropped ? "dropped" : "corrected")</td><td>\(escape(note.kind))</td><td>\(escape(note.message))</td></tr>"
            }
        }
        guard !rows.isEmpty else { return "" }
        return "<h4>Dropped or corrected by the checks</h4>\n<table class=\"notes\"><tr><th>variant</th><th>feature</th><th></th>"
            + "<th>why</th><th>item</th></tr>\n" + rows.joined(separator: "\n") + "\n</table>\n"
    }

    static func item(_ value: JSONValue) -> String { escape(EvalReport.itemText(value)) }
}
