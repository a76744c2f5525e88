#pragma once
// The markdown that reports are written in, as HTML: headings (with the anchors GitHub gives them),
// paragraphs, pipe tables, lists, blockquotes, fenced code, the <details> blocks reports fold long
// tables into, and inline code, emphasis, links and images. Only that subset: it is what the report
// renderer writes, so the HTML says exactly what the markdown says.
#include <functional>
#include <string>

namespace mt {

// What an image line (`![caption](path)`) becomes; the default is an <img> element.
using ImageRenderer = std::function<std::string(const std::string& caption, const std::string& path)>;

std::string markdown_to_html(const std::string& markdown, const ImageRenderer& image = nullptr);

// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens.
std::string heading_anchor(const std::string& heading);

// Text with &, <, > and " escaped for HTML.
std::string html_escape(const std::string& text);

}  // namespace mt
