#include "report/render/report_html.h"

#include <fmt/format.h>

#include "report/render/markdown_html.h"

namespace mt {
namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.45;
max-width:1200px;margin:2em auto;padding:0 1em;color:#1f2328}
h1,h2,h3{line-height:1.25}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.25em .6em;vertical-align:top}th{background:#f6f8fa;cursor:pointer;
user-select:none;white-space:nowrap}td.num,th.num{text-align:right;white-space:nowrap}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
code{background:#f6f8fa;padding:.1em .3em;border-radius:4px;font-size:.9em}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto}pre code{padding:0;background:none}
blockquote{margin:1em 0;padding:.2em 1em;border-left:4px solid #d29922;background:#fff8e5}
figure{margin:1.2em 0}figcaption{font-size:.9em;color:#59636e}figure svg{max-width:100%;height:auto}
details{margin:1em 0}summary{cursor:pointer}
nav.contents{font-size:.9em;border:1px solid #d0d7de;padding:.4em 1em;margin:1em 0;background:#f6f8fa}
nav.contents ul{margin:.2em 0;padding-left:1.2em;columns:2})";

// Sorts a table by the clicked column: numerically where both cells start with a number, else as
// text; cells without a value ("-") go last; a second click reverses the order.
constexpr const char* kSortScript = R"(document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    function key(row) {
      var text = row.cells[column] ? row.cells[column].textContent.trim() : "";
      var number = /^[-+]?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?/i.exec(text.replace(/,/g, ""));
      return { empty: text === "" || text === "-", number: number ? parseFloat(number[0]) : null, text: text };
    }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x.empty !== y.empty) return x.empty ? 1 : -1;
      var order = x.number !== null && y.number !== null ? x.number - y.number : x.text.localeCompare(y.text);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});)";

// Links to the page's sections (its second-level headings), for a page too long to scroll through.
std::string contents(const std::string& markdown) {
  std::string items;
  size_t start = 0;
  for (size_t end; (end = markdown.find('\n', start)) != std::string::npos; start = end + 1) {
    if (markdown.compare(start, 3, "## ") != 0) continue;
    const std::string title = markdown.substr(start + 3, end - start - 3);
    items += fmt::format("<li><a href=\"#{}\">{}</a></li>", html_escape(heading_anchor(title)), html_escape(title));
  }
  return items.empty() ? "" : "<nav class=\"contents\"><strong>Contents</strong><ul>" + items + "</ul></nav>\n";
}

// The contents go after the title and the paragraphs under it, before the first section.
std::string with_contents(const std::string& body, const std::string& nav) {
  const size_t first_section = body.find("<h2 ");
  if (nav.empty() || first_section == std::string::npos) return body;
  return body.substr(0, first_section) + nav + body.substr(first_section);
}

std::string title_of(const std::string& markdown) {
  if (markdown.rfind("# ", 0) != 0) return "report";
  return markdown.substr(2, markdown.find('\n') - 2);
}

}  // namespace

std::string render_report_html(const RenderedReport& report, const std::string& plot_dir) {
  auto inline_plot = [&](const std::string& caption, const std::string& path) {
    for (const auto& plot : report.plots) {
      if (path == plot_dir + "/" + plot.file) {
        return fmt::format("<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>", plot.svg, html_escape(caption));
      }
    }
    return fmt::format("<p><img src=\"{}\" alt=\"{}\"></p>", html_escape(path), html_escape(caption));
  };
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
      "<style>\n{}\n</style>\n</head>\n<body>\n{}<script>\n{}\n</script>\n</body>\n</html>\n",
      html_escape(title_of(report.markdown)), kStyle,
      with_contents(markdown_to_html(report.markdown, inline_plot), contents(report.markdown)), kSortScript);
}

}  // namespace mt
