// Bad input found after the job started (a checkpoint that does not fit the run, a fault naming a
// rank that does not exist): every rank finds the same problem, so the job ends with exit 2 on
// every rank rather than an abort.
#pragma once

#include <stdexcept>

namespace mt {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mt
