#include "report/render/markdown_html.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

namespace mt {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string trim_left(const std::string& text) {
  const auto start = text.find_first_not_of(' ');
  return start == std::string::npos ? "" : text.substr(start);
}

std::string trim(const std::string& text) {
  std::string out = trim_left(text);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\r')) out.pop_back();
  return out;
}

std::size_t indent_of(const std::string& line) {
  const auto start = line.find_first_not_of(' ');
  return start == std::string::npos ? line.size() : start;
}

// Decodes the UTF-8 code point at text[i], advancing i past it.
char32_t next_code_point(const std::string& text, std::size_t& i) {
  const auto byte = static_cast<unsigned char>(text[i++]);
  if (byte < 0x80) return byte;
  int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : 1;
  char32_t cp = byte & (0x3F >> extra);
  while (extra-- > 0 && i < text.size()) cp = (cp << 6) | (static_cast<unsigned char>(text[i++]) & 0x3F);
  return cp;
}

// Letters outside ASCII count as word characters in an anchor; punctuation and symbols do not.
bool is_word_code_point(char32_t cp) {
  if (cp < 0x80) return std::isalnum(static_cast<int>(cp)) || cp == '_';
  if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, arrows, maths, symbols
  if (cp >= 0x3000 && cp <= 0x303F) return false;
  return true;
}

// Inline markdown: code spans, **strong**, *emphasis*, [links](url), backslash escapes.
std::string inline_html(const std::string& text) {
  std::string out;
  bool strong = false, emphasis = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1]))) {
      out += html_escape(std::string(1, text[++i]));
    } else if (c == '`') {
      const auto end = text.find('`', i + 1);
      if (end == std::string::npos) {
        out += c;
        continue;
      }
      out += "<code>" + html_escape(text.substr(i + 1, end - i - 1)) + "</code>";
      i = end;
    } else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      const bool closes = strong;
      const bool opens = !strong && text.find("**", i + 2) != std::string::npos;
      if (closes || opens) {
        out += closes ? "</strong>" : "<strong>";
        strong = !strong;
      } else {
        out += "**";
      }
      ++i;
    } else if (c == '*') {
      const bool opens =
          !emphasis && i + 1 < text.size() && text[i + 1] != ' ' && text.find('*', i + 1) != std::string::npos;
      const bool closes = emphasis && i > 0 && text[i - 1] != ' ';
      if (opens || closes) {
        out += closes ? "</em>" : "<em>";
        emphasis = !emphasis;
      } else {
        out += c;
      }
    } else if (c == '[') {
      const auto close = text.find("](", i + 1);
      const auto end = close == std::string::npos ? close : text.find(')', close + 2);
      if (end == std::string::npos || text.find('\n', i) < end) {
        out += c;
        continue;
      }
      const std::string label = text.substr(i + 1, close - i - 1);
      const std::string target = text.substr(close + 2, end - close - 2);
      out += fmt::format("<a href=\"{}\">{}</a>", html_escape(target), inline_html(label));
      i = end;
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  if (emphasis) out += "</em>";
  if (strong) out += "</strong>";
  return out;
}

// The cells of a table row: split at '|' not escaped by a backslash.
std::vector<std::string> table_cells(const std::string& line) {
  std::string row = trim(line);
  if (!row.empty() && row.front() == '|') row.erase(0, 1);
  if (!row.empty() && row.back() == '|' && (row.size() < 2 || row[row.size() - 2] != '\\')) row.pop_back();
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && (row[i + 1] == '|' || row[i + 1] == '\\')) {
      cell += row[i];
      cell += row[++i];
    } else if (row[i] == '|') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  cells.push_back(trim(cell));
  return cells;
}

bool is_alignment_row(const std::string& line) {
  if (trim(line).empty() || trim(line).front() != '|') return false;
  for (char c : line) {
    if (c != '|' && c != '-' && c != ':' && c != ' ') return false;
  }
  return true;
}

class Converter {
 public:
  Converter(const std::vector<std::string>& lines, const ImageRenderer& image) : lines_(lines), image_(image) {}

  std::string run() {
    while (i_ < lines_.size()) block();
    close_list();
    return out_;
  }

 private:
  void block() {
    const std::string& line = lines_[i_];
    const std::string text = trim(line);
    if (text.empty()) {
      if (!list_continues()) close_list();
      ++i_;
    } else if (starts_with(text, "```")) {
      fence(indent_of(line));
    } else if (text.front() == '#') {
      close_list();
      heading(text);
    } else if (text.front() == '|' && i_ + 1 < lines_.size() && is_alignment_row(lines_[i_ + 1])) {
      close_list();
      table();
    } else if (text.front() == '<') {
      close_list();
      out_ += text + "\n";  // the report's own HTML (<details>), passed through
      ++i_;
    } else if (text.front() == '>') {
      close_list();
      blockquote();
    } else if (starts_with(text, "- ") && indent_of(line) == 0) {
      list_item();
    } else if (starts_with(text, "![") && text.back() == ')') {
      close_list();
      image(text);
    } else {
      if (indent_of(line) == 0) close_list();
      paragraph();
    }
  }

  // A blank line inside a list keeps it open when the next line is indented under an item.
  bool list_continues() const {
    if (!in_list_) return false;
    std::size_t next = i_ + 1;
    while (next < lines_.size() && trim(lines_[next]).empty()) ++next;
    return next < lines_.size() && (indent_of(lines_[next]) >= 2 || starts_with(lines_[next], "- "));
  }

