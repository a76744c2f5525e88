// A checkpoint that cannot be used: missing, damaged, from another configuration, or of a newer
// format. The message names the path or the field and both values. Unusable input: exit 2.
#pragma once

#include "core/job/input_error.h"

namespace mt {

class CheckpointError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace mt
