// The report's markdown as HTML: each construct the report writes becomes its HTML element, text is
// escaped, table cells keep their escaped pipes, and headings carry the anchors links point to.
#include <doctest/doctest.h>

#include "report/render/markdown_html.h"

using namespace mt;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("markdown_html: headings carry GitHub's anchors") {
  CHECK(heading_anchor("Environment and provenance") == "environment-and-provenance");
  CHECK(heading_anchor("Goals at ≥ 1 MiB") == "goals-at--1-mib");
  CHECK(heading_anchor("Step time (ms), p95") == "step-time-ms-p95");
  const std::string html = markdown_to_html("# Title\n\n## Measurement conditions\n");
  CHECK(contains(html, "<h1 id=\"title\">Title</h1>"));
  CHECK(contains(html, "<h2 id=\"measurement-conditions\">Measurement conditions</h2>"));
}

TEST_CASE("markdown_html: a pipe table becomes a sortable table with numeric columns marked") {
  const std::string html = markdown_to_html("| name | value |\n| :-- | --: |\n| a \\| b | 1.5 |\n| `x<y` | 2 |\n");
  CHECK(contains(html, "<table class=\"sortable\">"));
  CHECK(contains(html, "<th>name</th><th class=\"num\">value</th>"));
  CHECK(contains(html, "<td>a | b</td><td class=\"num\">1.5</td>"));
  CHECK(contains(html, "<td><code>x&lt;y</code></td>"));
}

TEST_CASE("markdown_html: inline markup, lists, quotes, code and details") {
  const std::string html = markdown_to_html(
      "Text with **bold**, *within noise* and [a link](#memory) & <b>.\n\n"
      "- one\n- two\n\n"
      "> **Warning.** careful\n\n"
      "- cmd:\n\n  ```\n  mpirun -np 2 a<b\n  ```\n\n"
      "<details><summary>more</summary>\n\nhidden\n\n</details>\n");
  CHECK(contains(html,
                 "<p>Text with <strong>bold</strong>, <em>within noise</em> and <a href=\"#memory\">a link</a> "
                 "&amp; &lt;b&gt;.</p>"));
  CHECK(contains(html, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"));
  CHECK(contains(html, "<blockquote>\n<p><strong>Warning.</strong> careful</p>\n</blockquote>"));
  CHECK(contains(html, "<pre><code>mpirun -np 2 a&lt;b\n</code></pre>"));
  CHECK(contains(html, "<details><summary>more</summary>\n<p>hidden</p>\n</details>"));
}

TEST_CASE("markdown_html: an image line is drawn by the given renderer") {
  const std::string html =
      markdown_to_html("![Tokens per second](plots/t.svg)\n", [](const std::string& caption, const std::string& path) {
        return "<figure>" + caption + "@" + path + "</figure>";
      });
  CHECK(contains(html, "<figure>Tokens per second@plots/t.svg</figure>"));
  CHECK(contains(markdown_to_html("![c](p.svg)\n"), "<img src=\"p.svg\" alt=\"c\">"));
}