  void close_list() {
    if (!in_list_) return;
    out_ += "</li>\n</ul>\n";
    in_list_ = false;
  }

  void heading(const std::string& text) {
    std::size_t level = 0;
    while (level < text.size() && text[level] == '#') ++level;
    const std::string title = trim(text.substr(level));
    out_ += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", level, html_escape(heading_anchor(title)), inline_html(title));
    ++i_;
  }

  void fence(std::size_t indent) {
    ++i_;
    std::string code;
    while (i_ < lines_.size() && !starts_with(trim(lines_[i_]), "```")) {
      const std::string& line = lines_[i_++];
      code += (indent_of(line) >= indent ? line.substr(std::min(indent, line.size())) : trim_left(line)) + "\n";
    }
    ++i_;  // the closing fence
    out_ += "<pre><code>" + html_escape(code) + "</code></pre>\n";
  }

  void table() {
    const std::vector<std::string> header = table_cells(lines_[i_]);
    const std::vector<std::string> alignment = table_cells(lines_[i_ + 1]);
    i_ += 2;
    auto align = [&](std::size_t column) {
      return column < alignment.size() && !alignment[column].empty() && alignment[column].back() == ':' &&
                     alignment[column].front() != ':'
                 ? " class=\"num\""
                 : "";
    };
    out_ += "<table class=\"sortable\">\n<thead><tr>";
    for (std::size_t c = 0; c < header.size(); ++c)
      out_ += fmt::format("<th{}>{}</th>", align(c), inline_html(header[c]));
    out_ += "</tr></thead>\n<tbody>\n";
    while (i_ < lines_.size() && !trim(lines_[i_]).empty() && trim(lines_[i_]).front() == '|') {
      const std::vector<std::string> cells = table_cells(lines_[i_++]);
      out_ += "<tr>";
      for (std::size_t c = 0; c < header.size(); ++c)
        out_ += fmt::format("<td{}>{}</td>", align(c), c < cells.size() ? inline_html(cells[c]) : "");
      out_ += "</tr>\n";
    }
    out_ += "</tbody>\n</table>\n";
  }

  void blockquote() {
    std::string inner;
    while (i_ < lines_.size() && !trim(lines_[i_]).empty() && trim(lines_[i_]).front() == '>') {
      std::string text = trim(lines_[i_++]).substr(1);
      if (!text.empty() && text.front() == ' ') text.erase(0, 1);
      inner += text + "\n";
    }
    std::vector<std::string> inner_lines;
    std::size_t start = 0;
    for (std::size_t end; (end = inner.find('\n', start)) != std::string::npos; start = end + 1)
      inner_lines.push_back(inner.substr(start, end - start));
    out_ += "<blockquote>\n" + Converter(inner_lines, image_).run() + "</blockquote>\n";
  }

  void list_item() {
    if (!in_list_) {
      out_ += "<ul>\n<li>";
      in_list_ = true;
    } else {
      out_ += "</li>\n<li>";
    }
    std::string text = trim(lines_[i_++]).substr(2);
    while (i_ < lines_.size() && !trim(lines_[i_]).empty() && indent_of(lines_[i_]) >= 2 &&
           !starts_with(trim(lines_[i_]), "```"))
      text += "\n" + trim(lines_[i_++]);
    out_ += inline_html(text);
  }

  void image(const std::string& text) {
    const auto close = text.find("](");
    const std::string caption = text.substr(2, close - 2);
    const std::string path = text.substr(close + 2, text.size() - close - 3);
    out_ += image_ ? image_(caption, path)
                   : fmt::format("<p><img src=\"{}\" alt=\"{}\"></p>", html_escape(path), html_escape(caption));
    out_ += "\n";
    ++i_;
  }

  void paragraph() {
    std::string text;
    while (i_ < lines_.size()) {
      const std::string line = trim(lines_[i_]);
      if (line.empty() || line.front() == '#' || line.front() == '|' || line.front() == '<' || line.front() == '>' ||
          starts_with(line, "```") || (starts_with(line, "- ") && indent_of(lines_[i_]) == 0) ||
          (!text.empty() && starts_with(line, "![")))
        break;
      text += (text.empty() ? "" : "\n") + line;
      ++i_;
    }
    if (text.empty()) {  // a line no block rule took: shown as it is
      text = trim(lines_[i_++]);
    }
    out_ += "<p>" + inline_html(text) + "</p>\n";
  }

  const std::vector<std::string>& lines_;
  const ImageRenderer& image_;
  std::size_t i_ = 0;
  bool in_list_ = false;
  std::string out_;
};

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string heading_anchor(const std::string& heading) {
  std::string out;
  const std::string text = trim(heading);
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const char32_t cp = next_code_point(text, i);
    if (cp < 0x80 && std::isupper(static_cast<int>(cp))) {
      out += static_cast<char>(std::tolower(static_cast<int>(cp)));
    } else if (cp == ' ') {
      out += '-';
    } else if (cp == '-' || is_word_code_point(cp)) {
      out += text.substr(start, i - start);
    }
  }
  return out;
}

std::string markdown_to_html(const std::string& markdown, const ImageRenderer& image) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = markdown.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(markdown.substr(start, end - start));
  if (start < markdown.size()) lines.push_back(markdown.substr(start));
  return Converter(lines, image).run();
}

}  // namespace mt
