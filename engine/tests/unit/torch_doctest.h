// Torch (via glog) and doctest both define CHECK-style macros. Include torch first, drop glog's
// short names, then let doctest define its own.
#pragma once

#include <torch/torch.h>

#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE
#include <doctest/doctest.h>
