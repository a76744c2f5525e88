#pragma once
// Descriptive statistics over repeated measurements.
#include <vector>

namespace mt {

double mean(const std::vector<double>& xs);
// Sample standard deviation (n − 1 in the denominator); 0 for fewer than two values.
double sample_std(const std::vector<double>& xs);

}  // namespace mt
