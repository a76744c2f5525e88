#pragma once
// A timeline as SVG: one row per run of several steps (a chain of stages), each step a box whose
// width is its wall time, coloured by how it ended and labelled with its name where it fits, with
// what it observed as the box's tooltip. Plain SVG with fixed decimals, like svg_chart.h.
#include <string>
#include <vector>

namespace mt {

struct TimelineBox {
  double seconds = 0;
  std::string label;   // drawn inside the box when it fits
  std::string detail;  // the tooltip: what happened
  int kind = 0;        // index into TimelineSpec::kinds: its colour and legend entry
};

struct TimelineRow {
  std::string name;
  std::vector<TimelineBox> boxes;
};

struct TimelineSpec {
  std::string title;
  std::string x_title;
  std::vector<std::string> kinds;  // legend names, in palette order
  std::vector<TimelineRow> rows;
};

std::string timeline_svg(const TimelineSpec& spec);

}  // namespace mt
