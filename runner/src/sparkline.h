#pragma once
// A series drawn in one line of text with the eight block characters ▁▂▃▄▅▆▇█, lowest value to
// highest: enough to see a slow step, a drift or a warm-up in a terminal.
#include <cstddef>
#include <string>
#include <vector>

namespace mt {

// At most `width` characters; a longer series is cut into `width` runs of consecutive values, each
// drawn at its largest (a slow step must not be averaged away). Empty for an empty series; a flat
// one is drawn at the lowest level.
std::string sparkline(const std::vector<double>& values, std::size_t width = 60);

}  // namespace mt
