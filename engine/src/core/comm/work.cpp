#include "core/comm/work.h"

namespace mt {

void wait_all(std::vector<WorkHandle>& works) {
  for (auto& work : works)
    if (work) work->wait();
  works.clear();
}

}  // namespace mt
